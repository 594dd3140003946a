#!/bin/bash
# No window where nobody answers: a client keeps asking (500 requests/s)
# while arpownd starts, serves and stops; every request gets an answer
# within 1 s, the time a Linux client waits before it asks again (a frame
# that reaches the capture during start-up waits for the loop; on a busy
# shared machine that can be more than 100 ms, and is still no deafness).
# And the first request after READY=1 is answered, by the owner alone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"

out=$TMPDIR_T/pingpong.out
bg_run c "$ARPC" -q -i c0 --pingpong -r 500 -c 2000 --wait-reply 1000 -t 20000 10.0.0.1 >"$out" 2>&1
pp=$LAST_PID
sleep 0.5
arpownd_start h -c "$CONF"
# another sender IP, so the running client's replies are not counted
expect_reply c c0 10.0.0.1 "$MAC0" "first request after READY answered by eth0 alone" -s 10.0.0.101
sleep 1
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
wait "$pp" || true
cat "$out"
sent=$(sed -n 's/^sent \([0-9]*\) .*/\1/p' "$out")
lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$out")
[ "$sent" = 2000 ] || fail "the client sent $sent of 2000 requests"
expect_eq "$lost" 0 "2000 requests across start and stop: none unanswered (slowest $(sed -n 's/.* max \([0-9]*\).*/\1/p' "$out") us)"
