#!/bin/bash
# Learning: an answered requester on the interface's subnet goes into the
# neighbour table as STALE on the owning NIC, as the kernel does; never
# over a PERMANENT entry; not from outside the subnet; learn = no: never.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
CMAC=$(mac_of c c0)
write_conf "[global]"
arpownd_start h -c "$CONF"

ns h ip neigh flush all
expect_reply c c0 10.0.0.1 "$MAC0" "asked 10.0.0.1"
neigh() { ns h ip neigh show "$1" dev "$2"; }
wait_for 1000 sh -c "ip netns exec ${NS_PREFIX}h ip neigh show 10.0.0.100 dev eth0 | grep -q STALE" ||
	fail "requester not learned: $(neigh 10.0.0.100 eth0)"
expect_eq "$(neigh 10.0.0.100 eth0)" "10.0.0.100 lladdr $CMAC STALE " "requester learned as STALE on eth0"
expect_eq "$(neigh 10.0.0.100 eth1)" "" "not learned on eth1, which did not answer"

ns h ip neigh replace 10.0.0.101 lladdr 02:00:00:00:01:01 dev eth0 nud permanent
expect_reply c c0 10.0.0.1 "$MAC0" "asked 10.0.0.1 from 10.0.0.101" -s 10.0.0.101
sleep 0.2
expect_eq "$(neigh 10.0.0.101 eth0)" "10.0.0.101 lladdr 02:00:00:00:01:01 PERMANENT " \
	"a PERMANENT entry is never replaced"

ask c c0 10.0.0.1 -s 10.7.7.7
sleep 0.2
expect_eq "$(neigh 10.7.7.7 eth0)" "" "a requester outside the subnet is not learned"
arpownd_stop

write_conf "[global]
learn = no"
arpownd_start h -c "$CONF"
ns h ip neigh flush all
expect_reply c c0 10.0.0.1 "$MAC0" "learn = no: still answered"
sleep 0.3
expect_eq "$(neigh 10.0.0.100 eth0)" "" "learn = no: nothing learned"
arpownd_stop
