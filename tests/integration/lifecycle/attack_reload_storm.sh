#!/bin/bash
# 50 reloads in a row (configuration and published set swapped each time,
# inforce.c) while requests for an owned, a configured-published and a
# runtime-published address flow, and arpownctl publish/withdraw run
# beside: no request unanswered for a second, no reply from the wrong
# interface, the daemon alive, the runtime entries exactly what was
# acknowledged last.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
VMAC=02:aa:00:00:00:50
A="[global]
interfaces = eth0 eth1 eth2

[publish vip]
addresses = 10.0.0.50
interface = eth0
mac = $VMAC"
B="[global]
interfaces = *

[publish vip]
addresses = 10.0.0.50
interface = eth0
mac = $VMAC

[publish other]
addresses = 10.0.0.70-10.0.0.79
interface = eth1"
write_conf "$A"
arpownd_start h -c "$CONF"
ctl publish 10.0.0.60 eth0 >/dev/null || fail "publish 10.0.0.60 eth0"

o1=$TMPDIR_T/pp1.out o2=$TMPDIR_T/pp2.out o3=$TMPDIR_T/pp3.out
bg_run c "$ARPC" -q -i c0 --pingpong -r 200 -c 600 --wait-reply 1000 -t 15000 --owner "$MAC0" 10.0.0.1 >"$o1" 2>&1
p1=$LAST_PID
bg_run c "$ARPC" -q -i c0 --pingpong -r 200 -c 600 --wait-reply 1000 -t 15000 --owner "$VMAC" 10.0.0.50 >"$o2" 2>&1
p2=$LAST_PID
bg_run c "$ARPC" -q -i c0 --pingpong -r 200 -c 600 --wait-reply 1000 -t 15000 --owner "$MAC0" 10.0.0.60 >"$o3" 2>&1
p3=$LAST_PID
(
	for i in $(seq 25); do
		ctl publish 10.0.0.61 eth1 >/dev/null 2>&1 || echo "publish $i failed"
		ctl withdraw 10.0.0.61 >/dev/null 2>&1 || echo "withdraw $i failed"
	done
	ctl publish 10.0.0.62 eth1 >/dev/null 2>&1 || echo "publish 62 failed"
) >"$TMPDIR_T/pubw.out" 2>&1 &
pw=$!
_track "$pw"
for i in $(seq 50); do
	if [ $((i % 2)) = 1 ]; then write_conf "$B"; else write_conf "$A"; fi
	kill -HUP "$ARPOWND_PID" || fail "arpownd gone at reload $i"
	sleep 0.05
done
wait "$pw" || true
wait "$p1" || true; wait "$p2" || true; wait "$p3" || true
cat "$o1" "$o2" "$o3" "$TMPDIR_T/pubw.out"
kill -0 "$ARPOWND_PID" || fail "arpownd died in the storm"
for o in "$o1" "$o2" "$o3"; do
	lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$o")
	wrong=$(sed -n 's/.* wrong \([0-9]*\).*/\1/p' "$o")
	expect_eq "$lost" 0 "$(basename "$o"): none unanswered within a second"
	expect_eq "${wrong:-0}" 0 "$(basename "$o"): no reply from another MAC"
done
[ -s "$TMPDIR_T/pubw.out" ] && fail "publish/withdraw refused during the storm"
pass "every publish/withdraw acknowledged"
# the last state: B (i = 50 is even: A). runtime: .60 and .62, not .61
wait_for 3000 sh -c "[ \$(grep -c 'reloaded ' '$TMPDIR_T/arpownd.log') -ge 50 ]" || fail "not 50 reloads"
ctl published >"$TMPDIR_T/pub.out" 2>&1
cat "$TMPDIR_T/pub.out"
grep -q '10.0.0.60' "$TMPDIR_T/pub.out" || fail "10.0.0.60 (runtime) lost in the storm"
grep -q '10.0.0.62' "$TMPDIR_T/pub.out" || fail "10.0.0.62 (runtime) lost in the storm"
grep -q '10.0.0.61' "$TMPDIR_T/pub.out" && fail "10.0.0.61 withdrawn but still published"
grep -q '10.0.0.7' "$TMPDIR_T/pub.out" && fail "[publish other] of B still published under A"
pass "the published set is what was acknowledged last"
expect_reply c c0 10.0.0.62 "$MAC1" "10.0.0.62 answered by eth1"
expect_silence c c0 10.0.0.61 "10.0.0.61 withdrawn: silent"
expect_silence c c0 10.0.0.71 "B's range gone under A: silent"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "eth0's arp_ignore restored"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 0 "eth2's arp_ignore restored"
# under a sanitizer build (ARPOWND=...): its report is a failure too
if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' "$TMPDIR_T/arpownd.log"; then
	fail "a sanitizer report in the log"
fi
pass "no sanitizer report"
