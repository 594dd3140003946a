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
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# case "IF=KEY=VAL ..." NS IF TARGET SENDER WHAT: the sysctls (IF all or
# an interface of h), then the kernel's count, then arpownd's; sets K
# sysctls IGNORE "IF=KEY=VAL ...": arp_ignore on eth0-2, the checks off
# but for those given; one shell in the namespace
sysctls() {
	local sh="" e kv k
	for e in all eth0 eth1 eth2; do
		sh+="echo 0 > /proc/sys/net/ipv4/conf/$e/rp_filter; "
		sh+="echo 0 > /proc/sys/net/ipv4/conf/$e/arp_filter; "
		[ "$e" = all ] || sh+="echo $1 > /proc/sys/net/ipv4/conf/$e/arp_ignore; "
	done
	for kv in $2; do
		k=${kv#*=}
		sh+="echo ${kv##*=} > /proc/sys/net/ipv4/conf/${kv%%=*}/${k%%=*}; "
	done
	ns h sh -c "$sh" || fail "sysctls $1 $2"
}
case_() {
	local set=$1 n=$2 i=$3 tgt=$4 sip=$5 what=$6
	sysctls 1 "$set"
	ask "$n" "$i" "$tgt" -s "$sip"
	K=$NREPLY
	sysctls 0 "$set"
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

# While it runs: a route, rp_filter and arp_filter changed under it, and
# a flood of spoofed senders.  Strict on eth2, the outside's 10.1.0.100
# has its route back through eth2.
sysctls 0 ""
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
expect_reply f f0 10.1.0.1 "$MAC2" "rp_filter off: a spoofed inside sender is answered" -s 10.0.0.100
sysctl_set h eth2 rp_filter 1
expect_silence f f0 10.1.0.1 "eth2's rp_filter set to 1 while running: no longer, at once" -s 10.0.0.100
expect_reply f f0 10.1.0.1 "$MAC2" "strict: 10.1.0.100, routed back through eth2, answered"
ns h ip route add 10.1.0.100/32 dev eth0
expect_silence f f0 10.1.0.1 "a route to 10.1.0.100 through eth0 added: no longer, at once"
ns h ip route del 10.1.0.100/32 dev eth0
expect_reply f f0 10.1.0.1 "$MAC2" "the route deleted: answered again"
ns h ip route add 10.1.0.100/32 dev eth0
sysctl_set h eth2 rp_filter 0
expect_reply f f0 10.1.0.1 "$MAC2" "rp_filter back to 0: answered, the route notwithstanding"
sysctl_set h eth2 arp_filter 1
refused() { ask f f0 10.1.0.1 -w 100; [ "$NREPLY" = 0 ]; }
wait_for 4000 refused || fail "arp_filter set on eth2 (the route leaves through eth0): still answered after 4 s"
pass "arp_filter set on eth2 while running: refused within 4 s (no event tells of it)"
ns h ip route del 10.1.0.100/32 dev eth0
sysctl_set h eth2 arp_filter 0
sysctl_set h eth2 rp_filter 1
expect_reply f f0 10.1.0.1 "$MAC2" "strict again, no extra route: 10.1.0.100 answered"
# 30,000 spoofed senders (no route back) at 30,000/s beside a client that
# asks 8 times: its answer is cached and kept, the flood's lookups are
# bounded (refused, or not checked: never answered)
bg_run f "$ARPC" -q -i f0 -s 172.16.0.1 --vary 30000 -m 02:77:00:00:00:01 -c 30000 -r 30000 -w 0 10.1.0.1
fp=$LAST_PID
sleep 0.2
ask f f0 10.1.0.1 -c 8 -r 10
wait "$fp" 2>/dev/null || true
expect_eq "$NREPLY" 8 "under a flood of 30,000 spoofed senders: the client answered 8 times of 8"
n=$(ctl_get counters "d['all']['verdicts']['rp_filter'] + d['all']['verdicts']['rp_unchecked']")
a=$(ctl_get counters "d['all']['verdicts']['answered']")
[ "$n" -ge 20000 ] || fail "the flood: only $n refused by rp_filter or unchecked"
pass "the flood: $n of 30000 refused (rp_filter or rp_unchecked), $a answered in all"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "a clean stop"
