#!/bin/bash
# A reload that adds [publish] sections blocks the event loop for seconds:
# announce_changed() -> announce_entry() starts one burst per address for
# every entry of at most 256 addresses (announce_entry_cb, daemon.c); each
# ann_start() (announce.c) scans every pending burst linearly, and each
# entry's announce_run() walks every pending burst again (ann_run calls
# announce_step, pub_lookup and fnmatch included, for each due one, even
# once the frame budget is spent).  256 sections of a /24 (65,536
# addresses, a 12 KB file): quadratic work inside the loop (announce = no
# makes the same reload take 156 ms and answer at once),
# during which no ARP request is answered (the kernel is at arp_ignore 8:
# the host is deaf), no signal, no netlink.  Measured: how long one
# request sent while the reload runs waits for its reply.  Bound: 500 ms.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
base="[global]
interfaces = eth0 eth1 eth2
announce_count = 1"
write_conf "$base"
arpownd_start h -c "$CONF"
sleep 1.5	# the start-up announcements are over
{
	printf '%s\n' "$base"
	for i in $(seq 0 255); do
		printf '[publish s%d]\naddresses = 10.%d.%d.0/24\ninterface = eth2\n' "$i" $((64 + i / 256)) $((i % 256))
	done
} >"$CONF.new"
sed -i "0,/^\[global\]\$/s//[global]\nuser = $ARPOWND_TEST_USER/" "$CONF.new"
mv "$CONF.new" "$CONF"
# one request sent while the reload runs: how long until it is answered
t0=$(date +%s%N)
ctl reload >/dev/null &
RL=$!
sleep 0.1
out=$(ns c "$ARPC" -i c0 --pingpong --wait-reply 5000 -c 1 -w 0 -t 6000 10.0.0.1 2>&1 | tail -n 1)
wait "$RL" || fail "reload refused"
t1=$(date +%s%N)
echo "# arpownctl reload took $(((t1 - t0) / 1000000)) ms; a request sent 100 ms into it: $out"
rtt=$(sed -n 's/.* max \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$rtt" ] || fail "the request sent during the reload was never answered: $out"
[ "$rtt" -le 500000 ] || fail "a request sent during the reload waited $((rtt / 1000)) ms for its reply (the loop is held; the kernel is silent)"
pass "a request during the reload answered in $((rtt / 1000)) ms"
