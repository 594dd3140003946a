#!/bin/bash
# Issue 19 point 4: "publish time that does not grow with the number of
# entries".  Each runtime publish used to rewrite the whole record of
# runtime entries in the state directory (format, CRC, write, sync) and
# count every entry again, all while holding the daemon's loop (the ARP
# path waits meanwhile): 5 ms each for the first 400, 11 ms at 3,600,
# 28 ms at 20,000 (review rv21).  Now a publish appends one record to
# the journal (pubjournal.c), compacted now and then, and the set is
# updated in place (publish.c).
#
# Here: 4,000 runtime /32 publishes over one control connection; the
# last 400 may take at most 1.5 times as long as the first 400.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
write_conf ""
arpownd_start h -c "$CONF"
python3 - "$ARPOWND_STATE_DIR/control" >"$TMPDIR_T/times" 2>&1 <<'PY' || fail "$(tail -1 "$TMPDIR_T/times")"
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
def publish(i):
    a = "10.%d.%d.%d" % (100 + i // 65536, (i // 256) % 256, i % 256)
    s.sendall(b"publish %s eth0\n" % a.encode())
    h = f.readline().split()
    f.read(int(h[1] if h[0] == b"OK" else h[2]))
    if h[0] != b"OK":
        sys.exit("publish %s refused" % a)
def batch(lo, hi):
    t = time.monotonic()
    for i in range(lo, hi):
        publish(i)
    return (time.monotonic() - t) * 1000 / (hi - lo)
first = batch(0, 400)
batch(400, 3600)
last = batch(3600, 4000)
print("first 400: %.1f ms each; last 400 (3,600 entries on): %.1f ms each" % (first, last))
if last > 1.5 * first:
    sys.exit("publish time grows with the entries: %.1f ms each at 3,600, %.1f at 0"
             % (last, first))
PY
cat "$TMPDIR_T/times"
pass "publish time does not grow with the number of entries"
arpownd_stop
