#!/bin/bash
# Root never acts on what the daemon says, and its terminal is no
# exception.  arpownctl runs as root (the unit's reload, the postinst, an
# admin); the daemon runs unprivileged and may be compromised, and an
# interface name (which the daemon's CAP_NET_ADMIN can set) may hold any
# byte but "/", ":" and white space.  Escape sequences in a reply (a
# window title that a terminal reports back as typed input, a cleared
# screen hiding a warning, OSC 52 writing the clipboard) must reach root's
# terminal as \xHH, never as the bytes: in status's version and mode, and
# in what arpownctl prints as the daemon sent it (metrics, --json) when
# that goes to a terminal.  Piped, --json and metrics stay byte for byte.
#
# A fake daemon on the control socket answers with ESC and BEL.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
need_root
need_cmd python3 script
S=$ARPOWND_STATE_DIR/control
cat >"$TMPDIR_T/fake.py" <<'PY'
import json, os, socket, sys
path, n = sys.argv[1], int(sys.argv[2])
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
os.chmod(path, 0o666)
srv.listen(4)
srv.settimeout(20)
evil = "\x1b]2;rooted\x07\x1b[2J"
for _ in range(n):
    c, _a = srv.accept()
    c.settimeout(5)
    line = c.recv(4096).decode().strip()
    if line == "metrics":
        body = ('arpownd_up 1\narpownd_received_total{interface="%s"} 1\n' % evil).encode()
        c.sendall(b"OK %d text\n" % len(body) + body)
    else:
        # the bytes raw in the strings, as a compromised daemon may send them
        # (json-c takes them; escaped as \u001b they decode to the same)
        body = json.dumps({"schema": 1, "version": evil, "pid": 1, "mode": evil,
                           "config": {"path": None}, "managed": []})
        body = body.replace("\\u001b", "\x1b").replace("\\u0007", "\x07").encode()
        c.sendall(b"OK %d json\n" % len(body) + body)
    c.close()
PY
python3 "$TMPDIR_T/fake.py" "$S" 5 &
fake=$!
_track "$fake"
wait_for 3000 test -S "$S" || fail "the fake daemon did not listen"

# on_tty NAME ARGS: arpownctl ARGS with a terminal as its stdout
on_tty() {
	local out=$TMPDIR_T/$1
	shift
	script -qec "$ARPOWNCTL --state-dir $ARPOWND_STATE_DIR $*" /dev/null >"$out" 2>&1 || true
}
esc() {
	grep -c $'\x1b' "$TMPDIR_T/$1" || true
}

on_tty status status
grep -q 'rooted' "$TMPDIR_T/status" || fail "status: the fake's reply not shown: $(cat -v "$TMPDIR_T/status")"
expect_eq "$(esc status)" 0 "status on a terminal: the daemon's version and mode shown without their escape bytes"
on_tty metrics metrics
grep -q 'rooted' "$TMPDIR_T/metrics" || fail "metrics: the fake's reply not shown: $(cat -v "$TMPDIR_T/metrics")"
expect_eq "$(esc metrics)" 0 "metrics on a terminal: an interface label's escape bytes shown as \\xHH"
on_tty json --json status
expect_eq "$(esc json)" 0 "--json on a terminal: no escape byte"

# piped: what the daemon sent, byte for byte (promtool, jq)
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" metrics >"$TMPDIR_T/piped" 2>&1 || true
[ "$(esc piped)" -ge 1 ] || fail "metrics, piped: not byte for byte: $(cat -v "$TMPDIR_T/piped")"
pass "metrics, piped: the daemon's bytes as they are"
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" --json status >"$TMPDIR_T/piped" 2>&1 || true
[ "$(esc piped)" -ge 1 ] || fail "--json, piped: not byte for byte: $(cat -v "$TMPDIR_T/piped")"
pass "--json, piped: the daemon's bytes as they are"
wait "$fake" || fail "the fake daemon failed"
