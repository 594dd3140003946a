# lib.sh — sourced by the integration tests:  . "$(dirname "$0")/lib.sh"
# shellcheck shell=bash
#
# Every network object a test makes lives in network namespaces named
# "${NS_PREFIX}NAME"; nothing here touches the host's own namespace, its
# interfaces or its sysctls.  The EXIT trap (cleanup) kills what the test
# started, prints the logs when the test failed and deletes the namespaces
# and the temporary directory.  Exit 77 means SKIP to automake.
#
# Call bg_run and arpownd_start from the test's main shell, not inside $(...)
# or a pipeline: the pids must be children of that shell.

if [ -n "${_ARPOWND_LIB_SH:-}" ]; then
	return 0
fi
_ARPOWND_LIB_SH=1

NS_PREFIX="ao$$"

_abs() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$PWD" "$1" ;;
	esac
}
ARPC=$(_abs "${ARPC:-${top_builddir:-.}/tests/tools/arpc}")
ARPOWND=$(_abs "${ARPOWND:-${top_builddir:-.}/src/arpownd}")
ARPOWNCTL=$(_abs "${ARPOWNCTL:-${top_builddir:-.}/src/arpownctl}")
# LD_PRELOAD fault injection (tests/tools/faultinj.c): arpownd_start loads
# it when ARPOWND_FAULTS holds NAME=VALUE words (ARPOWND_FAULT_NAME=VALUE)
FAULTINJ=$(_abs "${FAULTINJ:-${top_builddir:-.}/tests/tools/faultinj.so}")

TMPDIR_T=$(mktemp -d "${TMPDIR:-/tmp}/arpownd-test.XXXXXX") || {
	echo "FAIL: mktemp -d" >&2
	exit 99
}
# arpownd started as root drops to an unprivileged user: it must still
# reach its state dir, its config and the notify socket in here
chmod 755 "$TMPDIR_T"
ARPOWND_STATE_DIR=$TMPDIR_T/state
mkdir -p "$ARPOWND_STATE_DIR"
# The notify listener's lifetime; cleanup ends it sooner.
NOTIFY_TIMEOUT_MS=${NOTIFY_TIMEOUT_MS:-600000}

_NS_LIST=()		# full names of the namespaces we made
_PIDS=()		# background processes we started
_CLEANUP_HOOKS=()	# at_cleanup commands
_ARPOWND_RUNS=0
ARPOWND_PID=
ARPOWND_RC=
NOTIFY_PID=
LAST_PID=

# Set for the tests that source this file.
export ARPC ARPOWND ARPOWNCTL TMPDIR_T ARPOWND_STATE_DIR NS_PREFIX
: "${ARPOWND_RC:=}"

# ---- results ---------------------------------------------------------

_FAILED=
fail() {
	echo "FAIL: $*" >&2
	_FAILED=1
	exit 1
}

pass() {
	echo "ok - $*"
}

# expect_eq ACTUAL EXPECTED MSG
expect_eq() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3: expected '$2', got '$1'"
	fi
}

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root"
		exit 77
	fi
}

need_cmd() {
	local c
	for c in "$@"; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "SKIP: needs $c"
			exit 77
		fi
	done
}

# Root in a container may still be unable to make namespaces: skip then.
need_netns() {
	need_root
	need_cmd ip
	if ! ip netns add "${NS_PREFIX}probe" 2>/dev/null; then
		echo "SKIP: cannot create network namespaces"
		exit 77
	fi
	ip netns del "${NS_PREFIX}probe" 2>/dev/null || true
}

# ---- time ------------------------------------------------------------

# Sets _NOW_MS to a millisecond clock.
_now_ms() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME/[.,]/}
		_NOW_MS=$((10#$t / 1000))
	else
		_NOW_MS=$(date +%s%3N)
	fi
}

# wait_for TIMEOUT_MS cmd...: run cmd every 10 ms until it succeeds (0) or
# TIMEOUT_MS has passed (1).
wait_for() {
	local timeout=$1 end
	shift
	_now_ms
	end=$((_NOW_MS + timeout))
	while :; do
		if "$@"; then
			return 0
		fi
		_now_ms
		if [ "$_NOW_MS" -ge "$end" ]; then
			return 1
		fi
		sleep 0.01
	done
}

# ---- namespaces ------------------------------------------------------

# _ns_full NAME: sets _NSF to the namespace's full name; fails unless this
# test made it, so no helper ever acts on the host's namespace.
_ns_full() {
	local n
	[ -n "${1:-}" ] || fail "namespace name missing"
	for n in "${_NS_LIST[@]}"; do
		if [ "$n" = "${NS_PREFIX}$1" ]; then
			_NSF=$n
			return 0
		fi
	done
	fail "unknown namespace '$1' (make it with ns_new)"
}

_ifname_ok() {
	if [ -z "$1" ] || [ "${#1}" -gt 15 ]; then
		fail "bad interface name '$1' (1..15 characters)"
	fi
}

# ns_new NAME: make netns ${NS_PREFIX}NAME with lo up.
ns_new() {
	local full="${NS_PREFIX}${1:?ns_new NAME}"
	ip netns add "$full" || fail "ip netns add $full"
	_NS_LIST+=("$full")
	ip -n "$full" link set lo up || fail "lo up in $full"
}

# ns NAME cmd...: run cmd inside the namespace.
ns() {
	_ns_full "$1"
	shift
	ip netns exec "$_NSF" "$@"
}

# veth NSA IFA NSB IFB: a veth pair IFA (in NSA) <-> IFB (in NSB), both up.
veth() {
	local a b
	_ns_full "$1"; a=$_NSF
	_ns_full "$3"; b=$_NSF
	_ifname_ok "$2"
	_ifname_ok "$4"
	ip -n "$a" link add "$2" type veth peer name "$4" netns "$b" ||
		fail "veth $2@$1 <-> $4@$3"
	ip -n "$a" link set "$2" up || fail "link $2 up in $1"
	ip -n "$b" link set "$4" up || fail "link $4 up in $3"
}

# bridge_new NS BR: a bridge in NS, up.
bridge_new() {
	_ns_full "$1"
	_ifname_ok "$2"
	ip -n "$_NSF" link add "$2" type bridge || fail "bridge $2 in $1"
	ip -n "$_NSF" link set "$2" up || fail "bridge $2 up in $1"
}

# bridge_add NS BR IF: enslave IF to BR (and bring IF up).
bridge_add() {
	_ns_full "$1"
	ip -n "$_NSF" link set "$3" master "$2" || fail "enslave $3 to $2 in $1"
	ip -n "$_NSF" link set "$3" up || fail "link $3 up in $1"
}

# addr_add NS IF CIDR: add an IPv4 address.
addr_add() {
	_ns_full "$1"
	ip -n "$_NSF" addr add "$3" dev "$2" || fail "addr $3 on $2 in $1"
}

# sysctl_get NS IF KEY: net.ipv4.conf.IF.KEY as seen inside NS.
sysctl_get() {
	_ns_full "$1"
	ip netns exec "$_NSF" cat "/proc/sys/net/ipv4/conf/$2/$3"
}

# sysctl_set NS IF KEY VAL
sysctl_set() {
	_ns_full "$1"
	# shellcheck disable=SC2016 # expanded by the inner sh
	ip netns exec "$_NSF" sh -c 'printf "%s\n" "$1" > "$2"' sh "$4" \
		"/proc/sys/net/ipv4/conf/$2/$3" ||
		fail "sysctl_set $1 net.ipv4.conf.$2.$3=$4"
}

# mac_of NS IF
mac_of() {
	_ns_full "$1"
	ip netns exec "$_NSF" cat "/sys/class/net/$2/address"
}

# ---- processes -------------------------------------------------------

_track() {
	_PIDS+=("$1")
}

# True while pid $1 runs (a zombie does not count).
_alive() {
	local s
	[ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ]
}

# True when pid $1 is a child of this shell (so not a recycled pid).
_ours() {
	local ppid
	ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ "$ppid" = "$$" ]
}

# bg_run NS cmd...: start cmd in NS in the background; its pid in $LAST_PID.
# ip netns exec execs the command, so the pid is the command's own.
bg_run() {
	_ns_full "$1"
	shift
	ip netns exec "$_NSF" "$@" &
	LAST_PID=$!
	_track "$LAST_PID"
}

# at_cleanup CMD...: run CMD (eval'd) at exit, before the namespaces go.
at_cleanup() {
	_CLEANUP_HOOKS+=("$*")
}

# ---- the daemon ------------------------------------------------------

_notify_ready() {
	grep -Eq '(^| )READY=1( |$)' "$TMPDIR_T/notify.log" 2>/dev/null
}

_daemon_gone() {
	! _alive "$ARPOWND_PID"
}

_start_done() {
	_notify_ready || _daemon_gone
}

_notify_gone() {
	! _alive "$NOTIFY_PID"
}

# arpownd_start NS [args...]: start arpownd -d in NS with its own state dir
# (ARPOWND_DEBUG=0: without -d, the level then the configuration's: no
# line per request, for the floods and for what a user sees by default),
# output appended to $TMPDIR_T/arpownd.log, and return once it sent READY=1
# to the notify listener (log: $TMPDIR_T/notify.log, one per start; the
# previous start's is kept as notify.log.N).  Sets ARPOWND_PID.
arpownd_start() {
	local sock="$TMPDIR_T/notify.sock" n
	_ns_full "$1"
	local ns_short=$1
	shift
	[ -x "$ARPOWND" ] || fail "arpownd not built: $ARPOWND"
	[ -x "$ARPC" ] || fail "arpc not built: $ARPC"
	if _alive "$ARPOWND_PID"; then
		fail "arpownd_start: arpownd already running (pid $ARPOWND_PID)"
	fi
	[ "${#sock}" -lt 108 ] || fail "notify socket path too long: $sock"

	if _alive "$NOTIFY_PID"; then
		kill -TERM "$NOTIFY_PID" 2>/dev/null
		wait "$NOTIFY_PID" 2>/dev/null || true
	fi
	n=$_ARPOWND_RUNS
	_ARPOWND_RUNS=$((n + 1))
	if [ -f "$TMPDIR_T/notify.log" ]; then
		mv "$TMPDIR_T/notify.log" "$TMPDIR_T/notify.log.$n"
	fi
	rm -f "$sock"
	"$ARPC" --notify-listen "$sock" --notify-timeout "$NOTIFY_TIMEOUT_MS" \
		>"$TMPDIR_T/notify.log" 2>>"$TMPDIR_T/notify.err" &
	NOTIFY_PID=$!
	_track "$NOTIFY_PID"
	wait_for 2000 test -S "$sock" || fail "notify listener did not start"
	chmod 666 "$sock"

	local dflag=-d kv faults=()
	[ "${ARPOWND_DEBUG:-1}" != 0 ] || dflag=
	if [ -n "${ARPOWND_FAULTS:-}" ]; then
		[ -f "$FAULTINJ" ] || fail "fault injection not built: $FAULTINJ"
		faults=("LD_PRELOAD=$FAULTINJ")
		for kv in $ARPOWND_FAULTS; do faults+=("ARPOWND_FAULT_$kv"); done
	fi
	echo "=== arpownd start $_ARPOWND_RUNS in $ns_short: $ARPOWND $dflag --state-dir $ARPOWND_STATE_DIR $*" \
		>>"$TMPDIR_T/arpownd.log"
	# shellcheck disable=SC2086 # no -d: no word at all
	bg_run "$ns_short" env "${faults[@]}" NOTIFY_SOCKET="$sock" \
		"$ARPOWND" $dflag --state-dir "$ARPOWND_STATE_DIR" "$@" \
		>>"$TMPDIR_T/arpownd.log" 2>&1
	ARPOWND_PID=$LAST_PID
	ARPOWND_RC=

	# READY=1, an early exit or 5 s, whichever comes first.
	wait_for 5000 _start_done || true
	if _notify_ready; then
		# on the kernel answer path (kpath_*.sh wrappers): it must
		# really be there, not the capture path behind a fallback
		# (log_level = debug keeps every answer on the capture path,
		# where each is a line)
		if [ "${ARPOWND_ANSWER_PATH:-}" = kernel ] && grep -q '^answer_path = kernel' "$CONF" 2>/dev/null &&
		    ! grep -q '^[[:space:]]*log_level[[:space:]]*=[[:space:]]*debug' "$CONF"; then
			local k
			k=$(tail -n 200 "$TMPDIR_T/arpownd.log" | grep -c ': answered by the kernel path')
			[ "$k" -gt 0 ] || fail "answer_path = kernel, but no interface is answered by the kernel path"
			echo "# $k interface(s) answered by the kernel path"
		fi
		# on XDP (tests/integration/xdp/*.sh): at XDP, not TC behind a
		# fallback
		if [ "${ARPOWND_ANSWER_PATH:-}" = xdp ] && grep -q '^answer_path = xdp' "$CONF" 2>/dev/null &&
		    ! grep -q '^[[:space:]]*log_level[[:space:]]*=[[:space:]]*debug' "$CONF"; then
			local k
			k=$(tail -n 200 "$TMPDIR_T/arpownd.log" | grep -c ': answered by the kernel path at XDP')
			[ "$k" -gt 0 ] || fail "answer_path = xdp, but no interface is answered at XDP"
			echo "# $k interface(s) answered by the kernel path at XDP"
		fi
		return 0
	fi
	if _daemon_gone; then
		local rc=0
		wait "$ARPOWND_PID" 2>/dev/null || rc=$?
		fail "arpownd exited (status $rc) before READY=1; log follows"
	fi
	fail "arpownd sent no READY=1 within 5 s; log follows"
}

# arpownd_stop: SIGTERM, wait at most 5 s (then SIGKILL); the exit status
# goes to $ARPOWND_RC (128+N for signal N).  Then lets the notify listener
# log the last messages and finish.
arpownd_stop() {
	local pid=$ARPOWND_PID rc=0
	[ -n "$pid" ] || fail "arpownd_stop: arpownd was not started"
	kill -TERM "$pid" 2>/dev/null || true
	if ! wait_for 5000 _daemon_gone; then
		echo "arpownd_stop: arpownd (pid $pid) still running 5 s after SIGTERM: SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || rc=$?
	ARPOWND_RC=$rc
	ARPOWND_PID=
	if [ -n "$NOTIFY_PID" ]; then
		# It leaves 200 ms after STOPPING=1; without that, end it.
		if ! wait_for 1000 _notify_gone; then
			kill -TERM "$NOTIFY_PID" 2>/dev/null || true
		fi
		wait "$NOTIFY_PID" 2>/dev/null || true
		NOTIFY_PID=
	fi
	return 0
}

# ---- the control socket ----------------------------------------------

# ctl ARGS...: arpownctl on the test's daemon (a path socket: no namespace
# needed).
ctl() {
	"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" "$@"
}

# jq_py EXPR < JSON: print the Python expression EXPR over the document
# "d" (json.load of stdin); lists one item a line.  python3 is in the
# package list; jq is not.
jq_py() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1], {"d": d})
if isinstance(v, list):
    for x in v: print(x)
else:
    print(v)' "$1"
}

# ctl_get COMMAND EXPR: the daemon's --json reply to COMMAND through jq_py.
ctl_get() {
	local out
	out=$(ctl --json "$1") || fail "arpownctl $1 failed: $out"
	jq_py "$2" <<<"$out" || fail "arpownctl $1: cannot evaluate $2 over: $out"
}

# ---- the state directory ---------------------------------------------

# saved_originals [DIR]: the records of the newest complete slot file
# (originals.0 / originals.1: header with the generation, crc32 trailer),
# one "NAME arp_ignore=N arp_announce=M" line each (the name as the file
# encodes it), sorted; nothing when none is saved.
saved_originals() {
	local dir=${1:-$ARPOWND_STATE_DIR} f best= bestgen=-1 g
	for f in "$dir"/originals.0 "$dir"/originals.1; do
		[ -s "$f" ] || continue
		tail -n 1 "$f" | grep -q '^crc32=[0-9a-f]\{8\}$' || continue
		g=$(sed -n '1s/^arpownd originals v2 gen=\([0-9]*\)$/\1/p' "$f")
		[ -n "$g" ] && [ "$g" -gt "$bestgen" ] || continue
		best=$f
		bestgen=$g
	done
	[ -n "$best" ] || return 0
	sed -n 's/^ifindex=[0-9]* name=\([^ ]*\)\(.*\)$/\1\2/p' "$best" | sort
}

# ---- cleanup ---------------------------------------------------------

_print_logs() {
	local f any=
	for f in "$TMPDIR_T"/arpownd.log "$TMPDIR_T"/notify.log* "$TMPDIR_T"/notify.err; do
		[ -s "$f" ] || continue
		echo "----- ${f##*/} -----" >&2
		cat "$f" >&2
		any=1
	done
	[ -z "$any" ] || echo "----- end of logs -----" >&2
}

# _cleanup_kill PID TICKS: SIGTERM, wait TICKS x 10 ms, then SIGKILL; only
# for a live child of this shell.
_cleanup_kill() {
	local i
	_alive "$1" && _ours "$1" || return 0
	kill -TERM "$1" 2>/dev/null
	for ((i = 0; i < $2; i++)); do
		_alive "$1" || return 0
		sleep 0.01
	done
	kill -KILL "$1" 2>/dev/null
}

cleanup() {
	local rc=$? pid h n p
	trap - EXIT
	# Nothing may cut this short: not a second signal, not a closed stderr.
	trap '' INT TERM HUP PIPE
	set +e
	for h in "${_CLEANUP_HOOKS[@]}"; do
		eval "$h"
	done

	# No "Killed" job reports; pids are checked through /proc below.
	disown -a 2>/dev/null
	# Our children, the notify listener last so that it still hears
	# STOPPING=1: SIGTERM, up to 2 s, then SIGKILL.
	for pid in "${_PIDS[@]}"; do
		[ "$pid" = "$NOTIFY_PID" ] || _cleanup_kill "$pid" 200
	done
	[ -z "$NOTIFY_PID" ] || _cleanup_kill "$NOTIFY_PID" 50
	# Anything else still inside our namespaces is ours too.
	for n in "${_NS_LIST[@]}"; do
		for p in $(ip netns pids "$n" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
	done

	for n in "${_NS_LIST[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		[ -n "$_FAILED" ] || echo "FAIL: ${0##*/} exited with status $rc" >&2
		_print_logs
	fi
	if [ -n "${KEEP_TMP:-}" ]; then
		echo "kept $TMPDIR_T" >&2
	else
		rm -rf "$TMPDIR_T"
	fi
	exit "$rc"
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
