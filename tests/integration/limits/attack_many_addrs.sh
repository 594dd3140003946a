#!/bin/bash
# Owner and subnet mode run tbl_covers(), a linear scan of every address
# entry of the arrival interface, on every request: the lookup is O(1)
# only for addresses near the front of that list.  A host with many VIPs
# on one NIC (a load balancer, an anycast box: 50,000 /32s on eth0 measured)
# pays for the last-added VIP a scan of all 50,000 entries per request:
# measured here, ping-pong p50 55 us for 10.0.0.1 and 162 us for the last
# VIP; under a flood 69% vs 15% of requests answered.  Any requester can
# pick the expensive address.  Expected: the entries of the requested
# address itself (its slot chain, O(1)) are looked at first; only a
# point-to-point entry (whose prefix is its peer's) needs the other
# entries.  (The test uses 30,000 VIPs: the kernel adds them in ~20 s.)
# Measured as the daemon's own CPU time for the same 20,000
# requests at a fixed rate, first VIP vs last VIP: within a factor of 1.5.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
N=30000
python3 - "$N" >"$TMPDIR_T/batch" <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    print("addr add 10.%d.%d.%d/32 dev eth0" % (100 + i // 65536, (i // 256) % 256, i % 256))
PY
ns h ip -batch "$TMPDIR_T/batch" || fail "adding $N addresses"
first=10.100.0.0
last=$(python3 -c "i=$N-1; print('10.%d.%d.%d' % (100 + i // 65536, (i // 256) % 256, i % 256))")
write_conf "[global]
sender_rate = 0
busy_poll_us = 0
learn = no"
arpownd_start h -c "$CONF"
expect_reply c c0 "$first" "$MAC0" "the first VIP is answered"
expect_reply c c0 "$last" "$MAC0" "the last VIP is answered"
ticks() { awk '{ print $14 + $15 }' "/proc/$ARPOWND_PID/stat"; }
cost() {
	local t0 t1
	t0=$(ticks)
	ns c "$ARPC" -q -i c0 -c 20000 -r 5000 -w 300 -t 15000 "$1" >/dev/null 2>&1 || true
	t1=$(ticks)
	echo $((t1 - t0))
}
cf=$(cost "$first")
cl=$(cost "$last")
arpownd_stop
echo "daemon CPU for 20,000 requests: first VIP $cf ticks, last VIP $cl ticks"
[ $((2 * cl)) -le $((3 * cf + 20)) ] ||
	fail "a request for the last of $N VIPs costs $cl ticks per 20,000, the first $cf: the lookup scans every entry"
pass "the lookup costs the same for every VIP ($cf vs $cl ticks)"
