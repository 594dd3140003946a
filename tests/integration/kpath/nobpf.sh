#!/bin/bash
# An arpownd built without the kernel answer path (configure --disable-bpf,
# or no clang/libbpf/bpftool; distcheck builds it so): answer_path =
# kernel is a configuration error at start and at reload, as -n says, and
# auto is the capture path with one line saying why.  Listed in TESTS
# only for such a build (Makefile.am); the BPF build's answer_path is
# tested by kpath_*.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
A=$ARPOWND
"$A" -V | grep -q '(kernel answer path: not built)$' || fail "not a build without the kernel path: $("$A" -V)"
seed_net

# kernel in a section: the start refuses it as -n does, 78, touching nothing
write_conf "[global]
interfaces = eth*
[interface lan]
match = eth0
answer_path = kernel"
l=$(grep -n '^answer_path = kernel' "$CONF" | cut -d: -f1)
n=0
"$A" -n -q -c "$CONF" >"$TMPDIR_T/n.out" 2>&1 || n=$?
expect_eq "$n" 78 "-n -q: answer_path = kernel refused (EX_CONFIG)"
s=0
ns h "$A" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" >"$TMPDIR_T/start.out" 2>&1 || s=$?
expect_eq "$s" 78 "the start: refused with the same 78, which RestartPreventExitStatus= does not retry"
grep -q "arpownd.conf:$l: \[interface lan\] answer_path = kernel: this arpownd is built without" \
	"$TMPDIR_T/start.out" || fail "the start's error does not name file:line, section and why: $(cat "$TMPDIR_T/start.out")"
pass "the start's error names arpownd.conf:$l, the section and why"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "refused start: eth0's arp_ignore untouched"

# auto: one line, the capture path answers
write_conf "[global]
interfaces = eth*
answer_path = auto"
arpownd_start h -c "$CONF"
expect_eq "$(grep -c 'answer_path = auto: .*the capture path answers' "$TMPDIR_T/arpownd.log")" 1 \
	"auto: one line says the capture path answers"
expect_reply c c0 10.0.0.1 "$MAC0" "auto: eth0 answered by the capture path"
expect_eq "$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")" \
	"eth0=capture eth1=capture eth2=capture" "auto: status says the capture path answers every interface"

# a reload to kernel: refused, the running configuration stays
write_conf "[global]
interfaces = eth*
mode = subnet
answer_path = kernel"
kill -HUP "$ARPOWND_PID"
wait_for 3000 grep -q 'not reloaded' "$TMPDIR_T/arpownd.log" || fail "a reload to answer_path = kernel was not refused"
_alive "$ARPOWND_PID" || fail "the daemon died on the reload"
grep -q '\[global\] answer_path = kernel: this arpownd is built without' "$TMPDIR_T/arpownd.log" ||
	fail "the reload's refusal does not say why: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
pass "SIGHUP: answer_path = kernel refused, with why"
rc=0
ctl reload >"$TMPDIR_T/ctl.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "arpownctl reload of that file exits 0: $(cat "$TMPDIR_T/ctl.out")"
pass "arpownctl reload of that file: exit $rc"
# still owner mode: a sender from no subnet of eth0 is answered
expect_reply c c0 10.0.0.1 "$MAC0" "after the refused reloads: the old configuration answers" -s 192.168.9.9

# SIGKILL, then --restore: every sysctl back
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "SIGKILLed: eth0 still at 8"
rr=0
ns h "$A" --restore --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/restore.out" 2>&1 || rr=$?
expect_eq "$rr" 0 "--restore: exit 0"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "--restore: eth0's arp_ignore back"
