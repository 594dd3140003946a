#!/bin/bash
# A local user squats the network namespace's lock (issue 19, point 2).
# The lock was the abstract name "@arpownd", which any user may bind:
# uid 65534 bound it first, arpownd exited 71 "another arpownd runs" and
# the kernel answered weak-host (the outside got a reply for an inside
# address, the LAN two replies for one); after a SIGKILL the squat made
# --restore skip its purge of the kernel path's filters.  Expected: a
# name held by a user other than root is no lock: the daemon says who
# squats it and starts; a second root daemon is still refused, naming the
# holder; --restore after a SIGKILL purges whatever the user binds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd setpriv tc python3
PY=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"

seed_net
filters() { local i; for i in eth0 eth1 eth2; do ns h tc filter show dev $i ingress 2>/dev/null | grep -c arpownd_answer; done | tr -d '\n'; }

# squat NAME...: uid 65534 binds these abstract names, a datagram and a
# stream socket each (the first must be free; the others if they are),
# and holds them for 60 s
cat >"$TMPDIR_T/squat.py" <<'PYEOF'
import socket, sys, time
held = []
for i, n in enumerate(sys.argv[1:]):
    # an abstract name is per socket type: both
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        s = socket.socket(socket.AF_UNIX, kind)
        try:
            s.bind(b"\0" + n.encode())
            if kind == socket.SOCK_STREAM:
                s.listen(0)
            held.append(s)
        except OSError:
            if i == 0:
                sys.exit("cannot bind @" + n)
print("bound", " ".join(sys.argv[1:]), flush=True)
time.sleep(60)
PYEOF
chmod 644 "$TMPDIR_T/squat.py"
# (SQUAT_WRAP=unshare...: from a user namespace of the user's own)
squat() {
	: >"$TMPDIR_T/squat.out"
	chmod 666 "$TMPDIR_T/squat.out"
	# shellcheck disable=SC2086 # the wrapper's words
	bg_run h setpriv --reuid 65534 --regid 65534 --clear-groups ${SQUAT_WRAP:-} "$PY" \
		"$TMPDIR_T/squat.py" "$@" >"$TMPDIR_T/squat.out" 2>&1
	SQUAT_PID=$LAST_PID
	wait_for 10000 grep -q "^bound" "$TMPDIR_T/squat.out" || fail "the squat did not bind in 10 s: $(cat "$TMPDIR_T/squat.out")"
}
squat arpownd
pass "uid 65534 holds @arpownd"

# 1. the start: it runs, says who squats, and the kernel is silent
write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
grep -q 'lock name @arpownd is held by uid 65534 (pid [1-9]' "$TMPDIR_T/arpownd.log" ||
	fail "the squat is not named (uid, pid) in the log"
pass "started; logged: $(grep -m1 -o 'lock name @arpownd is held by uid 65534 (pid [0-9]*)' "$TMPDIR_T/arpownd.log")"
expect_reply c c0 10.0.0.1 "$MAC0" "the LAN asks for 10.0.0.1: one reply, eth0's"
expect_reply c c0 10.0.0.2 "$MAC1" "the LAN asks for 10.0.0.2: one reply, eth1's"
expect_silence f f0 10.0.0.1 "the outside asks for the inside 10.0.0.1: no reply"

# 2. a second daemon (another state dir) is still refused, naming the holder
mkdir -p "$TMPDIR_T/state2"
rc=0
ns h timeout 10 "$ARPOWND" -d --state-dir "$TMPDIR_T/state2" -c "$CONF" >"$TMPDIR_T/d2.log" 2>&1 || rc=$?
expect_eq "$rc" 71 "a second daemon in the namespace is refused (71)"
grep -q "another arpownd runs in this network namespace (@arpownd\.[0-9a-f]* held by pid $ARPOWND_PID, uid 0)" \
	"$TMPDIR_T/d2.log" || fail "the refusal does not name the holder: $(cat "$TMPDIR_T/d2.log")"
pass "the refusal names it: $(grep -m1 -o 'another arpownd[^;]*' "$TMPDIR_T/d2.log")"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 still answered by eth0 alone"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "a clean stop"

# 1b. the same user squats from a user namespace of his own, where he
# holds every capability (CapEff in /proc/PID/status says so, but not
# over this network namespace): still no lock
kill "$SQUAT_PID"
wait "$SQUAT_PID" 2>/dev/null
if setpriv --reuid 65534 --regid 65534 --clear-groups unshare -U -r true 2>/dev/null; then
	SQUAT_WRAP="unshare -U -r" squat arpownd
	pass "uid 65534, root in a user namespace of its own, holds @arpownd"
	arpownd_start h -c "$CONF"
	grep -q 'lock name @arpownd is held by uid 65534' "$TMPDIR_T/arpownd.log" ||
		fail "the user namespace's squat is not named in the log"
	expect_reply c c0 10.0.0.1 "$MAC0" "started beside it: the LAN asks for 10.0.0.1, one reply, eth0's"
	arpownd_stop
	kill "$SQUAT_PID"
	wait "$SQUAT_PID" 2>/dev/null
else
	echo "# 1b not run: this kernel lets no unprivileged user make a user namespace"
fi

# 3. the daemon as the unit runs it (a user other than root, with
# CAP_NET_ADMIN): its lock is no squat; a second daemon started by root
# is refused and names it
write_conf "[global]
interfaces = eth*"
mkdir -p "$TMPDIR_T/state4"
chown 61998:61998 "$TMPDIR_T/state4"
chmod 644 "$CONF"
cat >"$TMPDIR_T/as-unit" <<WRAP
#!/bin/sh
chmod 777 "$TMPDIR_T/notify.sock" 2>/dev/null
exec setpriv --reuid=61998 --regid=61998 --clear-groups --no-new-privs \\
	--inh-caps=-all,+net_raw,+net_admin --ambient-caps=-all,+net_raw,+net_admin \\
	--bounding-set=-all,+net_raw,+net_admin "$ARPOWND" "\$@"
WRAP
chmod 755 "$TMPDIR_T/as-unit"
ARPOWND_STATE_DIR=$TMPDIR_T/state4 ARPOWND=$TMPDIR_T/as-unit arpownd_start h -c "$CONF"
rc=0
ns h timeout 10 "$ARPOWND" -d --state-dir "$TMPDIR_T/state2" -c "$CONF" >"$TMPDIR_T/d4.log" 2>&1 || rc=$?
expect_eq "$rc" 71 "beside a daemon run as the unit runs it, a second one is refused (71)"
grep -q "another arpownd runs in this network namespace (@arpownd held by pid $ARPOWND_PID, uid 61998)" \
	"$TMPDIR_T/d4.log" || fail "the refusal does not name the holder: $(cat "$TMPDIR_T/d4.log")"
pass "the refusal names it: $(grep -m1 -o 'another arpownd[^;]*' "$TMPDIR_T/d4.log")"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 alone"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "a clean stop"

# 4. no squat at the start; the daemon on the kernel answer path is
# SIGKILLed, and uid 65534 binds what it held (the name read out of
# /proc/net/unix) before --restore runs
if ! "$ARPOWND" -V | grep -q 'kernel answer path: built'; then
	echo "# part 4 not run: this arpownd is built without the kernel answer path (no filters to purge)"
	exit 0
fi
write_conf "[global]
interfaces = eth*
answer_path = kernel"
arpownd_start h -c "$CONF"
if grep -q 'the kernel answer path cannot load' "$TMPDIR_T/arpownd.log"; then
	echo "SKIP: parts 1 to 3 passed; part 4: $(grep -m1 'cannot load' "$TMPDIR_T/arpownd.log")"
	exit 77
fi
expect_eq "$(filters)" 111 "the kernel path's filter on eth0, eth1, eth2"
held=$(ns h setpriv --reuid 65534 --regid 65534 --clear-groups "$PY" -c '
for l in open("/proc/net/unix").read().splitlines()[1:]:
    f = l.split()
    if len(f) > 7 and f[7].startswith("@arpownd"):
        print(f[7][1:])' | sort -u)
[ "$held" = arpownd ] || fail "the daemon holds '$held' in /proc/net/unix, not @arpownd"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
squat "$held"
pass "SIGKILL; uid 65534 now holds @$held"
expect_eq "$(filters)" 111 "the dead daemon's filters are still there"
rc=0
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/r.log" 2>&1 || rc=$?
cat "$TMPDIR_T/r.log" >>"$TMPDIR_T/arpownd.log"
expect_eq "$rc" 0 "--restore succeeds"
expect_eq "$(filters)" 000 "--restore purged every filter, the squat notwithstanding"
expect_eq "$(sysctl_get h eth0 arp_ignore)$(sysctl_get h eth1 arp_ignore)$(sysctl_get h eth2 arp_ignore)" 000 \
	"--restore put back arp_ignore 0 on eth0, eth1, eth2"
