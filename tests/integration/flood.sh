#!/bin/bash
# Hostile traffic: a flood of 100k requests/s from 10,000 sender MAC/IP
# pairs for 3 s.  RSS stays bounded, neighbour learning stays bounded, and
# a legitimate requester is still answered within 10 ms.  Oversized frames
# and trailing garbage are still requests (the kernel answers them too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
P=$ARPOWND_PID
expect_reply f f0 10.1.0.1 "$MAC2" "oversized (1400 bytes of padding): still a request, answered" --pad 1400
expect_reply f f0 10.1.0.1 "$MAC2" "trailing garbage: still a request, answered" --garbage 64
rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$P/status")
ns h ip neigh flush all

# 10,000 senders 10.2.100.0 + i, all on eth2's 10.2.0.0/16: each one a
# candidate for the neighbour table
addr_add h eth2 10.2.0.1/16
# A real flood comes from another machine; here the flooder shares our two
# cores, so it runs at the lowest priority (its achieved rate is checked).
bg_run f nice -n 19 "$ARPC" -q -i f0 --stats --vary 10000 -s 10.2.100.0 -r 100000 -c 300000 -t 6000 10.2.0.1 \
	>"$TMPDIR_T/flood.out" 2>&1
fl=$LAST_PID
sleep 0.5
ns f "$ARPC" -q -i f0 -s 10.1.0.77 --pingpong -r 200 -c 400 --wait-reply 50 10.1.0.1 >"$TMPDIR_T/legit.out" 2>&1 || true
wait "$fl" || true
cat "$TMPDIR_T/flood.out" "$TMPDIR_T/legit.out"
kill -0 "$P" || fail "arpownd died in the flood"
rate=$(sed -n 's/.*achieved_rate \([0-9]*\).*/\1/p' "$TMPDIR_T/flood.out")
[ "${rate:-0}" -ge 90000 ] || fail "the flood reached only ${rate:-0} requests/s"
pass "flood at $rate requests/s from 10,000 senders"
p99=$(sed -n 's/.* p99 \([0-9]*\) .*/\1/p' "$TMPDIR_T/legit.out")
lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$TMPDIR_T/legit.out")
[ -n "$p99" ] || fail "no latency for the legitimate requester"
expect_eq "$lost" 0 "the legitimate requester lost nothing during the flood"
[ "$p99" -le 10000 ] || fail "legitimate requester p99 ${p99} us > 10 ms"
pass "legitimate requester p99 ${p99} us during the flood (<= 10 ms)"
rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$P/status")
[ $((rss1 - rss0)) -lt 2048 ] || fail "RSS grew by $((rss1 - rss0)) KiB in the flood"
pass "RSS $rss0 -> $rss1 KiB: no allocation per sender"
n=$(ns h ip neigh show dev eth2 | grep -c '^10\.2\.' || true)
[ "$n" -ge 100 ] || fail "only $n flood senders learned: is learning on at all?"
# learning is capped at 200 entries/s: 3 s of flood cannot add more than ~1000
[ "$n" -le 1200 ] || fail "neighbour table grew to $n entries"
pass "neighbour learning bounded: $n entries on eth2 after 300,000 requests"
ctl counters
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
