#!/bin/bash
# The table follows the kernel's address list exactly: one address held
# with two prefixes stays answered while either is there, and
# the subnet test is the kernel's own (inet_confirm_addr): in subnet mode
# one of the interface's subnets must hold both the target and the
# sender, in owner mode the target (a point-to-point address outside its
# peer's subnet is refused).  Each case is asked of the kernel first, with
# the arp_ignore value the mode stands for, and arpownd must give the
# kernel's answer.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# 1. one address, two prefixes
addr_add h eth0 10.0.0.1/16
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 held as /24 and /16: answered"
ns h ip addr del 10.0.0.1/16 dev eth0
expect_eq "$(ns h ip -4 -o addr show dev eth0 | grep -c '10.0.0.1/24')" 1 "the kernel still holds 10.0.0.1/24"
expect_reply c c0 10.0.0.1 "$MAC0" "its /16 deleted: still answered (the /24 remains)"
addr_add h eth0 10.0.0.1/16
ns h ip addr del 10.0.0.1/24 dev eth0
expect_reply c c0 10.0.0.1 "$MAC0" "its /24 deleted instead: still answered (the /16 remains)"
ns h ip addr del 10.0.0.1/16 dev eth0
expect_silence c c0 10.0.0.1 "both deleted: no longer answered"
addr_add h eth0 10.0.0.1/24
expect_reply c c0 10.0.0.1 "$MAC0" "added again: answered"
expect_eq "$(ctl_get interfaces "[len(i['addresses']) for i in d['interfaces'] if i['name'] == 'eth0'][0]")" 1 \
	"arpownctl interfaces shows eth0's one address entry"
arpownd_stop

# kernel_then_arpownd MODE ARP_IGNORE NS IF TARGET SENDER WHAT: the reply
# count from the kernel at arp_ignore=N on every NIC of the host, then from
# arpownd in MODE; they must be equal.
K=() D=() W=()
kernel_then_arpownd() {
	local mode=$1 ign=$2 n=$3 i=$4 tgt=$5 sip=$6 what=$7 k
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore "$ign"; done
	ask "$n" "$i" "$tgt" -s "$sip"
	k=$NREPLY
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore 0; done
	write_conf "[global]
mode = $mode"
	arpownd_start h -c "$CONF"
	ask "$n" "$i" "$tgt" -s "$sip"
	arpownd_stop
	expect_eq "$NREPLY" "$k" "$what: arpownd ($mode) answers as the kernel (arp_ignore=$ign) does: $k"
}

# 2. subnet mode = arp_ignore 2
addr_add h eth0 192.168.1.1/24
kernel_then_arpownd subnet 2 c c0 10.0.0.1 192.168.1.50 "sender in eth0's other subnet asks for 10.0.0.1"
[ "$NREPLY" = 0 ] || fail "the kernel's baseline changed: it answered 192.168.1.50 for 10.0.0.1"
kernel_then_arpownd subnet 2 c c0 192.168.1.1 192.168.1.50 "the same sender asks for 192.168.1.1"
[ "$NREPLY" = 1 ] || fail "the kernel's baseline changed: 192.168.1.1 not answered to its own subnet"
kernel_then_arpownd subnet 2 c c0 10.0.0.1 10.0.0.100 "a sender in 10.0.0.0/24 asks for 10.0.0.1"
# a /32 inside another entry's /24: the kernel answers, by the /24
addr_add h eth0 10.0.0.8/32
kernel_then_arpownd subnet 2 c c0 10.0.0.8 10.0.0.100 "a /32 inside eth0's /24"

# 3. owner mode = arp_ignore 1, a point-to-point address
ns h ip addr add 172.16.5.5 peer 172.16.9.9/32 dev eth2 || fail "p-t-p address"
kernel_then_arpownd owner 1 f f0 172.16.5.5 10.1.0.100 "eth2's p-t-p 172.16.5.5 (peer 172.16.9.9)"
kernel_then_arpownd owner 1 f f0 10.1.0.1 10.1.0.100 "eth2's own 10.1.0.1"
