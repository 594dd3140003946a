#!/bin/bash
# A state directory that was full once, and a crash afterwards, leave
# arpownd unable to start ever again, though it never changed a sysctl.
# The first save of the originals (300 interfaces, ~12 KB) hits ENOSPC on
# a small tmpfs: originals.0 holds the first 4 KB of it, originals.1 was
# never written.  The daemon changes nothing (good) and runs on, managing
# nothing.  Killed (OOM, SIGKILL, a watchdog), then restarted with the
# space back: "no complete saved version ... not starting", and
# arpownd --restore (the unit's ExecStopPost) exits 71.  A slot that is
# cut short while the other one is empty is the first save ever, cut
# short: no sysctl was changed on the strength of it, so it means
# "nothing saved" (say so in the log), not "refuse to start".
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

for i in $(seq 1 150); do
	echo "link add vethaaaa$i type veth peer name vethbbbb$i"
done >"$TMPDIR_T/batch"
ns h ip -batch "$TMPDIR_T/batch" || fail "150 veth pairs"
SD=$TMPDIR_T/small
mkdir "$SD"
mount -t tmpfs -o size=8k,mode=0755 tmpfs "$SD" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
at_cleanup umount -l "$SD"
ARPOWND_STATE_DIR=$SD

write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "state dir full: nothing changed (eth0 still 0)"
grep -q 'No space left on device' "$TMPDIR_T/arpownd.log" || fail "the ENOSPC is not logged"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=

mount -o remount,size=1m "$SD" || fail "remount the tmpfs larger"
rc=0
ns h "$ARPOWND" --restore --state-dir "$SD" >>"$TMPDIR_T/arpownd.log" 2>&1 || rc=$?
expect_eq "$rc" 0 "space back: arpownd --restore (ExecStopPost) succeeds"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "space back: arpownd starts and manages eth0"
arpownd_stop
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "stopped: eth0 restored"
