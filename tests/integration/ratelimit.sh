#!/bin/bash
# Rate limits do what the configuration says, and are counted; conflict
# logging is at most once per address per 10 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
sender_rate = 100
total_rate = 0"
arpownd_start h -c "$CONF"

# one sender, 1,000 requests in one second: 100/s plus a burst of 10
ask f f0 10.1.0.1 -c 1000 -r 1000
[ "$NREPLY" -ge 100 ] && [ "$NREPLY" -le 130 ] ||
	fail "sender_rate = 100: $NREPLY of 1000 answered in 1 s"
pass "sender_rate = 100: $NREPLY of 1000 requests in 1 s answered"
# another sender is not held back by the first
expect_reply f f0 10.1.0.1 "$MAC2" "another sender is answered at once" -s 10.1.0.55

# conflicts: 20 claims of one address, one log line
ask f f0 10.1.0.9 -s 10.1.0.1 -c 20 -r 200
kill -USR1 "$ARPOWND_PID"
wait_for 2000 grep -q 'counters: received' "$TMPDIR_T/arpownd.log" || fail "no counters"
expect_eq "$(grep -c 'address conflict: 10.1.0.1 is ours' "$TMPDIR_T/arpownd.log")" 1 \
	"20 conflicting requests in 0.1 s: logged once"
n=$(sed -n 's/.*rate-limited-sender \([0-9]*\).*/\1/p' "$TMPDIR_T/arpownd.log" | tail -n 1)
[ "$n" -ge 850 ] || fail "rate-limited-sender counter $n, expected the ~880 refused"
pass "refused requests counted: rate-limited-sender $n"
arpownd_stop

write_conf "[global]
sender_rate = 0
total_rate = 200"
arpownd_start h -c "$CONF"
ask f f0 10.1.0.1 -c 2000 -r 2000 --vary 500 -s 10.1.1.0
[ "$NREPLY" -ge 180 ] && [ "$NREPLY" -le 260 ] ||
	fail "total_rate = 200: $NREPLY of 2000 (500 senders) answered in 1 s"
pass "total_rate = 200: $NREPLY of 2000 requests from 500 senders answered in 1 s"
arpownd_stop
