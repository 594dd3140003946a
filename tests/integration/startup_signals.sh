#!/bin/bash
# Signals during start-up (issue 7.8): with 800 interfaces to manage, a
# SIGHUP storm from the moment the daemon is launched must neither kill it
# (exit 129) nor leave it half-configured: it comes up, every interface at
# 8, and serves; a SIGTERM storm from launch must always end with every
# interface restored (never one left at 8).  Every loop is bounded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
need_netns
ns_new h
N=400	# veth pairs: 800 interfaces
for ((i = 0; i < N; i++)); do echo "link add s${i}a type veth peer name s${i}b"; done >"$TMPDIR_T/links"
ns h ip -batch "$TMPDIR_T/links" || fail "creating $((2 * N)) interfaces"
write_conf "[global]
log_level = notice"
at8() { ns h sh -c 'grep -l "^8$" /proc/sys/net/ipv4/conf/s*/arp_ignore 2>/dev/null | wc -l'; }
expect_eq "$(at8)" 0 "before: no interface at 8"

# held SIGNAL_NUMBER: does the daemon block that signal yet (SigBlk)?
held() {
	local m
	m=$(awk '/^SigBlk:/ { print $2 }' "/proc/$P/status" 2>/dev/null) || return 1
	[ -n "$m" ] && (((16#$m >> ($1 - 1)) & 1))
}

# launch NAME SIGNAL NUMBER: start the daemon and, from the moment it holds
# the signal (the first thing it does: before that the default action
# applies to any process), send SIGNAL every 2 ms until it logged READY
# ("started") or exited, at most 5 s; leaves the pid in $P.
launch() {
	local sig=$2 i
	bg_run h "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/$1.log" 2>&1
	P=$LAST_PID
	wait_for 5000 held "$3" || { cat "$TMPDIR_T/$1.log"; fail "the daemon never blocked SIG$sig"; }
	grep -q ' started: ' "$TMPDIR_T/$1.log" && fail "started before the first signal: the test proves nothing"
	for ((i = 0; i < 2500; i++)); do
		kill "-$sig" "$P" 2>/dev/null || break
		grep -q ' started: ' "$TMPDIR_T/$1.log" && break
		sleep 0.002
	done
}

launch hup HUP 1
_alive "$P" || { cat "$TMPDIR_T/hup.log"; fail "a SIGHUP during start-up killed the daemon"; }
wait_for 5000 grep -q ' started: ' "$TMPDIR_T/hup.log" || fail "not started after the SIGHUPs"
wait_for 5000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h sh -c 'grep -l \"^8\$\" /proc/sys/net/ipv4/conf/s*/arp_ignore | wc -l') -eq $((2 * N)) ]" ||
	fail "after a SIGHUP storm during start-up: $(at8) of $((2 * N)) interfaces at 8"
pass "SIGHUP storm during the start of $((2 * N)) interfaces: alive, all $((2 * N)) managed"
wait_for 3000 grep -q 'reloaded' "$TMPDIR_T/hup.log" || { cat "$TMPDIR_T/hup.log"; fail "no reload was carried out"; }
pass "the SIGHUPs were taken as reloads ($(grep -c reloaded "$TMPDIR_T/hup.log")) once started"
kill -TERM "$P"
rc=0; wait "$P" || rc=$?
expect_eq "$rc" 0 "clean stop"
expect_eq "$(at8)" 0 "stopped: every interface restored"

for try in 1 2 3 4 5; do
	launch "term$try" TERM 15
	wait_for 10000 sh -c "! kill -0 $P 2>/dev/null" || fail "SIGTERM storm: still running"
	rc=0; wait "$P" || rc=$?
	[ "$rc" = 0 ] || { cat "$TMPDIR_T/term$try.log"; fail "SIGTERM during start-up: exit $rc"; }
	expect_eq "$(at8)" 0 "SIGTERM storm during start-up, try $try (exit $rc): no interface left at 8"
done

# Any other signal whose default action would end the process stops it
# the clean way: restored first (outside systemd nothing else would).
for sig in USR2 ALRM QUIT; do
	launch "s$sig" "$sig" 1
	wait_for 10000 sh -c "! kill -0 $P 2>/dev/null" || fail "SIG$sig: still running"
	rc=0; wait "$P" || rc=$?
	expect_eq "$rc $(at8)" "0 0" "SIG$sig: a clean stop, every interface restored"
done
