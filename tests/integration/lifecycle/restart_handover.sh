#!/bin/bash
# A restart loses no request for a published address.  The kernel answers
# the host's own addresses between a stop and the next start (the sysctls
# are back), but nobody answers a published one: the stop gives systemd
# an ARP socket to keep (FDSTORE=1), the kernel queues the gap's requests
# on it, and the next start answers them from it once its own capture is
# live.  Here a stand-in for systemd's notify socket and fd store
# (python) holds the socket across three restarts while a client asks
# for a published address and an owned one 1,000 times a second; every
# request must be answered within the client's second (a Linux host asks
# again after one).  Without the handover each restart lost the request
# in flight for the published address.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
write_conf "[global]
sender_rate = 0
[publish vip]
addresses = 10.0.0.50
interface = eth0"
ARPOWND_DEBUG=0
cat >"$TMPDIR_T/fdstore.py" <<'PY'
# A stand-in for the notify socket and fd store of systemd: starts the
# daemon (argv), keeps any fd sent with FDSTORE=1, and on each SIGUSR1
# stops the daemon (SIGTERM), waits GAP seconds, starts it again with the
# stored fds as LISTEN_FDS.  Prints what it saw.
import array, os, signal, socket, subprocess, sys, time
sock_path, gap, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
open(sock_path + ".pid", "w").write(str(os.getpid()))
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
os.chmod(sock_path, 0o666)
store = {}
def start():
    env = dict(os.environ, NOTIFY_SOCKET=sock_path)
    fds = list(store.values())
    def child():
        for i, fd in enumerate(fds):
            os.dup2(fd, 3 + i)
        os.environ["LISTEN_PID"] = str(os.getpid())
    if fds:
        env["LISTEN_FDS"] = str(len(fds))
        env["LISTEN_FDNAMES"] = ":".join(store.keys())
    # LISTEN_PID must be the daemon's own pid: the shell sets it and execs
    p = subprocess.Popen(["sh", "-c", 'LISTEN_PID=$$ exec "$0" "$@"'] + argv, env=env,
                         pass_fds=[3 + i for i in range(len(fds))] if fds else (),
                         preexec_fn=(lambda: [os.dup2(fd, 3 + i) for i, fd in enumerate(fds)]))
    return p
def wait_ready(p):
    s.settimeout(10)
    while True:
        msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
        handle(msg, anc)
        if b"READY=1" in msg:
            return
def handle(msg, anc):
    fds = array.array("i")
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    fields = dict(l.split("=", 1) for l in msg.decode().splitlines() if "=" in l)
    if fields.get("FDSTORE") == "1" and fds:
        name = fields.get("FDNAME", "stored")
        if name in store:
            os.close(store[name])
        store[name] = fds[0]
        print("stored", name, flush=True)
    if fields.get("FDSTOREREMOVE") == "1":
        name = fields.get("FDNAME")
        if name in store:
            os.close(store.pop(name))
            print("removed", name, flush=True)
restarts = [0]
def on_usr1(sig, frm):
    restarts[0] += 1
signal.signal(signal.SIGUSR1, on_usr1)
p = start()
wait_ready(p)
print("ready", flush=True)
done = 0
while True:
    if restarts[0] > done:
        done += 1
        p.send_signal(signal.SIGTERM)
        s.settimeout(0.2)
        while p.poll() is None:
            try:
                msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
                handle(msg, anc)
            except socket.timeout:
                pass
        # what came with the last datagrams
        s.settimeout(0.05)
        try:
            while True:
                msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
                handle(msg, anc)
        except (socket.timeout, BlockingIOError):
            pass
        print("stopped rc", p.returncode, "holding", list(store), flush=True)
        time.sleep(gap)
        p = start()
        wait_ready(p)
        print("ready", flush=True)
        continue
    if os.path.exists(sock_path + ".quit"):
        p.send_signal(signal.SIGTERM)
        p.wait()
        break
    s.settimeout(0.1)
    try:
        msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
        handle(msg, anc)
    except socket.timeout:
        pass
PY
sock=$TMPDIR_T/fdstore.sock
ns h python3 "$TMPDIR_T/fdstore.py" "$sock" 0.3 "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" \
	>"$TMPDIR_T/fdstore.out" 2>"$TMPDIR_T/arpownd.log" &
sd=$!
_track "$sd"
wait_for 10000 grep -q '^ready' "$TMPDIR_T/fdstore.out" || fail "the daemon did not start: $(cat "$TMPDIR_T/arpownd.log")"
sdpid=$(cat "$sock.pid")
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 published: answered from eth0"

pub=$TMPDIR_T/pub.out own=$TMPDIR_T/own.out
bg_run c "$ARPC" -q -i c0 --pingpong -r 1000 -c 4000 --wait-reply 1000 -t 30000 10.0.0.50 >"$pub" 2>&1
pp=$LAST_PID
bg_run c "$ARPC" -q -i c0 -s 10.0.0.101 --pingpong -r 1000 -c 4000 --wait-reply 1000 -t 30000 10.0.0.1 >"$own" 2>&1
po=$LAST_PID
sleep 0.5
for i in 1 2 3; do
	n=$(grep -c '^ready' "$TMPDIR_T/fdstore.out")
	kill -USR1 "$sdpid"
	wait_for 10000 sh -c "[ \$(grep -c '^ready' '$TMPDIR_T/fdstore.out') -gt $n ]" ||
		fail "restart $i: no READY: $(tail -n 5 "$TMPDIR_T/arpownd.log")"
	sleep 0.6
done
wait "$pp" || true
wait "$po" || true
touch "$sock.quit"
wait "$sd" || true
cat "$TMPDIR_T/fdstore.out"
for w in pub own; do
	out=$(cat "$TMPDIR_T/$w.out")
	sent=$(sed -n 's/^sent \([0-9]*\) .*/\1/p' <<<"$out")
	lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' <<<"$out")
	[ "$sent" = 4000 ] || fail "$w: the client sent $sent of 4000: $out"
	expect_eq "$lost" 0 "$w: 4,000 requests across three restarts, none unanswered within 1 s"
done
grep -q 'stored arp-handover' "$TMPDIR_T/fdstore.out" || fail "the stop gave no socket to the fd store"
grep -q 'removed arp-handover' "$TMPDIR_T/fdstore.out" || fail "the start did not release it"
grep -q 'handover: [1-9][0-9]* requests for published addresses kept' "$TMPDIR_T/arpownd.log" ||
	fail "no request was handed over: $(grep handover "$TMPDIR_T/arpownd.log")"
pass "three restarts: the socket kept, taken back and released each time"
