#!/bin/bash
# A container's macvlan on eth1 (made here, moved to the container's
# namespace: not an upper device this namespace can see) carries the
# container's own XDP program.  The kernel then refuses any XDP program
# on eth1 below it (EEXIST: "an upper device already has a program").
# arpownd must say so, not "File exists": answer_path = auto answers eth1
# at TC and status names the reason; answer_path = xdp refuses to start
# with the same words; the container's program stays.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
xdp_foreign

seed_net
ns_new k
ns h ip link add link eth1 name mvk type macvlan mode bridge || fail "macvlan on eth1"
ns h ip link set mvk netns "${NS_PREFIX}k" || fail "macvlan to the container"
ns k ip link set mvk up
ns k ip link set dev mvk xdpgeneric obj "$FOREIGN" sec xdp || fail "the container's XDP program on mvk"
kprog() { xprog k mvk | cut -d' ' -f1; }
WHY='an upper device of it (maybe in another namespace) has an XDP program'

write_conf "[global]
interfaces = eth*
answer_path = auto"
arpownd_start h -c "$CONF"
if grep -q 'the kernel answer path did not load' "$TMPDIR_T/arpownd.log"; then
	echo "SKIP: $(grep -m1 'did not load' "$TMPDIR_T/arpownd.log")"
	exit 77
fi
st=$(ctl_get status "[i['answer_path'] + ' ' + (i.get('not_xdp') or '-') for i in d['managed'] if i['name'] == 'eth1'][0]")
case $st in "kernel $WHY"*) pass "auto: eth1 at TC, status says why ($st)" ;;
*) fail "auto: status for eth1: '$st'" ;; esac
expect_reply c c0 10.0.0.2 "$MAC1" "auto: eth1 answers 10.0.0.2 (TC)"
arpownd_stop

write_conf "[global]
interfaces = eth*
answer_path = xdp"
rc=0
ns h timeout 20 "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/start.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "xdp: no start (78)"
grep -q "eth1: answer_path = xdp: $WHY" "$TMPDIR_T/start.out" ||
	fail "xdp: the start's error does not say why: $(grep -m1 'not starting' "$TMPDIR_T/start.out")"
pass "xdp: the start's error says an upper device holds an XDP program"
expect_eq "$(kprog)" fw_xdp "the container's program stays on mvk"
