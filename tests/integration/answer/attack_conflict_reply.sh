#!/bin/bash
# A foreign host that claims one of our addresses with an ARP *reply* is
# never reported as a conflict: arp_check() returns ARP_NOT_REQUEST before
# it reads the sender, so only requests (probes, announcements, ordinary
# requests) reach the conflict check.  Gratuitous replies are the form
# "arping -A", many VRRP/HA stacks and most ARP-spoofing tools send
# (RFC 5227 section 2.4 counts any ARP packet whose sender IP is ours and
# whose sender MAC is not).  Expected: the same "address conflict" line a
# gratuitous request gets.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
# gratuitous reply (arping -A): sender = target = 10.0.0.1, broadcast
ns c "$ARPC" -q -i c0 -s 10.0.0.1 -o 2 -w 100 10.0.0.1 >/dev/null || true
# a reply unicast to eth0 claiming 10.0.0.2 (cache poisoning)
ns c "$ARPC" -q -i c0 -s 10.0.0.2 -o 2 -E "$MAC0" -T "$MAC0" -w 100 10.0.0.1 >/dev/null || true
sleep 0.5
n1=$(grep -c 'address conflict: 10.0.0.1 ' "$TMPDIR_T/arpownd.log" || true)
n2=$(grep -c 'address conflict: 10.0.0.2 ' "$TMPDIR_T/arpownd.log" || true)
# the baseline: the same claim as a gratuitous request is reported
ns c "$ARPC" -q -i c0 -s 10.0.0.1 -o 1 -w 100 10.0.0.1 >/dev/null || true
sleep 0.5
grep -q 'address conflict: 10.0.0.1 ' "$TMPDIR_T/arpownd.log" || fail "baseline: a gratuitous request claiming 10.0.0.1 is not reported either"
pass "baseline: a gratuitous request claiming 10.0.0.1 is reported"
arpownd_stop
[ "$n1" -ge 1 ] || fail "a gratuitous ARP reply claiming 10.0.0.1 from a foreign MAC: no conflict reported"
pass "a gratuitous ARP reply claiming 10.0.0.1 is reported"
[ "$n2" -ge 1 ] || fail "an ARP reply to eth0 claiming 10.0.0.2 from a foreign MAC: no conflict reported"
pass "an ARP reply claiming 10.0.0.2 is reported"
