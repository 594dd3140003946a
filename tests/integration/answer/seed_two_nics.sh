#!/bin/bash
# The seed: two NICs on one segment.  The kernel answers twice (both
# MACs); arpownd answers once, from the NIC that owns the address, and
# traffic then lands on the right NIC.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# Baseline: the weak-host model, both NICs answer for each address.
ask c c0 10.0.0.1
[ "$NREPLY" = 2 ] || fail "baseline: the kernel should answer twice, got $NREPLY"
pass "kernel baseline: 10.0.0.1 answered by both NICs ($MACS)"

write_conf "[global]"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered once, by eth0"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 answered once, by eth1"

# Load balancing: what the client sends to each address arrives on its NIC.
rx() { ns h cat "/sys/class/net/$1/statistics/rx_packets"; }
ns c ip neigh flush dev c0
# lands IP ON OTHER: 50 pings to IP arrive on ON, fewer than 10 on OTHER
lands() {
	local a0 a1 b0 b1
	a0=$(rx "$2"); a1=$(rx "$3")
	ns c ping -q -c 50 -i 0.01 -W 1 "$1" >/dev/null || fail "ping $1"
	b0=$(rx "$2"); b1=$(rx "$3")
	[ $((b0 - a0)) -ge 50 ] || fail "pings to $1: $2 received $((b0 - a0)) < 50"
	[ $((b1 - a1)) -lt 10 ] || fail "pings to $1 leaked to $3: $((b1 - a1)) frames"
	pass "pings to $1 arrive on $2 ($2 +$((b0 - a0)), $3 +$((b1 - a1)))"
}
lands 10.0.0.1 eth0 eth1
lands 10.0.0.2 eth1 eth0

arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
ask c c0 10.0.0.1
[ "$NREPLY" = 2 ] || fail "after stop the kernel answers again (2 replies), got $NREPLY"
pass "after stop the kernel's own behaviour is back"
