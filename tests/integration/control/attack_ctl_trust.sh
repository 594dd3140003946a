#!/bin/bash
# Root never acts on what the daemon says.  The daemon runs unprivileged
# and may be compromised; arpownctl runs as root.  A fake daemon on the
# control socket answers "status" with config.path = /etc/shadow, as the
# earlier arpownctl reload asked it to, then receives whatever root's
# arpownctl passes with "reload".  It must never get a descriptor of a
# file root did not name itself; a symbolic link or a non-file named with
# -c is refused before anything is sent.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
need_root
need_cmd python3
S=$ARPOWND_STATE_DIR/control
cat >"$TMPDIR_T/fake.py" <<'PY'
import array, json, os, socket, sys
path, out = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
os.chmod(path, 0o660)
srv.listen(4)
srv.settimeout(20)
seen = []
for _ in range(int(sys.argv[3])):
    c, _a = srv.accept()
    c.settimeout(5)
    while True:
        fds = array.array("i")
        msg, anc, _f, _a = c.recvmsg(4096, socket.CMSG_SPACE(4 * fds.itemsize))
        for level, typ, data in anc:
            if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        for fd in fds:
            first = os.read(fd, 64).split(b"\n")[0].decode(errors="replace")
            seen.append("fd:" + os.readlink("/proc/self/fd/%d" % fd) + ":" + first)
            os.close(fd)
        if not msg:
            break
        line = msg.decode().strip()
        seen.append("req:" + line)
        if line == "status":
            body = json.dumps({"schema": 1, "config": {"path": "/etc/shadow"}}).encode()
        else:
            body = json.dumps({"schema": 1, "reloaded": True, "config": "/etc/shadow",
                               "passed": bool(fds)}).encode()
        c.sendall(b"OK %d json\n" % len(body) + body)
    c.close()
open(out, "w").write("\n".join(seen) + "\n")
PY
python3 "$TMPDIR_T/fake.py" "$S" "$TMPDIR_T/seen" 1 &
fake=$!
_track "$fake"
wait_for 3000 test -S "$S" || fail "the fake daemon did not listen"
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" reload >"$TMPDIR_T/out" 2>&1 || true
wait "$fake" || fail "the fake daemon failed"
grep -q '^req:reload$' "$TMPDIR_T/seen" || fail "no reload request reached the fake: $(cat "$TMPDIR_T/seen")"
if grep -q '^fd:/etc/shadow' "$TMPDIR_T/seen"; then
	fail "root passed /etc/shadow to the daemon that named it: $(cat "$TMPDIR_T/seen")"
fi
! grep -q '^fd:' "$TMPDIR_T/seen" || fail "root passed a file it did not name: $(cat "$TMPDIR_T/seen")"
! grep -q '^req:status' "$TMPDIR_T/seen" || fail "reload asked the daemon for its path"
pass "reload as root, a daemon naming /etc/shadow: nothing passed, nothing asked"

# -c names the file; a symbolic link to it, or a directory, is refused
# before anything is sent
echo '[global]' >"$TMPDIR_T/real.conf"
ln -s "$TMPDIR_T/real.conf" "$TMPDIR_T/link.conf"
rm -f "$S"
python3 "$TMPDIR_T/fake.py" "$S" "$TMPDIR_T/seen" 1 &
fake=$!
_track "$fake"
wait_for 3000 test -S "$S" || fail "the fake daemon did not listen"
rc=0
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" reload -c "$TMPDIR_T/link.conf" >"$TMPDIR_T/out" 2>&1 || rc=$?
expect_eq "$rc" 65 "reload -c a symbolic link: refused (65)"
grep -q 'a symbolic link' "$TMPDIR_T/out" || fail "the message: $(cat "$TMPDIR_T/out")"
rc=0
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" reload -c "$TMPDIR_T" >"$TMPDIR_T/out" 2>&1 || rc=$?
expect_eq "$rc" 65 "reload -c a directory: refused (65)"
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" reload -c "$TMPDIR_T/real.conf" >"$TMPDIR_T/out" 2>&1 ||
	fail "reload -c a regular file: $(cat "$TMPDIR_T/out")"
wait "$fake" || fail "the fake daemon failed"
expect_eq "$(grep '^fd:' "$TMPDIR_T/seen")" "fd:$TMPDIR_T/real.conf:[global]" \
	"reload -c FILE: that file, and only it, passed"
