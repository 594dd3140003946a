#!/bin/bash
# Attack on the kernel answer path's "killed daemon" guard, as a hostile
# local user (uid 65534, no capability, not in group arpownd).
#
# The program answers only while the daemon's liveness socket exists
# (bpf_sk_lookup_udp on a random 127/8 address and port, kp_conf).  That
# address and port are no secret: /proc/net/udp lists them to every user
# of the namespace.  Once the daemon dies (crash, SIGKILL, OOM killer),
# anyone may bind a UDP socket to the same 127.x.y.z:port (127/8 is
# local, no privilege needed), and the stale program believes the daemon
# is back.  Its netlink watcher died with the daemon: an address deleted
# from then on is still "alive" in kp_alive, and is answered.
#
# DESIGN.md: "The delete invariant holds even while the daemon is
# stopped"; doc/kpath.md: "gone with the process, and the program answers
# nothing more".
#
# Expected (the rule): after SIGKILL, whatever an unprivileged user does,
# a request for an address deleted after the kill is not answered.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "SKIP: $PY (readable by uid 65534) missing"; exit 77; }
need_cmd setpriv

seed_net

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"

ns h ip addr add 10.0.0.9/24 dev eth0
answered9() { ask c c0 10.0.0.9 -w 50; [ "$MACS" = "$MAC0" ]; }
wait_for 2000 answered9 || fail "10.0.0.9 not answered by eth0 after its add ('$MACS')"
pass "10.0.0.9 answered by eth0 (kernel path)"

# the unprivileged user reads the liveness socket out of /proc/net/udp
nobody() { ns h setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
live=$(nobody "$PY" -c '
import socket, struct
for line in open("/proc/net/udp").read().splitlines()[1:]:
    f = line.split()
    a, p = f[1].split(":")
    ip = socket.inet_ntoa(struct.pack("<I", int(a, 16)))
    if ip.startswith("127.") and ip != "127.0.0.1":
        print(ip, int(p, 16))
') || fail "uid 65534 cannot read /proc/net/udp"
[ -n "$live" ] || fail "no 127/8 UDP socket listed: is the liveness socket still what the program checks?"
[ "$(wc -l <<<"$live")" = 1 ] || fail "more than one candidate: $live"
pass "uid 65534 sees the daemon's liveness socket in /proc/net/udp: $live"
read -r laddr lport <<<"$live"

# the hijacker: as uid 65534, binds laddr:lport as soon as it is free
# (for at most 5 s), then holds it 30 s
cat >"$TMPDIR_T/hijack.py" <<'PYEOF'
import socket, sys, time
addr, port, flag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
end = time.time() + 5
while time.time() < end:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind((addr, port))
    except OSError:
        s.close()
        time.sleep(0.001)
        continue
    open(flag, "w").write("bound\n")
    time.sleep(30)
    sys.exit(0)
sys.exit(1)
PYEOF
chmod 644 "$TMPDIR_T/hijack.py"
touch "$TMPDIR_T/hijacked"; chmod 666 "$TMPDIR_T/hijacked"; : >"$TMPDIR_T/hijacked"
bg_run h setpriv --reuid 65534 --regid 65534 --clear-groups "$PY" "$TMPDIR_T/hijack.py" "$laddr" "$lport" "$TMPDIR_T/hijacked"
sleep 0.2

# the daemon dies (crash, OOM killer, SIGKILL): --restore has not run yet
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
wait_for 3000 grep -q bound "$TMPDIR_T/hijacked" || fail "the hijacker could not bind $laddr:$lport"
pass "uid 65534 bound $laddr:$lport after the daemon died"

# an address deleted after the death: the watcher is gone, kp_alive keeps it
ns h ip addr del 10.0.0.9/24 dev eth0
expect_silence c c0 10.0.0.9 "10.0.0.9, deleted after the daemon died, is not answered (the stale program must stay quiet whoever holds $laddr:$lport)"
expect_silence c c0 10.0.0.1 "nothing answered by a dead daemon's program"
