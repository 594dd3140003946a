#!/bin/bash
# The in-kernel path's rate limits, counters and events:
#  - sender_rate and total_rate as limit.c's buckets (a tenth of a
#    second's burst, at least 10), what they refuse dropped (passed up, the
#    capture path would answer it from a budget of its own) and counted;
#  - the per-CPU counters add up: every request sent has one outcome
#    (answered, limited, or passed up for one reason);
#  - learning events (ring buffer) at most learn_rate, and the feeder puts
#    the requester into the neighbour table as the kernel does (STALE);
#  - a full ring (the consumer stopped) never holds an answer back: the
#    events that do not fit are counted as dropped;
#  - maps sized too small for the host's addresses: nothing is answered.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need

pair_net
silence h hv

sent_recv() {
	SENT=$(sed -n 's/^sent \([0-9]*\) received \([0-9]*\).*/\1/p' <<<"$1")
	RECV=$(sed -n 's/^sent \([0-9]*\) received \([0-9]*\).*/\2/p' <<<"$1")
	SEND_MS=$(sed -n 's/.* send_ms \([0-9.]*\).*/\1/p' <<<"$1")
}

# within RATE BURST N WHAT: N is at least the burst and at most the burst
# plus what RATE refills over the time the requests took to send (a busy
# machine sends slower than asked), with a little slack
within() {
	local max
	max=$(awk -v r="$1" -v b="$2" -v ms="${SEND_MS:-0}" 'BEGIN { printf "%d", b + r * (ms + 20) / 1000 + 3 }')
	[ "$3" -ge "$2" ] && [ "$3" -le "$max" ] ||
		fail "$4: $3, expected between the burst of $2 and $max (sending took ${SEND_MS} ms)"
	pass "$4: $3 (burst $2, at most $max over ${SEND_MS} ms)"
}

# every request sent reached the program and had exactly one outcome
# (answered, limited, passed up: received is their sum)
balanced() {
	expect_eq "$(kp_c received)" "$SENT" "$1: every request sent has one outcome ($KP_C)"
}

# --- sender_rate 100: one sender, 2,000 requests in 0.1 s
kp_start h --sender-rate 100 hv
out=$(ns c "$ARPC" -q --stats -i cv -r 20000 -c 2000 -w 300 -t 5000 10.0.0.1)
sent_recv "$out"
kp_counters
lim=$(kp_c limited-sender)
echo "# sender_rate 100: $out; $KP_C"
within 100 10 "$RECV" "sender_rate 100: answered"
expect_eq "$((RECV + lim))" "$SENT" "sender_rate: answered ($RECV) + limited ($lim) = sent"
balanced "sender_rate"
# another sender has a bucket of its own
ask c cv 10.0.0.1 -s 10.0.0.101
expect_eq "$NREPLY" 1 "sender_rate: another sender is answered meanwhile"
kp_stop

# --- total_rate 1000: 64 senders, 4,000 requests in 0.2 s
kp_start h --total-rate 1000 hv
out=$(ns c "$ARPC" -q --stats -i cv -r 20000 -c 4000 --vary 64 -s 10.0.0.128 -w 300 -t 5000 10.0.0.1)
sent_recv "$out"
kp_counters
lim=$(kp_c limited-total)
echo "# total_rate 1000: $out; $KP_C"
within 1000 100 "$RECV" "total_rate 1000: answered"
expect_eq "$((RECV + lim))" "$SENT" "total_rate: answered ($RECV) + limited ($lim) = sent"
balanced "total_rate"
kp_stop

# --- learning: at most learn_rate events, the requesters learned
kp_start h --learn --learn-rate 10 --events hv
out=$(ns c "$ARPC" -q --stats -i cv -r 1000 -c 100 --vary 100 -s 10.0.0.128 -w 300 10.0.0.1)
sent_recv "$out"
expect_eq "$RECV" 100 "learning: all 100 requests answered"
kp_counters
wait_for 2000 sh -c "[ \$(grep -c '^event learn' $KP_OUT) -ge 10 ]" || true
nev=$(grep -c '^event learn' "$KP_OUT")
echo "# learning: $nev events; $KP_C"
within 10 10 "$nev" "learn_rate 10: events"
grep -q '^event learn ifindex=[0-9]* sip=10\.0\.0\.1[2-9][0-9] tip=10\.0\.0\.1 sha=02:[0-9a-f:]* flags=1$' "$KP_OUT" ||
	fail "learning events malformed: $(grep '^event' "$KP_OUT" | head -n 3)"
pass "learning: $nev events for 100 answers (learn_rate 10), sender, target, MAC, in-subnet"
first=$(grep -m 1 '^event learn' "$KP_OUT" | sed 's/.* sip=\([^ ]*\) .* sha=\([^ ]*\) .*/\1 \2/')
wait_for 2000 sh -c "ip netns exec ${NS_PREFIX}h ip -4 neigh show dev hv | grep -q '^${first% *} lladdr ${first#* } '" ||
	fail "learning: ${first% *} not in the neighbour table: $(ns h ip -4 neigh show dev hv)"
pass "learning: the requester ${first% *} is in the neighbour table ($(ns h ip -4 neigh show dev hv | grep "^${first% *} "))"
kp_stop

# --- a full ring: the consumer stopped, 6,000 probes, each an event
kp_start h --probe-events --events hv
kill -STOP "$KP_PID"
out=$(ns c "$ARPC" -q -i cv -s 0.0.0.0 -r 20000 -c 6000 -w 500 -t 10000 10.0.0.1)
sent_recv "$out"
kill -CONT "$KP_PID"
expect_eq "$RECV" "$SENT" "full ring: every probe answered ($RECV of $SENT) while the consumer was stopped"
kp_counters
nev=$(grep -c '^event probe' "$KP_OUT")
drops=$(kp_c ring-drops)
echo "# full ring: $nev events read, $drops dropped; $KP_C"
[ "$drops" -gt 0 ] || fail "full ring: no drop counted: $KP_C"
expect_eq "$((nev + drops))" 6000 "full ring: events read ($nev) + dropped ($drops) = probes answered"
balanced "full ring"
kp_stop

# --- maps sized too small: a "one of ours" marker does not fit, and a
# sender using that address would not be known as ours: nothing answered
for j in $(seq 1 30); do echo "addr add 10.0.0.$((150 + j))/32 dev hv"; done >"$TMPDIR_T/batch"
ns h ip -batch "$TMPDIR_T/batch" || fail "adding 30 addresses"
kp_start h --max-addrs 8 hv
grep -q '^warning: some grants were not written' "$KP_OUT" || fail "maps full: no warning: $(cat "$KP_OUT")"
expect_silence c cv 10.0.0.1 "maps too small for the host's addresses: nothing answered"
kp_counters
[ "$(kp_c pass-stale)" -ge 1 ] || fail "maps full: not passed up as stale: $KP_C"
pass "maps full: passed up ($(kp_c pass-stale) stale)"
kp_stop
