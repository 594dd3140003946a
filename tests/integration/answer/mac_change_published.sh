#!/bin/bash
# A MAC change on an interface that publishes 4,096 addresses: no request
# sent after the change was acknowledged is answered with the old MAC, for
# a published address (which takes the interface's MAC) as for its own.
# Clients flood requests for addresses across the published set from the
# moment `ip link set eth0 address` returns; three changes; then the same
# with the daemon SIGSTOPped (nothing may answer with the old MAC then
# either; the new one is answered once it runs again).
# tests/integration/kpath/mac_change_published.sh runs it with
# answer_path = kernel: the reply MAC must come from the kernel's link as
# it is now, never from a copy written before the change.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
TARGETS="10.0.16.7 10.0.21.100 10.0.26.3 10.0.31.254 10.0.0.1"

conf="[global]
interfaces = eth*
announce = no"
for i in $(seq 16 31); do
	conf="$conf
[publish p$i]
addresses = 10.0.$i.0/24
interface = eth0"
done
write_conf "$conf"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.31.254 "$MAC0" "10.0.31.254 (published) answered by eth0"

# change NEW: with clients flooding requests for addresses across the
# published set (25,000/s in all, from 64 senders: within sender_rate)
# and tcpdump on the client timing every
# reply, change eth0's MAC to NEW; T_ACK: when `ip link set` returned
change() {
	local t pids=() tp
	rm -f "$TMPDIR_T"/flood.*
	bg_run c tcpdump -l -n -tt -e -i c0 'arp[6:2] = 2' >"$TMPDIR_T/replies" 2>"$TMPDIR_T/tcpdump.err"
	tp=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/tcpdump.err" || fail "tcpdump did not start: $(cat "$TMPDIR_T/tcpdump.err")"
	for t in $TARGETS; do
		ns c "$ARPC" -q -i c0 --vary 64 -r 5000 -c 4000 -w 100 -t 3000 "$t" >"$TMPDIR_T/flood.$t" 2>&1 &
		pids+=($!)
	done
	sleep 0.3
	ns h ip link set eth0 address "$1" || fail "ip link set eth0 address $1"
	T_ACK=$EPOCHREALTIME
	wait "${pids[@]}"
	sleep 0.1
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
}
# late MAC: replies with MAC timed more than 1 ms after the acknowledgement
# (a request sent before it may be answered a moment after)
late() {
	awk -v t="$T_ACK" -v m="$1" '$1 > t + 0.001 && / is-at / { for (i = 1; i <= NF; i++) if ($i == "is-at" && $(i + 1) == m ",") n++ } END { print n + 0 }' "$TMPDIR_T/replies"
}

old=$MAC0
for n in 1 2 3; do
	new=02:00:00:00:5c:0$n
	change "$new"
	echo "# change $n: after the acknowledgement, $(late "$old") replies with the old MAC $old, $(late "$new") with the new $new"
	expect_eq "$(late "$old")" 0 "change $n: no reply with the old MAC after the change was acknowledged"
	[ "$(late "$new")" -gt 0 ] || fail "change $n: nothing answered with the new MAC $new"
	old=$new
done
pass "three MAC changes: every reply after each carried the new MAC"

kill -STOP "$ARPOWND_PID"
new=02:00:00:00:5c:09
change "$new"
echo "# stopped: after the acknowledgement, $(late "$old") replies with the old MAC, $(late "$new") with the new"
expect_eq "$(late "$old")" 0 "stopped: no reply with the old MAC after the change"
kill -CONT "$ARPOWND_PID"
answered() { ask c c0 10.0.31.254 -w 50; [ "$MACS" = "$new" ]; }
wait_for 3000 answered || fail "continued: 10.0.31.254 not answered with the new MAC ('$MACS')"
pass "continued: answered with the new MAC"
arpownd_stop
