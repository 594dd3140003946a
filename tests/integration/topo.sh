# topo.sh — the seed's network, built in namespaces (sourced after lib.sh).
# shellcheck shell=bash
#
#   ns c (client, 10.0.0.100)  c0 ─┐
#                                  ├─ br0 in ns sw ── p0 ─ eth0 10.0.0.1/24 ┐
#                                  │                 └ p1 ─ eth1 10.0.0.2/24 ├ ns h (the host)
#   ns f (firewall side, 10.1.0.100) f0 ─────────────────── eth2 10.1.0.1/24 ┘
#
# Segment A is the bridge: eth0, eth1 and the client all see each other's
# broadcasts, as two NICs plugged into one switch do.

seed_net() {
	need_netns
	ns_new h
	ns_new sw
	ns_new c
	ns_new f
	bridge_new sw br0
	veth h eth0 sw p0
	veth h eth1 sw p1
	veth c c0 sw pc
	bridge_add sw br0 p0
	bridge_add sw br0 p1
	bridge_add sw br0 pc
	veth h eth2 f f0
	addr_add h eth0 10.0.0.1/24
	addr_add h eth1 10.0.0.2/24
	addr_add h eth2 10.1.0.1/24
	addr_add c c0 10.0.0.100/24
	addr_add f f0 10.1.0.100/24
	no_ipv6 h sw c f
	MAC0=$(mac_of h eth0)
	MAC1=$(mac_of h eth1)
	MAC2=$(mac_of h eth2)
	# the bridge forwards only once its ports are past learning
	ns sw ip link set br0 type bridge forward_delay 0 2>/dev/null || true
	wait_for 3000 _seg_ready || fail "segment A did not come up"
}

_seg_ready() {
	ns c "$ARPC" -q -i c0 -w 100 10.0.0.1 >/dev/null 2>&1
}

# no_ipv6 NS...: no IPv6 chatter on their links, only what the tests send
no_ipv6() {
	local n
	for n in "$@"; do
		ns "$n" sh -c 'for f in /proc/sys/net/ipv6/conf/*/disable_ipv6; do echo 1 > "$f"; done' 2>/dev/null || true
	done
}

# pair_net: h's hv (10.0.0.1/24) wired straight to c's cv (10.0.0.100/24),
# the client (the kernel path's tests and the benchmarks)
pair_net() {
	ns_new h
	ns_new c
	veth h hv c cv
	no_ipv6 h c
	addr_add h hv 10.0.0.1/24
	addr_add c cv 10.0.0.100/24
}

# peer_net: h's eth0 (10.0.0.1/24) wired straight to p's p0, where a
# test watches what the host sends (the announcement tests)
peer_net() {
	ns_new h
	ns_new p
	veth h eth0 p p0
	no_ipv6 h p
	addr_add h eth0 10.0.0.1/24
}

# ask NS IF TARGET [arpc args...]: prints the distinct replying MACs
# (comma-separated, empty for none) in $MACS and the reply count in $NREPLY.
ask() {
	local nsn=$1 ifn=$2 tgt=$3 out
	shift 3
	out=$(ns "$nsn" "$ARPC" -q -i "$ifn" -w 300 "$@" "$tgt" 2>&1) || true
	NREPLY=$(sed -n 's/^sent [0-9]* received \([0-9]*\).*/\1/p' <<<"$out")
	MACS=$(sed -n 's/^sent .* macs \([^ ]*\).*/\1/p' <<<"$out")
	[ -n "$NREPLY" ] || fail "arpc gave no summary: $out"
}

# expect_reply NS IF TARGET MAC MSG [arpc args]: exactly one reply, from MAC.
expect_reply() {
	local nsn=$1 ifn=$2 tgt=$3 mac=$4 msg=$5
	shift 5
	ask "$nsn" "$ifn" "$tgt" "$@"
	[ "$NREPLY" = 1 ] && [ "$MACS" = "$mac" ] ||
		fail "$msg: expected one reply from $mac, got $NREPLY from '$MACS'"
	pass "$msg"
}

# expect_silence NS IF TARGET MSG [arpc args]: no reply at all.
expect_silence() {
	local nsn=$1 ifn=$2 tgt=$3 msg=$4
	shift 4
	ask "$nsn" "$ifn" "$tgt" "$@"
	[ "$NREPLY" = 0 ] || fail "$msg: expected no reply, got $NREPLY from '$MACS'"
	pass "$msg"
}

# write_conf TEXT: the test's configuration file, path in $CONF.  Unless
# TEXT names a user, the daemon drops to $ARPOWND_TEST_USER, a uid:gid of
# its own that needs no passwd entry: the tests create no account on the
# machine, and the default user (arpownd) need not exist.
ARPOWND_TEST_USER=${ARPOWND_TEST_USER:-61999:61999}
write_conf() {
	CONF=$TMPDIR_T/arpownd.conf
	if grep -qE '^[[:space:]]*user[[:space:]]*=' <<<"$1"; then
		printf '%s\n' "$1" >"$CONF"
	elif grep -qx '\[global\]' <<<"$1"; then
		sed "0,/^\[global\]\$/s//[global]\nuser = $ARPOWND_TEST_USER/" <<<"$1" >"$CONF"
	else
		printf '[global]\nuser = %s\n%s\n' "$ARPOWND_TEST_USER" "$1" >"$CONF"
	fi
	# What a stop leaves: most tests were written to check that the
	# originals come back (stop_leaves = originals, which "systemctl
	# disable --now" and a package removal also give); the default
	# (strict) is tested where a test sets ARPOWND_STOP_LEAVES= (empty)
	# or names the key itself.
	if [ -n "${ARPOWND_STOP_LEAVES-originals}" ] && ! grep -q '^[[:space:]]*stop_leaves' "$CONF"; then
		sed -i "0,/^\[global\]\$/s//[global]\nstop_leaves = ${ARPOWND_STOP_LEAVES-originals}/" "$CONF"
	fi
	# ARPOWND_ANSWER_PATH=kernel: the same test on the kernel answer path
	# (tests/integration/kpath/*.sh), unless the test names a path itself
	if [ -n "${ARPOWND_ANSWER_PATH:-}" ] && ! grep -q '^[[:space:]]*answer_path' "$CONF"; then
		sed -i "0,/^\[global\]\$/s//[global]\nanswer_path = $ARPOWND_ANSWER_PATH/" "$CONF"
	fi
}
