#!/bin/bash
# --stopping (ExecStop, root) leaves a note for --restore (ExecStopPost,
# root): "this stop is for good, give the originals back".  The note is a
# file in the state directory, given to the directory's owner: the
# unprivileged daemon.  A daemon that turned hostile writes it itself,
# with the INVOCATION_ID it was started with (the same ExecStopPost's),
# and root's --restore after an ordinary restart gives the weak-host
# originals back instead of the strict mode (stop_leaves = strict): for
# the restart's gap, eth1 answers for eth0's address.  Root acted on what
# the daemon said.  About 4 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
ARPOWND_STOP_LEAVES=
write_conf "[global]"
# the unit's RuntimeDirectory=: the daemon's user owns it
chown "$ARPOWND_TEST_USER" "$ARPOWND_STATE_DIR"
arpownd_start h -c "$CONF"
inv=0123456789abcdef0123456789abcdef
# the daemon's uid writes the note (as a hostile daemon would)
setpriv --reuid="${ARPOWND_TEST_USER%%:*}" --regid="${ARPOWND_TEST_USER##*:}" --clear-groups \
	sh -c "printf %s $inv > '$ARPOWND_STATE_DIR/stopping'" || fail "the daemon's uid cannot write the note"
kill -KILL "$ARPOWND_PID"
arpownd_stop
ns h env INVOCATION_ID=$inv "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 1 "a restart's --restore after a note the daemon wrote: eth1 strict"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 alone"
# root's own note (what --stopping writes when systemd says the stop is
# for good) still gives the originals back
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
arpownd_stop
printf %s $inv >"$ARPOWND_STATE_DIR/stopping"
ns h env INVOCATION_ID=$inv "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "root's note: the originals back"
