#!/bin/bash
# Started as root outside systemd, arpownd drops to an unprivileged user
# keeping exactly CAP_NET_RAW and CAP_NET_ADMIN, with no_new_privs, and
# still answers, follows new interfaces and restores the sysctls at stop;
# nothing in its state directory is writable by that user (it writes
# through files it opened as root).  A user that does not exist is
# refused, never replaced by nobody.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
uid=${ARPOWND_TEST_USER%%:*}
gid=${ARPOWND_TEST_USER##*:}
write_conf "[global]"
arpownd_start h -c "$CONF"
st=/proc/$ARPOWND_PID/status
expect_eq "$(awk '/^Uid:/ { print $2 "/" $3 "/" $4 "/" $5 }' "$st")" "$uid/$uid/$uid/$uid" "all uids are $uid"
expect_eq "$(awk '/^Gid:/ { print $2 "/" $3 "/" $4 "/" $5 }' "$st")" "$gid/$gid/$gid/$gid" "all gids are $gid"
expect_eq "$(awk '/^Groups:/ { print $2 }' "$st")" "" "no supplementary groups"
expect_eq "$(awk '/^CapEff:/ { print $2 }' "$st")" 0000000000003000 "CapEff holds exactly CAP_NET_RAW and CAP_NET_ADMIN"
expect_eq "$(awk '/^CapPrm:/ { print $2 }' "$st")" 0000000000003000 "CapPrm likewise"
expect_eq "$(awk '/^CapBnd:/ { print $2 }' "$st")" 0000000000003000 "bounding set reduced to the two"
expect_eq "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" 1 "no_new_privs"
grep -q "running as .* (uid $uid)" "$TMPDIR_T/arpownd.log" || fail "drop not logged"
# the state directory: root's, and nothing in it writable by the daemon's uid
expect_eq "$(stat -c %u "$ARPOWND_STATE_DIR")" 0 "the state directory stays root's"
# (the control socket excepted: its group write bit is the permission to
# connect, and every peer is checked with SO_PEERCRED; ctl_access.sh)
w=$(find "$ARPOWND_STATE_DIR" \( -uid "$uid" -o \( -perm /022 ! -type s \) \) -print)
expect_eq "$w" "" "nothing in the state directory is the daemon's or group/world-writable"
expect_eq "$(stat -c '%a %u' "$ARPOWND_STATE_DIR/control")" "660 0" "the control socket: 0660, root's"
ls "$ARPOWND_STATE_DIR"/originals.* >/dev/null 2>&1 || fail "no slot files in the state directory"
expect_reply c c0 10.0.0.1 "$MAC0" "unprivileged: answers"
veth h eth3 sw p3
bridge_add sw br0 p3
addr_add h eth3 10.0.0.4/24
MAC3=$(mac_of h eth3)
answered_by() { ask c c0 "$1"; [ "$NREPLY" = 1 ] && [ "$MACS" = "$2" ]; }
wait_for 3000 answered_by 10.0.0.4 "$MAC3" || fail "unprivileged: new eth3 not answered"
expect_eq "$(sysctl_get h eth3 arp_ignore)" 8 "unprivileged: follows a new interface (sysctl set)"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth3 arp_ignore) $(sysctl_get h eth0 arp_announce)" \
	"0 0 0" "unprivileged: sysctls restored at stop"

# A missing user is refused, never replaced by nobody
write_conf "[global]
user = no-such-user-arpownd"
rc=0
ns h "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" 2>"$TMPDIR_T/nouser.err" || rc=$?
expect_eq "$rc" 77 "an unknown user: refused with exit 77"
grep -q 'user "no-such-user-arpownd" does not exist: create it' "$TMPDIR_T/nouser.err" ||
	fail "the error does not name the user and the fix: $(cat "$TMPDIR_T/nouser.err")"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "and nothing changed"
# the default user, when the machine has none: the same, not nobody
if ! id arpownd >/dev/null 2>&1; then
	printf '[global]\n' >"$CONF"
	rc=0
	ns h "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" 2>"$TMPDIR_T/nouser.err" || rc=$?
	expect_eq "$rc" 77 "the default user arpownd absent: refused (exit 77), no fallback to nobody"
	expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "and nothing changed"
fi
# Without CAP_NET_ADMIN nothing could be set: refused at once, exit 77,
# rather than up and "answering ARP on 0 interfaces"
write_conf "[global]"
mkdir -m 700 "$TMPDIR_T/nocap"
chown 65534:65534 "$TMPDIR_T/nocap"
rc=0
ns h setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_raw \
	--ambient-caps=-all,+net_raw --bounding-set=-all,+net_raw \
	"$ARPOWND" -c "$CONF" --state-dir "$TMPDIR_T/nocap" 2>"$TMPDIR_T/nocap.err" || rc=$?
expect_eq "$rc" 77 "without CAP_NET_ADMIN: refused with exit 77"
grep -q 'CAP_NET_ADMIN' "$TMPDIR_T/nocap.err" || fail "the error does not say what is missing: $(cat "$TMPDIR_T/nocap.err")"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "and nothing changed"

# user = root stays root (the documented escape hatch)
write_conf "[global]
user = root"
arpownd_start h -c "$CONF"
expect_eq "$(awk '/^Uid:/ { print $2 }' "/proc/$ARPOWND_PID/status")" 0 "user = root: stays root"
expect_reply c c0 10.0.0.1 "$MAC0" "as root: answers"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
