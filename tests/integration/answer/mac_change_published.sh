#!/bin/bash
# A MAC change on an interface that publishes 4,096 addresses: no request
# sent after the change was acknowledged is answered with the old MAC, for
# a published address (which takes the interface's MAC) as for its own.
# Clients flood requests for addresses across the published set before
# the change; the moment `ip link set eth0 address` returns, other
# clients (senders of their own, 02:77:77:xx:xx:xx) flood the same
# addresses: every reply to them must carry the new MAC, however late the
# daemon reads its backlog (a reply's time says nothing of when its
# request was sent: a loaded host answers the first clients' last
# requests, sent before the change, after it).  Three changes; then the
# same with the daemon SIGSTOPped (nothing may answer with the old MAC
# then either; the new one is answered once it runs again).
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
# change eth0's MAC to NEW; once `ip link set` returned, the same flood
# from 64 other senders (MACs 02:77:77:..., sent only after the change),
# tcpdump on the client recording every reply
change() {
	local t pids=() tp
	rm -f "$TMPDIR_T"/flood.*
	bg_run c tcpdump -l -n -t -e -i c0 'arp[6:2] = 2' >"$TMPDIR_T/replies" 2>"$TMPDIR_T/tcpdump.err"
	tp=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/tcpdump.err" || fail "tcpdump did not start: $(cat "$TMPDIR_T/tcpdump.err")"
	for t in $TARGETS; do
		ns c "$ARPC" -q -i c0 --vary 64 -r 5000 -c 2000 -w 100 -t 3000 "$t" >"$TMPDIR_T/flood.$t" 2>&1 &
		pids+=($!)
	done
	sleep 0.3
	ns h ip link set eth0 address "$1" || fail "ip link set eth0 address $1"
	for t in $TARGETS; do
		ns c "$ARPC" -q -i c0 -s 10.0.0.164 -m 02:77:77:00:00:00 --vary 64 -r 5000 -c 2000 \
			-w 100 -t 3000 "$t" >"$TMPDIR_T/flood.after.$t" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	sleep 0.1
	kill -INT "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
}
# after MAC: the replies with MAC to the senders that asked only after the
# change (tcpdump -e: "SRC > DST, ..., Reply IP is-at MAC, length 28")
after() {
	awk -v m="$1" '$3 ~ /^02:77:77:/ && / is-at / { for (i = 1; i <= NF; i++) if ($i == "is-at" && $(i + 1) == m ",") n++ } END { print n + 0 }' "$TMPDIR_T/replies"
}

old=$MAC0
for n in 1 2 3; do
	new=02:00:00:00:5c:0$n
	change "$new"
	echo "# change $n: to the requests sent after the acknowledgement, $(after "$old") replies with the old MAC $old, $(after "$new") with the new $new"
	expect_eq "$(after "$old")" 0 "change $n: no request sent after the change was acknowledged answered with the old MAC"
	[ "$(after "$new")" -gt 0 ] || fail "change $n: nothing answered with the new MAC $new"
	old=$new
done
pass "three MAC changes: every reply after each carried the new MAC"

kill -STOP "$ARPOWND_PID"
new=02:00:00:00:5c:09
change "$new"
echo "# stopped: to the requests sent after the acknowledgement, $(after "$old") replies with the old MAC, $(after "$new") with the new"
expect_eq "$(after "$old")" 0 "stopped: no request sent after the change answered with the old MAC"
kill -CONT "$ARPOWND_PID"
answered() { ask c c0 10.0.31.254 -w 50; [ "$MACS" = "$new" ]; }
wait_for 3000 answered || fail "continued: 10.0.31.254 not answered with the new MAC ('$MACS')"
pass "continued: answered with the new MAC"
arpownd_stop
