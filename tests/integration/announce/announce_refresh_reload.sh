#!/bin/bash
# announce_refresh announces every address again each that many seconds,
# for switches whose MAC tables age out first.  A reload that leaves it
# as it is must not start its count again: configuration management that
# reloads every few minutes, or a reload storm, would otherwise put off
# every refresh for ever (announce_refresh = 3600 and a reload every 30
# minutes: never), and the switches forget the host.
#
#   ns h: eth0 10.0.0.1/24 ── ns p: p0 (tcpdump); announce_refresh = 2,
#   a reload (SIGHUP) every 0.7 s for 7 s
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump
peer_net
write_conf "announce_refresh = 2"
arpownd_start h -c "$CONF"
sleep 0.5	# the start's announcement is out
bg_run p tcpdump -i p0 -nn -l -U arp >"$TMPDIR_T/cap.txt" 2>"$TMPDIR_T/cap.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/cap.err" || fail "tcpdump did not start"
for _ in $(seq 10); do
	kill -HUP "$ARPOWND_PID"
	sleep 0.7
done
sleep 0.3
kill -INT "$TD" 2>/dev/null
wait "$TD" 2>/dev/null || true
n=$(grep -c 'Request who-has 10\.0\.0\.1 tell 10\.0\.0\.1,' "$TMPDIR_T/cap.txt" || true)
r=$(grep -c 'reloaded' "$TMPDIR_T/arpownd.log" || true)
arpownd_stop
echo "7 s, announce_refresh = 2, $r reloads: 10.0.0.1 refreshed $n times"
[ "$r" -ge 8 ] || fail "only $r reloads went through"
[ "$n" -ge 2 ] || fail "a reload every 0.7 s, announce_refresh = 2: 10.0.0.1 refreshed $n times in 7 s (each reload started the refresh's count again)"
pass "reloads that leave announce_refresh alone do not put the refresh off"
