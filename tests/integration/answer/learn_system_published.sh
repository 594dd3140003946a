#!/bin/bash
# Learning beyond owner mode (learn.sh): the requester of an answered
# request goes into the neighbour table on the interface that answered,
# when it is in a subnet of it, also in system mode and for a published
# address: a neighbour entry holding an old MAC takes the requester's new
# one, as the kernel's neigh_event_ns() does when it answers.
# tests/integration/kpath/learn_system_published.sh runs it with
# answer_path = kernel (the program's learning events).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
neigh_mac() { ns h ip neigh show 10.0.0.100 dev eth0 | sed -n 's/.* lladdr \([^ ]*\) .*/\1/p'; }
learned() { [ "$(neigh_mac)" = "$1" ]; }

write_conf "[global]
interfaces = eth*
mode = system
announce = no

[publish vip]
addresses = 10.0.0.50
interface = eth0"
arpownd_start h -c "$CONF"

# system mode, a host address
ns h ip neigh replace 10.0.0.100 lladdr 02:00:00:00:77:00 dev eth0 nud stale
ask c c0 10.0.0.1 -m 02:00:00:00:77:01
[[ ,$MACS, == *,$MAC0,* ]] || fail "system mode: 10.0.0.1 not answered by eth0 ('$MACS')"
wait_for 2000 learned 02:00:00:00:77:01 ||
	fail "system mode: the requester's new MAC not learned on eth0: $(ns h ip neigh show 10.0.0.100 dev eth0)"
pass "system mode: the requester's new MAC learned on eth0 ($(ns h ip neigh show 10.0.0.100 dev eth0))"

# a published address
ns h ip neigh replace 10.0.0.100 lladdr 02:00:00:00:77:00 dev eth0 nud stale
expect_reply c c0 10.0.0.50 "$MAC0" "published 10.0.0.50 answered by eth0" -m 02:00:00:00:77:02
wait_for 2000 learned 02:00:00:00:77:02 ||
	fail "published: the requester's new MAC not learned on eth0: $(ns h ip neigh show 10.0.0.100 dev eth0)"
pass "published: the requester's new MAC learned on eth0"

# outside every subnet of eth0: never learned
ask c c0 10.0.0.50 -s 10.9.9.9 -m 02:00:00:00:77:03
sleep 0.3
expect_eq "$(ns h ip neigh show 10.9.9.9 dev eth0)" "" "a requester outside eth0's subnets is not learned"
arpownd_stop
