#!/bin/bash
# The kernel answers an ARP request only after ip_route_input() accepted
# it (arp_process: ip_route_input_noref(skb, tip, sip, 0, dev) == 0),
# which applies reverse-path filtering: with rp_filter = 1 (strict) or 2
# (loose), the max of all and the device's, a request whose sender has no
# route back through the arrival interface (strict) or at all (loose) is
# dropped as a martian source; then arp_filter (all or the device's) stays
# silent unless the route to the sender leaves through the arrival
# interface.  arpownd used to answer them all (issue 23, point 4).  Each
# case: the kernel's own answer at arp_ignore = 1 (what owner mode stands
# for), then arpownd's (the kernel silent): the same count.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net

# case "IF=KEY=VAL ..." NS IF TARGET SENDER WHAT: the sysctls (IF all or
# an interface of h), then the kernel's count, then arpownd's; sets K
case_() {
	local set=$1 n=$2 i=$3 tgt=$4 sip=$5 what=$6 k e kv
	for e in all eth0 eth1 eth2; do
		sysctl_set h "$e" rp_filter 0
		sysctl_set h "$e" arp_filter 0
	done
	for kv in $set; do
		sysctl_set h "${kv%%=*}" "$(cut -d= -f2 <<<"$kv")" "${kv##*=}"
	done
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore 1; done
	ask "$n" "$i" "$tgt" -s "$sip"
	K=$NREPLY
	for e in eth0 eth1 eth2; do sysctl_set h "$e" arp_ignore 0; done
	arpownd_start h -c "$CONF"
	ask "$n" "$i" "$tgt" -s "$sip"
	arpownd_stop
	expect_eq "$NREPLY" "$K" "$what [$set]: answered as the kernel does ($K)"
}
write_conf "[global]
learn = no"

# the baseline first: without either check both answer
case_ "" c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
[ "$K" = 1 ] || fail "baseline: the kernel gave $K replies"
# strict: the firewall's outside asks for eth2's address with a spoofed
# inside source (its route is via eth0)
case_ "all=rp_filter=1" f f0 10.1.0.1 10.0.0.100 "outside asks for eth2's own address from a spoofed inside sender"
[ "$K" = 0 ] || fail "strict: the kernel gave $K replies"
case_ "all=rp_filter=1" c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
case_ "eth2=rp_filter=1" f f0 10.1.0.1 10.1.0.100 "strict on eth2, a sender on its subnet"
[ "$K" = 1 ] || fail "strict, sender on the subnet: the kernel gave $K replies"
# loose: no route to the sender at all; a route back through another NIC
case_ "all=rp_filter=2" c c0 10.0.0.1 192.168.77.7 "a sender with no route back"
case_ "eth2=rp_filter=2" f f0 10.1.0.1 10.0.0.100 "loose on eth2, a sender routed through eth0"
[ "$K" = 1 ] || fail "loose, a route through eth0: the kernel gave $K replies"
# the max of all and the device's: eth2 = 0 does not lift all's strict;
# all = 1, eth2 = 2 is loose
case_ "all=rp_filter=1 eth2=rp_filter=0" f f0 10.1.0.1 10.0.0.100 "all strict, eth2 off"
[ "$K" = 0 ] || fail "max(all, dev): the kernel gave $K replies"
case_ "all=rp_filter=1 eth2=rp_filter=2" f f0 10.1.0.1 10.0.0.100 "all strict, eth2 loose"
[ "$K" = 1 ] || fail "max(all, dev): the kernel gave $K replies"
# arp_filter: eth0 and eth1 share 10.0.0.0/24, the route to the client
# leaves through one of them; the other, asked for its own address, stays
# silent; the one the route takes answers
out=$(ns h ip -o route get 10.0.0.100) || fail "ip route get 10.0.0.100"
via=$(sed -n 's/.* dev \([^ ]*\) .*/\1/p' <<<"$out")
case $via in
eth0) other=eth1 oaddr=10.0.0.2 vaddr=10.0.0.1 ;;
eth1) other=eth0 oaddr=10.0.0.1 vaddr=10.0.0.2 ;;
*) fail "the route to 10.0.0.100 leaves through '$via'" ;;
esac
case_ "$other=arp_filter=1" c c0 "$oaddr" 10.0.0.100 "arp_filter on $other, the route to the client through $via"
[ "$K" = 0 ] || fail "arp_filter: the kernel gave $K replies"
case_ "all=arp_filter=1" c c0 "$vaddr" 10.0.0.100 "arp_filter on all, asked for $via's address"
[ "$K" = 1 ] || fail "arp_filter, the route's own interface: the kernel gave $K replies"
