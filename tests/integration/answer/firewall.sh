#!/bin/bash
# The seed's firewall: from the outside segment nobody can probe for the
# inside addresses; the outside interface still answers for its own; and
# the probes are visible: one info line per sender and target per 10 s,
# with a MESSAGE_ID of its own, even when the debug lines are off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

ask f f0 10.0.0.1
[ "$NREPLY" = 1 ] || fail "baseline: the kernel answers for the inside address, got $NREPLY"
pass "kernel baseline: the outside can probe 10.0.0.1 (answered by $MACS)"

write_conf "[global]
log_level = info"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
expect_silence f f0 10.0.0.1 "outside asking for inside 10.0.0.1: no reply" -c 5 -r 50
expect_silence f f0 10.0.0.2 "outside asking for inside 10.0.0.2: no reply"
expect_reply f f0 10.1.0.1 "$MAC2" "outside asking for eth2's own 10.1.0.1: answered by eth2"
expect_silence c c0 10.1.0.1 "inside asking for the outside address: no reply"
expect_eq "$(grep -c 'eth2: refused who-has 10.0.0.1 from 10.1.0.100: owned by eth0, not by this interface' "$TMPDIR_T/arpownd.log")" 1 \
	"5 probes for 10.0.0.1 from outside: one info line naming the owner"
expect_eq "$(grep -c 'eth2: refused who-has 10.0.0.2 from 10.1.0.100: owned by eth1' "$TMPDIR_T/arpownd.log")" 1 \
	"another target: its own line"
grep -q 'answered who-has\|not answering who-has' "$TMPDIR_T/arpownd.log" && fail "debug lines at log_level = info"
pass "and no per-request debug lines"
# two NICs on one segment hear each other's requests: that is no probe
ask c c0 10.0.0.1
grep -q 'eth1: refused who-has 10.0.0.1 from 10.0.0.100' "$TMPDIR_T/arpownd.log" &&
	fail "a LAN client asking for eth0's address was logged as a probe on eth1"
pass "a request eth1 hears for eth0's address from their common subnet: not logged"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
