#!/bin/bash
# SIGHUP: the new file is validated completely, then swapped in and its
# difference applied at once; a bad file leaves the old configuration
# serving; and no request goes unanswered through 20 reloads.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
A="[global]
interfaces = eth0 eth1"
B="[global]
interfaces = *
mode = subnet"
write_conf "$A"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 0 "A: eth2 not managed"

out=$TMPDIR_T/pingpong.out
# a reply may come late on a loaded machine; one that never comes within a
# second (what a client waits) is a moment of deafness
bg_run c "$ARPC" -q -i c0 --pingpong -r 500 -c 1500 --wait-reply 1000 -t 20000 10.0.0.1 >"$out" 2>&1
pp=$LAST_PID
for i in $(seq 20); do
	if [ $((i % 2)) = 1 ]; then write_conf "$B"; else write_conf "$A"; fi
	kill -HUP "$ARPOWND_PID"
	sleep 0.1
done
wait "$pp" || true
cat "$out"
lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$out")
expect_eq "$lost" 0 "20 reloads under 500 requests/s: none unanswered within a second"
expect_eq "$(grep -c RELOADING=1 "$TMPDIR_T/notify.log")" 20 "20 RELOADING=1 notifications"

write_conf "$B"
kill -HUP "$ARPOWND_PID"
wait_for 2000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth2/arp_ignore) = 8 ]" ||
	fail "B: eth2 not managed after reload"
pass "B: newly matched eth2 managed at once"
expect_reply f f0 10.1.0.1 "$MAC2" "B: eth2 answered by arpownd"
expect_silence c c0 10.0.0.1 "B: subnet mode in effect for the next request" -s 192.168.9.9

write_conf "$A"
kill -HUP "$ARPOWND_PID"
wait_for 2000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth2/arp_ignore) = 0 ]" ||
	fail "A: eth2's original not restored"
pass "A: eth2 no longer managed, its original arp_ignore back"
expect_eq "$(sysctl_get h eth2 arp_announce)" 0 "A: eth2's original arp_announce back"
expect_reply c c0 10.0.0.1 "$MAC0" "A: owner mode again" -s 192.168.9.9

write_conf "[global]
mode = bogus"
kill -HUP "$ARPOWND_PID"
wait_for 2000 grep -q 'not reloaded' "$TMPDIR_T/arpownd.log" || fail "bad file not refused"
l=$(grep -n '^mode = bogus' "$CONF" | cut -d: -f1)
grep -q "arpownd.conf:$l: \[global\] mode = bogus" "$TMPDIR_T/arpownd.log" || fail "the error does not name file:line ($l), key and value"
expect_reply c c0 10.0.0.1 "$MAC0" "bad file: the old configuration keeps serving" -s 192.168.9.9
expect_eq "$(sysctl_get h eth2 arp_ignore)" 0 "bad file: nothing changed"

rm -f "$CONF"
kill -HUP "$ARPOWND_PID"
wait_for 2000 sh -c "[ \$(grep -c 'not reloaded' '$TMPDIR_T/arpownd.log') = 2 ]" || fail "missing file not refused"
expect_reply c c0 10.0.0.1 "$MAC0" "missing file: the old configuration keeps serving"

# A file only root may read: read at start (as root), not at reload (as
# the user the daemon became): refused, saying what to do
write_conf "[global]
mode = subnet"
chmod 600 "$CONF"
kill -HUP "$ARPOWND_PID"
wait_for 2000 grep -q "not readable by uid ${ARPOWND_TEST_USER%%:*}, which arpownd runs as" "$TMPDIR_T/arpownd.log" ||
	fail "a 0600 file: no message saying why and what to do"
expect_reply c c0 10.0.0.1 "$MAC0" "0600 file: the old configuration keeps serving" -s 192.168.9.9
kill -0 "$ARPOWND_PID" || fail "arpownd died"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# log_level = debug in the file is lowered by a reload (only -d pins it)
write_conf "[global]
log_level = debug"
chmod 644 "$CONF"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
ask c c0 10.0.0.1
grep -q 'answered who-has 10.0.0.1' "$TMPDIR_T/arpownd.log" || fail "log_level = debug: no debug line"
write_conf "[global]
log_level = info"
chmod 644 "$CONF"
r=$(grep -c 'reloaded ' "$TMPDIR_T/arpownd.log")
kill -HUP "$ARPOWND_PID"
wait_for 3000 sh -c "[ \$(grep -c 'reloaded ' '$TMPDIR_T/arpownd.log') -gt $r ]" || fail "no reload"
n=$(grep -c 'answered who-has' "$TMPDIR_T/arpownd.log")
ask c c0 10.0.0.1 -c 3
expect_eq "$(grep -c 'answered who-has' "$TMPDIR_T/arpownd.log")" "$n" \
	"log_level = debug, then info by reload: no more debug lines"
arpownd_stop
