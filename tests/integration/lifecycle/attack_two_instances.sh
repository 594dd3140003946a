#!/bin/bash
# Two arpownd in one network namespace, each with its own state directory
# (two units, a container's and the host's, an admin trying a test copy):
# the lock is per state directory, so the second starts.  It finds every
# interface at 8 with no record, records "the default for new interfaces"
# (0) as their originals and answers too: every request gets two replies.
# When the first stops and gives eth0 back its true original (1), the
# second "heals" it to 8, and its own stop then restores 0: the original 1
# is lost.  Expected: the second instance refuses to start in a namespace
# that already has one (e.g. an abstract AF_UNIX socket "\0arpownd" bound
# per netns, or a lock keyed by the netns inode), changing nothing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

sysctl_set h eth0 arp_ignore 1
write_conf "[global]"
arpownd_start h -c "$CONF"
mkdir -p "$TMPDIR_T/state2"
bg_run h "$ARPOWND" -d -c "$CONF" --state-dir "$TMPDIR_T/state2" >"$TMPDIR_T/second.log" 2>&1
B=$LAST_PID
sleep 2
ask c c0 10.0.0.1
nreply=$NREPLY
second_alive=no
_alive "$B" && second_alive=yes
arpownd_stop
sleep 4
if _alive "$B"; then
	kill -TERM "$B"
	wait "$B" 2>/dev/null || true
fi
cat "$TMPDIR_T/second.log" >>"$TMPDIR_T/arpownd.log"
expect_eq "$nreply" 1 "10.0.0.1 asked with two instances started: one reply"
expect_eq "$second_alive" no "the second instance refused to run beside the first"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 1 "both stopped: eth0 has its true original (1)"
