#!/bin/bash
# What the in-kernel path needs, on this kernel, after the daemon drops
# root (to an unprivileged uid with CAP_NET_RAW and CAP_NET_ADMIN only,
# priv.c's priv_drop, as the daemon does):
#  - loaded as root, then dropped: map writes (new grants), deletes,
#    counters, the event ring, attaching to another interface and
#    detaching at the stop all keep working on the fds made as root;
#  - loading after the drop is refused, with a reason that says so;
#  - loading with CAP_BPF and CAP_PERFMON kept beside the two is enough
#    (no CAP_SYS_ADMIN); CAP_BPF alone is on 6.18, and on 6.1 the verifier
#    refuses with a reason that says so.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need
U=${ARPOWND_TEST_USER:-61999:61999}

pair_net
veth h hw c cw
addr_add h hw 10.2.0.1/24
addr_add c cw 10.2.0.100/24
silence h hv hw
echo "# kernel $(uname -r), kernel.unprivileged_bpf_disabled=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)"

answered() {
	ask c "$1" "$2"
	[ "$NREPLY" = 1 ]
}

# --- loaded as root, then dropped
kp_start h --drop "$U" --late hw --learn --events hv
grep -q "^dropped uid=${U%%:*} caps=net_admin, net_raw$" "$KP_OUT" ||
	fail "not dropped as expected: $(grep '^dropped' "$KP_OUT")"
[ "$(awk '/^Uid:/ { print $2 }' "/proc/$KP_PID/status")" = "${U%%:*}" ] || fail "uid not dropped"
grep -q '^CapEff:.*0000000000003000$' "/proc/$KP_PID/status" ||
	fail "effective caps not NET_ADMIN+NET_RAW: $(grep Cap "/proc/$KP_PID/status")"
pass "dropped: uid ${U%%:*}, CapEff = NET_ADMIN + NET_RAW only"
expect_reply c cw 10.2.0.1 "$(mac_of h hw)" "after the drop: attached to another interface (hw) and answered there"
addr_add h hv 10.0.0.9/24
wait_for 3000 answered cv 10.0.0.9 || fail "after the drop: a new address was not granted (map write); kptest: $(tail -n 5 "$KP_OUT" | tr "\n" "|")"
pass "after the drop: a new address granted (map writes work)"
ns h ip addr del 10.0.0.9/24 dev hv
ask c cv 10.0.0.9
expect_eq "$NREPLY" 0 "after the drop: deleted, not answered"
kp_counters
[ "$(kp_c answered)" -ge 2 ] || fail "after the drop: counters not read: $KP_C"
pass "after the drop: per-CPU counters read ($(kp_c answered) answered)"
wait_for 2000 grep -q '^event learn' "$KP_OUT" || fail "after the drop: no event read from the ring"
pass "after the drop: events read from the ring"
kp_stop
[ -z "$(ns h tc filter show dev hv ingress)$(ns h tc filter show dev hw ingress)" ] ||
	fail "after the drop: the stop left a filter"
pass "after the drop: the stop detached from both interfaces"

# --- loading after the drop
bg_run h "$KPTEST" --drop "$U" --load-after-drop hv >"$TMPDIR_T/noload.out" 2>&1
pid=$LAST_PID
rc=0
wait "$pid" || rc=$?
expect_eq "$rc" 3 "loading with NET_ADMIN + NET_RAW only: refused"
grep -q '^kp_open: not permitted' "$TMPDIR_T/noload.out" ||
	fail "the reason does not say why: $(cat "$TMPDIR_T/noload.out")"
pass "the reason: $(grep '^kp_open:' "$TMPDIR_T/noload.out")"

# --- loading with CAP_BPF kept: enough on 6.18; Debian 12's 6.1 verifier
# wants CAP_PERFMON as well (without allow_ptr_leaks it refuses a partial
# overwrite of a spilled pointer, which clang's stack reuse makes), and
# says so: kernel-path.conf grants both, the daemon gives both up
bg_run h "$KPTEST" --drop "$U" --keep-bpf --load-after-drop hv >"$TMPDIR_T/bpfonly.out" 2>&1
pid=$LAST_PID
wait_for 20000 grep -qE '^(ready|kp_open:)' "$TMPDIR_T/bpfonly.out" || fail "kptest --keep-bpf: $(cat "$TMPDIR_T/bpfonly.out")"
if grep -q '^ready$' "$TMPDIR_T/bpfonly.out"; then
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	expect_eq "$rc" 0 "kptest --keep-bpf: a clean exit at SIGTERM"
	pass "loaded by uid ${U%%:*} with CAP_BPF + NET_ADMIN + NET_RAW (this kernel's verifier needs no CAP_PERFMON)"
else
	wait "$pid" 2>/dev/null
	grep -q "^kp_open: the kernel's verifier refused the program" "$TMPDIR_T/bpfonly.out" ||
		fail "CAP_BPF without CAP_PERFMON: refused, but not by the verifier: $(cat "$TMPDIR_T/bpfonly.out")"
	pass "CAP_BPF without CAP_PERFMON: this kernel's verifier refuses, and says so"
fi
kp_start h --drop "$U" --keep-perfmon --load-after-drop hv
grep -q "^dropped uid=${U%%:*} caps=net_admin, net_raw, perfmon, bpf$" "$KP_OUT" ||
	fail "not dropped as expected: $(grep '^dropped' "$KP_OUT")"
expect_reply c cv 10.0.0.1 "$(mac_of h hv)" "loaded by uid ${U%%:*} with CAP_BPF + CAP_PERFMON + NET_ADMIN + NET_RAW: answers"
kp_stop
