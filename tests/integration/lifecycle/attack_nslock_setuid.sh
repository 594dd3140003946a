#!/bin/bash
# A local user squats the namespace's lock name and then gains
# CAP_NET_ADMIN without gaining anything over arpownd: the socket bound
# as uid 65534, kept across an exec of a setuid-root program (su, waiting
# for a password: its effective uid 0 and every capability, as long as
# it waits), or of a program with file capabilities (as Debian's
# gst-ptp-helper, cap_net_admin=ep, or wireshark's dumpcap).  nslock.c
# counted a holder as an arpownd when its process held CAP_NET_ADMIN, so
# the start gave way ("another arpownd runs ... uid 65534", exit 71,
# nothing changed): the kernel answered weak-host (the outside got a
# reply for an inside address), and --restore skipped its purge.
# Expected: a socket whose process gained its privilege at an exec
# (AT_SECURE), or whose uids are not the socket's, is a squat.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd setpriv python3 mkfifo
PY=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"

seed_net
write_conf "[global]
interfaces = eth*"

# squat PROG ARGS...: uid 65534 binds @arpownd (datagram, as arpownd),
# keeps it across an exec of PROG, whose stdin is a FIFO nobody writes
cat >"$TMPDIR_T/squat.py" <<'PYEOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(b"\0arpownd")
os.set_inheritable(s.fileno(), True)
os.execv(sys.argv[1], sys.argv[1:])
PYEOF
chmod 644 "$TMPDIR_T/squat.py"
mkfifo -m 666 "$TMPDIR_T/fifo"
bg_run h sh -c "exec sleep 60 >'$TMPDIR_T/fifo'"
held() { ns h grep -q ' @arpownd$' /proc/net/unix; }
squat() {
	bg_run h setpriv --reuid 65534 --regid 65534 --clear-groups "$PY" "$TMPDIR_T/squat.py" "$@" \
		<"$TMPDIR_T/fifo" >"$TMPDIR_T/squat.out" 2>&1
	SQUAT_PID=$LAST_PID
	wait_for 5000 held || fail "the squat did not bind @arpownd: $(cat "$TMPDIR_T/squat.out")"
}
# started RUN: it runs beside the squat, says so, and the outside gets no
# reply for an inside address
started() {
	arpownd_start h -c "$CONF"
	grep -q 'lock name @arpownd is held by uid 65534' "$TMPDIR_T/arpownd.log" ||
		fail "$1: the squat is not named in the log"
	expect_reply c c0 10.0.0.1 "$MAC0" "$1: started; the LAN asks for 10.0.0.1, one reply, eth0's"
	expect_silence f f0 10.0.0.1 "$1: the outside asks for the inside 10.0.0.1: no reply"
	arpownd_stop
	expect_eq "$ARPOWND_RC" 0 "$1: a clean stop"
}

# 1. a setuid-root program
SU=$(command -v su) || SU=
if [ -n "$SU" ] && [ -u "$SU" ]; then
	squat "$SU" root
	wait_for 3000 grep -q '^CapEff:.*[1-9a-f]' "/proc/$SQUAT_PID/status" ||
		fail "su holds no capability: $(cat "$TMPDIR_T/squat.out")"
	pass "uid 65534 holds @arpownd in su (euid 0, $(grep CapEff "/proc/$SQUAT_PID/status" | tr -s '\t ' ' '))"
	started "setuid su"
	kill -KILL "$SQUAT_PID" 2>/dev/null
	wait "$SQUAT_PID" 2>/dev/null || true
else
	echo "# 1 not run: no setuid su here"
fi

# 2. a program with file capabilities (a copy of sleep, cap_net_admin=ep)
if command -v setcap >/dev/null && cp "$(command -v sleep)" "$TMPDIR_T/capsleep" &&
    setcap cap_net_admin=ep "$TMPDIR_T/capsleep" 2>/dev/null; then
	chmod 755 "$TMPDIR_T/capsleep"
	squat "$TMPDIR_T/capsleep" 60
	wait_for 3000 grep -q '^CapEff:.*1...$' "/proc/$SQUAT_PID/status" ||
		fail "the file capability did not take: $(grep CapEff "/proc/$SQUAT_PID/status")"
	pass "uid 65534 holds @arpownd in a program with cap_net_admin=ep"
	started "file capabilities"
	kill -KILL "$SQUAT_PID" 2>/dev/null
	wait "$SQUAT_PID" 2>/dev/null || true
else
	echo "# 2 not run: no setcap, or file capabilities refused here"
fi
exit 0
