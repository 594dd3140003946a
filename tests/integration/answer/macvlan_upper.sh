#!/bin/bash
# A macvlan on a managed NIC still gets the broadcasts arpownd answers:
# with an unmanaged macvlan mv0 (bridge mode, no address of its own) on
# eth0, a request for 10.0.0.1 is answered by eth0 (arpownd) and by mv0
# (the kernel, weak host, arp_ignore 0 there): 2 replies, as on the
# capture path (which answers eth0's).  The kernel answer path must not consume the broadcast:
# it answers with a copy and lets the request go on up (and answers it
# once: the capture path does not answer it again).  Also while the
# daemon is SIGSTOPped (on the kernel path the program still answers).
# tests/integration/kpath/macvlan_upper.sh runs it with answer_path = kernel,
# xdp/macvlan_upper.sh with answer_path = xdp (eth0 at TC, for mv0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
ns h ip link add link eth0 name mv0 type macvlan mode bridge || {
	echo "SKIP: no macvlan"
	exit 77
}
ns h ip link set mv0 up
MV=$(mac_of h mv0)
both() { ask c c0 10.0.0.1; [ "$NREPLY" = 2 ] && [[ ,$MACS, == *,$MAC0,* ]] && [[ ,$MACS, == *,$MV,* ]]; }

# the kernel alone answers on mv0 too (and on eth1: weak host)
ask c c0 10.0.0.1
[[ ,$MACS, == *,$MV,* ]] || fail "the kernel alone: mv0 does not answer 10.0.0.1 ('$MACS')"
pass "the kernel alone: mv0 answers 10.0.0.1 (weak host), with eth0 and eth1"

write_conf "[global]
interfaces = eth*
announce = no"
arpownd_start h -c "$CONF"
both || fail "arpownd: expected 2 replies (eth0, mv0), got $NREPLY from '$MACS'"
pass "arpownd: 10.0.0.1 answered by eth0 and by the kernel on mv0, once each"
ask c c0 10.0.0.2
[ "$NREPLY" = 2 ] && [[ ,$MACS, == *,$MAC1,* ]] && [[ ,$MACS, == *,$MV,* ]] ||
	fail "arpownd: 10.0.0.2: expected eth1 and mv0, got $NREPLY from '$MACS'"
pass "arpownd: 10.0.0.2 answered by eth1 and by the kernel on mv0 (eth0 silent)"
# many: eth0 answers each once, never twice; mv0 gets them all too
out=$(ns c "$ARPC" -i c0 -r 1000 -c 200 -w 300 10.0.0.1)
n0=$(grep -c "is-at $MAC0 " <<<"$out")
nmv=$(grep -c "is-at $MV " <<<"$out")
echo "# 200 requests: eth0 $n0 replies, mv0 $nmv"
expect_eq "$n0" 200 "arpownd: 200 requests, 200 replies from eth0 (none twice)"
[ "$nmv" -ge 190 ] || fail "arpownd: mv0 answered $nmv of 200: the broadcasts do not reach it"
pass "arpownd: mv0 got the broadcasts too ($nmv of 200 answered by the kernel there)"

# at XDP a request answered is consumed: eth0, with mv0 on it, is
# answered at TC, and status says why (xdp/macvlan_upper.sh)
if [ "${ARPOWND_ANSWER_PATH:-}" = xdp ]; then
	expect_eq "$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")" \
		"eth0=kernel eth1=xdp eth2=xdp" "xdp: eth0 (mv0 on it) at TC, eth1 and eth2 at XDP"
	ctl_get status "[i['not_xdp'] for i in d['managed'] if i['name'] == 'eth0'][0]" | grep -q "upper device.*mv0" ||
		fail "xdp: eth0's not_xdp does not name mv0"
	pass "xdp: eth0's not_xdp names its upper device mv0"
fi
kill -STOP "$ARPOWND_PID"
if [ "${ARPOWND_ANSWER_PATH:-}" = kernel ] || [ "${ARPOWND_ANSWER_PATH:-}" = xdp ]; then
	both || fail "stopped: expected 2 replies (the program on eth0, mv0), got $NREPLY from '$MACS'"
	pass "stopped: 10.0.0.1 answered by the program on eth0 and by the kernel on mv0"
else
	expect_reply c c0 10.0.0.1 "$MV" "stopped: the kernel on mv0 answers, eth0 waits for the daemon"
fi
kill -CONT "$ARPOWND_PID"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
