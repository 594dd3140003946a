#!/bin/bash
# The kernel answers an ARP request only after ip_route_input() accepted
# it (arp_process: ip_route_input_noref(skb, tip, sip, 0, dev) == 0),
# which applies reverse-path filtering: with rp_filter = 1 (strict) or 2
# (loose) a request whose sender has no route back through the arrival
# interface (strict) or at all (loose) is dropped as a martian source.
# arpownd never looks at rp_filter: it answers them.  The baseline is the
# kernel's own answer, with arp_ignore = 1 (what owner mode stands for).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net

# kernel_then_arpownd RP NS IF TARGET SENDER WHAT
kernel_then_arpownd() {
	local rp=$1 n=$2 i=$3 tgt=$4 sip=$5 what=$6 k e
	ns h sh -c "echo $rp > /proc/sys/net/ipv4/conf/all/rp_filter"
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore 1; done
	ask "$n" "$i" "$tgt" -s "$sip"
	k=$NREPLY
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore 0; done
	write_conf "[global]
learn = no"
	arpownd_start h -c "$CONF"
	ask "$n" "$i" "$tgt" -s "$sip"
	arpownd_stop
	expect_eq "$NREPLY" "$k" "$what (rp_filter=$rp): arpownd answers as the kernel does ($k)"
}

# the baseline first: without rp_filter both answer
kernel_then_arpownd 0 c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
# strict: the firewall's outside asks for eth2's address with a spoofed
# inside source (its route is via eth0)
kernel_then_arpownd 1 f f0 10.1.0.1 10.0.0.100 "outside asks for eth2's own address from a spoofed inside sender"
kernel_then_arpownd 1 c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
# loose: no route to the sender at all
kernel_then_arpownd 2 c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
