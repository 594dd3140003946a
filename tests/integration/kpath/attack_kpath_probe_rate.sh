#!/bin/bash
# sender_rate on the kernel answer path against one hostile LAN host.
# The capture path holds every sender, RFC 5227 probes (sender IP
# 0.0.0.0) included, to sender_rate (answer.c rate_allowed ->
# lim_sender(sip), 0.0.0.0 is a slot like any other).  The program takes
# the sender bucket only when sip != 0 (answer.bpf.c): a single host
# sending probes gets total_rate, not sender_rate, and each reply goes
# to whatever sender MAC it names (a reflector at total_rate, and the
# total budget gone for everyone else).
#
# Same flood on both paths: 2,000 probes for 10.0.0.1 as fast as arpc
# sends, sender_rate = 50, total_rate = 100000.  Expected on both: at
# most the burst (10) plus 50/s over the flood's duration, with margin.
# Also the same flood with a fixed sender IP, which both paths limit.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
N=2000
flood() {	# flood ARGS...: prints the replies and the elapsed ms
	local out t0
	_now_ms; t0=$_NOW_MS
	out=$(ns c "$ARPC" -q -i c0 -c "$N" -r 0 -w 300 -t 5000 "$@" 10.0.0.1 2>&1) || true
	_now_ms
	R=$(sed -n 's/^sent [0-9]* received \([0-9]*\).*/\1/p' <<<"$out")
	MS=$((_NOW_MS - t0))
	[ -n "$R" ] || fail "arpc: $out"
}
run() {	# run PATH
	write_conf "[global]
interfaces = eth*
answer_path = $1
sender_rate = 50
total_rate = 100000
log_level = info"
	arpownd_start h -c "$CONF"
	if [ "$1" = kernel ] && grep -q 'the kernel answer path cannot load' "$TMPDIR_T/arpownd.log"; then
		echo "SKIP: $(grep -m1 'cannot load' "$TMPDIR_T/arpownd.log")"
		exit 77
	fi
	flood -s 0.0.0.0
	PROBE_R=$R PROBE_MS=$MS
	sleep 1.2	# buckets full again
	flood -s 10.0.0.100
	SND_R=$R SND_MS=$MS
	arpownd_stop
	# the limit: burst 10 + 50/s over the run (+300 ms wait), doubled
	LIMIT=$(( 2 * (10 + 50 * (PROBE_MS + 999) / 1000) ))
	echo "# $1: probes $PROBE_R replies in ${PROBE_MS} ms; fixed sender $SND_R in ${SND_MS} ms; limit $LIMIT"
}

run capture
[ "$PROBE_R" -le "$LIMIT" ] || fail "capture path: $PROBE_R replies to $N probes (sender_rate 50): the reference is broken"
pass "capture path: probes held to sender_rate ($PROBE_R replies to $N)"
[ "$SND_R" -le "$LIMIT" ] || fail "capture path: one sender got $SND_R replies"
pass "capture path: one sender held to sender_rate ($SND_R)"

run kernel
[ "$SND_R" -le "$LIMIT" ] || fail "kernel path: one sender got $SND_R replies (sender_rate 50)"
pass "kernel path: one sender held to sender_rate ($SND_R)"
[ "$PROBE_R" -le "$LIMIT" ] ||
	fail "kernel path: one host's $N probes (sender 0.0.0.0) got $PROBE_R replies; sender_rate = 50 holds them to $LIMIT on the capture path"
pass "kernel path: probes held to sender_rate ($PROBE_R)"
