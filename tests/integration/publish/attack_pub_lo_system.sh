#!/bin/bash
# A published address that lo holds is answered in mode system.  The rules:
# "addresses on lo are never answered" and "an address that an interface
# holds is never answered as published".  pol_decide() in system mode looks
# the target up with tbl_addr_owner(t, tip, usable): lo is not managed, so
# not "usable", the lookup returns NULL and the request falls through to
# published(), which answers it.  Owner mode (tbl_addr_owner(..., NULL))
# gets it right and is checked here too.  Real case: keepalived/LVS-DR moves
# a VIP that arpownctl published onto lo on a real server.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
for mode in owner system; do
	write_conf "[global]
interfaces = eth0 eth1 eth2
mode = $mode
announce = no"
	arpownd_start h -c "$CONF"
	ctl publish 10.0.0.50 eth0 >/dev/null || fail "publish 10.0.0.50 eth0"
	expect_reply c c0 10.0.0.50 "$MAC0" "$mode: 10.0.0.50 published on eth0: answered"
	addr_add h lo 10.0.0.50/32
	sleep 0.2
	expect_silence c c0 10.0.0.50 "$mode: 10.0.0.50 now on lo: never answered"
	ns h ip addr del 10.0.0.50/32 dev lo
	ctl withdraw 10.0.0.50 >/dev/null || fail "withdraw"
	arpownd_stop
	expect_eq "$ARPOWND_RC" 0 "$mode: clean stop"
done
