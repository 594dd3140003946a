#!/bin/bash
# Under an event storm, a request that arrived after the kernel
# acknowledged an address delete is never answered: the
# daemon is stopped (SIGSTOP), N addresses are added, 10.0.0.1 is deleted
# (ip returns after the kernel's ACK), a request for it is sent, and only
# then the daemon continues.  The events queued before the frame must be
# applied before the frame is decided, whatever their number: 300, 3,000,
# and 3,000 with a receive buffer small enough to overrun (ENOBUFS: the
# re-dump must show the delete too).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"

storm() {
	local n=$1 what=$2 i out
	ns h ip addr replace 10.0.0.1/24 dev eth0
	expect_reply c c0 10.0.0.1 "$MAC0" "$what: 10.0.0.1 answered before the storm"
	for ((i = 0; i < n; i++)); do
		echo "addr add 10.77.$((i / 250)).$((i % 250 + 1))/32 dev eth2"
	done >"$TMPDIR_T/batch"
	kill -STOP "$ARPOWND_PID"
	ns h ip -batch "$TMPDIR_T/batch" || fail "adding $n addresses"
	# returns once the kernel acknowledged it: from now on 10.0.0.1 is not ours
	ns h ip addr del 10.0.0.1/24 dev eth0 || fail "deleting 10.0.0.1"
	bg_run c "$ARPC" -q -i c0 -c 1 -w 2500 -t 4000 10.0.0.1
	local cl=$LAST_PID
	# the request is on the wire (in the daemon's capture ring) before it runs
	sleep 0.3
	kill -CONT "$ARPOWND_PID"
	wait "$cl" && fail "$what: 10.0.0.1 answered after its delete was acknowledged"
	pass "$what: the request that came after the delete's ACK was not answered"
	# the storm itself was applied: the last address added is answered
	expect_reply f f0 "10.77.$(((n - 1) / 250)).$(((n - 1) % 250 + 1))" "$MAC2" \
		"$what: an address from the storm is answered afterwards"
	ns h ip -batch <(sed 's/^addr add/addr del/' "$TMPDIR_T/batch") || fail "cleanup of $n addresses"
}

arpownd_start h -c "$CONF"
storm 300 "300 queued events"
storm 3000 "3,000 queued events"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

ARPOWND_FAULTS="NLBUF=16384" arpownd_start h -c "$CONF"
storm 3000 "3,000 events overrunning a 16 KiB buffer"
grep -q 'event queue overrun' "$TMPDIR_T/arpownd.log" || fail "no overrun was provoked: the case tested nothing"
pass "the overrun happened and was re-dumped"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
