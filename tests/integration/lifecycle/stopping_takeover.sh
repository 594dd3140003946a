#!/bin/bash
# The upgrade from a daemon that gives the weak-host originals back at its
# stop (0.1.0: no stop_leaves; here one run with stop_leaves = originals,
# whose records, like 0.1.0's, name no strict mode).  The unit's ExecStop,
# arpownd --stopping, runs before systemd's SIGTERM: it keeps a ring for
# every request in the store in the main process's name, stops the old
# daemon, writes the kernel's strict mode, kills it, and records the
# strict mode for ExecStopPost (--restore), which keeps it; the next start
# answers from the ring what came while nobody answered.  A stand-in for
# systemd's store (tests/tools/fdstore.py) plays systemd.  Through it,
# clients ask for the owned 10.0.0.1 and the published 10.0.0.50, 1,000
# times a second each: no reply from another NIC than eth0, none
# unanswered within a second; the outside's probes of 10.0.0.1 unanswered
# throughout.  With the old daemon's own stop, eth1 answered for 10.0.0.1
# (tests/system/restart.sh counted 381 such replies in an upgrade).
# About 8 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
sysctl_set h eth1 arp_ignore 2
sysctl_set h eth1 arp_announce 1
# eth0's and eth1's arp_ignore/arp_announce, in one go (the gap below is
# the test's to keep short, as systemd keeps it)
pairs() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	ns h sh -c 'c=/proc/sys/net/ipv4/conf; echo "$(cat $c/eth0/arp_ignore)/$(cat $c/eth0/arp_announce) $(cat $c/eth1/arp_ignore)/$(cat $c/eth1/arp_announce)"'
}
ORIG="0/0 2/1"
PUB="[publish vip]
addresses = 10.0.0.50
interface = eth0"
# the old daemon: a stop gives the originals back, its records say no
# strict mode
write_conf "[global]
stop_leaves = originals
$PUB"
sock=$TMPDIR_T/store.sock
ns h python3 "$(dirname "$0")/../../tools/fdstore.py" "$sock" "$ARPOWND" -d -c "$CONF" \
	--state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/store.out" 2>"$TMPDIR_T/arpownd.log" &
_track "$!"
_said() { grep -q "$1" "$TMPDIR_T/store.out"; }
wait_for 10000 _said '^ready' || fail "the daemon did not start: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
old=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$TMPDIR_T/store.out")
expect_eq "$(pairs)" "8/2 8/2" "the old daemon answers (arp_ignore 8)"
grep -q 'leave=' "$ARPOWND_STATE_DIR"/originals.* && fail "the old daemon's records name a strict mode"
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 published: answered from eth0"

c="$ARPC -q -i c0 -t 12000"
bg_run c sh -c "exec $c -s 10.0.0.101 --pingpong --steady -r 1000 -c 4000 --wait-reply 1000 --vary-mac 4096 --owner $MAC0 -v 10.0.0.1 >$TMPDIR_T/own.out 2>$TMPDIR_T/own.err"
po=$LAST_PID
bg_run c sh -c "exec $c -s 10.0.0.103 --pingpong --steady -r 1000 -c 4000 --wait-reply 1000 --vary-mac 4096 --owner $MAC0 -v 10.0.0.50 >$TMPDIR_T/pub.out 2>$TMPDIR_T/pub.err"
pp=$LAST_PID
bg_run f sh -c "exec $ARPC -q -i f0 -r 200 -c 800 -w 300 -t 12000 10.0.0.1 >$TMPDIR_T/fw.out 2>&1"
pf=$LAST_PID
sleep 1

# the upgrade: the new configuration (the default, stop_leaves = strict),
# then the new unit's ExecStop in the old daemon's name
ARPOWND_STOP_LEAVES=
write_conf "[global]
$PUB"
ns h env MAINPID="$old" NOTIFY_SOCKET="$sock" "$ARPOWND" --stopping -c "$CONF" \
	--state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/stopping.log" 2>&1 ||
	fail "arpownd --stopping: $(cat "$TMPDIR_T/stopping.log")"
taken=$(pairs)
# ExecStopPost, then the next start with the ring, at once (checked after)
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/stopping.log" 2>&1 ||
	fail "arpownd --restore: $(cat "$TMPDIR_T/stopping.log")"
restored=$(pairs)
touch "$sock.start"
wait_for 3000 _said "^dead $old -9" || fail "the old daemon was not killed: $(cat "$TMPDIR_T/store.out")"
_said '^stored arp-takeover-ring1$' || fail "no ring in the store: $(cat "$TMPDIR_T/store.out")"
grep -q 'took over from pid' "$TMPDIR_T/stopping.log" || fail "--stopping: $(cat "$TMPDIR_T/stopping.log")"
expect_eq "$taken" "1/2 1/2" "taken over: the kernel's strict mode (owner: arp_ignore 1), never the originals"
expect_eq "$restored" "1/2 1/2" "ExecStopPost (--restore) keeps the strict mode"
wait_for 15000 sh -c "[ \$(grep -c '^ready' '$TMPDIR_T/store.out') -ge 2 ]" ||
	fail "the new daemon did not start: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
grep -q 'arp_ignore=2 arp_announce=1 leave=1' "$ARPOWND_STATE_DIR"/originals.* ||
	fail "the records do not name the strict mode: $(cat "$ARPOWND_STATE_DIR"/originals.*)"
line=$(grep 'handover: [0-9]* requests' "$TMPDIR_T/arpownd.log")
grep -q '(every one: a takeover)' <<<"$line" || fail "the new start did not drain the takeover's ring: $line"
echo "# $line"
expect_eq "$(pairs)" "8/2 8/2" "the new daemon answers"

wait "$po" "$pp" "$pf" || true
for w in own pub; do
	out=$(cat "$TMPDIR_T/$w.out")
	grep -q '^sent 4000 ' <<<"$out" || fail "$w: $out"
	expect_eq "$(sed -n 's/.* wrong \([0-9]*\).*/\1/p' <<<"$out")" 0 "$w: no reply from a NIC that does not own the address"
	expect_eq "$(sed -n 's/.* lost \([0-9]*\).*/\1/p' <<<"$out")" 0 "$w: every request answered within 1 s ($(head -n 3 "$TMPDIR_T/$w.err"))"
done
grep -q '^sent 800 received 0 ' "$TMPDIR_T/fw.out" ||
	fail "the outside's probes of 10.0.0.1 through the takeover: $(cat "$TMPDIR_T/fw.out")"
pass "the outside's 800 probes of 10.0.0.1 through the takeover: no reply"
touch "$sock.quit"
wait_for 10000 _said '^exited.*' || true
ns h "$ARPOWND" --restore=originals --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/stopping.log" 2>&1
expect_eq "$(pairs)" "$ORIG" "--restore=originals: the true originals"
