#!/bin/bash
# arpownd --restore gives nothing back when the state directory has become
# read-only: state_open() opens the lock and both slot files O_RDWR before
# it reads anything, gets EROFS and exits 71 without touching a sysctl.
# A directory on a disk that the kernel remounted read-only after an I/O
# error (errors=remount-ro), a read-only bind mount in a container, a
# full-disk protection: after a crash, every managed interface stays at
# arp_ignore = 8 although the originals are right there to be read.
# Expected: --restore reads the newest complete slot and restores from it
# (reporting that it could not update the records), rc may be non-zero.
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
SD=$TMPDIR_T/sd
mkdir "$SD"
mount -t tmpfs -o size=1m,mode=0755 tmpfs "$SD" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
at_cleanup umount -l "$SD"
ARPOWND_STATE_DIR=$SD
sysctl_set h eth1 arp_ignore 2
write_conf "[global]"
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null || true
ARPOWND_PID=
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore)" "8 8" "crashed: both at 8"
mount -o remount,ro "$SD" || fail "remount read-only"
rc=0
ns h "$ARPOWND" --restore --state-dir "$SD" >>"$TMPDIR_T/arpownd.log" 2>&1 || rc=$?
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore)" "0 2" \
	"read-only state dir: --restore (rc $rc) still gives the originals back"
