#!/bin/bash
# A reload (SIGHUP) whose configuration path is no longer a regular file:
# a FIFO (an editor's or a config tool's leftover, a mistyped -c) or a
# link to a device.  The daemon read it in its one loop: open() of a FIFO
# blocked until the next signal, a read of /dev/zero never ended, and
# every managed interface stayed at arp_ignore = 8 with nobody answering:
# the host deaf; SIGTERM was not honoured either.  The file passed by
# arpownctl reload was already checked (a regular file, at most 1 MiB):
# a SIGHUP's read is now the same.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
interfaces = eth0 eth1 eth2
mode = owner"
arpownd_start h -c "$CONF"
cp "$CONF" "$TMPDIR_T/good.conf"
n=0
for kind in fifo zero; do
	rm -f "$CONF"
	case $kind in
	fifo) mkfifo -m 644 "$CONF" ;;
	zero) ln -s /dev/zero "$CONF" ;;
	esac
	n=$((n + 1))
	kill -HUP "$ARPOWND_PID"
	wait_for 2000 sh -c "[ \$(grep -c 'not reloaded' '$TMPDIR_T/arpownd.log') -ge $n ]" ||
		echo "# $kind: no 'not reloaded' within 2 s"
	expect_reply c c0 10.0.0.1 "$MAC0" "$kind as the configuration: the reload refused, 10.0.0.1 still answered" -w 1000
	expect_eq "$(timeout 2 "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" --json status >/dev/null 2>&1; echo $?)" 0 \
		"$kind: arpownctl status answers"
done
rm -f "$CONF"
cp "$TMPDIR_T/good.conf" "$CONF"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "SIGTERM: a clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "eth0's arp_ignore restored"
