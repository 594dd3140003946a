#!/bin/bash
# Never deaf, whatever a member of the group sends.  Only root may pass a
# file with a request (SCM_RIGHTS); the daemon closed what anyone else
# passed.  But closing a file can block the closer: a TCP socket with
# SO_LINGER whose peer never reads waits in close() for up to l_linger
# seconds to send its FIN.  A member of the group arpownd (who may only
# ask) passed such a socket with "status" and closed its own copy: the
# daemon's close() was the last, and blocked; its loop stopped, the
# managed interfaces at arp_ignore 8, nobody answered until the
# watchdog killed it.  What a peer other than root sends along must never
# become the daemon's to close: it is not received at all.
#
#   seed network; the attacker uid 65534 in the socket's group, its TCP
#   connection on the loopback of a namespace of its own
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3 setpriv
SYS_PYTHON3=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"
seed_net
ns_new x
write_conf "[global]"
arpownd_start h -c "$CONF"
grp=$(stat -c %g "$ARPOWND_STATE_DIR/control")
expect_reply c c0 10.0.0.1 "$MAC0" "before: 10.0.0.1 answered by eth0"

cat >"$TMPDIR_T/linger.py" <<'PY'
import array, os, socket, struct, sys, time
def lingering():
    """A TCP socket whose close waits 20 s: its peer never reads."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    c.connect(srv.getsockname())
    c.setblocking(False)
    try:
        while True:
            c.send(b"x" * 4096)
    except BlockingIOError:
        pass
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 20))
    lingering.keep.append(srv)
    return c.detach()
lingering.keep = []
def rights(fds):
    return [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
def connect():
    u = socket.socket(socket.AF_UNIX)
    u.connect(sys.argv[1])
    return u
how = sys.argv[2]
if how == "one":                # with a request
    fds = [lingering()]
elif how == "many":             # the lingering one ninth of nine
    fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(8)] + [lingering()]
elif how == "nested":           # in flight inside a socket passed
    a, b = socket.socketpair()
    t = lingering()
    a.sendmsg([b"x"], rights([t]))
    os.close(t)
    a.close()
    fds = [b.detach()]
if how in ("one", "many", "nested"):
    u = connect()
    u.sendmsg([b"status\n"], rights(fds))
    for fd in fds:
        os.close(fd)            # the daemon's copies are the last
    u.settimeout(3)
    print(how, "reply:", u.recv(20), flush=True)
elif how == "refused":          # queued on a connection turned away unread
    busy = []
    for _ in range(4):          # ADM_PER_UID connections, each busy with half a line
        busy.append(connect())
        busy[-1].send(b"sta")
    time.sleep(0.3)
    t = lingering()
    u = connect()
    u.sendmsg([b"status\n"], rights([t]))
    os.close(t)
    u.settimeout(3)
    print(how, "reply:", u.recv(40), flush=True)
time.sleep(3)
PY
chmod 644 "$TMPDIR_T/linger.py"
for how in one many nested refused; do
	bg_run x setpriv --reuid=65534 --regid=65534 --groups="$grp" "$SYS_PYTHON3" "$TMPDIR_T/linger.py" \
		"$ARPOWND_STATE_DIR/control" "$how" >"$TMPDIR_T/attack.out" 2>&1
	sleep 1
	ask c c0 10.0.0.1
	echo "attacker: $(tr '\n' ' ' <"$TMPDIR_T/attack.out")"
	[ "$NREPLY" = 1 ] || fail "$how: 1 s after a group member passed a lingering TCP socket: 10.0.0.1 answered $NREPLY times (the daemon blocked in a close, eth0 at arp_ignore $(sysctl_get h eth0 arp_ignore))"
	pass "a lingering socket from a group member ($how): the daemon still answers"
done
expect_reply c c0 10.0.0.2 "$MAC1" "and afterwards: 10.0.0.2 answered by eth1"
