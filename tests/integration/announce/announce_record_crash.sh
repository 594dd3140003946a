#!/bin/bash
# What the last run announced is for the next start only when that run
# stopped cleanly (arpownd.conf(5), announce: "after a crash everything
# is announced once").  The record a clean stop wrote must not outlive
# the start that read it: else a crash of the run after hands the third
# start a record two runs old, and what moved during and after the
# crashed run is taken for announced.
#
#   1. clean stop: the record says eth0 announced 10.0.0.1 and 10.0.0.5;
#   2. start (nothing announced again), 10.0.0.5 moves away (deleted: a
#      failover to another host, which announces it with its MAC), the
#      daemon is killed (SIGKILL, then --restore as the unit's
#      ExecStopPost), 10.0.0.5 comes back to eth0 while nothing runs;
#   3. start: both addresses announced (each once), as after any crash;
#      a clean stop of run 2 would have left a record without 10.0.0.5.
#
#   ns h: eth0 10.0.0.1/24 ── ns p: p0 (tcpdump)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump
peer_net
addr_add h eth0 10.0.0.5/24
write_conf ""

# announced NAME ADDR: gratuitous frames for ADDR in capture NAME
announced() {
	grep -c "\(who-has $2 tell $2\|Reply $2 is-at\)" "$TMPDIR_T/$1.txt" || true
}
# announced_at_least N NAME ADDR: for wait_for, which runs its command
# again each round (a "$(announced ...)" in its arguments is counted once)
announced_at_least() {
	[ "$(announced "$2" "$3")" -ge "$1" ]
}
capture() {
	bg_run p tcpdump -i p0 -nn -l -U arp >"$TMPDIR_T/$1.txt" 2>"$TMPDIR_T/$1.err"
	TD=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/$1.err" || fail "tcpdump did not start"
}
capture_end() {
	sleep 0.3
	kill -INT "$TD" 2>/dev/null
	wait "$TD" 2>/dev/null || true
}

# ---- 1: a run that stops cleanly, its record written
capture run1
arpownd_start h -c "$CONF"
wait_for 3000 announced_at_least 2 run1 10.0.0.5 || fail "run 1: 10.0.0.5 not announced"
arpownd_stop
capture_end run1
expect_eq "$ARPOWND_RC" 0 "run 1 stopped cleanly"

# ---- 2: a run that crashes after 10.0.0.5 moved away
capture run2
arpownd_start h -c "$CONF"
sleep 0.5
expect_eq "$(announced run2 10.0.0.1)" 0 "run 2: a restart where nothing moved announces nothing"
ns h ip addr del 10.0.0.5/24 dev eth0
sleep 0.2
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore after the kill"
addr_add h eth0 10.0.0.5/24
capture_end run2

# ---- 3: the start after the crash
capture run3
arpownd_start h -c "$CONF"
wait_for 3000 announced_at_least 2 run3 10.0.0.5 || true
sleep 0.3
arpownd_stop
capture_end run3
n5=$(announced run3 10.0.0.5)
n1=$(announced run3 10.0.0.1)
echo "after the crash: 10.0.0.5 in $n5 frames, 10.0.0.1 in $n1"
[ "$n5" -ge 1 ] || fail "after a crash, 10.0.0.5 (moved away and back meanwhile) was not announced: the record of two runs before was taken for the crashed run's"
pass "after a crash, the address that moved back is announced"
[ "$n1" -ge 1 ] || fail "after a crash, 10.0.0.1 was not announced (arpownd.conf(5): after a crash everything is announced once)"
pass "after a crash, every address is announced once"
