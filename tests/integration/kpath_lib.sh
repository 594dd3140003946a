# kpath_lib.sh — helpers for the in-kernel answer path's tests (sourced
# after lib.sh).  kptest (tests/tools/kptest.c) loads the program, attaches
# it, feeds it from a table built as the daemon builds its own, and stays
# running; these start it, read its counters and events, and stop it.
# shellcheck shell=bash

KPTEST=$(_abs "${KPTEST:-${top_builddir:-.}/tests/tools/kptest}")
KP_PID=
KP_OUT=
_KP_RUNS=0

# kp_need: root, namespaces, tc, and kptest built (configure --enable-bpf).
kp_need() {
	need_netns
	need_cmd tc
	if [ ! -x "$KPTEST" ]; then
		echo "SKIP: tests/tools/kptest not built (configure found no BPF toolchain)"
		exit 77
	fi
}

_kp_ready() {
	grep -qE '^(ready|kp_open:|error:)' "$KP_OUT" 2>/dev/null || ! _alive "$KP_PID"
}

# kp_start NS [kptest args...]: kptest in NS, output in $KP_OUT; returns once
# it is ready (attached and fed).  A kernel the program cannot load on is a
# SKIP with kp_open's reason; any other failure fails the test.
kp_start() {
	local nsn=$1
	shift
	_KP_RUNS=$((_KP_RUNS + 1))
	KP_OUT=$TMPDIR_T/kptest.$_KP_RUNS.out
	# KP_XDP=native|generic: the program at XDP (tests/integration/xdp/)
	bg_run "$nsn" "$KPTEST" ${KP_XDP:+--xdp "$KP_XDP"} "$@" >"$KP_OUT" 2>&1
	KP_PID=$LAST_PID
	wait_for 20000 _kp_ready || fail "kptest: not ready in 20 s: $(cat "$KP_OUT")"
	if grep -q '^ready$' "$KP_OUT"; then
		return 0
	fi
	if grep -qE '^kp_open: kernel .* has no' "$KP_OUT"; then
		echo "SKIP: $(grep '^kp_open:' "$KP_OUT")"
		exit 77
	fi
	fail "kptest did not start: $(cat "$KP_OUT")"
}

# kp_stop: SIGTERM (continued first if stopped), wait; its last counters
# stay in $KP_OUT.  A clean stop exits 0: anything else (a hang, a crash, a
# sanitizer's report at exit) fails the test, or a leak in a run whose
# output was already checked would pass unseen.
kp_stop() {
	local rc=0 hung=
	[ -n "$KP_PID" ] || return 0
	kill -CONT "$KP_PID" 2>/dev/null
	kill -TERM "$KP_PID" 2>/dev/null
	wait_for 5000 _kp_gone || { hung=1; kill -KILL "$KP_PID" 2>/dev/null; }
	wait "$KP_PID" 2>/dev/null || rc=$?
	KP_PID=
	[ -z "$hung" ] || fail "kptest did not stop within 5 s of SIGTERM"
	[ "$rc" = 0 ] || fail "kptest exited $rc at its stop: $(tail -n 20 "$KP_OUT" | tr '\n' '|')"
}

_kp_gone() {
	! _alive "$KP_PID"
}

_KP_NC=0
_kp_more_counters() {
	[ "$(grep -c '^counters' "$KP_OUT")" -gt "$_KP_NC" ]
}

# kp_counters: refresh $KP_C (the newest "counters" line; SIGUSR1).
kp_counters() {
	_KP_NC=$(grep -c '^counters' "$KP_OUT")
	kill -USR1 "$KP_PID" || fail "kptest is gone"
	wait_for 3000 _kp_more_counters || fail "kptest printed no counters"
	KP_C=$(grep '^counters' "$KP_OUT" | tail -n 1)
}

# kp_c NAME: counter NAME from $KP_C.
kp_c() {
	tr ' ' '\n' <<<"$KP_C" | sed -n "s/^$1=//p"
}

# kp_c_now NAME: refresh, then counter NAME.
kp_c_now() {
	kp_counters
	kp_c "$1"
}

# silence NS IF...: arp_ignore 8 on each IF, as the daemon sets it: the
# kernel answers nothing there, so any reply is the program's (or arpownd's).
silence() {
	local nsn=$1 i
	shift
	for i in "$@"; do
		sysctl_set "$nsn" "$i" arp_ignore 8
	done
}

# frame_of NS IF TARGET [arpc args...]: the hex bytes of the one reply
# (arpc -x), in $FRAME; fails unless there is exactly one.
frame_of() {
	local nsn=$1 ifn=$2 tgt=$3 out
	shift 3
	out=$(ns "$nsn" "$ARPC" -x -i "$ifn" -w 200 "$@" "$tgt" 2>&1) || true
	[ "$(grep -c '^frame ' <<<"$out")" = 1 ] || fail "expected one reply to $tgt $*: $out"
	FRAME=$(sed -n 's/^frame //p' <<<"$out")
}

# kp_daemon_start CONF: arpownd in h (seed_net's namespaces) with the
# configuration text CONF, which names answer_path = kernel; a kernel the
# program cannot load on is a SKIP with the daemon's reason.
kp_daemon_start() {
	write_conf "$1"
	arpownd_start h -c "$CONF"
	if grep -q 'the kernel answer path cannot load' "$TMPDIR_T/arpownd.log"; then
		echo "SKIP: $(grep -m1 'cannot load' "$TMPDIR_T/arpownd.log")"
		exit 77
	fi
}

# xdp_foreign: FOREIGN, another's XDP program for the coexistence tests
# (tests/tools/xdpforeign.bpf.c: drops ARP from 10.0.0.66); SKIP where
# it was not built (configure found no BPF toolchain).
xdp_foreign() {
	FOREIGN=$(_abs "${XDPFOREIGN:-${top_builddir:-.}/tests/tools/xdpforeign.bpf.o}")
	if [ ! -f "$FOREIGN" ]; then
		echo "SKIP: $FOREIGN not built (configure found no BPF toolchain)"
		exit 77
	fi
}

# xprog NS IF: the XDP program on IF in NS, "name id"; nothing when none.
xprog() {
	ns "$1" ip link show dev "$2" | sed -n 's/.*prog\/xdp id \([0-9]*\) name \([^ ]*\).*/\2 \1/p'
}
