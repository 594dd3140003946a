#!/bin/bash
# After a crash (SIGKILL: every managed interface left at arp_ignore = 8)
# a start that is refused for its configuration (exit 78) leaves them at
# 8, nobody answering: the host deaf until someone runs arpownd
# --restore.  Under the shipped unit ExecStopPost does that; started by
# hand (or by another supervisor) nothing does.  A start refused for an
# unreadable state file restores first (attack_pub_start_overlap.sh):
# one refused for its configuration does not.
# NOT IN TESTS: fails on the current code; the fix (restore from the
# state directory before exiting on a configuration error, as
# --restore does) is not a small one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
interfaces = eth0 eth1 eth2"
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"; wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "after SIGKILL eth0 is at 8 (the crash's state)"
write_conf "[global]
interfaces = eth0 eth1 eth2
mode = bogus"
r=0; ns h timeout -s KILL 10 "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" >"$TMPDIR_T/bad.out" 2>&1 || r=$?
expect_eq "$r" 78 "a bad configuration: the start is refused (78)"
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore) $(sysctl_get h eth2 arp_ignore)" "0 0 0" \
	"what the crashed run left at 8 is given back before the refusal"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered (by the kernel) after the refused start"
