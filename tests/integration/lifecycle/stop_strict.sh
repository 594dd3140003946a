#!/bin/bash
# What a stop leaves, at the shipped default (stop_leaves = strict): each
# interface arpownd answered on in the kernel's own strict mode for its
# mode (arp_ignore 1 for owner, 2 for subnet), its arp_announce as it ran,
# so that between two processes, or after the last one, the kernel
# answers each address from its own NIC only and the outside cannot probe
# the inside.  The admin's originals stay saved and are never taken from
# a value arpownd set (8 or the strict one): a clean stop, a SIGKILL
# followed by --restore (the unit's ExecStopPost), a start that fails and
# a later start all keep them, and --restore=originals gives them back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
# true originals that are not the kernel's defaults
sysctl_set h eth1 arp_ignore 3
sysctl_set h eth1 arp_announce 1
ORIG="0/0 3/1 0/0"
pairs() {
	local i out=
	for i in eth0 eth1 eth2; do
		out+="$(sysctl_get h $i arp_ignore)/$(sysctl_get h $i arp_announce) "
	done
	echo "${out% }"
}
ARPOWND_STOP_LEAVES=	# the default, not the test suite's originals
write_conf "[global]
[interface e1]
match = eth1
mode = subnet"
grep -q stop_leaves "$CONF" && fail "the test's configuration names stop_leaves: $(cat "$CONF")"
STRICT="1/2 2/2 1/2"

# no reply from another NIC, and none from the outside: the kernel alone
strict_answers() {
	expect_reply c c0 10.0.0.1 "$MAC0" "$1: 10.0.0.1 answered by eth0 alone (the kernel, arp_ignore 1)"
	expect_reply c c0 10.0.0.2 "$MAC1" "$1: 10.0.0.2 answered by eth1 alone (the kernel, arp_ignore 2)"
	expect_silence f f0 10.0.0.1 "$1: the outside cannot probe the inside 10.0.0.1"
	expect_reply f f0 10.1.0.1 "$MAC2" "$1: 10.1.0.1 answered by eth2"
}

expect_eq "$(pairs)" "$ORIG" "before the start: the originals"
arpownd_start h -c "$CONF"
expect_eq "$(pairs)" "8/2 8/2 8/2" "running: arp_ignore 8"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(pairs)" "$STRICT" "clean stop: owner eth0, eth2 at 1, subnet eth1 at 2, arp_announce as it ran"
grep -q 'arp_ignore=3 arp_announce=1 leave=2' "$ARPOWND_STATE_DIR"/originals.* ||
	fail "clean stop: eth1's originals 3/1 are not saved: $(cat "$ARPOWND_STATE_DIR"/originals.*)"
pass "clean stop: the originals stay saved"
strict_answers "after a clean stop"

# the next start takes 1 and 2 for what they are: arpownd's, not originals
arpownd_start h -c "$CONF"
expect_eq "$(pairs)" "8/2 8/2 8/2" "started again: arp_ignore 8"
# SIGKILL: nothing of the daemon's stop runs; --restore is the ExecStopPost
kill -KILL "$ARPOWND_PID"
arpownd_stop
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore after SIGKILL: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
expect_eq "$(pairs)" "$STRICT" "SIGKILL + arpownd --restore: the strict mode"
strict_answers "after SIGKILL and --restore"

# a start that fails (a configuration error: exit 78) changes nothing:
# the strict mode stays, and so does --restore (the unit's ExecStopPost)
printf '[global]\nmode = bogus\n' >"$TMPDIR_T/bad.conf"
rc=0
ns h "$ARPOWND" -c "$TMPDIR_T/bad.conf" --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 || rc=$?
expect_eq "$rc" 78 "a start with a bad configuration fails (78)"
expect_eq "$(pairs)" "$STRICT" "after the failed start: the strict mode, nothing reopened"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore after the failed start"
expect_eq "$(pairs)" "$STRICT" "--restore after the failed start: the strict mode"

# the originals, given back on request
ns h "$ARPOWND" --restore=originals --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore=originals: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
expect_eq "$(pairs)" "$ORIG" "arpownd --restore=originals: the true originals, never 1, 2 or 8"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1
expect_eq "$(pairs)" "$ORIG" "a second --restore: nothing left to change"

# stop_leaves = originals: the stop gives them back itself
write_conf "[global]
stop_leaves = originals"
arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$(pairs)" "$ORIG" "stop_leaves = originals: the stop gives the originals back"
