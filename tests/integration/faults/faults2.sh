#!/bin/bash
# More of the fault matrix: renames into and out of the interface globs,
# and a read-only /proc/sys (a container), where the rtnetlink path works.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd unshare
seed_net
sysctl_set h eth2 arp_ignore 1
write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 8 "eth2 managed"

ns h ip link set eth2 down
ns h ip link set eth2 name wan0
ns h ip link set wan0 up
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/wan0/arp_ignore) = 1 ]" ||
	fail "renamed out of the globs: original not restored ($(sysctl_get h wan0 arp_ignore))"
pass "eth2 renamed wan0 (out of eth*): its original arp_ignore=1 is back"
saved_originals | grep -Eq '^(eth2|wan0) ' && fail "record kept for an unmanaged interface"
pass "and its record is gone from the state file"
ask f f0 10.1.0.1
[ "$NREPLY" = 1 ] || fail "wan0: the kernel should answer again (arp_ignore=1), got $NREPLY"
pass "wan0 is the kernel's again: its own address answered"

ns h ip link set wan0 down
ns h ip link set wan0 name eth2
ns h ip link set eth2 up
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth2/arp_ignore) = 8 ]" ||
	fail "renamed back into the globs: not managed"
saved_originals | grep -q '^eth2 arp_ignore=1' || fail "original not recorded as 1"
pass "renamed back to eth2: managed again, original recorded as 1"
# a managed interface renamed within the globs keeps its record
ns h ip link set eth1 down
ns h ip link set eth1 name eth9
ns h ip link set eth9 up
follows() { saved_originals | grep -q '^eth9 arp_ignore=0'; }
wait_for 3000 follows || fail "record did not follow the rename: $(saved_originals)"
expect_eq "$(sysctl_get h eth9 arp_ignore)" 8 "eth1 renamed eth9 (still in eth*): still managed, record follows"
arpownd_stop
expect_eq "$(sysctl_get h eth2 arp_ignore) $(sysctl_get h eth9 arp_ignore)" "1 0" "stop: originals back"

# Read-only /proc/sys: sysctls go over rtnetlink, which still works.
inner=$TMPDIR_T/ro.sh
cat >"$inner" <<INNER
mount -o bind,ro /proc/sys /proc/sys || exit 3
if sh -c 'echo 1 > /proc/sys/net/ipv4/conf/eth0/arp_ignore' 2>/dev/null; then exit 4; fi
touch "$TMPDIR_T/ro-ok"
exec "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR"
INNER
bg_run h unshare -m --propagation private sh "$inner" >>"$TMPDIR_T/arpownd.log" 2>&1
ro=$LAST_PID
wait_for 5000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth0/arp_ignore) = 8 ]" ||
	fail "read-only /proc/sys: arp_ignore not set"
[ -e "$TMPDIR_T/ro-ok" ] || fail "/proc/sys was writable in the test's mount namespace"
pass "read-only /proc/sys: arp_ignore set over rtnetlink"
expect_reply c c0 10.0.0.1 "$MAC0" "read-only /proc/sys: answering"
kill -TERM "$ro"
wait "$ro" || fail "read-only /proc/sys: unclean exit"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "read-only /proc/sys: restored at stop"
