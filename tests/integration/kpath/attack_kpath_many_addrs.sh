#!/bin/bash
# Thousands of addresses on one interface, added then flushed in one
# batch each, on the kernel answer path, against the capture path as the
# reference.  kan_change (kanswer.c) feeds the whole interface again on
# every address event whose entry is "wide" (kpf_wide: anything but a
# /32 whose prefix is itself, so every ordinary a.b.c.d/24): N adds cost
# N x N map writes.  Meanwhile the daemon's loop does nothing else: the
# capture path (which answers what the program passes up) and the
# control socket wait.
#
# Asserted, for each path: after the batch add returns, the daemon is
# answering again (arpownctl status, and a request only the capture path
# answers: Ethernet source != ARP sender, which the program passes up)
# within LIMIT_S (5) seconds (measured up to 60 s); every address of a sample answered by eth0;
# after the flush, none of the sample answered, and the daemon still up.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tc

N=${KP_MANY:-1000}
LIMIT_S=${KP_MANY_LIMIT_S:-5}
seed_net
batch_add() { local i; for ((i = 0; i < N; i++)); do echo "addr add 10.0.$((10 + i / 250)).$((1 + i % 250))/16 dev eth0"; done; }
# answered by the capture path only: Ethernet source != ARP sender
capture_answers() { ask c c0 10.0.0.1 -w 100 -e 02:00:00:00:00:99; [ "$MACS" = "$MAC0" ]; }
responsive() { timeout 1 "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" status >/dev/null 2>&1 && capture_answers; }

run() {
	write_conf "[global]
interfaces = eth*
answer_path = $1
log_level = info"
	arpownd_start h -c "$CONF"
	if [ "$1" = kernel ] && grep -q 'the kernel answer path cannot load' "$TMPDIR_T/arpownd.log"; then
		echo "SKIP: $(grep -m1 'cannot load' "$TMPDIR_T/arpownd.log")"
		exit 77
	fi
	responsive || fail "$1: the capture path does not answer a frame with Ethernet source != sender (reference)"
	batch_add >"$TMPDIR_T/add.batch"
	ns h ip -batch "$TMPDIR_T/add.batch" || fail "ip -batch add"
	_now_ms; local t0=$_NOW_MS
	wait_for 60000 responsive || true
	_now_ms; ADD_MS=$((_NOW_MS - t0))
	echo "# $1: $N addresses added; daemon answering again after $ADD_MS ms"
	local a
	for a in 10.0.10.1 "10.0.$((10 + N / 2 / 250)).$((1 + N / 2 % 250))" "10.0.$((10 + (N - 1) / 250)).$((1 + (N - 1) % 250))"; do
		SOFT=; ( expect_reply c c0 "$a" "$MAC0" "$1: $a answered by eth0 alone" ) || SOFT_FAILED=1
	done
	ns h ip addr flush dev eth0 to 10.0.0.0/16 || true
	# 10.0.0.1 went with the flush too: put it back
	ns h ip addr add 10.0.0.1/24 dev eth0 2>/dev/null || true
	_now_ms; t0=$_NOW_MS
	wait_for 60000 responsive || true
	_now_ms; DEL_MS=$((_NOW_MS - t0))
	echo "# $1: flushed; daemon answering again after $DEL_MS ms"
	for a in 10.0.10.1 "10.0.$((10 + N / 2 / 250)).$((1 + N / 2 % 250))"; do
		( expect_silence c c0 "$a" "$1: flushed $a not answered" ) || SOFT_FAILED=1
	done
	_alive "$ARPOWND_PID" || fail "$1: the daemon died"
	arpownd_stop
}

SOFT_FAILED=
run capture
CAP_ADD=$ADD_MS CAP_DEL=$DEL_MS
run kernel
[ "$CAP_ADD" -le $((LIMIT_S * 1000)) ] || echo "# note: even the capture path took $CAP_ADD ms (busy machine?)"
[ "$ADD_MS" -le $((LIMIT_S * 1000)) ] ||
	fail "kernel path: $N address adds kept the daemon from answering for $ADD_MS ms (capture path: $CAP_ADD ms)"
pass "kernel path: answering again $ADD_MS ms after the adds (capture path: $CAP_ADD ms)"
[ "$DEL_MS" -le $((LIMIT_S * 1000)) ] ||
	fail "kernel path: the flush kept the daemon from answering for $DEL_MS ms (capture path: $CAP_DEL ms)"
pass "kernel path: answering again $DEL_MS ms after the flush (capture path: $CAP_DEL ms)"
[ -z "$SOFT_FAILED" ] || fail "some checks failed (above)"
