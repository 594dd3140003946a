#!/bin/bash
# An arp_ignore rewritten behind the daemon's back to a value outside
# 0..8 is never put back.  The sysctl takes any int, and the kernel's
# arp_ignore() treats every value but 1, 2, 3 and 8 like 0: reply for any
# local address (the weak host arpownd exists to stop).
#  - 9: carry_out() logs "arp_ignore was changed to 9 by someone else;
#    setting it to 8 again", then set() refuses ("arp_ignore is 9,
#    outside 0..8: not managing it") although the interface is managed and
#    its original is recorded; it stays managed, arpownd answers, and so
#    does the kernel.
#  - -1: rtnl.c reads the u32 0xffffffff as -1, "unknown", and on_link()
#    keeps the old value (8): nothing is noticed, nothing logged.
# The range check matters only when an original must be recorded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
bad=
for v in 9 -1; do
	sysctl_set h eth1 arp_ignore "$v"
	sleep 4
	now=$(sysctl_get h eth1 arp_ignore)
	ask c c0 10.0.0.1
	echo "eth1 rewritten to $v: 4 s later arp_ignore is $now; 10.0.0.1 answered $NREPLY times by $MACS (eth0 is $MAC0)"
	[ "$now" = 8 ] && [ "$NREPLY" = 1 ] || bad="$bad $v"
	sysctl_set h eth1 arp_ignore 8
done
arpownd_stop
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "stopped: eth1's original back"
[ -z "$bad" ] || fail "arp_ignore rewritten to$bad: not healed to 8, the kernel answers for eth0's address on eth1"
pass "rewrites outside 0..8 are healed"
