#!/bin/bash
# make bench-kpath: the kernel's own ARP responder, the in-kernel answer
# path (arpownd with answer_path = kernel: the eBPF program at TC
# ingress, fed by the daemon), the same program at XDP (answer_path =
# xdp: generic XDP on a veth) and arpownd's capture path, side by side
# on one veth pair, in one run: ping-pong (spinning and
# sleeping client) and floods of 200k/s and 400k/s (loss, and p99 of a
# 1,000/s probe beside them), whole-box CPU per 100k answered at
# 100k/s (median of 3), and a storm (two sender threads as fast as they
# go, with a busy loop on the host: the rate answered and the CPU left
# to the loop), each as a ratio to the kernel.  The same
# measurements as bench.sh (median of three runs each), limits off.
# Every flood is bounded in count and time; everything lives in
# namespaces this script makes and removes.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/topo.sh"
. "$here/../integration/kpath_lib.sh"
. "$here/benchlib.sh"
trap cleanup EXIT
kp_need

bench_pair

measure() {
	box3
	eval "$1_BOX=$BOX"
	storm
	eval "$1_STOFF=$STORM_OFF $1_STANS=$STORM_ANS $1_STLEFT=$STORM_LEFT"
	PP_SLEEP=1 pingpong
	eval "$1_SP50=$PP50"
	pingpong
	eval "$1_PP50=$PP50 $1_PP99=$PP99"
	for r in 200000 400000; do
		load "$r"
		eval "$1_LOSS_$r=\$LOSS $1_RATE_$r=\$RATE $1_OFF_$r=\$OFFERED $1_LP99_$r=\$LP99 $1_CLI_$r=\$CLI"
	done
}

echo "== kernel"
measure K
# the daemon with answer_path = $1 on hv, measured as $2
kpath_run() {
	echo "== kernel path (eBPF, arpownd with answer_path = $1)"
	sed "s/^log_level = info\$/log_level = info\nanswer_path = $1/" "$TMPDIR_T/bench.conf" >"$TMPDIR_T/kbench.conf"
	bg_run h "$ARPOWND" -c "$TMPDIR_T/kbench.conf" --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1
	DPID=$LAST_PID
	wait_for 5000 ns c "$ARPC" -q -i cv -w 100 10.0.0.1 >/dev/null || fail "arpownd (answer_path = $1) did not answer"
	wait_for 3000 grep -q "hv: answered by the kernel path$3" "$TMPDIR_T/arpownd.log" ||
		fail "answer_path = $1: hv is not answered by the kernel path$3: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
	measure "$2"
	eval "$2CNT=\$(\"\$ARPOWNCTL\" --state-dir \"\$ARPOWND_STATE_DIR\" counters hv 2>/dev/null | tr -s ' \n' ' ' | cut -c1-300)"
	kill -TERM "$DPID"
	wait "$DPID"
}
kpath_run kernel B ""
kpath_run xdp X " at XDP"
# native XDP on a veth needs the peer's NAPI, which the daemon cannot see
# (it uses generic there): measured with kptest (the same program and
# maps, fed from kptest's own table, learning on, limits off) with an
# XDP program on the client's cv, which gives it NAPI
XF=$(_abs "${XDPFOREIGN:-${top_builddir:-.}/tests/tools/xdpforeign.bpf.o}")
N_ON=
if [ -f "$XF" ] && ns c ip link set dev cv xdp obj "$XF" sec xdp 2>/dev/null; then
	echo "== XDP native (kptest --xdp native hv; an XDP program on cv)"
	kp_start h --xdp native --learn hv
	measure N
	kp_stop
	ns c ip link set dev cv xdp off
	N_ON=1
fi
echo "== arpownd (capture path)"
bg_run h "$ARPOWND" -c "$TMPDIR_T/bench.conf" --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1
DPID=$LAST_PID
wait_for 5000 ns c "$ARPC" -q -i cv -w 100 10.0.0.1 >/dev/null || fail "arpownd did not answer"
measure A
kill -TERM "$DPID"
wait "$DPID"

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 | $8 |${N_ON:+ $9 | ${10} |}"); }
krate() { awk -v r="$1" 'BEGIN { printf "%.1fk/s", r / 1000 }'; }
row "ping-pong p50 (us), client spinning" "$K_PP50" "$B_PP50" "$(ratio "$B_PP50" "$K_PP50")" \
	"$X_PP50" "$(ratio "$X_PP50" "$K_PP50")" "$A_PP50" "$(ratio "$A_PP50" "$K_PP50")" \
	"${N_PP50:-}" "$(ratio "${N_PP50:-}" "$K_PP50")"
row "ping-pong p99 (us), client spinning" "$K_PP99" "$B_PP99" "$(ratio "$B_PP99" "$K_PP99")" \
	"$X_PP99" "$(ratio "$X_PP99" "$K_PP99")" "$A_PP99" "$(ratio "$A_PP99" "$K_PP99")" \
	"${N_PP99:-}" "$(ratio "${N_PP99:-}" "$K_PP99")"
row "ping-pong p50 (us), client sleeping" "$K_SP50" "$B_SP50" "$(ratio "$B_SP50" "$K_SP50")" \
	"$X_SP50" "$(ratio "$X_SP50" "$K_SP50")" "$A_SP50" "$(ratio "$A_SP50" "$K_SP50")" \
	"${N_SP50:-}" "$(ratio "${N_SP50:-}" "$K_SP50")"
for r in 200000 400000; do
	for v in LOSS RATE OFF LP99 CLI; do
		eval "k$v=\$K_${v}_$r b$v=\$B_${v}_$r x$v=\$X_${v}_$r a$v=\$A_${v}_$r n$v=\${N_${v}_$r:-}"
	done
	note() { [ "$1" = yes ] && echo "" || echo " (not offered)"; }
	row "loss at $((r / 1000))k/s, median of 3 (achieved)" "$kLOSS % ($(krate "$kRATE"))$(note "$kOFF")" \
		"$bLOSS % ($(krate "$bRATE"))$(note "$bOFF")" "" "$xLOSS % ($(krate "$xRATE"))$(note "$xOFF")" "" \
		"$aLOSS % ($(krate "$aRATE"))$(note "$aOFF")" "" "$nLOSS % ($(krate "${nRATE:-0}"))$(note "$nOFF")" ""
	row "- client sent/answered/dup" "$kCLI" "$bCLI" "" "$xCLI" "" "$aCLI" "" "$nCLI" ""
	row "p99 under $((r / 1000))k/s (us), 1,000/s probe, median of 3" "$kLP99" "$bLP99" "$(ratio "$bLP99" "$kLP99")" \
		"$xLP99" "$(ratio "$xLP99" "$kLP99")" "$aLP99" "$(ratio "$aLP99" "$kLP99")" \
		"$nLP99" "$(ratio "$nLP99" "$kLP99")"
done
row "whole box CPU s per 100k answered at 100k/s, median of 3" "$K_BOX" "$B_BOX" "$(ratio "$B_BOX" "$K_BOX")" \
	"$X_BOX" "$(ratio "$X_BOX" "$K_BOX")" "$A_BOX" "$(ratio "$A_BOX" "$K_BOX")" \
	"${N_BOX:-}" "$(ratio "${N_BOX:-}" "$K_BOX")"
row "storm, 2 sender threads: offered / answered per s" "$K_STOFF / $K_STANS" "$B_STOFF / $B_STANS" "" \
	"$X_STOFF / $X_STANS" "" "$A_STOFF / $A_STANS" "" "${N_STOFF:-} / ${N_STANS:-}" ""
row "- CPU left to a busy loop on the host (% of idle)" "$K_STLEFT" "$B_STLEFT" "" "$X_STLEFT" "" "$A_STLEFT" "" \
	"${N_STLEFT:-}" ""
{
	echo "kernel path benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| metric | kernel | kernel path (TC) | ratio | XDP (generic) | ratio | arpownd (capture) | ratio |${N_ON:+ XDP native (kptest) | ratio |}"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |${N_ON:+ --- | --- |}"
	printf '%s\n' "${ROWS[@]}"
	echo
	echo "arpownd counters hv after the TC run: $BCNT"
	echo "arpownd counters hv after the XDP run: $XCNT"
} | tee "${BENCH_OUT:-/dev/null}"
