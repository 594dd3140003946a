#!/bin/bash
# Announcements at scale, at the shipped defaults (announce_rate 1000,
# announce_count 3, announce_form both), counted on the neighbours' side:
# 10 interfaces with 1,000 addresses each.
#
#   1. a start: never more than 1,000 gratuitous frames in any one second,
#      at most 2 frames per address (each once, both forms), every
#      interface served (none waits for another's thousand);
#   2. an address added meanwhile (one that moved) goes ahead of the
#      backlog: its first frames within 150 ms;
#   3. a restart where nothing moved: nothing the first run announced is
#      announced again; what it did not get to is, once, at the same pace.
#
#   ns h: eth0..eth9, 10.K.x.y/16 (1,000 each) ── ns p: p0..p9 (tcpdump -i any)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tcpdump python3
ns_new h
ns_new p
for k in 0 1 2 3 4 5 6 7 8 9; do
	veth h "eth$k" p "p$k"
done
no_ipv6 h p
python3 - >"$TMPDIR_T/batch" <<'PY'
for k in range(10):
    for i in range(1000):
        print("addr add 10.%d.%d.%d/16 dev eth%d" % (k + 1, i // 250, i % 250 + 1, k))
PY
ns h ip -batch "$TMPDIR_T/batch" || fail "adding 10,000 addresses"
for k in 0 1 2 3 4 5 6 7 8 9; do
	printf '%s eth%s\n' "$(mac_of h "eth$k")" "$k"
done >"$TMPDIR_T/macs"
write_conf ""

# capture NAME: tcpdump on every link of ns p into NAME.pcap
capture() {
	rm -f "$TMPDIR_T/$1.err"
	bg_run p tcpdump -i any -nn -U --immediate-mode -B 16384 -w "$TMPDIR_T/$1.pcap" arp \
		2>"$TMPDIR_T/$1.err"
	TD=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/$1.err" || fail "tcpdump did not start"
}
# (a capture that lost frames would hide a second that held too many)
capture_end() {
	local lost
	sleep 0.2
	kill -INT "$TD" 2>/dev/null
	wait "$TD" 2>/dev/null || true
	lost=$(sed -n 's/^\([0-9]*\) packets* dropped by kernel.*/\1/p' "$TMPDIR_T/$1.err")
	[ "${lost:-0}" = 0 ] || fail "tcpdump lost $lost frames, more than it could take in (announcements far past announce_rate?): the count proves nothing"
}

# The gratuitous frames of a capture: "time address interface" lines.
garp() {
	python3 - "$TMPDIR_T/$1.pcap" "$TMPDIR_T/macs" <<'PY'
import struct, sys
macs = dict(l.split() for l in open(sys.argv[2]))
d = open(sys.argv[1], "rb").read()
magic = struct.unpack("<I", d[:4])[0]
e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
nano = magic in (0xa1b23c4d, 0x4d3cb2a1)
link = struct.unpack(e + "I", d[20:24])[0]
off = 24
while off + 16 <= len(d):
    sec, frac, incl, _ = struct.unpack(e + "IIII", d[off:off + 16])
    pkt = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if link == 113:          # LINUX_SLL: 16 bytes, then the ARP body
        body = pkt[16:]
    elif link == 276:        # LINUX_SLL2: 20 bytes
        body = pkt[20:]
    else:
        body = pkt[14:]
    if len(body) < 28 or body[2:4] != b"\x08\x00":
        continue
    sha = ":".join("%02x" % b for b in body[8:14])
    sip, tip = body[14:18], body[24:28]
    if sip != tip or sha not in macs:
        continue
    t = sec + frac / (1e9 if nano else 1e6)
    print("%.6f %s %s" % (t, ".".join(str(b) for b in sip), macs[sha]))
PY
}

# check NAME: the budget and the per-address bound; prints a summary.
check() {
	python3 - "$TMPDIR_T/$1.txt" "${2:-}" <<'PY' || { cat "$TMPDIR_T/$1.check" >&2; fail "$1: $(tail -1 "$TMPDIR_T/$1.check")"; }
import collections, sys
rows = [l.split() for l in open(sys.argv[1])]
moved = sys.argv[2]
t = [float(r[0]) for r in rows]
worst, j = 0, 0
for i in range(len(t)):
    while t[i] - t[j] >= 1.0:
        j += 1
    worst = max(worst, i - j + 1)
per = collections.Counter(r[1] for r in rows if r[1] != moved)
ifs = collections.Counter(r[2] for r in rows if r[1] != moved)
print("%d frames, %d addresses, at most %d in one second, at most %d per address; "
      "per interface %d..%d" % (len(rows), len(per), worst, max(per.values() or [0]),
      min(ifs.values() or [0]), max(ifs.values() or [0])))
if worst > 1000:
    sys.exit("%d frames in one second: more than announce_rate (1000)" % worst)
if per and max(per.values()) > 2:
    a, n = per.most_common(1)[0]
    sys.exit("%s: %d frames at start, more than its two forms once" % (a, n))
PY
}

# ---- 1, 2: a start, and an address that moves meanwhile
capture run1
arpownd_start h -c "$CONF"
sleep 1.5
_now_ms
added=$_NOW_MS
ns h ip addr add 10.200.0.1/24 dev eth3
sleep 2.5
arpownd_stop
capture_end run1
[ "$ARPOWND_RC" = 0 ] || fail "arpownd stopped with $ARPOWND_RC"
garp run1 >"$TMPDIR_T/run1.txt"
check run1 10.200.0.1 >"$TMPDIR_T/run1.check" 2>&1
echo "start: $(cat "$TMPDIR_T/run1.check")"
n1=$(wc -l <"$TMPDIR_T/run1.txt")
[ "$n1" -ge 3000 ] || fail "start: only $n1 frames in 4 s (announce_rate 1000)"
pass "start: never more than announce_rate in a second, each address once"
python3 - "$TMPDIR_T/run1.txt" <<'PY' || fail "start: an interface waited for the others"
import collections, sys
rows = [l.split() for l in open(sys.argv[1]) if " 10.200.0.1 " not in l]
ifs = collections.Counter(r[2] for r in rows)
if len(ifs) != 10 or min(ifs.values()) * 2 < max(ifs.values()):
    sys.exit("per interface: %s" % dict(ifs))
PY
pass "start: the ten interfaces take turns"
first=$(awk '$2 == "10.200.0.1" { print $1; exit }' "$TMPDIR_T/run1.txt")
[ -n "$first" ] || fail "the address added at 1.5 s was never announced"
late=$(python3 -c "print(int(($first * 1000) - $added))")
echo "moved address: first frame $late ms after the add"
[ "$late" -le 150 ] || fail "the moved address waited $late ms behind the backlog"
pass "an address that moved goes ahead of the backlog ($late ms)"

# ---- 3: a restart where nothing moved
capture run2
arpownd_start h -c "$CONF"
sleep 3
arpownd_stop
capture_end run2
garp run2 >"$TMPDIR_T/run2.txt"
check run2 >"$TMPDIR_T/run2.check" 2>&1
echo "restart: $(cat "$TMPDIR_T/run2.check")"
python3 - "$TMPDIR_T/run1.txt" "$TMPDIR_T/run2.txt" >"$TMPDIR_T/again" 2>&1 <<'PY' || fail "restart: $(tail -1 "$TMPDIR_T/again")"
import sys
said = {l.split()[1] for l in open(sys.argv[1])}
again = [l.split()[1] for l in open(sys.argv[2])]
both = sorted(set(again) & said)
print("announced by the first run: %d; by the restart: %d new, %d again"
      % (len(said), len(set(again) - said), len(both)))
if both:
    sys.exit("announced again though nothing moved: %s" % " ".join(both[:5]))
if len(set(again)) < 1000:
    sys.exit("the restart announced only %d of the addresses the first run had not" % len(set(again)))
PY
cat "$TMPDIR_T/again"
pass "a restart announces nothing twice, and goes on with the rest"
