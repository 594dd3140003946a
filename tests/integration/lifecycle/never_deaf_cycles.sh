#!/bin/bash
# Never deaf across a stop, at a rate where the window shows: a client
# asks 4,000 times a second while arpownd starts and stops five times.
# A request that reached the capture while the kernel was still silent
# must be answered by arpownd before it lets go (the stop answers what
# the capture holds once the sysctls are back); else the client waits a
# second for nothing.  Before that drain, about one request in three
# stops went unanswered here.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
# one sender at 4,000/s is above the default sender_rate, which is not
# what this test is about; no per-request debug lines either
write_conf "[global]
sender_rate = 0"
ARPOWND_DEBUG=0

out=$TMPDIR_T/pingpong.out
# -v: each unanswered request with its wall-clock time, to set beside
# the start and stop times below
bg_run c "$ARPC" -q -v -i c0 --pingpong -r 4000 -c 40000 --wait-reply 1000 -t 30000 10.0.0.1 >"$out" 2>&1
pp=$LAST_PID
sleep 0.3
for i in 1 2 3 4 5; do
	echo "# start $i at $(date +%s.%N)"
	arpownd_start h -c "$CONF"
	sleep 0.4
	echo "# stop $i at $(date +%s.%N)"
	arpownd_stop
	expect_eq "$ARPOWND_RC" 0 "clean stop $i"
	sleep 0.2
done
wait "$pp" || true
cat "$out"
sent=$(sed -n 's/^sent \([0-9]*\) .*/\1/p' "$out")
lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$out")
[ "$sent" = 40000 ] || fail "the client sent $sent of 40000 requests"
expect_eq "$lost" 0 "40000 requests across five starts and stops: none unanswered"
