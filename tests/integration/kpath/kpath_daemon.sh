#!/bin/bash
# The daemon's own kernel answer path (answer_path = kernel), over its
# life, on the seed's host (eth0 10.0.0.1, eth1 10.0.0.2, eth2 10.1.0.1):
#  - the program is on each managed interface, status says "kernel", and
#    an answer comes from it (no capture line for it with -d);
#  - an address added is answered within 1 s by its NIC alone, by the
#    program itself half a second later, and not once after its delete;
#  - publish and withdraw reach the program: answered, then never again
#    once withdraw returned;
#  - a reload to answer_path = capture takes the program off (the capture
#    path answers the same), and a reload back puts it on again;
#  - SIGKILL: the filter stays but its program answers nothing (the
#    liveness socket died with the daemon); arpownd --restore removes
#    every filter and the sysctls, and the kernel answers again;
#  - a start over a stale filter replaces it: one filter, answering;
#  - a clean stop leaves no filter of ours; the clsact qdiscs stay (it
#    never deletes one: that would delete every filter in it); someone
#    else's clsact qdisc and filter on eth2 stay through all of it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net

# filters IF: how many arpownd filters at IF's ingress
filters() { ns h tc filter show dev "$1" ingress 2>/dev/null | grep -c 'arpownd_answer'; }
all_filters() { echo "$(filters eth0)$(filters eth1)$(filters eth2)"; }
# filters_are WANT: for wait_for, which runs its command each round
filters_are() { [ "$(all_filters)" = "$1" ]; }
clsact() { ns h tc qdisc show dev "$1" | grep -c clsact; }
foreign() { ns h tc filter show dev eth2 ingress 2>/dev/null | grep -c 'pref 7 bpf.*handle'; }
capture_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }

# someone else's: a clsact qdisc and a filter on eth2, before we come
ns h tc qdisc add dev eth2 clsact || fail "tc qdisc add dev eth2 clsact"
ns h tc filter add dev eth2 ingress pref 7 bpf bytecode '1,6 0 0 0,' || fail "tc filter add (classic BPF, matching nothing)"

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"
expect_eq "$(all_filters)" 111 "the program on eth0, eth1 and eth2"
expect_eq "$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")" \
	"eth0=kernel eth1=kernel eth2=kernel" "status: every interface answered by the kernel path"
before=$(capture_lines eth0 10.0.0.1)
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 alone"
expect_eq "$(capture_lines eth0 10.0.0.1)" "$before" "that answer came from the program (no capture line for it)"
expect_silence f f0 10.0.0.1 "the outside cannot probe the inside 10.0.0.1"
rep=$(ctl_get counters "d['all']['replies']")
[ "${rep:-0}" -ge 1 ] || fail "the program's reply is not in the counters (replies ${rep:-0})"
pass "the program's reply is counted ($rep)"

# an address added and deleted
ns h ip addr add 10.0.0.9/24 dev eth0
_now_ms
t0=$_NOW_MS
ok=
while :; do
	ask c c0 10.0.0.9 -w 50
	_now_ms
	if [ "$MACS" = "$MAC0" ]; then ok=1; break; fi
	[ $((_NOW_MS - t0)) -lt 1000 ] || break
done
[ -n "$ok" ] || fail "an added address is not answered by eth0 within 1 s (last: '$MACS')"
pass "an added address answered by eth0 within $((_NOW_MS - t0)) ms (the first request after the add)"
# and from the program, not only the capture path behind it: its grant
# may go in before the watcher saw the address (another socket of the
# same netlink broadcast); it is written again within half a second
sleep 0.6
before=$(capture_lines eth0 10.0.0.9)
expect_reply c c0 10.0.0.9 "$MAC0" "the added address answered by eth0 alone again"
expect_eq "$(capture_lines eth0 10.0.0.9)" "$before" "the added address answered by the program (no capture line)"
ns h ip addr del 10.0.0.9/24 dev eth0
expect_silence c c0 10.0.0.9 "a deleted address is not answered"

# publish and withdraw
out=$(ctl publish 10.0.0.50 eth1 2>&1) || fail "publish 10.0.0.50 eth1: $out"
before=$(capture_lines eth1 10.0.0.50)
expect_reply c c0 10.0.0.50 "$MAC1" "published 10.0.0.50 answered by eth1 alone"
expect_eq "$(capture_lines eth1 10.0.0.50)" "$before" "the published address answered by the program"
out=$(ctl withdraw 10.0.0.50 2>&1) || fail "withdraw 10.0.0.50: $out"
expect_silence c c0 10.0.0.50 "withdrawn: never answered after withdraw returned"

# reload: capture, then kernel again
write_conf "[global]
interfaces = eth*
answer_path = capture"
kill -HUP "$ARPOWND_PID"
wait_for 3000 filters_are 000 || fail "reload to capture: filters $(all_filters) left"
pass "reload to answer_path = capture: the program is off every interface"
before=$(capture_lines eth0 10.0.0.1)
expect_reply c c0 10.0.0.1 "$MAC0" "capture: 10.0.0.1 answered by eth0 alone"
[ "$(capture_lines eth0 10.0.0.1)" -gt "$before" ] || fail "capture: the answer was not the daemon's"
write_conf "[global]
interfaces = eth*
answer_path = kernel"
kill -HUP "$ARPOWND_PID"
wait_for 3000 filters_are 111 || fail "reload back to kernel: filters $(all_filters)"
pass "reload back to answer_path = kernel: the program is on again"
expect_reply c c0 10.0.0.2 "$MAC1" "kernel again: 10.0.0.2 answered by eth1 alone"

# SIGKILL, then --restore
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
expect_eq "$(all_filters)" 111 "SIGKILL: the filters stay (nothing else removes them)"
expect_silence c c0 10.0.0.1 "SIGKILL: the stale program answers nothing, and the kernel is at arp_ignore 8"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore failed"
expect_eq "$(all_filters)" 000 "--restore: no arpownd filter left"
expect_eq "$(clsact eth2) $(foreign)" "1 1" "--restore: someone else's clsact and filter on eth2 stay"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "--restore: eth0's arp_ignore back"
ask c c0 10.0.0.1
[[ ,$MACS, == *,$MAC0,* ]] || fail "after --restore the kernel does not answer 10.0.0.1 from eth0 ('$MACS')"
pass "after --restore the kernel answers 10.0.0.1 again"

# a start over a stale filter
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"
wait "$ARPOWND_PID" 2>/dev/null
ARPOWND_PID=
arpownd_start h -c "$CONF"
expect_eq "$(all_filters)" 111 "a start over stale filters: one filter each"
expect_reply c c0 10.0.0.1 "$MAC0" "a start over stale filters: answered by eth0 alone"

# a clean stop
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
expect_eq "$(all_filters)" 000 "stop: no filter left"
expect_eq "$(clsact eth2) $(foreign)" "1 1" "stop: someone else's clsact and filter on eth2 stay"
ask c c0 10.0.0.1
[[ ,$MACS, == *,$MAC0,* ]] || fail "after stop the kernel does not answer 10.0.0.1 from eth0 ('$MACS')"
pass "after stop the kernel answers 10.0.0.1"
