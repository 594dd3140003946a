#!/bin/bash
# The kernel answer path while the daemon is SIGSTOPped (its netlink
# watcher still runs in the kernel, its loop does not): nothing that
# changed meanwhile may be answered from the grants written before.
#  - an address deleted: not answered;
#  - a published address (arpownctl publish) then added to another
#    interface: the published grant must not answer (owned elsewhere);
#  - a MAC change: never a reply with the old MAC;
#  - the interface made a bridge port: not answered there;
# then SIGCONT: the daemon catches up, and each answer is right again.
# ARPOWND_ANSWER_PATH=xdp (tests/integration/xdp/attack_sigstop.sh): the
# same at XDP.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
kp_daemon_start "[global]
interfaces = eth*
answer_path = ${ARPOWND_ANSWER_PATH:-kernel}"
at_cleanup 'kill -CONT "$ARPOWND_PID" 2>/dev/null'
cap_lines() { grep -c ": answered who-has $1 " "$TMPDIR_T/arpownd.log"; }

ns h ip addr add 10.0.0.9/24 dev eth0
answered9() { ask c c0 10.0.0.9 -w 50; [ "$MACS" = "$MAC0" ]; }
wait_for 2000 answered9 || fail "10.0.0.9 not answered by eth0 after its add ('$MACS')"
pass "10.0.0.9 answered by eth0"
out=$(ctl publish 10.0.0.50 eth1 2>&1) || fail "publish 10.0.0.50 eth1: $out"
before=$(cap_lines 10.0.0.50)
expect_reply c c0 10.0.0.50 "$MAC1" "published 10.0.0.50 answered by eth1"
expect_eq "$(cap_lines 10.0.0.50)" "$before" "by the program"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 answered by eth1"

kill -STOP "$ARPOWND_PID"
pass "daemon SIGSTOPped"

ns h ip addr del 10.0.0.9/24 dev eth0
expect_silence c c0 10.0.0.9 "stopped: deleted 10.0.0.9 not answered"

ns h ip addr add 10.0.0.50/24 dev eth0
ask c c0 10.0.0.50
[[ ,$MACS, != *,$MAC1,* ]] || fail "stopped: 10.0.0.50, now eth0's, still answered by eth1 as published ($MACS)"
pass "stopped: 10.0.0.50 added to eth0: eth1's published grant is silent ('$MACS')"

OLD1=$MAC1
ns h ip link set eth1 address 02:00:00:00:0e:01
ask c c0 10.0.0.2
[[ ,$MACS, != *,$OLD1,* ]] || fail "stopped: MAC changed, 10.0.0.2 answered with the old MAC $OLD1"
pass "stopped: after a MAC change no reply carries the old MAC ('$MACS')"

# the bridge: a MAC of its own, and the kernel silent on it (else the
# kernel's weak host answers through it, which is not what is tested)
ns h ip link add br9 address 02:00:00:00:0b:09 type bridge
sysctl_set h br9 arp_ignore 8
ns h ip link set br9 up
ns h ip link set eth1 master br9
ask c c0 10.0.0.2
[[ ,$MACS, != *,$(mac_of h eth1),* ]] || fail "stopped: eth1 is a bridge port, yet 10.0.0.2 answered with eth1's MAC ($MACS)"
pass "stopped: eth1 a bridge port: not answered with eth1's MAC ('$MACS')"

kill -CONT "$ARPOWND_PID"
pass "daemon SIGCONTed"
sleep 0.5
expect_silence c c0 10.0.0.9 "running again: 10.0.0.9 still not answered"
ask c c0 10.0.0.50
[ "$MACS" = "$MAC0" ] || fail "running again: 10.0.0.50 (eth0's now) should be answered by eth0 alone, got '$MACS'"
pass "running again: 10.0.0.50 answered by eth0 alone"
ns h ip link set eth1 nomaster
ns h ip link del br9
MAC1=$(mac_of h eth1)
answered2() { ask c c0 10.0.0.2 -w 50; [ "$MACS" = "$MAC1" ]; }
wait_for 3000 answered2 || fail "eth1 out of the bridge: 10.0.0.2 not answered by its new MAC $MAC1 ('$MACS')"
pass "eth1 out of the bridge: 10.0.0.2 answered with the new MAC"
if [ "${ARPOWND_ANSWER_PATH:-kernel}" = xdp ]; then
	expect_eq "$(ns h ip -d link show dev eth1 | grep -c 'prog/xdp')" 1 "the XDP program is back on eth1"
	expect_eq "$(ns h tc filter show dev eth1 ingress 2>/dev/null | grep -c arpownd_answer)" 0 \
	    "and the TC one (eth1's while it was a port) is off"
else
	expect_eq "$(ns h tc filter show dev eth1 ingress 2>/dev/null | grep -c arpownd_answer)" 1 "the program is back on eth1"
fi
