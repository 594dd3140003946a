#!/bin/bash
# arpownd does not ignore SIGPIPE.  Outside systemd its log goes to stderr,
# which is often a pipe (runit/s6/daemontools log services, a container
# runtime, "arpownd -d | logger", "| tee").  When the reader goes away
# (a log service restarted, head(1), a full disk killing tee), the next log
# line raises SIGPIPE and the kernel's default action kills the daemon on
# the spot: no restore, every managed interface stays at arp_ignore = 8 and
# nobody answers - deaf, with no ExecStopPost to save it.  Expected: SIGPIPE
# ignored (EPIPE on stderr is no reason to stop), the daemon keeps
# answering, and a SIGTERM still restores.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
_ns_full h
FIFO=$TMPDIR_T/log.fifo
mkfifo "$FIFO"
# the log reader: takes the first line, then goes away
head -n 1 <"$FIFO" >/dev/null &
_track $!
bg_run h "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" 2>"$FIFO"
P=$LAST_PID
wait_for 5000 sh -c "[ \$(ip netns exec $_NSF cat /proc/sys/net/ipv4/conf/eth0/arp_ignore) = 8 ]" ||
	fail "arpownd did not start"
pass "arpownd started, its stderr a pipe whose reader is gone"
# something to log
ns h ip addr add 10.0.0.9/24 dev eth0
kill -USR1 "$P" 2>/dev/null || true
sleep 1
if ! _alive "$P"; then
	rc=0
	wait "$P" 2>/dev/null || rc=$?
	fail "arpownd died (status $rc, 141 = SIGPIPE) when its log reader went away; eth0 left at arp_ignore=$(sysctl_get h eth0 arp_ignore), eth1 at $(sysctl_get h eth1 arp_ignore)"
fi
expect_reply c c0 10.0.0.1 "$MAC0" "still answering after the log reader went away"
kill -TERM "$P"
wait "$P" 2>/dev/null || true
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "SIGTERM: eth0 restored"
