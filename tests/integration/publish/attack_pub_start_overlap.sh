#!/bin/bash
# A runtime-published entry (arpownctl publish) that a [publish] section
# added to the configuration later overlaps makes arpownd refuse to START,
# though "arpownd -n" (the unit's ExecStartPre) says the file is good, and
# the log's advice ("withdraw it first") cannot be followed: withdraw needs
# the running daemon.  After a crash (kill -9) the previous run's
# arp_ignore=8 then stays on every managed interface with nobody
# answering: the host is deaf until someone hand-edits the checksummed
# state file.  pub_build() (daemon.c) returns NULL on the overlap and
# daemon_run() exits EX_CONFIG; conf_load/-n never look at the state.
# Now: the section wins, the saved entry is dropped with a warning and the
# state saved again; a state file that cannot be read still refuses the
# start, after restoring what the crashed run left at 8.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
interfaces = eth0 eth1 eth2
announce = no"
arpownd_start h -c "$CONF"
ctl publish 10.0.0.50 eth0 >/dev/null || fail "publish 10.0.0.50 eth0"
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 published at run time"
# crash: the sysctls stay at 8, the runtime entry stays in the state dir
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "after kill -9 eth0 is still at arp_ignore 8"
# the admin moves the VIP into the configuration meanwhile
write_conf "[global]
interfaces = eth0 eth1 eth2
announce = no

[publish vip]
addresses = 10.0.0.48/29
interface = eth0"
r=0; ns h "$ARPOWND" -n -q -c "$CONF" >"$TMPDIR_T/n.out" 2>&1 || r=$?
expect_eq "$r" 0 "arpownd -n accepts the new configuration"
# start again (by hand: arpownd_start fails the test on an early exit)
bg_run h "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF"
P=$LAST_PID
sleep 1.5
if ! _alive "$P"; then
	rc=0; wait "$P" 2>/dev/null || rc=$?
	echo "arpownd exited with status $rc at start"
fi
expect_reply c c0 10.0.0.1 "$MAC0" "after the restart 10.0.0.1 is answered (eth0 at $(sysctl_get h eth0 arp_ignore))"
_alive "$P" || fail "arpownd is not running after a restart with a configuration -n accepted"
pass "arpownd started"
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 answered, now as the section's"
n=$(ctl_get published "len([e for e in d['published'] if e['runtime']])")
expect_eq "$n" 0 "the saved runtime entry was dropped"
kill -TERM "$P"; wait "$P" || fail "unclean stop"
# saved again without it: a second start says nothing about it
arpownd_start h -c "$CONF"
grep -c "dropped" "$TMPDIR_T/arpownd.log" >"$TMPDIR_T/n" || true
expect_eq "$(cat "$TMPDIR_T/n")" 0 "the next start finds nothing to drop"
arpownd_stop
expect_eq "$ARPOWND_RC $(sysctl_get h eth0 arp_ignore)" "0 0" "clean stop, eth0 restored"

# A state file that cannot be read at all still refuses the start, but
# what a crashed run left at 8 goes back first: never deaf
write_conf "[global]
interfaces = eth0 eth1 eth2
announce = no"
arpownd_start h -c "$CONF"
ctl publish 10.0.0.51 eth0 >/dev/null || fail "publish 10.0.0.51 eth0"
kill -KILL "$ARPOWND_PID"; wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
# both slots damaged (one alone would leave the other to use)
for f in "$ARPOWND_STATE_DIR"/published.0 "$ARPOWND_STATE_DIR"/published.1; do
	printf 'arpownd published v2 gen=9\n10.0.0.51/32 eth0\ncrc32=00000000\n' >"$f"
done
r=0; ns h timeout 10 "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" >"$TMPDIR_T/bad.out" 2>&1 || r=$?
expect_eq "$r" 78 "a corrupt published file: the start is refused (exit 78)"
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore)" "0 0" \
	"and what the crashed run left at 8 was restored ($(grep -m1 published "$TMPDIR_T/bad.out"))"
