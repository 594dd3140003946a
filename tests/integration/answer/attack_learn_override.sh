#!/bin/bash
# When the kernel answers a request it calls neigh_event_ns(), which
# creates the requester's entry or, if one exists, overrides its MAC
# (neigh_update(..., NUD_STALE, NEIGH_UPDATE_F_OVERRIDE)).  arpownd learns
# with NLM_F_CREATE | NLM_F_EXCL: an existing entry is never touched.  So a
# requester whose MAC changed (NIC swapped, VM moved, HA pair without a
# virtual MAC) keeps its old MAC in the host's neighbour table after it
# asked for our address; the host sends to a MAC that is gone until NUD
# gives up on it, seconds later.  (The kernel does not touch PERMANENT
# entries here either; a GET before the write, or NLM_F_REPLACE for
# entries that are not PERMANENT/NOARP, would match it.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
OLD=02:00:00:00:00:aa
NEW=$(mac_of c c0)

stale_old() {
	ns h ip neigh flush dev eth0
	ns h ip neigh replace 10.0.0.100 lladdr "$OLD" dev eth0 nud stale || fail "neigh entry"
}
neigh_mac() { ns h ip neigh show 10.0.0.100 dev eth0 | sed -n 's/.* lladdr \([^ ]*\).*/\1/p'; }

# the kernel's baseline (arp_ignore 1 on both NICs: one answer, from eth0)
sysctl_set h eth0 arp_ignore 1
sysctl_set h eth1 arp_ignore 1
stale_old
ask c c0 10.0.0.1
expect_eq "$(neigh_mac)" "$NEW" "baseline: the kernel answered and replaced the old MAC with the requester's"
sysctl_set h eth0 arp_ignore 0
sysctl_set h eth1 arp_ignore 0

write_conf "[global]"
arpownd_start h -c "$CONF"
stale_old
expect_reply c c0 10.0.0.1 "$MAC0" "arpownd answers 10.0.0.1"
sleep 0.2
expect_eq "$(neigh_mac)" "$NEW" "arpownd answered: the requester's new MAC replaced the old one, as the kernel does"
arpownd_stop
