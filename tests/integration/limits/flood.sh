#!/bin/bash
# Hostile traffic: a flood of up to 100k requests/s from 10,000 sender
# MAC/IP pairs for about 3 s.  What the daemon must do, at whatever rate
# this machine delivers: stay alive with its RSS flat, learn at most
# LEARN_RATE (200) neighbours a second, and keep answering a legitimate
# requester that retries as a real client does.  Loss and latency under
# load are the benchmark's (make bench), not a functional test's: here the
# flooder, the daemon and the requester share the machine's cores.
# Oversized frames and trailing garbage are still requests (the kernel
# answers them too).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
# no -d: a debug line per request would be 300,000 lines of load
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
P=$ARPOWND_PID
expect_reply f f0 10.1.0.1 "$MAC2" "oversized (1400 bytes of padding): still a request, answered" --pad 1400
expect_reply f f0 10.1.0.1 "$MAC2" "trailing garbage: still a request, answered" --garbage 64

# counters: the daemon's frames received and neighbours learned, as
# arpownctl reports them, in RX and LEARNED
counters() {
	RX=$(ctl_get counters "d['all']['received']")
	LEARNED=$(ctl_get counters "d['daemon']['learned']")
}

rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$P/status")
# 10,000 senders 10.2.100.0 + i, all on eth2's 10.2.0.0/16: each one a
# candidate for the neighbour table
addr_add h eth2 10.2.0.1/16
ns h ip neigh flush all
counters
rx0=$RX l0=$LEARNED
_now_ms
t0=$_NOW_MS
# A real flood comes from another machine; here the flooder shares our
# cores, so it runs at the lowest priority.
bg_run f nice -n 19 "$ARPC" -q -i f0 --stats --vary 10000 -s 10.2.100.0 -r 100000 -c 300000 -t 6000 10.2.0.1 \
	>"$TMPDIR_T/flood.out" 2>&1
fl=$LAST_PID
sleep 0.3

# The legitimate requester asks 8 questions during the flood; like the
# kernel's own resolver it asks again when no answer came (here after
# 250 ms, up to 3 times).  Every question must be answered, by eth2.
asked=0 retried=0 during=0
for q in 1 2 3 4 5 6 7 8; do
	_alive "$fl" && during=$((during + 1))
	for try in 1 2 3; do
		ask f f0 10.1.0.1 -s 10.1.0.77 -w 250
		[ "$NREPLY" -ge 1 ] && break
	done
	asked=$((asked + 1))
	[ "$try" = 1 ] || retried=$((retried + 1))
	[ "$NREPLY" -ge 1 ] || fail "question $q during the flood: no answer in 3 tries"
	[ "$MACS" = "$MAC2" ] || fail "question $q answered by '$MACS', not eth2 ($MAC2)"
done
wait "$fl" || true
# after the reading: what the daemon counted happened before it
counters
rx1=$RX l1=$LEARNED
_now_ms
t1=$_NOW_MS
cat "$TMPDIR_T/flood.out"
kill -0 "$P" || fail "arpownd died in the flood"
[ "$during" -ge 1 ] || fail "the flood was over before the first question: nothing was tested"
pass "legitimate requester: $asked questions ($during asked while the flood ran), all answered by eth2, $retried needed a retry"

# The rate the daemon saw (a starved flooder may not live to say its own)
ms=$((t1 - t0))
said=$(sed -n 's/.*achieved_rate \([0-9]*\).*/\1\/s/p' "$TMPDIR_T/flood.out")
echo "flood: the daemon received $((rx1 - rx0)) requests in $ms ms, $(((rx1 - rx0) * 1000 / ms))/s;" \
	"the flooder says ${said:-nothing (starved past its time limit)}; 100,000/s asked, the machine decides"

rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$P/status")
[ $((rss1 - rss0)) -lt 2048 ] || fail "RSS grew by $((rss1 - rss0)) KiB in the flood"
pass "RSS $rss0 -> $rss1 KiB: no allocation per sender"

# Learning: at most 200 a second plus the bucket's burst of 20, over the
# whole window between the two counter readings; and the kernel's table
# holds no more than the daemon says it learned.
dl=$((l1 - l0))
lim=$((20 + 200 * ms / 1000 + 2))
n=$(ns h ip neigh show dev eth2 | grep -c '^10\.2\.' || true)
[ "$dl" -le "$lim" ] || fail "learned $dl neighbours in $ms ms: more than 200/s (limit $lim)"
[ "$n" -le "$dl" ] || fail "the kernel holds $n flood senders, the daemon learned only $dl"
[ "$n" -ge 100 ] || fail "only $n flood senders learned: is learning on at all?"
pass "neighbour learning capped: $dl learned in $ms ms (at most $lim), $n entries on eth2"
ctl counters
expect_eq "$(grep -c 'who-has' "$TMPDIR_T/arpownd.log")" 0 "no line logged per request (ARPOWND_DEBUG=0)"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
