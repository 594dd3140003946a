#!/bin/bash
# The service as systemd runs it: the unit verifies and is hardened
# (exposure <= 2.0), and the daemon run as the unit runs it -- a non-root
# user holding only CAP_NET_RAW and CAP_NET_ADMIN, no_new_privs, with a
# notify socket and a watchdog -- answers, reports READY / RELOADING /
# STOPPING / WATCHDOG in order and in time, and restores the sysctls.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd systemd-analyze setpriv

unit=$TMPDIR_T/arpownd.service
sed -e "s|@sbindir@|$(dirname "$ARPOWND")|g" -e "s|@bindir@|$(dirname "$ARPOWNCTL")|g" "${top_srcdir:-.}/systemd/arpownd.service.in" >"$unit"
systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify"
pass "systemd-analyze verify is clean"
score=$(systemd-analyze security --offline=yes "$unit" 2>&1 |
	sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "no exposure score"
echo "exposure score: $score"
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "exposure $score > 2.0"
pass "systemd-analyze security exposure $score <= 2.0"

seed_net
write_conf "[global]"
chmod 755 "$TMPDIR_T"
chown 65534:65534 "$ARPOWND_STATE_DIR"
chmod 644 "$CONF"
# the unit's identity: an unprivileged uid, exactly two capabilities
wrap=$TMPDIR_T/as-unit
cat >"$wrap" <<WRAP
#!/bin/sh
chmod 777 "$TMPDIR_T/notify.sock" 2>/dev/null
exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \\
	--inh-caps=-all,+net_raw,+net_admin --ambient-caps=-all,+net_raw,+net_admin \\
	--bounding-set=-all,+net_raw,+net_admin "$ARPOWND" "\$@"
WRAP
chmod 755 "$wrap"
export WATCHDOG_USEC=200000
ARPOWND=$wrap arpownd_start h -c "$CONF"
unset WATCHDOG_USEC
st=/proc/$ARPOWND_PID/status
expect_eq "$(awk '/^Uid:/ { print $2 }' "$st")" 65534 "runs as uid 65534"
expect_eq "$(awk '/^CapEff:/ { print $2 }' "$st")" 0000000000003000 "CapEff is CAP_NET_ADMIN + CAP_NET_RAW only"
expect_eq "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" 1 "no_new_privs set"
expect_reply c c0 10.0.0.1 "$MAC0" "unprivileged: 10.0.0.1 answered by eth0 alone"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "unprivileged: arp_ignore set over rtnetlink"
sleep 0.5
kill -HUP "$ARPOWND_PID"
wait_for 2000 sh -c "grep -c READY=1 '$TMPDIR_T/notify.log' | grep -q 2" || fail "no READY=1 after reload"
expect_reply c c0 10.0.0.2 "$MAC1" "after reload: still answering"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore)" "0 0" "sysctls restored by the unprivileged daemon"

cat "$TMPDIR_T/notify.log"
# order: READY, (WATCHDOG...), RELOADING, READY, ..., STOPPING
seq=$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(READY|RELOADING|STOPPING)=1$/) printf "%s ", $i }' "$TMPDIR_T/notify.log")
expect_eq "$seq" "READY=1 RELOADING=1 READY=1 STOPPING=1 " "notify order READY, RELOADING, READY, STOPPING"
n=$(grep -c 'WATCHDOG=1' "$TMPDIR_T/notify.log")
[ "$n" -ge 5 ] || fail "only $n WATCHDOG=1 in about a second at WATCHDOG_USEC=200000"
# pings at half the interval: 100 ms apart, never more than 200 ms
gap=$(awk '/WATCHDOG=1/ { if (p) { d = $1 - p; if (d > m) m = d } p = $1 } END { print m + 0 }' "$TMPDIR_T/notify.log")
[ "$gap" -le 200 ] || fail "watchdog gap $gap ms > WATCHDOG_USEC"
pass "$n WATCHDOG=1 pings, largest gap $gap ms (interval 200 ms)"
grep -q 'STATUS=answering ARP on 3 interfaces for 3 addresses' "$TMPDIR_T/notify.log" ||
	fail "no STATUS= line with the managed counts"
pass "STATUS= tells how many interfaces and addresses are managed"
