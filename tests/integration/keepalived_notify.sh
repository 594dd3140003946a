#!/bin/bash
# contrib/keepalived/arpownd-notify, driven as keepalived drives it
# (ADDR IFACE, then TYPE NAME STATE [PRIORITY]) against a running daemon:
# MASTER publishes the VIP on eth0 (answered with eth0's MAC, from eth0
# only), a second MASTER is no error (keepalived restarted), BACKUP,
# FAULT, STOP and DELETED withdraw it (never answered once the script returns),
# a second BACKUP is no error; an unknown state is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net
NOTIFY=$(_abs "${top_builddir:-.}")/contrib/keepalived/arpownd-notify

write_conf "[global]"
arpownd_start h -c "$CONF"
notify() {
	ARPOWNCTL=$ARPOWNCTL ARPOWND_STATE_DIR=$ARPOWND_STATE_DIR \
		sh "$NOTIFY" 10.0.0.50 eth0 INSTANCE web "$@"
}
expect_silence c c0 10.0.0.50 "before MASTER: 10.0.0.50 not answered"
out=$(notify MASTER 150 2>&1) || fail "MASTER: the script failed: $out"
expect_reply c c0 10.0.0.50 "$MAC0" "MASTER: 10.0.0.50 published, answered by eth0 alone"
expect_silence f f0 10.0.0.50 "MASTER: not answered on eth2"
out=$(notify MASTER 150 2>&1) || fail "a second MASTER failed: $out"
pass "a second MASTER (keepalived restarted): exit 0"
expect_reply c c0 10.0.0.50 "$MAC0" "after the second MASTER: still answered by eth0"
for s in BACKUP FAULT STOP DELETED; do
	out=$(notify MASTER 150 2>&1) || fail "MASTER before $s failed: $out"
	out=$(notify "$s" 2>&1) || fail "$s: the script failed: $out"
	expect_silence c c0 10.0.0.50 "$s: withdrawn, not answered once the script returned"
done
out=$(notify BACKUP 2>&1) || fail "BACKUP when nothing is published failed: $out"
pass "BACKUP with nothing published: exit 0"
rc=0; notify SOMETHING >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 64 "an unknown state: exit 64"
rc=0; ARPOWND_STATE_DIR=$TMPDIR_T/nowhere sh "$NOTIFY" 10.0.0.50 eth0 INSTANCE web MASTER \
	>/dev/null 2>"$TMPDIR_T/err" || rc=$?
[ "$rc" -ne 0 ] || fail "MASTER with no daemon: exit 0"
pass "MASTER with no daemon to ask: exit $rc ($(head -n 1 "$TMPDIR_T/err"))"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
