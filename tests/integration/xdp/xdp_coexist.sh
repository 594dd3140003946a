#!/bin/bash
# Another XDP program on an interface arpownd manages (a firewall:
# tests/tools/xdpforeign.bpf.c drops ARP from 10.0.0.66) is never
# replaced, moved or removed:
#  - answer_path = auto: that interface is answered at TC, behind it
#    (its drop still applies), with one line naming it; status says so;
#    the others at XDP;
#  - arpownd's own XDP program cannot be replaced nor taken off by
#    another's netlink attach while it runs (a BPF link);
#  - SIGKILL: arpownd's XDP programs go with the process (the links),
#    the foreign one stays, as after --restore;
#  - answer_path = xdp: no start (78), the other program named, and the
#    clean-up leaves it in place and the kernel answering.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
xdp_foreign

seed_net
ns h ip link set dev eth0 xdpgeneric obj "$FOREIGN" sec xdp || fail "the foreign XDP program on eth0"
FID=$(xprog h eth0)
case $FID in fw_xdp\ *) pass "eth0 has the foreign program ($FID)" ;; *) fail "eth0: '$FID'" ;; esac

write_conf "[global]
interfaces = eth*
answer_path = auto"
arpownd_start h -c "$CONF"
if grep -q 'the kernel answer path did not load' "$TMPDIR_T/arpownd.log"; then
	echo "SKIP: $(grep -m1 'did not load' "$TMPDIR_T/arpownd.log")"
	exit 77
fi
grep -q "eth0: not answered at XDP: another XDP program is on it: fw_xdp (id ${FID#* }); the kernel path answers there at TC" \
    "$TMPDIR_T/arpownd.log" || fail "auto: no line naming the foreign program on eth0"
pass "auto: one line names fw_xdp on eth0, answered at TC"
expect_eq "$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")" \
	"eth0=kernel eth1=xdp eth2=xdp" "status: eth0 at TC, eth1 and eth2 at XDP"
ctl_get status "[i['not_xdp'] for i in d['managed'] if i['name'] == 'eth0'][0]" | grep -q fw_xdp ||
	fail "status: eth0's not_xdp does not name fw_xdp"
pass "status: eth0's not_xdp names fw_xdp"
expect_eq "$(xprog h eth0)" "$FID" "auto: the foreign program stays on eth0"
expect_eq "$(xprog h eth1 | cut -d' ' -f1)" arpownd_xdp "auto: arpownd_xdp on eth1"
expect_reply c c0 10.0.0.1 "$MAC0" "eth0 answers 10.0.0.1 (TC, behind the foreign program)"
expect_reply c c0 10.0.0.2 "$MAC1" "eth1 answers 10.0.0.2 (XDP)"
expect_silence c c0 10.0.0.1 "the foreign program's drop still applies (sender 10.0.0.66)" -s 10.0.0.66
# an event on eth0 (an address): it stays at TC, no detach and retry
ns h ip addr add 10.0.0.21/24 dev eth0
expect_reply c c0 10.0.0.21 "$MAC0" "eth0's new address answered"
expect_eq "$(grep -c 'eth0: the kernel path moves' "$TMPDIR_T/arpownd.log")" 0 \
	"eth0 stays at TC through its events (no detach and failed XDP attach each time)"
ctl_get status "[i['not_xdp'] for i in d['managed'] if i['name'] == 'eth0'][0]" | grep -q fw_xdp ||
	fail "status: after the event eth0's not_xdp no longer names fw_xdp"
pass "status: eth0's not_xdp still names fw_xdp"

# another's attach over ours, or a detach: refused while it runs
OURS=$(xprog h eth1)
ns h ip link set dev eth1 xdpgeneric obj "$FOREIGN" sec xdp 2>/dev/null &&
	fail "a netlink attach replaced arpownd_xdp on eth1"
ns h ip link set dev eth1 xdpgeneric off 2>/dev/null
expect_eq "$(xprog h eth1)" "$OURS" "another's attach or detach leaves arpownd_xdp on eth1"
expect_reply c c0 10.0.0.2 "$MAC1" "eth1 still answers at XDP"

# SIGKILL: the links go with the process
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
no_ours() { [ -z "$(xprog h eth1)$(xprog h eth2)" ]; }
wait_for 2000 no_ours || true
expect_eq "$(xprog h eth1)$(xprog h eth2)" "" "SIGKILL: no arpownd_xdp left (the links went with the process)"
expect_eq "$(xprog h eth0)" "$FID" "SIGKILL: the foreign program stays on eth0"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore failed"
expect_eq "$(xprog h eth0)" "$FID" "--restore: the foreign program stays on eth0"

# answer_path = xdp: a configuration this host cannot honour: no start
# (78, not retried), the program named, everything given back
write_conf "[global]
interfaces = eth*
answer_path = xdp"
rc=0
ns h timeout 20 "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" \
	>"$TMPDIR_T/start.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "xdp: the start exits 78 (a configuration error: not retried)"
grep -q "eth0: answer_path = xdp: another XDP program is on it: fw_xdp (id ${FID#* }); not starting" \
    "$TMPDIR_T/start.out" || fail "xdp: the start's error does not name fw_xdp: $(tail -n 5 "$TMPDIR_T/start.out")"
pass "xdp: the start's error names fw_xdp on eth0"
expect_eq "$(xprog h eth0)" "$FID" "refused start: the foreign program stays on eth0"
expect_eq "$(xprog h eth1)$(xprog h eth2)" "" "refused start: no arpownd_xdp left on eth1 or eth2"
expect_eq "$(ns h tc filter show dev eth0 ingress 2>/dev/null | grep -c arpownd_answer)" 0 \
	"refused start: no arpownd filter left on eth0"
ask c c0 10.0.0.1
[[ ,$MACS, == *,$MAC0,* ]] || fail "refused start: the kernel does not answer 10.0.0.1 from eth0 ('$MACS')"
pass "refused start: the kernel answers 10.0.0.1 again"

# a reload to answer_path = xdp onto eth0 is refused alike: the error
# names fw_xdp to the one who reloads, and what ran goes on unchanged
write_conf "[global]
interfaces = eth*
answer_path = auto"
arpownd_start h -c "$CONF"
printf '[interface e0]\nmatch = eth0\nanswer_path = xdp\n' >>"$CONF"
rc=0
out=$(ctl reload -c "$CONF" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "reload to xdp on eth0 accepted: $out"
grep -q "eth0: answer_path = xdp: another XDP program is on it: fw_xdp (id ${FID#* })" <<<"$out" ||
	fail "reload refused without naming fw_xdp on eth0: $out"
pass "reload to xdp on eth0: refused, naming fw_xdp"
expect_eq "$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")" \
	"eth0=kernel eth1=xdp eth2=xdp" "refused reload: every interface on the hook it was on"
expect_eq "$(xprog h eth0)" "$FID" "refused reload: the foreign program stays on eth0"
expect_reply c c0 10.0.0.1 "$MAC0" "refused reload: eth0 still answers 10.0.0.1 (TC)"
# xdp named on an interface nobody else holds: accepted
sed -i 's/match = eth0/match = eth1/' "$CONF"
ctl reload -c "$CONF" >/dev/null 2>&1 || fail "reload to xdp on eth1 refused"
pass "reload to xdp on eth1 (no other program there): accepted"
expect_reply c c0 10.0.0.2 "$MAC1" "eth1 answers at XDP after the reload"
