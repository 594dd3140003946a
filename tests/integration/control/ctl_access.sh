#!/bin/bash
# Who may use the control socket, and what may stand at its path.  The
# socket is 0660, root's, group arpownd where it exists (else root's
# group); the kernel refuses others at connect, and the daemon checks
# every peer again (SO_PEERCRED, SO_PEERGROUPS), so that one who gets past
# the file mode (CAP_DAC_OVERRIDE) is still refused and logged.  The
# socket's group may ask; only root, the daemon's uid and the group
# arpownd-admin may change (reload, announce, publish, withdraw): 77
# otherwise, and nothing changed.  A symbolic link, a file or a directory
# at the path stops the start with nothing changed; a stale socket is
# replaced.
#
# The group arpownd-admin is made for this test alone: /etc/group with it
# added is bound over the real one in a private mount namespace.
if [ -z "${_CTL_ACCESS_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
	_CTL_ACCESS_NS=1 exec unshare -m --propagation private "$BASH" "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3 setpriv
ADMIN_GID=61990
getent group arpownd-admin >/dev/null && fail "this host has a group arpownd-admin: the test would not be alone with it"
{ cat /etc/group; echo "arpownd-admin:x:$ADMIN_GID:"; } >"$TMPDIR_T/group"
mount --bind "$TMPDIR_T/group" /etc/group || fail "cannot bind $TMPDIR_T/group over /etc/group"
expect_eq "$(getent group arpownd-admin | cut -d: -f3)" "$ADMIN_GID" "the group arpownd-admin, in this mount namespace alone"
# the system's, which any uid may run (not a shim in /root)
SYS_PYTHON3=$(PATH=/usr/bin:/bin command -v python3) || fail "no python3 in /usr/bin or /bin"
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
S=$ARPOWND_STATE_DIR/control
grp=$(getent group arpownd | cut -d: -f3)
grp=${grp:-0}
expect_eq "$(stat -c '%F %a %u %g' "$S")" "socket 660 0 $grp" "control: a socket, 0660, root's, group $grp"
as() { local who=$1; shift; setpriv $who "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" "$@"; }

rc=0
as "--reuid=65534 --regid=65534 --clear-groups" status >"$TMPDIR_T/out" 2>&1 || rc=$?
expect_eq "$rc" 77 "uid 65534, not in the group: refused at connect, exit 77"
grep -q "permission denied" "$TMPDIR_T/out" || fail "the message: $(cat "$TMPDIR_T/out")"

# past the file mode, refused by the daemon's own check, and logged
dac="--reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override --ambient-caps=+dac_override"
for i in 1 2 3 4 5; do
	rc=0
	as "$dac" status >"$TMPDIR_T/out" 2>&1 || rc=$?
	expect_eq "$rc" 77 "uid 65534 with CAP_DAC_OVERRIDE, try $i: refused by SO_PEERCRED, exit 77"
done
grep -q "permission denied: uid 65534 is not root" "$TMPDIR_T/out" || fail "the reply: $(cat "$TMPDIR_T/out")"
wait_for 2000 grep -q "control: refused uid 65534" "$TMPDIR_T/arpownd.log" || fail "the refusal not logged"
expect_eq "$(grep -c 'control: refused uid 65534' "$TMPDIR_T/arpownd.log")" 1 \
	"5 refusals in a second: one warning naming the uid"

# the group, primary or supplementary; the daemon's own uid
expect_eq "$(as "--reuid=65534 --regid=$grp --clear-groups" --json status | jq_py "d['pid']")" "$ARPOWND_PID" \
	"uid 65534 with the socket's group as its gid: served"
expect_eq "$(as "--reuid=65534 --regid=65534 --groups=$grp" --json status | jq_py "d['pid']")" "$ARPOWND_PID" \
	"uid 65534 with the group as a supplementary group: served (SO_PEERGROUPS)"
du=${ARPOWND_TEST_USER%%:*}
expect_eq "$(as "--reuid=$du --regid=$du --clear-groups --inh-caps=+dac_override --ambient-caps=+dac_override" \
	--json status | jq_py "d['pid']")" "$ARPOWND_PID" "the daemon's own uid: served"

# asking is the group's; changing is root's, the daemon's and arpownd-admin's
asker="--reuid=65534 --regid=65534 --groups=$grp"
for c in "publish 10.0.0.60 eth0" "withdraw 10.0.0.60" "announce eth0" "announce 10.0.0.1" reload; do
	rc=0
	# shellcheck disable=SC2086 # the command's words
	as "$asker" $c >"$TMPDIR_T/out" 2>&1 || rc=$?
	expect_eq "$rc" 77 "a member of the group alone: arpownctl $c refused (77)"
	grep -q "permission denied: uid 65534 may ask arpownd, not change it: .* is for root and group arpownd-admin" \
		"$TMPDIR_T/out" || fail "arpownctl $c: the message: $(cat "$TMPDIR_T/out")"
done
expect_eq "$(ctl_get published "len(d['published'])")" 0 "the refused publish published nothing"
wait_for 2000 grep -q "control: uid 65534 .* may not publish: only root, arpownd's own user and group arpownd-admin" \
	"$TMPDIR_T/arpownd.log" || fail "the refused publish is not logged"
for c in status interfaces counters conflicts metrics published; do
	as "$asker" $c >/dev/null 2>"$TMPDIR_T/out" || fail "a member of the group: arpownctl $c: $(cat "$TMPDIR_T/out")"
done
pass "a member of the group: status, interfaces, counters, conflicts, metrics and published served"
admin="--reuid=65534 --regid=65534 --groups=$grp,$ADMIN_GID"
out=$(as "$admin" publish 10.0.0.60 eth0 2>&1) || fail "a member of arpownd-admin: publish: $out"
expect_eq "$(ctl_get published "d['published'][0]['ranges'][0]['first']")" "10.0.0.60" "a member of arpownd-admin published 10.0.0.60"
out=$(as "$admin" withdraw 10.0.0.60 2>&1) || fail "a member of arpownd-admin: withdraw: $out"
out=$(as "--reuid=65534 --regid=$ADMIN_GID --groups=$grp" announce eth0 2>&1) ||
	fail "arpownd-admin as the primary group: announce: $out"
pass "a member of arpownd-admin (primary or supplementary) publishes, withdraws and announces"

# an fd passed by anyone but root is dropped; root's must be the file
cat >"$TMPDIR_T/pass.py" <<'PY'
import array, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = open(sys.argv[2], "rb")
s.sendmsg([b"reload\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [f.fileno()]))])
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
    head, _, body = data.partition(b"\n")
    if _ and len(body) >= int(head.split()[1 if head.startswith(b"OK") else 2]):
        break
print(data.decode(errors="replace").replace("\n", " | "))
PY
out=$(setpriv --reuid=65534 --regid="$grp" --clear-groups "$SYS_PYTHON3" "$TMPDIR_T/pass.py" "$S" /etc/hostname)
grep -q '^ERR 77 ' <<<"$out" || fail "a member of the group alone reloading (with an fd): $out"
out=$(setpriv --reuid=65534 --regid="$grp" --groups="$ADMIN_GID" "$SYS_PYTHON3" "$TMPDIR_T/pass.py" "$S" /etc/hostname)
grep -q '"passed":false' <<<"$out" || fail "a member of arpownd-admin's fd was not ignored: $out"
pass "an fd passed by a non-root peer is closed unused: the daemon reads its own path"
out=$(python3 "$TMPDIR_T/pass.py" "$S" /etc/hostname)
grep -q "^ERR 78 .*the file passed is not $CONF" <<<"$out" || fail "root passing another file: $out"
pass "root passing a file that is not the configuration: refused (78)"
out=$(python3 "$TMPDIR_T/pass.py" "$S" "$CONF")
grep -q '"passed":true' <<<"$out" || fail "root passing the configuration: $out"
pass "root passing the configuration itself: taken"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# What may stand at the path.  Only root can put anything there (the
# directory is root's, not writable by others), but a stale or planted
# entry must not be followed or removed.
echo "precious" >"$TMPDIR_T/victim"
start_refused() {	# start_refused WHAT: the daemon must not start
	local rc=0
	ns h "$ARPOWND" -d -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/start.out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || fail "$1: arpownd started"
	grep -q "control: exists and is not a socket ($2): not starting; remove it" "$TMPDIR_T/start.out" ||
		fail "$1: the message: $(cat "$TMPDIR_T/start.out")"
	expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "$1: refused (exit $rc), nothing changed"
}
rm -f "$S"
ln -s "$TMPDIR_T/victim" "$S"
start_refused "a symbolic link at the path" "a symbolic link"
expect_eq "$(cat "$TMPDIR_T/victim"):$(readlink "$S")" "precious:$TMPDIR_T/victim" "the link and its target untouched"
rm -f "$S"
ln -s "$TMPDIR_T/nonexistent" "$S"
start_refused "a dangling symbolic link" "a symbolic link"
[ -e "$TMPDIR_T/nonexistent" ] && fail "a socket was made through the dangling link"
rm -f "$S"
echo "a file" >"$S"
start_refused "a regular file at the path" "a regular file"
expect_eq "$(cat "$S")" "a file" "the file untouched"
rm -f "$S"
mkdir "$S"
start_refused "a directory at the path" "a directory"
rmdir "$S"

# a stale socket (the daemon was killed) is replaced
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
[ -S "$S" ] || fail "no stale socket after SIGKILL"
rc=0; ctl status >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 69 "a stale socket, nobody listening: arpownctl says not running (69)"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >/dev/null 2>&1
arpownd_start h -c "$CONF"
expect_eq "$(ctl_get status "d['pid']")" "$ARPOWND_PID" "the stale socket replaced: the new daemon answers on it"
arpownd_stop

# a state directory whose socket path would not fit sun_path
long=$TMPDIR_T/$(printf 'd%.0s' $(seq 100))
rc=0
ns h "$ARPOWND" -d -c "$CONF" --state-dir "$long" >"$TMPDIR_T/start.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a state dir too long for the socket: started"
grep -q "longer than a socket's path may be" "$TMPDIR_T/start.out" || fail "the message: $(cat "$TMPDIR_T/start.out")"
pass "a state dir too long for the socket's path: refused with a reason (exit $rc)"
