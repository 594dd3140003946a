#!/bin/bash
# A start removes the kernel answer path filters a killed run left, on
# either answer path, and says so in one line: a kernel-path daemon
# SIGKILLed leaves one filter per interface (answering nothing: its
# liveness socket died with it); the next start, with answer_path =
# capture, removes them all (only arpownd's: an admin's filter on eth2
# stays), and its clean stop leaves none.  Before, only --restore did.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
ours() { local i; for i in eth0 eth1 eth2; do ns h tc filter show dev "$i" ingress 2>/dev/null | grep -c 'arpownd_answer'; done | tr -d '\n'; }
foreign() { ns h tc filter show dev eth2 ingress 2>/dev/null | grep -c 'pref 7 bpf.*handle'; }
ns h tc qdisc add dev eth2 clsact || fail "tc qdisc add dev eth2 clsact"
ns h tc filter add dev eth2 ingress pref 7 bpf bytecode '1,6 0 0 0,' || fail "an admin's filter on eth2"

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
expect_eq "$(ours)" 111 "SIGKILL: the kernel path's filters stay, one per interface"

write_conf "[global]
interfaces = eth*
answer_path = capture"
arpownd_start h -c "$CONF"
expect_eq "$(ours)" 000 "a capture-path start removed the killed run's filters"
expect_eq "$(foreign)" 1 "and left the admin's filter on eth2"
expect_eq "$(grep -c 'removed 3 kernel answer path filters a killed arpownd left' "$TMPDIR_T/arpownd.log")" 1 \
	"the start said so, in one line"
expect_reply c c0 10.0.0.1 "$MAC0" "the capture path answers 10.0.0.1 from eth0 alone"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
expect_eq "$(ours)$(foreign)" 0001 "after the clean stop: none of arpownd's, the admin's still there"

# a start with nothing to remove says nothing about it
arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$(grep -c 'kernel answer path filter.* a killed arpownd left' "$TMPDIR_T/arpownd.log")" 1 \
	"a start with no stale filter says nothing of them"
