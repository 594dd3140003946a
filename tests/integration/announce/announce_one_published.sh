#!/bin/bash
# "arpownctl announce ADDR" sends gratuitous ARP for one address
# (arpownctl(8)); for a published one, from each interface its entry
# names.  Not for every address of that entry: a published /24 on eth*
# is 256 addresses on each interface, and asking for one of them must not
# queue them all (past 4,096 single bursts the rest become whole-interface
# walks, announce_count times, that an address which moves meanwhile
# waits behind).
#
#   ns h: eth0 10.0.0.1/24, [publish web] 10.0.0.64/27 on eth0 ── ns p: p0
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump
peer_net
write_conf "[global]
[publish web]
addresses = 10.0.0.64/27
interface = eth0"
arpownd_start h -c "$CONF"
# the start's own announcements (33 addresses, once) are over
sleep 1
bg_run p tcpdump -i p0 -nn -l -U arp >"$TMPDIR_T/cap.txt" 2>"$TMPDIR_T/cap.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/cap.err" || fail "tcpdump did not start"
ctl announce 10.0.0.70 >/dev/null || fail "arpownctl announce 10.0.0.70"
# announce_count 3, announce_interval 1.1: the burst is over in 2.3 s
sleep 2.8
kill -INT "$TD" 2>/dev/null
wait "$TD" 2>/dev/null || true
arpownd_stop
said=$(sed -n 's/.*Request who-has \(10\.0\.0\.[0-9]*\) tell \1,.*/\1/p' "$TMPDIR_T/cap.txt" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' ')
echo "announced: $said"
expect_eq "$said" "10.0.0.70x3 " "announce 10.0.0.70 (published in a /27): that address, announce_count times, and no other"
