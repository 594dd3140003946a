#!/bin/bash
# contrib/keepalived/arpownd-notify, driven as keepalived drives it
# (ADDR IFACE, then TYPE NAME STATE [PRIORITY]) against a running daemon:
# MASTER publishes the VIP on eth0 (answered with eth0's MAC, from eth0
# only), a second MASTER is no error (keepalived restarted), BACKUP,
# FAULT, STOP and DELETED withdraw it (never answered once the script returns),
# a second BACKUP is no error; an unknown state is a usage error.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
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

# Overlapping entries (issue 19, point 11): a [publish] section covers the
# VIP on eth1.  arpownctl publish 10.0.0.50 eth0 is refused (the /29
# publishes it already) and "published 10.0.0.50" finds the /29: MASTER
# used to exit 0 while eth1 answered the VIP.  It must say that the VIP
# is answered from eth1, not eth0, and fail.
write_conf "[global]
[publish web]
addresses = 10.0.0.48/29
interface = eth1"
arpownd_start h -c "$CONF"
rc=0
notify MASTER 150 >/dev/null 2>"$TMPDIR_T/err" || rc=$?
expect_reply c c0 10.0.0.50 "$MAC1" "the VIP, covered by [publish web] on eth1: answered by eth1"
[ "$rc" != 0 ] || fail "MASTER exited 0 while eth1, not eth0, answers the VIP"
grep -q 'eth1' "$TMPDIR_T/err" && grep -q 'web' "$TMPDIR_T/err" ||
	fail "MASTER failed ($rc) without naming eth1 and the entry: $(cat "$TMPDIR_T/err")"
pass "MASTER with the VIP answered from eth1: exit $rc, $(head -n 1 "$TMPDIR_T/err")"
arpownd_stop
# the same section on eth0 itself: the VIP is answered from eth0, as
# keepalived wants (the runtime publish is refused all the same)
write_conf "[global]
[publish web]
addresses = 10.0.0.48/29
interface = eth0"
arpownd_start h -c "$CONF"
out=$(notify MASTER 150 2>&1) || fail "MASTER with the VIP in [publish web] on eth0 failed: $out"
pass "MASTER with the VIP answered from eth0 by a covering section: exit 0"
expect_reply c c0 10.0.0.50 "$MAC0" "the VIP answered by eth0"
ns h ip link set eth0 down
rc=0
notify MASTER 150 >/dev/null 2>"$TMPDIR_T/err" || rc=$?
[ "$rc" != 0 ] || fail "MASTER exited 0 with eth0 down"
pass "MASTER with eth0 down: exit $rc, $(head -n 1 "$TMPDIR_T/err")"
ns h ip link set eth0 up
# a glob that covers eth0 and eth1 alike: not from eth0 alone
write_conf "[global]
[publish web]
addresses = 10.0.0.48/29
interface = eth*"
kill -HUP "$ARPOWND_PID"
wait_for 3000 sh -c "grep -c 'READY=1' '$TMPDIR_T/notify.log' | grep -q 2" || fail "no reload"
rc=0
notify MASTER 150 >/dev/null 2>"$TMPDIR_T/err" || rc=$?
[ "$rc" != 0 ] || fail "MASTER exited 0 while [publish web] on eth* answers the VIP on every eth*"
pass "MASTER with the VIP in a section on eth*: exit $rc, $(head -n 1 "$TMPDIR_T/err")"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
