#!/bin/bash
# A SIGKILL in the middle of a burst of runtime publishes (the journal,
# pubjournal.c): after the restart every publish that was acknowledged
# OK is there (arpownctl published lists it), nothing that was not
# acknowledged is half there (each listed entry is a whole line the
# client sent, at most the one in flight when the kill came), and a
# withdraw before the kill stays withdrawn.  Then the same again after a
# compaction has happened (more records than entries).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
write_conf ""

burst() {	# burst FIRST: publish from FIRST on until killed; acked in $TMPDIR_T/acked
	python3 - "$ARPOWND_STATE_DIR/control" "$1" "$TMPDIR_T/acked" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
out = open(sys.argv[3], "a")
i = int(sys.argv[2])
while True:
    a = "10.%d.%d.%d" % (100 + i // 65536, (i // 256) % 256, i % 256)
    # every 10th op withdraws the one before it (acknowledged: gone)
    out.write("~ ")		# sent, not yet acknowledged
    out.flush()
    if i % 10 == 9:
        b = "10.%d.%d.%d" % (100 + (i - 1) // 65536, ((i - 1) // 256) % 256, (i - 1) % 256)
        cmd = "- " + b
        out.write(cmd + "\n")
        out.flush()
        s.sendall(b"withdraw %s\n" % b.encode())
    else:
        cmd = "+ " + a
        out.write(cmd + "\n")
        out.flush()
        s.sendall(b"publish %s eth0\n" % a.encode())
    h = None
    try:
        h = f.readline().split()
    except OSError:
        pass
    if not h:
        sys.exit(0)
    f.read(int(h[1] if h[0] == b"OK" else h[2]))
    if h[0] != b"OK":
        sys.exit("%s refused" % cmd)
    out.write("OK\n")
    out.flush()
    i += 1
PY
	LAST_PID=$!
}

acked_at_least() {
	local n
	n=$(grep -c '^OK' "$TMPDIR_T/acked" 2>/dev/null)
	[ "${n:-0}" -ge "$1" ]
}

check() {	# the published set after a restart against what was acknowledged
	ctl --json published >"$TMPDIR_T/pub.json" || fail "arpownctl published"
	python3 - "$TMPDIR_T/acked" "$TMPDIR_T/pub.json" 2>"$TMPDIR_T/check.err" <<'PY' || fail "$(tail -n 1 "$TMPDIR_T/check.err")"
import json, sys
want, inflight = set(), None
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "~":		# sent; acknowledged if "OK" follows
        inflight = tuple(w[1:])
        continue
    if w[0] == "OK":
        op, a = inflight
        inflight = None
        (want.add if op == "+" else want.discard)(a)
d = json.load(open(sys.argv[2]))
have = set()
for e in d["published"]:
    assert e["runtime"] and e["interface"] == "eth0", e
    for r in e["ranges"]:
        assert r["first"] == r["last"], r
        have.add(r["first"])
# the op in flight at the kill may or may not have happened
missing = want - have - ({inflight[1]} if inflight and inflight[0] == "-" else set())
extra = have - want - ({inflight[1]} if inflight and inflight[0] == "+" else set())
if missing:
    sys.exit("acknowledged but lost: %s" % sorted(missing)[:5])
if extra:
    sys.exit("never acknowledged, yet published: %s" % sorted(extra)[:5])
print("%d acknowledged entries all there; in flight at the kill: %s" % (len(want), inflight))
# the next round starts from what is there (the op in flight settled)
with open(sys.argv[1], "w") as f:
    f.writelines("~ + %s\nOK\n" % a for a in sorted(have))
PY
}

for round in 1 2; do
	arpownd_start h -c "$CONF"
	first=$(( (round - 1) * 3000 ))
	burst "$first"
	bp=$LAST_PID
	# round 2 goes past a compaction (more records than PJN_FLOOR, 256)
	wait_for 20000 acked_at_least $((round * 700)) ||
		fail "the burst did not get going"
	kill -KILL "$ARPOWND_PID"
	wait "$bp" 2>/dev/null || true
	wait "$ARPOWND_PID" 2>/dev/null || true
	ARPOWND_PID=
	"$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 || true
	arpownd_start h -c "$CONF"
	check
	arpownd_stop
done
pass "a SIGKILL mid-burst: every acknowledged publish and withdraw kept, nothing else"
