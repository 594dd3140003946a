#!/bin/bash
# VLAN and bond interfaces are Ethernet to arpownd: managed and answered
# like any NIC.  This kernel may lack the modules: then SKIP (77).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
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
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2.7 arp_ignore)" 8 "VLAN eth2.7 managed"
expect_reply f f0.7 10.7.0.1 "$(mac_of h eth2.7)" "VLAN: own address answered on eth2.7"
expect_silence f f0.7 10.1.0.1 "VLAN: eth2's address not answered on eth2.7"
if ns h ip link add bond0 type bond 2>/dev/null; then
	ns h ip link set bond0 up
	wait_for 2000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/bond0/arp_ignore) = 8 ]" ||
		fail "bond0 not managed"
	pass "bond0 managed"
fi
arpownd_stop
expect_eq "$(sysctl_get h eth2.7 arp_ignore)" 0 "VLAN: restored"
