#!/bin/bash
# A refresh (announce_refresh) announces every address again: it must
# never cut short a walk over an interface's addresses that is still
# under way.  At the shipped announce_rate (1,000 frames a second, both
# forms: about 475 addresses a second) an interface with 2,000 addresses
# takes over 4 s to walk; with announce_refresh = 1 a refresh comes due
# four times meanwhile.  Were each to restart the walk from its first
# address, the addresses past the first 500 would never be announced at
# all, at start or at any refresh (at scale: 100,000 addresses take 200 s,
# and announce_refresh = 120 would leave 40 % of them silent for ever).
#
#   ns h: eth0, 10.0.x.y/16 (2,000 addresses) ── ns p: p0 (tcpdump)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump python3
ns_new h
ns_new p
veth h eth0 p p0
no_ipv6 h p
python3 - >"$TMPDIR_T/batch" <<'PY'
for i in range(2000):
    print("addr add 10.0.%d.%d/16 dev eth0" % (i // 250, i % 250 + 1))
PY
ns h ip -batch "$TMPDIR_T/batch" || fail "adding 2,000 addresses"
write_conf "announce_refresh = 1"

bg_run p tcpdump -i p0 -nn -l -U arp >"$TMPDIR_T/cap.txt" 2>"$TMPDIR_T/cap.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/cap.err" || fail "tcpdump did not start"
arpownd_start h -c "$CONF"
sleep 7
arpownd_stop
sleep 0.3
kill -INT "$TD" 2>/dev/null
wait "$TD" 2>/dev/null || true
expect_eq "$ARPOWND_RC" 0 "arpownd stopped cleanly"

# distinct addresses announced (who-has A tell A), out of the 2,000
n=$(sed -n 's/.*Request who-has \(10\.0\.[0-9.]*\) tell \1,.*/\1/p' "$TMPDIR_T/cap.txt" | sort -u | wc -l)
f=$(grep -c 'Request who-has 10\.0\.' "$TMPDIR_T/cap.txt" || true)
echo "7 s, announce_refresh = 1: $n of 2000 addresses announced, $f announcement requests"
[ "$n" -eq 2000 ] || fail "only $n of the 2,000 addresses announced in 7 s: each refresh restarted the walk from the first address"
pass "a refresh never cuts a walk short: every address announced"
