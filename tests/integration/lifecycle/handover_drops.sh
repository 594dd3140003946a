#!/bin/bash
# What the kept socket could not hold is said as the kernel counted it.
# A stop leaves systemd a ring of 65,536 slots that the kernel fills with
# the requests for published addresses while no daemon runs; here a
# stand-in for systemd's store (tests/tools/fdstore.py) holds it while a
# client sends 50,000 requests for the published 10.0.0.50, which reach
# the host on eth0 and eth1 (one segment): about 100,000 frames, more than
# the ring holds.  The kernel admitted exactly the frames its two
# interfaces received (nothing else is on the segment: no IPv6, no daemon,
# and the host does not own 10.0.0.50), so it dropped exactly those beyond
# 65,536; the next start must say that number in its journal line, its
# counter (arpownctl counters) and its metric
# (arpownd_handover_dropped_total).  The shipped limits; about 10 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
SLOTS=65536
N=50000
seed_net
write_conf "[global]
[publish vip]
addresses = 10.0.0.50
interface = eth0"
sock=$TMPDIR_T/store.sock
ns h python3 "$(dirname "$0")/../../tools/fdstore.py" "$sock" "$ARPOWND" -d -c "$CONF" \
	--state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/store.out" 2>"$TMPDIR_T/arpownd.log" &
_track "$!"
_said() { grep -q "$1" "$TMPDIR_T/store.out"; }
wait_for 10000 _said '^ready' || fail "the daemon did not start: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 published: answered from eth0"

touch "$sock.stop"
wait_for 10000 _said '^exited' || fail "the daemon did not stop: $(cat "$TMPDIR_T/store.out")"
grep -q '^exited .* holding arp-handover-ring1$' "$TMPDIR_T/store.out" ||
	fail "the stop left no ring in the store: $(cat "$TMPDIR_T/store.out")"

rx() { echo $(($(ns h cat /sys/class/net/eth0/statistics/rx_packets) + $(ns h cat /sys/class/net/eth1/statistics/rx_packets))); }
before=$(rx)
out=$(ns c "$ARPC" -q -i c0 -r 40000 -c "$N" -w 0 -t 10000 10.0.0.50 2>&1)
sleep 0.3	# the last frames through the bridge
after=$(rx)
grep -q "^sent $N " <<<"$out" || fail "the client: $out"
admitted=$((after - before))
[ "$admitted" -gt "$SLOTS" ] || fail "only $admitted frames reached the host: no overflow to count"
want=$((admitted - SLOTS))
echo "# $N requests sent, $admitted frames received by eth0 and eth1 while no daemon ran: $want beyond the $SLOTS slots"

touch "$sock.start"
wait_for 15000 sh -c "[ \$(grep -c '^ready' '$TMPDIR_T/store.out') -ge 2 ]" ||
	fail "the daemon did not start again: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
line=$(grep 'handover: [0-9]* requests' "$TMPDIR_T/arpownd.log")
got=$(sed -n 's/.*; \([0-9]*\) dropped by the kernel.*/\1/p' <<<"$line")
expect_eq "$got" "$want" "the journal line says the kernel's drops: $line"
grep -q '^<4>' <<<"$line" || fail "a line that says requests were lost is a warning: $line"
kept=$(sed -n 's/^<[0-9]>handover: \([0-9]*\) requests.*/\1/p' <<<"$line")
late=$(sed -n 's/.*; \([0-9]*\) after the capture went live.*/\1/p' <<<"$line")
old=$(sed -n 's/.* \([0-9]*\) older than .*/\1/p' <<<"$line")
expect_eq "$((kept + late + old))" "$SLOTS" "the ring was full: every slot read back"
expect_eq "$(ctl_get counters 'd["daemon"]["handover_dropped"]')" "$want" "arpownctl counters: handover_dropped"
m=$(ctl metrics | sed -n 's/^arpownd_handover_dropped_total \([0-9]*\)$/\1/p')
expect_eq "$m" "$want" "the metric arpownd_handover_dropped_total"
touch "$sock.quit"
wait_for 10000 _said '^exited.*' || true
