#!/bin/bash
# An interface deleted and made again with the same name and the same
# ifindex (ip link add ... index N) while the daemon runs on the kernel
# answer path.  Its TC filter went with the old device; the new one must
# get the program again (status says "kernel" only where the program
# is), answer by the same rules, and a clean stop must leave the new
# device's TC setup as it found it (someone else's clsact qdisc, made
# on the new device, stays).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
filters() { ns h tc filter show dev "$1" ingress 2>/dev/null | grep -c 'arpownd_answer'; }
path_of() { ctl_get status "[i['answer_path'] for i in d['managed'] if i['name'] == '$1'][0]"; }
kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"
idx=$(ns h cat /sys/class/net/eth2/ifindex)
expect_eq "$(filters eth2)" 1 "the program on eth2 (ifindex $idx)"

# eth2 goes, and comes back with the same ifindex and name
ns h ip link del eth2
sleep 0.3
ns h ip link add eth2 index "$idx" type veth peer name f0 netns "${NS_PREFIX}f" ||
	fail "cannot re-create eth2 with ifindex $idx"
ns f ip link set f0 up
ns f ip addr add 10.1.0.100/24 dev f0
ns h ip link set eth2 up
ns h ip addr add 10.1.0.1/24 dev eth2
MAC2=$(mac_of h eth2)
expect_eq "$(ns h cat /sys/class/net/eth2/ifindex)" "$idx" "eth2 re-created with ifindex $idx"
answered() { ask f f0 10.1.0.1 -w 50; [ "$MACS" = "$MAC2" ]; }
wait_for 3000 answered || fail "re-created eth2 does not answer 10.1.0.1 ('$MACS')"
pass "re-created eth2 answers 10.1.0.1 with its new MAC"
p=$(path_of eth2)
f=$(filters eth2)
if [ "$p" = kernel ] && [ "$f" != 1 ]; then
	fail "status says eth2 is answered by the kernel path, but there are $f arpownd filters on it (kan slot re-made, kp_att entry of the old device kept)"
fi
pass "status ($p) matches the filters on eth2 ($f)"
expect_eq "$f" 1 "the program is on the re-created eth2"
