#!/bin/bash
# The answer program run frame by frame with BPF_PROG_TEST_RUN
# (tests/tools/progtest.c): bad_frames.sh's frames, each mode's decisions
# and the rate buckets, the maps filled by the daemon's own code, each
# reply compared byte for byte with the kernel's.  No daemon, no
# topology, nothing attached: one veth pair and an interface of its own,
# in a network namespace of its own (unshare), gone when it exits.
. "$(dirname "$0")/../lib.sh"
need_root
PT=$(_abs "${top_builddir:-.}/tests/tools/progtest")
if [ ! -x "$PT" ]; then
	echo "SKIP: tests/tools/progtest not built (configure found no BPF toolchain)"
	exit 77
fi
exec unshare --net -- sh -ec '
	ip link add p0 address 02:00:00:00:00:01 type veth peer name p1
	ip link add q0 address 02:00:00:00:00:02 type veth peer name q1
	ip addr add 10.1.0.1/24 dev p0
	ip addr add 10.2.0.1/24 dev q0
	# the kernel answers any of its addresses (its reply is the oracle)
	# and checks no route, whatever a host with devconf_inherit_init_net
	# would have handed down
	for c in all default p0 q0; do
		for k in arp_ignore rp_filter arp_filter; do
			echo 0 >"/proc/sys/net/ipv4/conf/$c/$k"
		done
	done
	for l in lo p0 p1 q0 q1; do ip link set "$l" up; done
	exec "$1" $2 p0 p1 q0' sh "$PT" "${PROGTEST_FLAGS:-}"
