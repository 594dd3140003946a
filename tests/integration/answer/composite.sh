#!/bin/bash
# Composite interfaces, as this kernel allows them (VLAN and bond:
# vlan_bond.sh, which skips where the modules are missing):
#   a bridge is answered on the bridge device only, never on its ports; a
#   port enslaved while running is given back (its originals restored),
#   one released is managed again; the bridge's own notices about its
#   ports (AF_BRIDGE RTM_DELLINK) are not taken for deleted links;
#   a macvlan is managed like any Ethernet device, with its own MAC, and
#   its parent does not answer for it (the kernel's weak host would);
#   an interface with no IPv4 address is managed too: else the kernel
#   would answer on it for the host's other addresses.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
ns_new o
# a bridge br9 in h with port eth3; client o0 (10.9.0.100) beyond it
veth h eth3 o o0
ns h ip link add br9 type bridge || fail "bridge br9"
ns h ip link set br9 type bridge forward_delay 0 2>/dev/null || true
ns h ip link set eth3 master br9
ns h ip link set br9 up
addr_add h br9 10.9.0.1/24
addr_add o o0 10.9.0.100/24
BRMAC=$(mac_of h br9)
sysctl_set h eth3 arp_ignore 2
# a macvlan on eth0 with 10.0.0.70
ns h ip link add link eth0 name mv0 type macvlan mode bridge || fail "macvlan mv0"
ns h ip link set mv0 up
addr_add h mv0 10.0.0.70/24
MVMAC=$(mac_of h mv0)
# an interface with no IPv4 address, to an outside namespace p
ns_new p
veth h eth5 p p0
addr_add p p0 10.0.0.200/24
wait_for 3000 sh -c "ip netns exec ${NS_PREFIX}o '$ARPC' -q -i o0 -w 100 10.9.0.1 >/dev/null" || fail "bridge not up"

# the kernel's baseline
ask c c0 10.0.0.70
[ "$NREPLY" -ge 2 ] || fail "baseline: the kernel should answer 10.0.0.70 from the parent too, got $NREPLY"
pass "kernel baseline: 10.0.0.70 answered $NREPLY times (the parent eth0 and eth1 too)"
ask p p0 10.0.0.1
[ "$NREPLY" = 1 ] || fail "baseline: the kernel should answer eth0's 10.0.0.1 on address-less eth5, got $NREPLY"
pass "kernel baseline: address-less eth5 answers for eth0's 10.0.0.1"

write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h br9 arp_ignore) $(sysctl_get h eth3 arp_ignore)" "8 2" \
	"the bridge managed, its port eth3 left alone"
expect_reply o o0 10.9.0.1 "$BRMAC" "the bridge's address answered once, with the bridge's MAC"
expect_reply c c0 10.0.0.70 "$MVMAC" "macvlan: answered once, by mv0 with its own MAC (not by the parent)"
expect_eq "$(sysctl_get h mv0 arp_ignore)" 8 "macvlan mv0 managed"
expect_silence p p0 10.0.0.1 "address-less eth5: managed, so nothing answers eth0's address there"
expect_eq "$(sysctl_get h eth5 arp_ignore)" 8 "address-less eth5 at 8"

# a managed interface enslaved while running: given back; released: managed
sysctl_set h eth5 arp_announce 0
ns h ip link set eth5 master br9
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth5/arp_ignore) = 0 ]" ||
	fail "eth5 enslaved to br9: not given back ($(sysctl_get h eth5 arp_ignore))"
pass "eth5 enslaved to br9: its original arp_ignore back"
saved_originals | grep -q '^eth5 ' && fail "eth5 enslaved: its record kept"
ns h ip link set eth5 nomaster
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth5/arp_ignore) = 8 ]" ||
	fail "eth5 released: not managed again"
grep -q 'eth5: interface gone' "$TMPDIR_T/arpownd.log" &&
	fail "the bridge's AF_BRIDGE notice about eth5 was taken for a deleted link"
pass "eth5 released: managed again, never taken for deleted"
saved_originals | grep -q '^eth5 arp_ignore=0 arp_announce=0$' || fail "eth5's originals: $(saved_originals)"
# eth3, a port from the start, released and enslaved again
ns h ip link set eth3 nomaster
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth3/arp_ignore) = 8 ]" ||
	fail "eth3 released from br9: not managed"
ns h ip link set eth3 master br9
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth3/arp_ignore) = 2 ]" ||
	fail "eth3 enslaved again: its original 2 not back"
pass "eth3 released and enslaved again: managed, then given back its 2"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h br9 arp_ignore) $(sysctl_get h eth3 arp_ignore) $(sysctl_get h eth5 arp_ignore) $(sysctl_get h mv0 arp_ignore)" \
	"0 2 0 0" "stopped: every original back"
