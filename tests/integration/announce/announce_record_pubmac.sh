#!/bin/bash
# A restart leaves out what the previous run announced "from the same
# interface with the same MAC" (arpownd.conf(5)).  A [publish] section
# with a mac = of its own announces its addresses with that MAC, not the
# interface's: the record must say which.  Here the section's MAC changes
# while arpownd is stopped (the admin edits the file and restarts): the
# neighbours still map 10.0.0.50 to the old MAC, and only the start can
# tell them, so it must announce 10.0.0.50 with the new one.  A restart
# with nothing changed still announces nothing.
#
#   ns h: eth0 10.0.0.1/24, [publish web] 10.0.0.50 mac M ── ns p: p0 (tcpdump)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump
peer_net
M1=02:00:5e:10:00:01
M2=02:00:5e:10:00:02

conf_with() {
	write_conf "[global]
[publish web]
addresses = 10.0.0.50
interface = eth0
mac = $1"
}
capture() {
	bg_run p tcpdump -i p0 -nn -e -l -U arp >"$TMPDIR_T/$1.txt" 2>"$TMPDIR_T/$1.err"
	TD=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/$1.err" || fail "tcpdump did not start"
}
capture_end() {
	sleep 0.3
	kill -INT "$TD" 2>/dev/null
	wait "$TD" 2>/dev/null || true
}
# run NAME MAC: a run with the section's mac = MAC, 1.5 s, a clean stop
run() {
	conf_with "$2"
	capture "$1"
	arpownd_start h -c "$CONF"
	sleep 1.5
	arpownd_stop
	capture_end "$1"
	[ "$ARPOWND_RC" = 0 ] || fail "$1: arpownd stopped with $ARPOWND_RC"
}
# said NAME MAC: announcements of 10.0.0.50 from MAC in capture NAME
said() {
	grep -i "^[0-9:.]* $2 > .*who-has 10\.0\.0\.50 tell 10\.0\.0\.50" "$TMPDIR_T/$1.txt" | wc -l
}

run run1 "$M1"
[ "$(said run1 "$M1")" -ge 1 ] || fail "run 1: 10.0.0.50 not announced from $M1"
pass "run 1: 10.0.0.50 announced from the section's MAC $M1"
run run2 "$M1"
expect_eq "$(said run2 "$M1")" 0 "run 2, nothing changed: 10.0.0.50 not announced again"
run run3 "$M2"
n=$(said run3 "$M2")
[ "$n" -ge 1 ] || fail "run 3: the section's MAC changed to $M2 while stopped, but 10.0.0.50 was not announced from it ($(said run3 "$M1") frames from $M1): the record took the interface's MAC for the one announced"
pass "run 3: the section's new MAC announced ($n frames)"
run run4 "$M2"
expect_eq "$(said run4 "$M2")" 0 "run 4, nothing changed: 10.0.0.50 not announced again"
