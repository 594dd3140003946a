#!/bin/bash
# The kernel answer path on clsact hooks it shares with an administrator's
# own TC filters (doc/kpath.md, "A shared clsact"), on the seed's host:
#   eth0  no clsact before arpownd; the admin adds a filter (no pref: tc
#         picks one) once arpownd made it
#   eth1  an empty clsact the admin made before arpownd came
#   eth2  a clsact with an admin filter at tc's default pref (49152)
# The admin's filter (tests/tools/tcforeign.bpf.c) drops ICMP, and ARP
# from 10.0.0.66.  Asserted:
#  - arpownd's filter sits at the last pref (65535): every other filter
#    runs first and keeps working while arpownd runs (pings dropped, the
#    refused sender not answered, by the kernel path either), and arpownd
#    still answers the rest;
#  - SIGKILL, then arpownd --restore: only arpownd's filters go; the
#    admin's are all still there, at their prefs, and still drop; no
#    clsact qdisc is removed, the admin's empty one included;
#  - a start over the killed run's filters, then a clean stop: the same;
#    an admin's filter at arpownd's own pref, there first, runs after
#    arpownd's (cls_bpf runs the newest first) and still works.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc ping
FOREIGN=$(_abs "${TCFOREIGN:-${top_builddir:-.}/tests/tools/tcforeign.bpf.o}")
if [ ! -f "$FOREIGN" ]; then
	echo "SKIP: $FOREIGN not built (configure found no BPF toolchain)"
	exit 77
fi

seed_net
# admin IF [pref]: the admin's filter at IF's ingress
admin() {
	if [ -n "${2:-}" ]; then
		ns h tc filter add dev "$1" ingress pref "$2" bpf da obj "$FOREIGN" sec tc
	else
		ns h tc filter add dev "$1" ingress bpf da obj "$FOREIGN" sec tc
	fi || fail "tc filter add dev $1 (the admin's)"
}
# filters IF: "pref:owner ..." in tc's order (the order they run in)
filters() {
	ns h tc filter show dev "$1" ingress 2>/dev/null | awk '/ handle / {
		p = ""; for (i = 1; i < NF; i++) if ($i == "pref") p = $(i + 1)
		o = /arpownd_answer/ ? "arpownd" : /admin_filter/ ? "admin" : "other"
		printf "%s%s:%s", n++ ? " " : "", p, o }'
}
admin_filters() { filters "$1" | tr ' ' '\n' | grep ':admin$' | tr '\n' ' '; }
clsacts() { local i; for i in eth0 eth1 eth2; do ns h tc qdisc show dev "$i" | grep -c clsact; done | tr -d '\n'; }
# pings NS ADDR [WAIT]: one echo answered within WAIT s (0.5: a dropped
# one costs that much, and there are a dozen)
pings() { ns "$1" ping -c 1 -W "${3:-0.5}" "$2" >/dev/null 2>&1; }
capture_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }

# before arpownd: eth2's admin filter, eth1's empty clsact
ns h tc qdisc add dev eth2 clsact || fail "tc qdisc add dev eth2 clsact"
admin eth2 49152
ns h tc qdisc add dev eth1 clsact || fail "tc qdisc add dev eth1 clsact"
! pings f 10.1.0.1 || fail "the admin's filter does not drop ICMP on eth2 even without arpownd"
pass "without arpownd: the admin's filter drops ICMP on eth2"

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel
announce = no"
admin eth0
ADMIN0=$(admin_filters eth0)
ADMIN2=$(admin_filters eth2)

# while arpownd runs: the admin's filters work, arpownd answers the rest
check_running() {
	local what=$1
	! pings c 10.0.0.1 || fail "$what: ICMP to eth0 not dropped: the admin's filter does not run"
	! pings f 10.1.0.1 || fail "$what: ICMP to eth2 not dropped: the admin's filter (pref 49152) does not run"
	pass "$what: the admin's filters drop ICMP on eth0 and eth2"
	expect_silence c c0 10.0.0.1 "$what: ARP from the sender the admin refuses (eth0) is not answered" -s 10.0.0.66
	expect_silence f f0 10.1.0.1 "$what: ARP from the sender the admin refuses (eth2) is not answered" -s 10.0.0.66
	local before
	before=$(capture_lines eth2 10.1.0.1)
	expect_reply f f0 10.1.0.1 "$MAC2" "$what: any other sender is answered on eth2"
	expect_eq "$(capture_lines eth2 10.1.0.1)" "$before" "$what: by the kernel path (no capture line)"
	expect_reply c c0 10.0.0.2 "$MAC1" "$what: eth1 answers 10.0.0.2"
}
check_running "running"
expect_eq "$(filters eth0)" "65534:admin 65535:arpownd" "eth0 (clsact arpownd made): the admin's filter (pref chosen by tc) runs before arpownd's"
expect_eq "$(filters eth1)" "65535:arpownd" "eth1 (the admin's empty clsact): arpownd's at the last pref"
expect_eq "$(filters eth2)" "49152:admin 65535:arpownd" "eth2: the admin's at tc's default pref runs before arpownd's"

# a crash: the filters stay; --restore takes only arpownd's
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
! pings c 10.0.0.1 || fail "SIGKILL: ICMP to eth0 not dropped"
! pings f 10.1.0.1 || fail "SIGKILL: ICMP to eth2 not dropped"
pass "SIGKILL: the admin's filters still drop ICMP"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore failed"
expect_eq "$(filters eth0) | $(filters eth1) | $(filters eth2)" "65534:admin |  | 49152:admin" \
	"--restore: arpownd's filters gone, the admin's where they were"
expect_eq "$(admin_filters eth0)|$(admin_filters eth2)" "$ADMIN0|$ADMIN2" "--restore: the admin's filters unchanged"
expect_eq "$(clsacts)" 111 "--restore: no clsact qdisc removed (the admin's empty one on eth1 included)"
! pings c 10.0.0.1 || fail "--restore: ICMP to eth0 not dropped"
! pings f 10.1.0.1 || fail "--restore: ICMP to eth2 not dropped"
pass "--restore: the admin's filters still drop ICMP"
expect_silence f f0 10.1.0.1 "--restore: the kernel does not answer the refused sender either" -s 10.0.0.66
expect_reply f f0 10.1.0.1 "$MAC2" "--restore: the kernel answers the others"

# an admin's filter at arpownd's own pref, there before arpownd's (on the
# admin's clsact on eth1): cls_bpf runs the newest of a pref first, so
# arpownd's runs before it, and gives no verdict: it must still run
admin eth1 65535
# a start over a killed run's filters, then a clean stop
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
arpownd_start h -c "$CONF"
expect_eq "$(filters eth0) | $(filters eth1) | $(filters eth2)" \
	"65534:admin 65535:arpownd | 65535:arpownd 65535:admin | 49152:admin 65535:arpownd" \
	"a start over a killed run's filters: one of arpownd's each, the admin's where they were"
check_running "restarted"
! pings c 10.0.0.2 || fail "restarted: ICMP to eth1 not dropped: the admin's filter after arpownd's does not run"
pass "restarted: the admin's filter after arpownd's (same pref, older) still drops ICMP on eth1"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
expect_eq "$(filters eth0) | $(filters eth1) | $(filters eth2)" "65534:admin | 65535:admin | 49152:admin" \
	"stop: arpownd's filters gone, the admin's where they were"
expect_eq "$(admin_filters eth0)|$(admin_filters eth2)" "$ADMIN0|$ADMIN2" "stop: the admin's filters unchanged"
expect_eq "$(clsacts)" 111 "stop: no clsact qdisc removed (a filter of someone else's could be in it)"
! pings c 10.0.0.1 || fail "stop: ICMP to eth0 not dropped"
pass "stop: the admin's filters still drop ICMP"

# and the ping itself works where no filter drops it
ns h tc filter del dev eth0 ingress pref 65534 || fail "tc filter del"
pings c 10.0.0.1 2 || fail "ICMP to eth0 is lost even without the admin's filter"
pass "without the admin's filter, ICMP to eth0 passes (the checks above measured the filter)"
