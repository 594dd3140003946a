#!/bin/bash
# Signals during start-up: with 800 interfaces to manage, a
# SIGHUP storm from the moment the daemon is launched must neither kill it
# (exit 129) nor leave it half-configured: it comes up, every interface at
# 8, and serves; a SIGTERM storm from launch must always end with every
# interface restored (never one left at 8).  Every loop is bounded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
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
# Builtins only: start-up takes some 50 ms, a fork per look would miss it.
held() {
	local k v
	while read -r k v; do
		[ "$k" = SigBlk: ] || continue
		[ -n "$v" ] && (((16#$v >> ($1 - 1)) & 1))
		return
	done <"/proc/$P/status" 2>/dev/null
	return 1
}
stopped() {
	local s
	s=$(cat "/proc/$P/stat" 2>/dev/null) || return 1
	s=${s##*) }
	[ "${s%% *}" = T ]
}

# launch NAME SIGNAL NUMBER: start the daemon and, from the moment it holds
# the signal (the first thing it does: before that the default action
# applies to any process), send SIGNAL again and again until it logged READY
# ("started") or exited; leaves the pid in $P and the count in $SENT.  The daemon is
# launched stopped (a shell that stops itself, then execs it) so that the
# watch for SigBlk runs from its first instruction; should the watch still
# miss the start-up (a loaded machine), that daemon is stopped and launched
# again, up to 5 times.
launch() {
	local sig=$2 i try
	for try in 1 2 3 4 5; do
		bg_run h sh -c 'kill -STOP $$; exec "$@"' sh \
			"$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/$1.log" 2>&1
		P=$LAST_PID
		wait_for 2000 stopped || fail "the launcher did not stop itself"
		kill -CONT "$P"
		for ((i = 0; i < 200000; i++)); do
			held "$3" && break
			((i % 1000)) || _alive "$P" || break
		done
		if held "$3" && ! grep -q ' started: ' "$TMPDIR_T/$1.log"; then
			break
		fi
		# missed: it unblocks the signals a moment before it logs
		# "started", so give it that moment before calling it a failure
		wait_for 5000 logged_started "$TMPDIR_T/$1.log" ||
			{ cat "$TMPDIR_T/$1.log"; fail "the daemon never blocked SIG$sig"; }
		echo "# try $try: started before the first signal could be sent; again" >&2
		kill -TERM "$P" 2>/dev/null
		wait "$P" 2>/dev/null || true
		[ "$try" -lt 5 ] || fail "started before the first signal five times: the test proves nothing"
	done
	# builtins only, as fast as the shell goes (a few microseconds a
	# signal), at most 20,000; the log is looked at every 50
	SENT=0
	for ((i = 0; i < 20000; i++)); do
		kill "-$sig" "$P" 2>/dev/null || break
		SENT=$((SENT + 1))
		((i % 50)) || ! logged_started "$TMPDIR_T/$1.log" || break
	done
}
logged_started() {
	local l
	while read -r l; do
		[[ $l != *" started: "* ]] || return 0
	done <"$1"
	return 1
}

launch hup HUP 1
_alive "$P" || { cat "$TMPDIR_T/hup.log"; fail "a SIGHUP during start-up killed the daemon"; }
wait_for 5000 grep -q ' started: ' "$TMPDIR_T/hup.log" || fail "not started after the SIGHUPs"
wait_for 5000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h sh -c 'grep -l \"^8\$\" /proc/sys/net/ipv4/conf/s*/arp_ignore | wc -l') -eq $((2 * N)) ]" ||
	fail "after a SIGHUP storm during start-up: $(at8) of $((2 * N)) interfaces at 8"
pass "SIGHUP storm ($SENT sent) during the start of $((2 * N)) interfaces: alive, all $((2 * N)) managed"
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
	expect_eq "$(at8)" 0 "SIGTERM storm during start-up, try $try ($SENT sent, exit $rc): no interface left at 8"
done

# Any other signal whose default action would end the process stops it
# the clean way: restored first (outside systemd nothing else would).
for sig in USR2 ALRM QUIT; do
	launch "s$sig" "$sig" 1
	wait_for 10000 sh -c "! kill -0 $P 2>/dev/null" || fail "SIG$sig: still running"
	rc=0; wait "$P" || rc=$?
	expect_eq "$rc $(at8)" "0 0" "SIG$sig: a clean stop, every interface restored"
done
