#!/bin/bash
# DESIGN: "Shared resources (control slots, log lines, announcement
# budget) are bounded per peer, with room kept for root."  The
# announcement budget (announce_rate) is host-wide: a peer that may
# change arpownd but is not root (a member of arpownd-admin; here the
# daemon's own uid, which has the same rights) asking "announce ADDR"
# for each of 2,000 addresses queued 2,000 single bursts (announce_count
# 3, both forms: 12,000 frames, 12 s of the shipped announce_rate), in
# the order they were made: the VIP root publishes meanwhile
# (keepalived's notify on a failover) waited 1.3 s behind their first
# steps.  Here: the moved address's first frame comes within 150 ms of
# root's publish, as it does when nobody else asks; the peer is told
# (exit 75, the limit named) past its 16 pending, and that is counted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3 setpriv tcpdump
SYS_PYTHON3=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"
seed_net
python3 - >"$TMPDIR_T/batch" <<'PY'
for i in range(2000):
    print("addr add 10.9.%d.%d/16 dev eth0" % (i // 250, i % 250 + 1))
PY
ns h ip -batch "$TMPDIR_T/batch" || fail "adding 2,000 addresses"
write_conf "[global]"
arpownd_start h -c "$CONF"
sleep 5	# the start's announcements (2,003 addresses, once) are over
grp=$(stat -c %g "$ARPOWND_STATE_DIR/control")
du=${ARPOWND_TEST_USER%%:*}
cat >"$TMPDIR_T/hammer.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
n = ok = 0
why = b""
for i in range(2000):
    s.sendall(b"announce 10.9.%d.%d\n" % (i // 250, i % 250 + 1))
    h = f.readline().split()
    body = f.read(int(h[1] if h[0] == b"OK" else h[2]))
    n += 1
    if h[0] == b"OK":
        ok += 1
    elif h[1] == b"75":
        why = body.strip()
print("%d announce requests, %d queued" % (n, ok))
print("refused: %s" % why.decode())
time.sleep(float(sys.argv[2]))
PY
chmod 644 "$TMPDIR_T/hammer.py"
bg_run c tcpdump -i c0 -nn -l -U --immediate-mode arp >"$TMPDIR_T/cap.txt" 2>"$TMPDIR_T/cap.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/cap.err" || fail "tcpdump did not start"
bg_run h setpriv --reuid="$du" --regid="$du" --groups="$grp" "$SYS_PYTHON3" "$TMPDIR_T/hammer.py" \
	"$ARPOWND_STATE_DIR/control" 1 >"$TMPDIR_T/hammer.out" 2>&1
HP=$LAST_PID
sleep 1
_now_ms
t0=$_NOW_MS
ctl publish 10.0.0.50 eth0 >/dev/null || fail "root's publish"
wait_for 3000 grep -q 'who-has 10\.0\.0\.50 tell 10\.0\.0\.50' "$TMPDIR_T/cap.txt" || true
_now_ms
waited=$((_NOW_MS - t0))
wait "$HP" 2>/dev/null || true
kill -INT "$TD" 2>/dev/null
wait "$TD" 2>/dev/null || true
echo "the other peer: $(cat "$TMPDIR_T/hammer.out")"
grep -q 'who-has 10\.0\.0\.50 tell 10\.0\.0\.50' "$TMPDIR_T/cap.txt" ||
	fail "root's publish of 10.0.0.50 not announced in 3 s after a non-root peer asked to announce 2,000 addresses"
echo "root's publish: first frame after $waited ms"
[ "$waited" -le 150 ] || fail "root's publish waited $waited ms behind a non-root peer's announcements"
grep -q "refused: 10\.9\.[0-9.]*: busy: uid $du may have at most 16 announcements" \
	"$TMPDIR_T/hammer.out" || fail "the peer was not told its limit"
refused=$(ctl_get counters 'd["daemon"]["announce_refused"]')
[ "$refused" -gt 0 ] || fail "announce_refused is $refused"
echo "refused $refused requests of the other peer"
pass "a non-root peer's announcements leave room for root's"
arpownd_stop
