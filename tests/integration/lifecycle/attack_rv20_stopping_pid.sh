#!/bin/bash
# arpownd --stopping signals the pid its environment names (MAINPID):
# root must not act on a pid it has not checked.  Here no daemon runs at
# all (the state directory's lock is free; the last one was SIGKILLed
# with stop_leaves = originals, so its records name no strict mode), and
# MAINPID names a process that is not arpownd (a root shell's "sleep", as
# a forged environment, a stale MAINPID or a pid reused would).  The
# takeover must not stop or kill it.  About 3 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
stop_leaves = originals"
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
arpownd_stop
grep -q 'leave=' "$ARPOWND_STATE_DIR"/originals.* && fail "the records name a strict mode"
# the next start's configuration: the default, strict
ARPOWND_STOP_LEAVES=
write_conf "[global]"
bg_run h sleep 30
victim=$LAST_PID
# no systemd here: a socket nobody listens on (never the host's)
ns h env MAINPID="$victim" INVOCATION_ID=0123456789abcdef0123456789abcdef \
	NOTIFY_SOCKET="$TMPDIR_T/nobody.sock" "$ARPOWND" --stopping -c "$CONF" \
	--state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/stopping.log" 2>&1 || true
cat "$TMPDIR_T/stopping.log"
state=$(awk '{print $3}' "/proc/$victim/stat" 2>/dev/null || echo gone)
case $state in
R|S|D) pass "pid $victim (sleep, not arpownd) left alone" ;;
*) fail "arpownd --stopping signalled pid $victim, which is no arpownd (state: $state)" ;;
esac
