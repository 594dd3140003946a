#!/bin/bash
# A member of the control socket's group holds every connection slot: it
# opens 16 idle connections and reconnects each one the daemon closes.
# Root's arpownctl and keepalived's notify (a failover: BACKUP must
# withdraw the VIP) must still get through, as must another member of
# the group; the hog itself is held to its per-uid share.  Before the
# slots were bounded per uid with room kept for root, root got 75 five
# times in a row and the VIP stayed answered after the failover.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3 setpriv
SYS_PYTHON3=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"
NOTIFY=${top_builddir:-.}/contrib/keepalived/arpownd-notify
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
S=$ARPOWND_STATE_DIR/control
grp=$(getent group arpownd | cut -d: -f3)
grp=${grp:-0}
ctl() { "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" "$@"; }

# the hog: 16 connections, each reopened as soon as it is closed, for
# HOG_SECS; it prints how many it held open at the end
cat >"$TMPDIR_T/hog.py" <<'PY'
import socket, sys, time, select
path, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
conns = [None] * n
end = time.monotonic() + secs
def alive(c):
    try:
        return c.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
while time.monotonic() < end:
    for i in range(n):
        if conns[i] is None or not alive(conns[i]):
            if conns[i] is not None:
                conns[i].close()
            try:
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.connect(path)
                conns[i] = c
            except OSError:
                conns[i] = None
    time.sleep(0.02)
time.sleep(0.1)
print(sum(1 for c in conns if c is not None and alive(c)))
PY
setpriv --reuid=65534 --regid=65534 --groups="$grp" "$SYS_PYTHON3" "$TMPDIR_T/hog.py" "$S" 16 12 \
	>"$TMPDIR_T/hog.out" 2>&1 &
hog=$!
_track "$hog"
sleep 1.5

for i in 1 2 3 4 5; do
	rc=0
	ctl status >/dev/null 2>"$TMPDIR_T/err" || rc=$?
	expect_eq "$rc" 0 "root's arpownctl status, try $i, while a group member hogs the socket"
done
rc=0
setpriv --reuid=65533 --regid=65533 --groups="$grp" "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" \
	status >/dev/null 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 0 "another member of the group is served too ($(cat "$TMPDIR_T/err"))"

# a failover while the hog holds on: MASTER publishes, BACKUP withdraws
ARPOWND_STATE_DIR=$ARPOWND_STATE_DIR ARPOWNCTL=$ARPOWNCTL sh "$NOTIFY" 10.0.0.50 eth0 \
	INSTANCE VI_1 MASTER 100 || fail "notify MASTER failed"
expect_reply c c0 10.0.0.50 "$(mac_of h eth0)" "MASTER: the VIP answered from eth0"
rc=0
ARPOWND_STATE_DIR=$ARPOWND_STATE_DIR ARPOWNCTL=$ARPOWNCTL sh "$NOTIFY" 10.0.0.50 eth0 \
	INSTANCE VI_1 BACKUP 100 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 0 "notify BACKUP while the hog holds on ($(cat "$TMPDIR_T/err"))"
expect_silence c c0 10.0.0.50 "BACKUP: the VIP no longer answered"

wait "$hog" || fail "the hog failed: $(cat "$TMPDIR_T/hog.out")"
held=$(tail -n 1 "$TMPDIR_T/hog.out")
[ "$held" -le 4 ] || fail "the hog held $held connections at the end, more than its uid's 4"
pass "the hog held $held connections at most at the end (its uid's share is 4)"
kill -0 "$ARPOWND_PID" || fail "arpownd died"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
