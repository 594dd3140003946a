#!/bin/bash
# Conflict detection and defence (RFC 5227 section 2.4): a spoofer on the
# segment announces 10.0.0.1 with its own MAC.  The conflict is logged
# (with the claimant's MAC) and counted; with defend = once one defending
# announcement goes out from eth0, and only one within 10 s however often
# the claim comes; the client's neighbour entry ends on eth0's MAC.  With
# defend = never nothing is sent.  A probe from another host for one of our
# addresses is answered, as the kernel does, and logged once per 10 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
ns_new s
veth s s0 sw ps
bridge_add sw br0 ps
addr_add s s0 10.0.0.66/24
SMAC=$(mac_of s s0)
neigh() { ns c ip neigh show "${1:-10.0.0.1}" dev c0 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'; }
capture() {
	bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/$1.pcap" arp 2>"$TMPDIR_T/$1.err"
	TD=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/$1.err" || fail "tcpdump did not start"
}
defences() {	# announcements of 10.0.0.1 from eth0 in capture $1
	tcpdump -r "$TMPDIR_T/$1.pcap" -n -e 2>/dev/null |
		grep -c " $MAC0 > ff:ff:ff:ff:ff:ff, .*Request who-has 10.0.0.1 tell 10.0.0.1," || true
}

write_conf "[global]
defend = once"
arpownd_start h -c "$CONF"
sleep 2.5	# the start-up announcements are over
ns c ping -c 1 -W 1 10.0.0.1 >/dev/null || fail "ping 10.0.0.1"
expect_eq "$(neigh)" "$MAC0" "the client's entry for 10.0.0.1 is eth0's MAC"

# one claim: logged, counted, defended once; the client ends on our MAC
capture once
ns s "$ARPC" -q -i s0 -s 10.0.0.1 -c 1 -w 0 10.0.0.1 >/dev/null || true
# (eth1 hears the claim too, on the same segment: one line, from
# whichever saw it first, naming the owner when it is not itself)
wait_for 2000 grep -Eq "eth[01]: address conflict: 10.0.0.1 is ours(, on eth0)?, but $SMAC claims it" "$TMPDIR_T/arpownd.log" ||
	fail "the conflict is not logged with the claimant's MAC"
pass "the spoofer's announcement: logged, naming $SMAC"
wait_for 2000 grep -q "eth0: defended 10.0.0.1 against $SMAC" "$TMPDIR_T/arpownd.log" || fail "no defence logged"
wait_for 2000 sh -c "[ \"\$(ip netns exec ${NS_PREFIX}c ip neigh show 10.0.0.1 dev c0 | grep -o '$MAC0')\" = '$MAC0' ]" ||
	fail "the client's entry ended on $(neigh), not eth0's"
pass "defended: the client's entry ends on eth0's MAC"
# the claim again and again within 10 s: no second defence
ns s "$ARPC" -q -i s0 -s 10.0.0.1 -c 5 -r 10 -w 0 10.0.0.1 >/dev/null || true
sleep 0.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
expect_eq "$(defences once)" 1 "defend = once: one defending announcement in 10 s for 6 claims"
grep -q "eth0: address conflict on 10.0.0.1 persists after its defence" "$TMPDIR_T/arpownd.log" ||
	fail "the persisting claim is not reported"
pass "the claim that persisted is reported as given up"
expect_eq "$(grep -c "address conflict: 10.0.0.1 is ours" "$TMPDIR_T/arpownd.log")" 1 "6 claims in 10 s: one conflict line"
c=$(ctl_get counters "d['all']['conflicts']")
expect_eq "$c" 12 "the conflict counter says 12: 6 claims, each heard by eth0 and eth1"

# a probe for one of our addresses: answered, as the kernel does, and
# logged once per 10 s
expect_reply s s0 10.0.0.1 "$MAC0" "an RFC 5227 probe for 10.0.0.1 is answered" -s 0.0.0.0
ask s s0 10.0.0.1 -s 0.0.0.0 -c 3 -r 20
expect_eq "$(grep -c "eth0: $SMAC probes for 10.0.0.1, which is ours" "$TMPDIR_T/arpownd.log")" 1 \
	"4 probes: one notice that someone is about to take the address"
arpownd_stop

# defend = never: logged, nothing sent
write_conf "[global]
defend = never"
arpownd_start h -c "$CONF"
sleep 2.5
ns c ping -c 1 -W 1 10.0.0.2 >/dev/null || fail "ping 10.0.0.2"
expect_eq "$(neigh 10.0.0.2)" "$MAC1" "the client's entry for 10.0.0.2 is eth1's MAC"
capture never
ns s "$ARPC" -q -i s0 -s 10.0.0.2 -c 1 -w 0 10.0.0.2 >/dev/null || true
wait_for 2000 grep -Eq "eth[01]: address conflict: 10.0.0.2 is ours(, on eth1)?, but $SMAC claims it" "$TMPDIR_T/arpownd.log" ||
	fail "defend = never: the conflict is not logged"
sleep 0.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
n=$(tcpdump -r "$TMPDIR_T/never.pcap" -n -e 2>/dev/null | grep -c " $MAC1 > ff:ff:ff:ff:ff:ff" || true)
expect_eq "$n" 0 "defend = never: logged, no announcement sent"
expect_eq "$(neigh 10.0.0.2)" "$SMAC" "and the client keeps the spoofer's MAC (what the defence above undid)"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
