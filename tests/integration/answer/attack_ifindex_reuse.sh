#!/bin/bash
# Records are matched by ifindex alone, so an ifindex reused while the
# daemon was down hands one interface's saved originals to another.  The
# kernel reuses an ifindex when asked (ip link add ... index N) and when an
# interface is moved into the namespace (it keeps its index if free):
# container and VRF tooling do both.  Here va (ifindex N, arp_ignore 2)
# is left at 8 by a crash, deleted, and vz is created with index N (its
# arp_ignore the default, 0).  The restart logs "vz: renamed from va; its
# saved originals follow it", and the stop (or --restore) sets vz to 2, an
# arp_ignore it never had.  Expected: a record whose name and MAC both
# differ from the link's is not that link's (dropped as gone).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
ns h ip link add va type veth peer name vapeer || fail "veth va"
ns h ip link set va up
sysctl_set h va arp_ignore 2
idx=$(ns h cat /sys/class/net/va/ifindex)
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h va arp_ignore)" 8 "va managed"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
ns h ip link del va
ns h ip link add vz index "$idx" type veth peer name vzpeer || { echo "SKIP: ip link add ... index N not supported"; exit 77; }
ns h ip link set vz up
expect_eq "$(sysctl_get h vz arp_ignore)" 0 "vz, a new link with va's old ifindex $idx, starts at 0"
arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$(sysctl_get h vz arp_ignore)" 0 "after a restart and a stop vz is back at its own 0, not va's 2"
