#!/bin/bash
# Live tracking: addresses and interfaces come and go while arpownd runs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"

answered_by() { ask c c0 "$1"; [ "$NREPLY" = 1 ] && [ "$MACS" = "$2" ]; }
silent() { ask c c0 "$1"; [ "$NREPLY" = 0 ]; }

addr_add h eth0 10.0.0.3/24
wait_for 2000 answered_by 10.0.0.3 "$MAC0" || fail "added 10.0.0.3 not answered by eth0"
pass "address added while running: answered by eth0"
ns h ip addr del 10.0.0.3/24 dev eth0
wait_for 2000 silent 10.0.0.3 || fail "deleted 10.0.0.3 still answered"
expect_silence c c0 10.0.0.3 "address deleted: never answered again"

# An interface created after start that matches "interfaces = *".
veth h eth3 sw p3
bridge_add sw br0 p3
addr_add h eth3 10.0.0.4/24
MAC3=$(mac_of h eth3)
wait_for 2000 answered_by 10.0.0.4 "$MAC3" || fail "new eth3 not answered ($NREPLY from $MACS)"
expect_eq "$(sysctl_get h eth3 arp_ignore)" 8 "new interface managed: arp_ignore=8"
pass "new interface eth3: 10.0.0.4 answered once, by eth3"
saved_originals | grep -q '^eth3 arp_ignore=0' || fail "eth3's original not saved"
pass "eth3's original saved"

ns h ip link del eth3
no_eth3() { ! saved_originals | grep -q '^eth3 '; }
wait_for 2000 no_eth3 ||
	fail "eth3's record still in the state file after it went"
kill -0 "$ARPOWND_PID" || fail "arpownd died when eth3 went"
if grep -E '^<[0-4]>.*eth3' "$TMPDIR_T/arpownd.log"; then
	fail "a vanished interface was logged as an error"
fi
expect_silence c c0 10.0.0.4 "eth3 gone: forgotten, without an error"

# MAC change: the next reply carries the new address.
ns h ip link set eth0 address 02:00:00:00:a0:01
wait_for 2000 answered_by 10.0.0.1 02:00:00:00:a0:01 || fail "reply after MAC change from $MACS"
pass "MAC change: the next reply carries 02:00:00:00:a0:01"

# A link that is down does not answer, and none other answers for it.
ns h ip link set eth1 down
expect_silence c c0 10.0.0.2 "eth1 down: 10.0.0.2 not answered by anyone"
ns h ip link set eth1 up
wait_for 3000 answered_by 10.0.0.2 "$MAC1" || fail "eth1 up again: not answered"
pass "eth1 up again: answered by eth1"

arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
