#!/bin/bash
# Replies are byte for byte the kernel's: capture the kernel's reply to a
# request, then arpownd's to the same request, and compare.  Likewise for
# an RFC 5227 probe (sender 0.0.0.0): unicast, target IP 0.0.0.0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

# Only eth2's segment has a single NIC: there the kernel answers once.
frames() { ns f "$ARPC" -x -i f0 -w 300 "$@" 10.1.0.1 | sed -n 's/^frame //p'; }
k_req=$(frames)
k_probe=$(frames -s 0.0.0.0)
k_hrd6=$(frames --hrd 6)
[ -n "$k_req" ] && [ -n "$k_probe" ] || fail "no kernel reply captured"
pass "kernel reply:  $k_req"

write_conf "[global]"
arpownd_start h -c "$CONF"
a_req=$(frames)
a_probe=$(frames -s 0.0.0.0)
a_hrd6=$(frames --hrd 6)
expect_eq "$a_req" "$k_req" "request: arpownd's reply is the kernel's, byte for byte"
expect_eq "$a_probe" "$k_probe" "probe: arpownd's reply is the kernel's, byte for byte"
expect_eq "$a_hrd6" "$k_hrd6" "hrd 6 request: arpownd's reply is the kernel's"

# The probe's reply goes to the prober's MAC, with target IP 0.0.0.0.
fmac=$(mac_of f f0 | tr -d :)
hex=${a_probe#* }
[ "${hex:0:12}" = "$fmac" ] || fail "probe reply not unicast to the prober: ${hex:0:12}"
[ "${hex:76:8}" = 00000000 ] || fail "probe reply target IP is not 0.0.0.0: ${hex:76:8}"
pass "probe reply is unicast to the prober with target IP 0.0.0.0"
arpownd_stop
