#!/bin/bash
# VLAN and bond interfaces (composite.sh has the bridge and macvlan):
#   a VLAN is Ethernet to arpownd: managed, answered with its own address,
#   and a request on the parent for the VLAN's address is not answered
#   from the parent; a bond is managed, its slaves never are (their
#   originals stay).  This kernel may lack the modules: then SKIP (77).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
if ! ns h ip link add link eth2 name eth2.7 type vlan id 7 2>/dev/null; then
	echo "SKIP: no 802.1Q (vlan) support in this kernel (modprobe 8021q failed)"
	exit 77
fi
ns f ip link add link f0 name f0.7 type vlan id 7 || { echo "SKIP: vlan in ns f"; exit 77; }
ns h ip link set eth2.7 up
ns f ip link set f0.7 up
addr_add h eth2.7 10.7.0.1/24
addr_add f f0.7 10.7.0.100/24
# the untagged side asks for the VLAN's address with a sender of its subnet
addr_add f f0 10.7.0.101/24
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2.7 arp_ignore)" 8 "VLAN eth2.7 managed"
expect_reply f f0.7 10.7.0.1 "$(mac_of h eth2.7)" "VLAN: own address answered on eth2.7"
expect_silence f f0.7 10.1.0.1 "VLAN: eth2's address not answered on eth2.7"
expect_silence f f0 10.7.0.1 "VLAN: the parent eth2 does not answer for the VLAN's address" -s 10.7.0.101
arpownd_stop
expect_eq "$(sysctl_get h eth2.7 arp_ignore)" 0 "VLAN: restored"

if ! ns h ip link add bond0 type bond 2>/dev/null; then
	echo "SKIP: no bonding support in this kernel (the VLAN part passed)"
	exit 77
fi
ns h ip link set eth1 down
sysctl_set h eth1 arp_ignore 2
ns h ip link set eth1 master bond0 || fail "eth1 into bond0"
ns h ip link set bond0 up
addr_add h bond0 10.0.0.9/24
arpownd_start h -c "$CONF"
wait_for 2000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/bond0/arp_ignore) = 8 ]" ||
	fail "bond0 not managed"
pass "bond0 managed"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 2 "the bond's slave eth1 left alone"
arpownd_stop
expect_eq "$(sysctl_get h bond0 arp_ignore) $(sysctl_get h eth1 arp_ignore)" "0 2" "bond: restored, slave untouched"
