#!/bin/bash
# Runtime publishes share budgets counted host-wide, so that splitting a
# request does not pass them:
#   - the segment's: 64 publishes of a /24 (16,384 announced addresses,
#     once 100,052 gratuitous frames in 3 s) never put more than
#     announce_rate (1,000) gratuitous frames in any second on the wire, as
#     the client counts them;
#   - the addresses': no more than 65,536 published at run time in all
#     without --force (two /17s fill it; one more /32 is refused, 65, and
#     not answered; --force passes).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump python3
seed_net
write_conf ""
arpownd_start h -c "$CONF"
sleep 0.5	# the start's own announcements (4 addresses) are over

bg_run c tcpdump -i c0 -nn -U --immediate-mode -B 8192 -w "$TMPDIR_T/c.pcap" arp 2>"$TMPDIR_T/td.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td.err" || fail "tcpdump did not start"
for i in $(seq 0 63); do
	ctl publish "10.$((100 + i / 256)).$((i % 256)).0/24" eth0 >/dev/null ||
		fail "publish number $((i + 1)) of 64 refused"
done
sleep 3
sleep 0.2
kill -INT "$TD" 2>/dev/null
wait "$TD" 2>/dev/null || true
lost=$(sed -n 's/^\([0-9]*\) packets* dropped by kernel.*/\1/p' "$TMPDIR_T/td.err")
[ "${lost:-0}" = 0 ] || fail "tcpdump lost $lost frames (announcements past announce_rate?)"
python3 - "$TMPDIR_T/c.pcap" >"$TMPDIR_T/count" <<'PY' || fail "$(tail -1 "$TMPDIR_T/count")"
import struct, sys
d = open(sys.argv[1], "rb").read()
e = "<" if struct.unpack("<I", d[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else ">"
off, t = 24, []
while off + 16 <= len(d):
    sec, usec, incl, _ = struct.unpack(e + "IIII", d[off:off + 16])
    pkt = d[off + 16:off + 16 + incl]
    off += 16 + incl
    body = pkt[14:]
    if len(body) >= 28 and body[14:18] == body[24:28] and body[14] == 10 and body[15] >= 100:
        t.append(sec + usec / 1e6)
worst, j = 0, 0
for i in range(len(t)):
    while t[i] - t[j] >= 1.0:
        j += 1
    worst = max(worst, i - j + 1)
print("%d gratuitous frames for the published addresses, at most %d in one second" % (len(t), worst))
if len(t) < 2000:
    sys.exit("only %d announced: the publishes were not announced" % len(t))
if worst > 1000:
    sys.exit("%d gratuitous frames in one second: past announce_rate (1000)" % worst)
PY
cat "$TMPDIR_T/count"
pass "64 publishes of a /24: never more than announce_rate on the wire in a second"

# the addresses' budget: 64 /24s (16,384) are in; fill it to 65,536
for i in $(seq 0 63); do
	ctl withdraw "10.$((100 + i / 256)).$((i % 256)).0/24" >/dev/null || fail "withdraw"
done
ctl publish 10.128.0.0/17 eth0 >/dev/null || fail "the first /17 refused"
ctl publish 10.128.128.0/17 eth0 >/dev/null || fail "the second /17 refused"
rc=0
out=$(ctl publish 10.129.0.1 eth0 2>&1) || rc=$?
expect_eq "$rc" 65 "one address past 65,536 published at run time: refused (65)"
grep -q 'more than 65536 (a /16) in all' <<<"$out" || fail "the refusal does not say why: $out"
expect_silence c c0 10.129.0.1 "the refused address is not answered"
ctl publish 10.129.0.1 eth0 --force >/dev/null || fail "--force refused"
expect_reply c c0 10.129.0.1 "$MAC0" "with --force it is published"
arpownd_stop
