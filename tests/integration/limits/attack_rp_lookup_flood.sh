#!/bin/bash
# A flood of spoofed senders on one segment must not spend the
# reverse-path lookups of the others (rpf.c, rpcache.c: RPF_LOOKUP_RATE
# 20,000 a second for the host, RPF_IFACE_RATE 5,000 of it for any one
# interface).  With rp_filter = 2
# (systemd's 50-default.conf sets it on every interface: the shipped
# Debian host) and a default route, every spoofed sender passes the
# check, so its verdict is cached as an answer and pushes the client's
# out; past the budget a request that needs a lookup is not answered
# (rp_unchecked).  With one budget for the host, 60,000 spoofed requests a
# second on the outside (eth2), a third of total_rate, left a LAN client
# on eth0 two or three answers of eight; the kernel, under the same
# flood, answers it 8 of 8, and so must arpownd (about 15 s).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
for i in all default eth0 eth1 eth2; do sysctl_set h $i rp_filter 2; done
ns h ip route add default via 10.1.0.100 dev eth2
write_conf "[global]
interfaces = eth*"
RATE=60000
# under_flood WHO NS IF TARGET: 4.5 s of spoofed senders (172.16/16 and
# up, each new) on f0 for eth2's address; a client, one the kernel knows
# (its neighbour entry is there) and that asked twice before, asks NS's
# IF for TARGET every half second meanwhile
under_flood() {
	ask "$2" "$3" "$4" -c 2 -r 10
	bg_run f "$ARPC" -q -i f0 -s 172.16.0.1 --vary 200000 -m 02:77:00:00:00:01 \
		-c $((RATE * 9 / 2)) -r $RATE --threads 2 -w 0 --stats 10.1.0.1
	local fp=$LAST_PID
	sleep 0.5
	ask "$2" "$3" "$4" -c 8 -r 2
	wait "$fp" 2>/dev/null || true
	echo "# $1: the client on $3 answered $NREPLY of 8 for $4 under $RATE spoofed requests/s"
}
# the LAN's client (eth0); one on the flooded segment itself (eth2) the
# kernel answers 0 of 8 (its own backlog), so there is nothing to match
for i in eth0 eth1 eth2; do sysctl_set h $i arp_ignore 1; done
under_flood kernel c c0 10.0.0.1
K=$NREPLY
[ "$K" -ge 7 ] || fail "the kernel itself answered the LAN client only $K of 8 under the flood"
for i in eth0 eth1 eth2; do sysctl_set h $i arp_ignore 0; done
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
under_flood arpownd c c0 10.0.0.1
A=$NREPLY
u=$(ctl_get counters "d['all']['verdicts']['rp_unchecked']")
echo "# rp_unchecked: $u"
arpownd_stop
[ "$A" -ge 7 ] || fail "under $RATE spoofed requests/s on eth2, the LAN client was answered $A of 8 by arpownd (the kernel: $K)"
pass "the LAN client answered $A of 8 under the flood on another segment (the kernel: $K)"
