#!/bin/bash
# A spoofer storm makes arpownd log (nearly) one line per claim.  The
# claim lines themselves are throttled (20 per 10 s in all, cfl_note's
# thr_allow budget), but note_claim() (daemon.c) logs every defence at
# NOTICE ("defended ... with an announcement") and every give-up at ERR
# ("persists after its defence") with no throttle at all: one line per
# claimed address, i.e. one per frame when each frame claims another of
# our addresses.  arpownd.conf(5): "Every claim is counted and logged (at
# most once per address per 10 s, 20 lines per 10 s in all)".  Here 1024
# published addresses, and 2 x 1024 claim frames in about a second (one
# per address, twice): the log gets ~2000 lines.  Bound checked: at most
# 3 x 20 conflict-related lines (claims, defences, give-ups) in the storm.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
ns_new s
veth s s0 sw ps
bridge_add sw br0 ps
addr_add s s0 10.0.0.66/24
write_conf "[global]
interfaces = eth0 eth1 eth2
announce = no
defend = once"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
ctl publish 10.0.8.0/22 eth0 >/dev/null || fail "publish 10.0.8.0/22 eth0"
before=$(wc -l <"$TMPDIR_T/arpownd.log")
# 1024 claims, each from another published sender address and MAC, twice
for round in 1 2; do
	ns s timeout 5 "$ARPC" -q -i s0 -s 10.0.8.0 --vary 1024 -c 1024 -r 2000 -w 0 -t 3000 10.0.0.1 >/dev/null || true
done
sleep 0.5
lines=$(tail -n +"$((before + 1))" "$TMPDIR_T/arpownd.log" | grep -cE 'address conflict|defended|persists' || true)
echo "# conflict-related log lines for 2048 claim frames: $lines"
tail -n +"$((before + 1))" "$TMPDIR_T/arpownd.log" | grep -E 'defended|persists' | sed -n '1p;$p'
[ "$lines" -le 60 ] || fail "a storm of 2048 claim frames logged $lines lines"
pass "the storm logged $lines lines"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
