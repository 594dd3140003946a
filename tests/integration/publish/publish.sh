#!/bin/bash
# Published addresses ([publish] sections): answered though no interface
# holds them, from their interface only, with the section's MAC or the
# interface's, with the same validation as owned ones; excludes honoured;
# an owned address is never answered as published; announced at start;
# overlapping sections and addresses on lo are configuration errors; a
# million addresses in a range cost a few MiB.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
VMAC=02:aa:00:00:00:50
write_conf "[global]

[publish vip]
addresses = 10.0.0.50 10.0.1.0/28 !10.0.1.5 10.0.0.2
interface = eth0
mac = $VMAC

[publish outside]
addresses = 10.1.2.10-10.1.2.20
interface = eth2"
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c.pcap" arp 2>"$TMPDIR_T/td.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td.err" || fail "tcpdump did not start"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.50 "$VMAC" "10.0.0.50 published on eth0: one reply, with the section's MAC"
expect_reply c c0 10.0.1.3 "$VMAC" "10.0.1.3 (in 10.0.1.0/28): answered"
expect_silence c c0 10.0.1.5 "10.0.1.5 excluded (!10.0.1.5): not answered"
expect_silence c c0 10.0.1.16 "10.0.1.16, past the /28: not answered"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 is eth1's: answered by eth1 only, never as published"
expect_reply f f0 10.1.2.15 "$MAC2" "10.1.2.15 published on eth2 (no mac): the interface's MAC"
expect_silence f f0 10.0.0.50 "10.0.0.50 asked on eth2: published on eth0 only"
expect_silence c c0 10.0.0.50 "a martian sender is refused for a published address too" -s 127.0.0.9
sleep 0.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
n=$(tcpdump -r "$TMPDIR_T/c.pcap" -n -e 2>/dev/null | grep -c " $VMAC > ff:ff:ff:ff:ff:ff, .*Request who-has 10.0.0.50 tell 10.0.0.50," || true)
[ "$n" -ge 1 ] || fail "10.0.0.50 was not announced at start with $VMAC"
pass "announced at start, with the section's MAC ($n frames so far)"
# a stranger claiming a published address: a conflict
ns c "$ARPC" -q -i c0 -s 10.0.0.50 -c 1 -w 0 10.0.0.50 >/dev/null || true
wait_for 2000 grep -q 'eth0: address conflict: 10.0.0.50 is ours' "$TMPDIR_T/arpownd.log" ||
	fail "a claim on a published address is no conflict"
pass "a foreign claim on a published address is a conflict"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# configuration errors
rc() { local r=0; ns h "$ARPOWND" -n -c "$CONF" >"$TMPDIR_T/out" 2>&1 || r=$?; echo "$r"; }
write_conf "[publish a]
addresses = 10.0.0.48/29
interface = eth0
[publish b]
addresses = 10.0.0.50-10.0.0.60
interface = eth1"
expect_eq "$(rc)" 78 "two sections publishing one address: exit 78"
grep -q '\[publish b\] addresses: 10.0.0.50 is published by \[publish a\] too' "$TMPDIR_T/out" ||
	fail "the overlap is not named: $(cat "$TMPDIR_T/out")"
pass "the overlap names both sections and the address"
addr_add h lo 10.0.0.77/32
write_conf "[publish lvs]
addresses = 10.0.0.77
interface = eth0"
expect_eq "$(rc)" 78 "an address on lo published: exit 78"
grep -q '\[publish lvs\] addresses: 10.0.0.77 is an address of lo' "$TMPDIR_T/out" ||
	fail "the lo address is not named: $(cat "$TMPDIR_T/out")"
pass "an address of lo cannot be published"

# a million addresses: ranges, not addresses
write_conf "[global]
announce = no"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
r0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ARPOWND_PID/status")
arpownd_stop
write_conf "[global]
announce = no

[publish big]
addresses = 10.16.0.0/12
interface = eth2"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
r1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ARPOWND_PID/status")
expect_reply f f0 10.20.3.4 "$MAC2" "one of 1,048,576 published addresses answered"
[ $((r1 - r0)) -lt 4096 ] || fail "1,048,576 published addresses cost $((r1 - r0)) KiB of RSS"
pass "1,048,576 published addresses: RSS $r0 -> $r1 KiB"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
