#!/bin/bash
# The delete invariant on the in-kernel path: a request that arrives after
# the kernel acknowledged an address delete is never answered, even while
# the process feeding the maps is stopped (SIGSTOP) and its grants are
# stale.  The program holds grants for address-entry instances that the
# netlink watcher (a socket filter, run by the kernel while it notifies the
# delete, before the ACK) removes; nothing here depends on the feeder.
# Also: 300 and 3,000 rtnetlink events queued behind the delete change
# nothing (the check is synchronous), a re-added address is a new instance
# (not answered from the old grant), and a MAC change, a link bounce or
# becoming a bridge port while stopped is not answered from the old
# link's state.  Without the
# feeder stopped, bench/react's 20-us probe sees no reply after the ACK.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need

pair_net
ns h ip link add d0 type veth peer name d1 || fail "a second interface"
ns h ip link set d0 up
HMAC=$(mac_of h hv)
silence h hv
wait_for 3000 ns c "$ARPC" -q -i cv -w 100 -s 10.0.0.100 10.0.0.100 >/dev/null 2>&1 || true

answered() {
	ask c cv "$1"
	[ "$NREPLY" = 1 ]
}

# --- 1. SIGSTOPped feeder: 20 rounds of add, answered, stop, delete, ask
kp_start h hv
stopped_silent=0
for i in $(seq 20); do
	addr_add h hv 10.0.0.9/24
	wait_for 3000 answered 10.0.0.9 || fail "round $i: 10.0.0.9 not answered after the add"
	kill -STOP "$KP_PID"
	ns h ip addr del 10.0.0.9/24 dev hv || fail "delete"
	# the kernel has acknowledged the delete: ip has returned
	ask c cv 10.0.0.9
	[ "$NREPLY" = 0 ] || fail "round $i: 10.0.0.9 answered ($MACS) after its delete was acknowledged"
	stopped_silent=$((stopped_silent + 1))
	kill -CONT "$KP_PID"
done
pass "feeder stopped: $stopped_silent of 20 requests after the delete's ACK went unanswered"
kp_counters
[ "$(kp_c pass-unconfirmed)" -ge 20 ] || fail "expected >= 20 pass-unconfirmed: $KP_C"
pass "the program passed them up as unconfirmed ($(kp_c pass-unconfirmed))"

# --- 2. events queued behind the delete, the feeder stopped
storm() {
	local n=$1 j
	addr_add h hv 10.0.0.9/24
	wait_for 3000 answered 10.0.0.9 || fail "$n: 10.0.0.9 not answered before the storm"
	kill -STOP "$KP_PID"
	for j in $(seq "$n"); do
		echo "addr add 10.9.$((j / 250)).$((j % 250 + 1))/32 dev d0"
	done >"$TMPDIR_T/batch"
	ns h ip -batch "$TMPDIR_T/batch" || fail "adding $n addresses"
	ns h ip addr del 10.0.0.9/24 dev hv || fail "delete"
	ask c cv 10.0.0.9
	[ "$NREPLY" = 0 ] || fail "$n queued events: 10.0.0.9 answered after its delete"
	pass "$n events queued behind the delete, feeder stopped: not answered"
	kill -CONT "$KP_PID"
	ns h ip -batch <(sed 's/^addr add/addr del/' "$TMPDIR_T/batch") || fail "cleanup"
	# and it catches up: an address added now is answered
	addr_add h hv 10.0.0.8/24
	wait_for 5000 answered 10.0.0.8 || fail "$n: the feeder did not catch up"
	ns h ip addr del 10.0.0.8/24 dev hv
}
storm 300
storm 3000

# --- 3. a MAC change, a link bounce, the feeder stopped
addr_add h hv 10.0.0.9/24
wait_for 3000 answered 10.0.0.9 || fail "10.0.0.9 not answered"
kill -STOP "$KP_PID"
ns h ip link set hv address 02:00:00:00:0a:09 || fail "MAC change"
ask c cv 10.0.0.9
[ "$NREPLY" = 0 ] || fail "answered ($MACS) after a MAC change, the feeder stopped"
pass "MAC changed, feeder stopped: not answered with the old state"
kill -CONT "$KP_PID"
wait_for 3000 answered 10.0.0.9 || fail "not answered after the feeder caught up"
expect_eq "$MACS" "02:00:00:00:0a:09" "after it caught up: answered with the new MAC"
kill -STOP "$KP_PID"
ns h ip link set hv down
ns h ip link set hv up
ask c cv 10.0.0.9
[ "$NREPLY" = 0 ] || fail "answered after a link bounce, the feeder stopped"
pass "link down and up, feeder stopped: not answered from the old link's grant"
kill -CONT "$KP_PID"
wait_for 3000 answered 10.0.0.9 || fail "not answered after the bounce, the feeder running"
# made a bridge port while stopped: its frames are the bridge's now
ns h ip link add br9 type bridge || fail "bridge"
ns h ip link set br9 up
silence h br9	# else the kernel answers there, for hv's address (weak host)
kill -STOP "$KP_PID"
ns h ip link set hv master br9 || fail "enslave"
ask c cv 10.0.0.9
[ "$NREPLY" = 0 ] || fail "answered on a bridge port, the feeder stopped"
pass "made a bridge port, feeder stopped: not answered on the port"
kill -CONT "$KP_PID"
ns h ip link set hv nomaster
wait_for 3000 answered 10.0.0.9 || fail "not answered once released from the bridge"
ns h ip link del br9
ns h ip link set hv address "$HMAC"
ns h ip addr del 10.0.0.9/24 dev hv
kp_stop

# --- 4. a feeder that never follows: grants stale from the start
addr_add h hv 10.0.0.9/24
addr_add h hv 10.0.0.7/32
kp_start h --no-follow hv
wait_for 3000 answered 10.0.0.9 || fail "no-follow: 10.0.0.9 not answered at start"
ns h ip addr del 10.0.0.9/24 dev hv
ask c cv 10.0.0.9
[ "$NREPLY" = 0 ] || fail "no-follow: answered after the delete"
pass "no-follow: not answered after the delete"
addr_add h hv 10.0.0.9/24
ask c cv 10.0.0.9
[ "$NREPLY" = 0 ] || fail "no-follow: a re-added address answered from the old grant"
pass "no-follow: re-added, it is a new instance: not answered from the old grant"
# a /32 of its own: the same
ns h ip addr del 10.0.0.7/32 dev hv
ask c cv 10.0.0.7
[ "$NREPLY" = 0 ] || fail "no-follow: a /32 answered after its delete"
pass "no-follow: a /32 not answered after its delete"
kp_stop
ns h ip addr del 10.0.0.9/24 dev hv

# --- 5. running, probed every 20 us around 50 deletes (bench/react)
REACT=${top_builddir:-.}/tests/bench/react
if [ -x "$REACT" ]; then
	kp_start h hv
	idx=$(ns h cat /sys/class/net/hv/ifindex)
	out=$("$REACT" "${NS_PREFIX}h" "$idx" "${NS_PREFIX}c" cv 10.0.0.9/24 50) || fail "react: $out"
	del=$(sed -n 's/.*del_us p50 [0-9.]* max \([0-9.]*\).*/\1/p' <<<"$out")
	expect_eq "$del" "0.0" "running, 50 deletes probed every 20 us: no reply after an ACK ($out)"
	kp_stop
else
	echo "# tests/bench/react not built: the 20-us probe is skipped"
fi
