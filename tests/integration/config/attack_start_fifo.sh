#!/bin/bash
# A start (and arpownd -n, the unit's ExecStartPre) whose configuration
# path is a FIFO or a link to a device: the start blocked in open() of the
# FIFO, or read /dev/zero for ever, before its signal watchers exist, so
# SIGTERM did nothing either; after a crash the interfaces stayed at 8
# all that time.  Now refused at once (exit 78), saying why.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
CONF=$TMPDIR_T/arpownd.conf
for kind in fifo zero; do
	rm -f "$CONF"
	case $kind in
	fifo) mkfifo -m 644 "$CONF" ;;
	zero) ln -s /dev/zero "$CONF" ;;
	esac
	for how in "-n" "--state-dir $ARPOWND_STATE_DIR"; do
		r=0
		# shellcheck disable=SC2086 # two words
		ns h timeout -s KILL 4 "$ARPOWND" $how -c "$CONF" >"$TMPDIR_T/out" 2>&1 || r=$?
		expect_eq "$r" 78 "$kind as the configuration, arpownd $how: refused at once (not killed after 4 s)"
		grep -q "arpownd.conf: not a regular file" "$TMPDIR_T/out" ||
			fail "$kind: no message saying why: $(head -c 300 "$TMPDIR_T/out")"
	done
done
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "nothing changed"
r=0; ns h timeout -s KILL 4 "$ARPOWND" -n -c /dev/null >/dev/null 2>&1 || r=$?
expect_eq "$r" 0 "arpownd -n -c /dev/null (the defaults) still accepted"
