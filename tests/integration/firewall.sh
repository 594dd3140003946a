#!/bin/bash
# The seed's firewall: from the outside segment nobody can probe for the
# inside addresses; the outside interface still answers for its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net

ask f f0 10.0.0.1
[ "$NREPLY" = 1 ] || fail "baseline: the kernel answers for the inside address, got $NREPLY"
pass "kernel baseline: the outside can probe 10.0.0.1 (answered by $MACS)"

write_conf "[global]"
arpownd_start h -c "$CONF"
expect_silence f f0 10.0.0.1 "outside asking for inside 10.0.0.1: no reply"
expect_silence f f0 10.0.0.2 "outside asking for inside 10.0.0.2: no reply"
expect_reply f f0 10.1.0.1 "$MAC2" "outside asking for eth2's own 10.1.0.1: answered by eth2"
expect_silence c c0 10.1.0.1 "inside asking for the outside address: no reply"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
