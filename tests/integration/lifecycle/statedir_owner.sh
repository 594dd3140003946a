#!/bin/bash
# arpownd -d, run by hand as root on a host where the unit has run: the
# state directory (/run/arpownd, the unit's RuntimeDirectory=) belongs to
# the service's user, which is the user the root-started daemon drops to
# (user = arpownd by default).  It is accepted as the daemon's own: the
# start works, the files it makes there are that user's, and the service
# starts again in it afterwards.  A directory of anyone else's is refused
# with advice that does not break the service (no chown).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd setpriv
seed_net
U=${ARPOWND_TEST_USER%%:*}
chmod 755 "$TMPDIR_T"
# the directory as the unit leaves it: the service user's, 0750
chown "$U:$U" "$ARPOWND_STATE_DIR"
chmod 750 "$ARPOWND_STATE_DIR"
write_conf "[global]
interfaces = eth*"
chmod 644 "$CONF"

# the man page's example: arpownd -d as root (arpownd_start runs -d)
arpownd_start h -c "$CONF"
expect_eq "$(awk '/^Uid:/ { print $2 }' "/proc/$ARPOWND_PID/status")" "$U" "arpownd -d as root: started, running as user $U"
expect_reply c c0 10.0.0.1 "$MAC0" "arpownd -d: 10.0.0.1 answered by eth0 alone"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "arpownd -d: clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "arpownd -d: eth0 restored"
expect_eq "$(stat -c '%u %a' "$ARPOWND_STATE_DIR")" "$U 750" "the directory still the service user's, 0750"
others=$(find "$ARPOWND_STATE_DIR" -mindepth 1 ! -type s ! -user "$U" -printf '%p ')
expect_eq "$others" "" "every file arpownd -d made there is the service user's"

# the service again, as the unit runs it: not broken by the session by hand
wrap=$TMPDIR_T/as-unit
cat >"$wrap" <<WRAP
#!/bin/sh
chmod 777 "$TMPDIR_T/notify.sock" 2>/dev/null
exec setpriv --reuid=$U --regid=$U --clear-groups --no-new-privs \\
	--inh-caps=-all,+net_raw,+net_admin --ambient-caps=-all,+net_raw,+net_admin \\
	--bounding-set=-all,+net_raw,+net_admin "$ARPOWND" "\$@"
WRAP
chmod 755 "$wrap"
ARPOWND=$wrap arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.2 "$MAC1" "the service after it: 10.0.0.2 answered by eth1 alone"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "the service: clean stop"

# root makes the control socket in a directory that user owns: should
# that user swap the socket's path for a link meanwhile, root follows it
# nowhere (the mode is set without following links)
echo secret >"$TMPDIR_T/victim"
chmod 600 "$TMPDIR_T/victim"
rc=0
ns h env LD_PRELOAD="$FAULTINJ" ARPOWND_FAULT_SWAPCTL="$TMPDIR_T/victim" "$ARPOWND" -d -c "$CONF" \
	--state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/swap.out" 2>&1 &
swp=$!
for _ in $(seq 50); do _alive "$swp" || break; sleep 0.1; done
kill -TERM "$swp" 2>/dev/null
wait "$swp" 2>/dev/null || rc=$?
expect_eq "$(stat -c '%a' "$TMPDIR_T/victim")" 600 "the control socket's path swapped for a link: its target's mode untouched"
rm -f "$ARPOWND_STATE_DIR/control"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "and nothing left changed"

# a directory of another user's: refused, the advice breaks nothing
chown 61998:61998 "$ARPOWND_STATE_DIR"
rc=0
ns h "$ARPOWND" -d -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/start.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a directory of uid 61998's: started"
grep -q "owned by uid 61998, not by the user arpownd runs as (uid $U).*stop the service (systemctl stop arpownd; one arpownd runs at a time) and run arpownd as its user" \
	"$TMPDIR_T/start.out" || fail "the refusal's advice: $(cat "$TMPDIR_T/start.out")"
grep -q chown "$TMPDIR_T/start.out" && fail "the advice is a chown, which breaks the service: $(cat "$TMPDIR_T/start.out")"
pass "a directory of another user's: refused (exit $rc), the advice names the service, not a chown"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "refused: nothing changed"
