#!/bin/bash
# Announcements (gratuitous ARP) from the owning interface: a service
# address moved from host A to host B reaches the client's neighbour table
# within 100 ms of the add, without the client asking; the frames on the
# wire are exactly announce_count of each configured form, announce_interval
# apart (within 10 %), from B's MAC; nothing is announced while B's link is
# down, and the burst comes when it is up again; announce = no is silent.
#
#   ns a: eth0 10.0.0.1/24 (+ 10.0.0.50) ┐
#   ns b: eth0 10.0.0.2/24               ├ br0 in ns sw
#   ns c: c0 10.0.0.100/24 (the client)  ┘
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump
for n in a b c sw; do ns_new "$n"; done
bridge_new sw br0
ns sw ip link set br0 type bridge forward_delay 0 2>/dev/null || true
veth a eth0 sw pa
veth b eth0 sw pb
veth c c0 sw pc
for p in pa pb pc; do bridge_add sw br0 "$p"; done
addr_add a eth0 10.0.0.1/24
addr_add a eth0 10.0.0.50/24
addr_add b eth0 10.0.0.2/24
addr_add c c0 10.0.0.100/24
for n in a b c sw; do
	ns "$n" sh -c 'for f in /proc/sys/net/ipv6/conf/*/disable_ipv6; do echo 1 > "$f"; done' 2>/dev/null || true
done
MACA=$(mac_of a eth0)
MACB=$(mac_of b eth0)
wait_for 3000 sh -c "ip netns exec ${NS_PREFIX}c '$ARPC' -q -i c0 -w 100 10.0.0.1 >/dev/null" ||
	fail "segment not up"

write_conf "[global]
announce_count = 3
announce_interval = 1.1
announce_form = both"
# host B's daemon: a second instance, its own state dir and log
start_b() {
	mkdir -p "$TMPDIR_T/state-b"
	bg_run b "$ARPOWND" -d -c "$CONF" --state-dir "$TMPDIR_T/state-b" >>"$TMPDIR_T/b.log" 2>&1
	BPID=$LAST_PID
	wait_for 5000 grep -q ' started: ' "$TMPDIR_T/b.log" || { cat "$TMPDIR_T/b.log"; fail "B did not start"; }
}
arpownd_start a -c "$CONF"
start_b
sleep 2.5	# the start-up announcements are over

neigh() { ns c ip neigh show 10.0.0.50 dev c0 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'; }
ns c ping -c 2 -i 0.2 -W 1 10.0.0.50 >/dev/null || fail "ping 10.0.0.50 on A"
expect_eq "$(neigh)" "$MACA" "the client's entry for 10.0.0.50 is A's MAC"

# capture what reaches the client from now on
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c.pcap" arp 2>"$TMPDIR_T/td.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td.err" || fail "tcpdump did not start"

ns a ip addr del 10.0.0.50/24 dev eth0
_now_ms; t0=$_NOW_MS
ns b ip addr add 10.0.0.50/24 dev eth0
moved() { [ "$(neigh)" = "$MACB" ]; }
wait_for 1000 moved || fail "the client's entry still says $(neigh) a second after the add on B"
_now_ms; dt=$((_NOW_MS - t0))
[ "$dt" -le 100 ] || fail "the client's entry moved to B after $dt ms (more than 100 ms)"
pass "moved 10.0.0.50 from A to B: the client's entry says B's MAC after $dt ms"
sleep 3.3	# the rest of the burst
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
# what came from B about 10.0.0.50, with times (tcpdump shows a target
# MAC in parentheses only when it is not zero)
tcpdump -r "$TMPDIR_T/c.pcap" -n -e -tt 2>/dev/null >"$TMPDIR_T/c.txt"
grep -q "10.0.0.100 .*Request who-has 10.0.0.50\|Request who-has 10.0.0.50 tell 10.0.0.100" "$TMPDIR_T/c.txt" &&
	fail "the client asked for 10.0.0.50: $(grep 'tell 10.0.0.100' "$TMPDIR_T/c.txt")"
pass "the client learnt it without sending a request"
reqs=$(grep -c "^[0-9.]* $MACB > ff:ff:ff:ff:ff:ff, .*Request who-has 10.0.0.50 tell 10.0.0.50," "$TMPDIR_T/c.txt")
reps=$(grep -c "^[0-9.]* $MACB > ff:ff:ff:ff:ff:ff, .*Reply 10.0.0.50 is-at $MACB," "$TMPDIR_T/c.txt")
expect_eq "$reqs $reps" "3 3" "3 announcement requests (sender = target, target MAC 0) and 3 broadcast replies, from B"
others=$(grep -v "who-has 10.0.0.50 tell 10.0.0.50,\|Reply 10.0.0.50 is-at $MACB" "$TMPDIR_T/c.txt" | grep -c "^[0-9.]* $MACB >" || true)
expect_eq "$others" 0 "nothing else from B"
grep "who-has 10.0.0.50 tell 10.0.0.50," "$TMPDIR_T/c.txt" | awk '{ print $1 }' >"$TMPDIR_T/t.txt"
awk 'NR > 1 { d = $1 - p; if (d < 0.99 || d > 1.21) { printf "gap %.3f s\n", d; bad = 1 } } { p = $1 }
	END { exit bad }' "$TMPDIR_T/t.txt" || fail "the frames are not 1.1 s (+-10%) apart: $(tr '\n' ' ' <"$TMPDIR_T/t.txt")"
pass "spaced 1.1 s apart, within 10 % ($(awk 'NR > 1 { printf "%.3f ", $1 - p } { p = $1 }' "$TMPDIR_T/t.txt")s)"
grep -v "10.0.0.50" "$TMPDIR_T/c.txt" | grep -q "^[0-9.]* $MACA > ff:ff:ff:ff:ff:ff.*10.0.0.50" &&
	fail "A announced 10.0.0.50 after it was deleted"
pass "A said nothing of 10.0.0.50 after its delete"

# B's link down: an address added meanwhile is not announced; link up: it is
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c2.pcap" arp 2>"$TMPDIR_T/td2.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td2.err" || fail "tcpdump did not start"
ns b ip link set eth0 down
ns b ip addr add 10.0.0.60/24 dev eth0
sleep 0.5
ns b ip link set eth0 up
# 1.5 s: the burst's second round too, for the bridge may still drop the
# first (its port comes back to forwarding when linkwatch gets to it)
sleep 1.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
tcpdump -r "$TMPDIR_T/c2.pcap" -n -e -tt 2>/dev/null >"$TMPDIR_T/c2.txt"
n=$(grep -c "$MACB > ff:ff:ff:ff:ff:ff.*10.0.0.60" "$TMPDIR_T/c2.txt" || true)
[ "$n" -ge 2 ] || fail "10.0.0.60, added while B's link was down, not announced when it came up ($n frames)"
pass "added while the link was down: announced once it came up ($n frames)"

# announce = no: silence
kill -TERM "$BPID"; wait "$BPID" || fail "B: unclean stop"
write_conf "[global]
announce = no"
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c3.pcap" arp 2>"$TMPDIR_T/td3.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td3.err" || fail "tcpdump did not start"
start_b
ns b ip addr add 10.0.0.70/24 dev eth0
sleep 1.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
n=$(tcpdump -r "$TMPDIR_T/c3.pcap" -n -e 2>/dev/null | grep -c "^$MACB > ff:ff:ff:ff:ff:ff" || true)
expect_eq "$n" 0 "announce = no: nothing from B at start or on an address added"
kill -TERM "$BPID"; wait "$BPID" || fail "B: unclean stop"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "A: clean stop"
