#!/bin/bash
# The benchmark's load generator (arpc --threads) counts what it says it
# counts: each reply matched to a request of the sender it answers, a
# second answer to a request a duplicate, nothing counted that did not
# come, and the rate it was asked for.  The benchmark's verdicts rest on
# these figures.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# load ARGS...: run the load generator from the client on segment A; the
# summary's fields in F[name]
declare -A F
load() {
	local out
	out=$(ns c "$ARPC" -q -i c0 --stats --threads 2 --vary 16 -s 10.0.0.128 "$@" 2>&1) || true
	echo "$out"
	F=()
	# shellcheck disable=SC2086 # the summary is "name value" pairs
	set -- $out
	while [ $# -ge 2 ]; do
		F[$1]=$2
		shift 2
	done
	[ -n "${F[sent]:-}" ] || fail "no summary from arpc --threads: $out"
}

# The kernel, weak host: eth0 and eth1 both answer every request.
load -r 2000 -c 400 10.0.0.1
expect_eq "${F[sent]} ${F[received]} ${F[answered]} ${F[dup]}" "400 800 400 400" \
	"kernel, two NICs answering: 400 requests, 800 replies, 400 answered, 400 duplicates"
case ${F[macs]} in
"$MAC0,$MAC1" | "$MAC1,$MAC0") pass "both NICs' MACs reported" ;;
*) fail "expected the MACs of eth0 and eth1, got ${F[macs]}" ;;
esac
# paced: 400 requests at 2000/s take 200 ms, never a burst (slower is
# the machine's business: a busy one may hold the client back)
awk -v r="${F[achieved_rate]}" 'BEGIN { exit !(r >= 1000 && r <= 2100) }' ||
	fail "asked for 2000/s, sent at ${F[achieved_rate]}/s"
pass "paced at ${F[achieved_rate]}/s for 2000/s asked"
expect_eq "${F[rx_drops]}" 0 "nothing dropped by the receive ring"

# arpownd: one answer per request, from the owner only.
write_conf "[global]
sender_rate = 0"
arpownd_start h -c "$CONF"
load -r 2000 -c 400 10.0.0.1
expect_eq "${F[sent]} ${F[received]} ${F[answered]} ${F[dup]} ${F[macs]}" "400 400 400 0 $MAC0" \
	"arpownd: every request answered once, by eth0"

# Nobody owns 10.0.0.77: nothing answered, nothing invented.
load -r 2000 -c 200 10.0.0.77
expect_eq "${F[sent]} ${F[received]} ${F[answered]} ${F[dup]}" "200 0 0 0" \
	"an address nobody owns: 200 requests, nothing counted"
arpownd_stop
