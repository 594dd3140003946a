#!/bin/bash
# A killed feeder, and the clean-up after it:
#  - SIGKILL leaves the TC filter, and with it the program and its maps,
#    in place (nothing is pinned: the filter holds them);
#  - it answers nothing from then on: its liveness socket died with the
#    process (and so did its netlink watcher);
#  - kp_purge (for arpownd --restore) removes every arpownd filter from
#    every interface of the namespace, and the program goes with them;
#    a filter of someone else's on the same hook stays;
#  - a fresh start removes a stale filter and attaches its own (one
#    filter, the new program, answering);
#  - a clean stop removes its filter and nothing else: the clsact qdisc,
#    made or found, stays (deleting it would delete every filter in it).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need
need_cmd bpftool

pair_net
veth h hw c cw
addr_add h hw 10.2.0.1/24
addr_add c cw 10.2.0.100/24
silence h hv hw

prog_ids() {
	ns h tc filter show dev "$1" ingress | sed -n 's/.* arpownd_answer:\[\([0-9]*\)\].*/\1/p'
}

kp_start h hv hw
expect_reply c cv 10.0.0.1 "$(mac_of h hv)" "running: answered"
id=$(prog_ids hv)
[ -n "$id" ] || fail "no arpownd filter on hv: $(ns h tc filter show dev hv ingress)"
kill -KILL "$KP_PID"
wait "$KP_PID" 2>/dev/null
KP_PID=
expect_eq "$(prog_ids hv)" "$id" "SIGKILL: the filter stays, with program $id"
bpftool prog show id "$id" >/dev/null 2>&1 || fail "program $id gone with the process"
pass "SIGKILL: program $id still loaded (the filter holds it)"
expect_silence c cv 10.0.0.1 "SIGKILL: the stale program answers nothing (its liveness socket is gone)"
expect_silence c cw 10.2.0.1 "SIGKILL: nor on the second interface"

# someone else's filter on the same hook
ns h tc filter add dev hv ingress prio 7 bpf bytecode '1,6 0 0 0,' || fail "a foreign filter"
out=$(ns h "$KPTEST" --purge)
expect_eq "$out" "purged 2" "kp_purge: both interfaces' filters removed"
[ -z "$(prog_ids hv)$(prog_ids hw)" ] || fail "an arpownd filter is left"
ns h tc filter show dev hv ingress | grep -q "pref 7 bpf" || fail "kp_purge removed someone else's filter"
pass "kp_purge: the foreign filter stays"
wait_for 2000 sh -c "! bpftool prog show id $id >/dev/null 2>&1" || fail "program $id still loaded after the purge"
pass "kp_purge: program $id unloaded with its last filter"
out=$(ns h "$KPTEST" --purge)
expect_eq "$out" "purged 0" "kp_purge again: nothing left to remove"

# a fresh start over a stale filter
kp_start h hv
old=$(prog_ids hv)
kill -KILL "$KP_PID"
wait "$KP_PID" 2>/dev/null
KP_PID=
kp_start h hv
new=$(prog_ids hv)
[ -n "$new" ] && [ "$new" != "$old" ] || fail "restart: filter not replaced ($old -> $new)"
expect_eq "$(ns h tc filter show dev hv ingress | grep -c 'arpownd_answer')" 1 \
	"restart: one arpownd filter (program $old replaced by $new)"
expect_reply c cv 10.0.0.1 "$(mac_of h hv)" "restart: the new program answers"
kp_stop
[ -z "$(prog_ids hv)" ] || fail "clean stop left a filter"
ns h tc qdisc show dev hv | grep -q clsact || fail "clean stop removed a clsact qdisc"
pass "clean stop: our filter gone, the clsact qdisc (with the foreign filter) kept"
ns h tc qdisc del dev hv clsact
kp_start h hv
kp_stop
[ -z "$(prog_ids hv)" ] || fail "clean stop left a filter"
ns h tc qdisc show dev hv | grep -q clsact || fail "clean stop removed the clsact qdisc it made"
pass "clean stop: the clsact qdisc it made stays (empty: its hook is off), our filter gone"
