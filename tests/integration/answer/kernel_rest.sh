#!/bin/bash
# The rest of the kernel's ARP stays: proxy ARP still answers, and an
# address on lo (an LVS direct-routing VIP) is answered by nobody.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# A VIP on lo: the kernel's weak host answers for it on every NIC.
addr_add h lo 10.0.0.50/32
ask c c0 10.0.0.50
[ "$NREPLY" -ge 1 ] || fail "baseline: the kernel should answer for the lo VIP"
pass "kernel baseline: lo VIP 10.0.0.50 answered $NREPLY times"

# Proxy ARP on eth2 for a network routed out of eth0.
ns h sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
sysctl_set h eth2 proxy_arp 1
ns h sh -c 'echo 0 > /proc/sys/net/ipv4/neigh/eth2/proxy_delay'
ns h ip route add 10.5.0.0/24 dev eth0
expect_reply f f0 10.5.0.7 "$MAC2" "kernel baseline: proxy ARP answers for 10.5.0.7"

write_conf "[global]"
arpownd_start h -c "$CONF"
expect_reply f f0 10.5.0.7 "$MAC2" "with arpownd: proxy ARP still answers for 10.5.0.7"
expect_silence c c0 10.0.0.50 "with arpownd: the lo VIP is never answered"
expect_silence f f0 10.0.0.50 "with arpownd: the lo VIP is not answered outside either"
expect_reply c c0 10.0.0.1 "$MAC0" "and owned addresses still are"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth2 proxy_arp)" 1 "proxy_arp left as it was"
