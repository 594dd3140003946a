#!/bin/bash
# A reload whose new interfaces' originals cannot be saved (the state
# directory full): "no interface changed its sysctls", says the log, and
# yet the reload is reported done (arpownctl reload exits 0, status shows
# the new file) with half of it in effect: the new file's per-interface
# settings (deny_senders, allow_probes, announce, answer_path) were
# written into every interface record before the save was tried, while
# the interfaces it newly manages stay unmanaged and the mode stays the
# old one.  A reload is all or nothing: refused, the old configuration
# entirely in effect, and the one who reloads told.
# The tmpfs is mounted in a private mount namespace of this test.
if [ -z "${ARPOWND_IN_MNTNS:-}" ]; then
	command -v unshare >/dev/null 2>&1 || { echo "SKIP: needs unshare"; exit 77; }
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
	exec unshare -m --propagation private env ARPOWND_IN_MNTNS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
SD=$TMPDIR_T/small
mkdir "$SD"
mount -t tmpfs -o size=1m,mode=0755 tmpfs "$SD" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
at_cleanup umount -l "$SD"
ARPOWND_STATE_DIR=$SD

write_conf "[global]
interfaces = eth0 eth1
announce = no"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 0 "A: eth2 not managed"
expect_reply c c0 10.0.0.1 "$MAC0" "A: 10.0.0.1 answered"
# the state directory fills up (root's file: the daemon cannot remove it)
dd if=/dev/zero of="$SD/fill" bs=4k count=1000 2>/dev/null || true
write_conf "[global]
interfaces = eth0 eth1 eth2
announce = no

[interface inside]
match = eth0
deny_senders = 10.0.0.100"
rc=0
ctl reload >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
cat "$TMPDIR_T/reload.out"
grep 'originals could not be saved' "$TMPDIR_T/arpownd.log" || echo "# (no save failure logged)"
rm -f "$SD/fill"
echo "# reload exit $rc; eth2 arp_ignore $(sysctl_get h eth2 arp_ignore)"
if [ "$(sysctl_get h eth2 arp_ignore)" = 8 ]; then
	pass "B entirely in effect (eth2 managed)"
	expect_silence c c0 10.0.0.1 "B: deny_senders 10.0.0.100 on eth0"
else
	ask c c0 10.0.0.1
	echo "# eth2 unmanaged (A's); 10.0.0.1 asked by 10.0.0.100: $NREPLY replies (B's deny_senders would give 0)"
	[ "$NREPLY" = 1 ] || fail "half a reload: eth2 left unmanaged as in A, but B's deny_senders in effect on eth0"
	[ "$rc" != 0 ] || fail "B not in effect (eth2 unmanaged), yet arpownctl reload exited 0"
	pass "refused (arpownctl reload exited $rc), A entirely in effect"
	ctl --json status | grep -q '"mode"' || fail "status does not answer"
fi
kill -0 "$ARPOWND_PID" || fail "arpownd died"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth2 arp_ignore)" "0 0" "restored"
