#!/bin/bash
# subnet, system and off modes, and a per-interface override, each do what
# they say.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# subnet: the sender must be on one of the interface's subnets.
write_conf "[global]
mode = subnet"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.1 "$MAC0" "subnet: sender 10.0.0.100 inside 10.0.0.0/24 answered"
expect_silence c c0 10.0.0.1 "subnet: sender 192.168.77.5 outside the subnets ignored" -s 192.168.77.5
expect_reply c c0 10.0.0.1 "$MAC0" "subnet: an RFC 5227 probe is still answered" -s 0.0.0.0
expect_silence f f0 10.0.0.1 "subnet: still only the owner answers"
arpownd_stop

# system: any of the host's addresses on a managed interface, from the
# arrival interface (the kernel's weak host), but still validated.
write_conf "[global]
mode = system"
arpownd_start h -c "$CONF"
expect_reply f f0 10.0.0.1 "$MAC2" "system: eth2 answers for eth0's 10.0.0.1 with its own MAC"
ask c c0 10.0.0.1
[ "$NREPLY" = 2 ] || fail "system: on the shared segment both NICs answer, as the kernel does; got $NREPLY"
pass "system: both NICs answer on the shared segment ($MACS)"
addr_add h lo 10.0.0.50/32
expect_silence f f0 10.0.0.50 "system: an address on lo (unmanaged) is not answered"
expect_silence f f0 10.1.0.1 "system: bad frames are still refused" --hln 8
arpownd_stop

# off, as a per-interface override; the rest stays in the global mode.
write_conf "[global]
mode = owner

[interface outside]
match = eth2
mode = off

[interface inside]
match = eth1
mode = system"
arpownd_start h -c "$CONF"
expect_silence f f0 10.1.0.1 "override off: eth2 answers not even for its own address"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 8 "override off: eth2 still managed (kernel silent)"
ask c c0 10.0.0.1
[ "$NREPLY" = 2 ] || fail "override system on eth1: eth1 should answer for 10.0.0.1 too, got $NREPLY ($MACS)"
pass "override system on eth1: eth1 answers for eth0's address, eth0 (owner) for its own"
expect_reply c c0 10.0.0.2 "$MAC1" "eth0 in owner mode does not answer for eth1's 10.0.0.2"
arpownd_stop
