#!/bin/bash
# keepalived says BACKUP while arpownd is not running (a restart, an
# upgrade, a crash and Restart=on-failure): arpownd-notify's withdraw
# fails ("arpownd is not running"), and the entry stays in the state
# directory.  When arpownd comes back it publishes the VIP again from the
# saved runtime entries (pub_build -> state_published_load, daemon.c) and
# announces it: the BACKUP answers for, and claims with gratuitous ARP, an
# address the new MASTER holds.  Two hosts answer: what arpownd exists to
# prevent.  Now arpownd-notify falls back to arpownd --withdraw, which
# takes the entry out of the state dir under the daemon's lock: after
# BACKUP, whenever arpownd runs again, the VIP is neither answered nor
# announced; --withdraw beside a running daemon is refused (exit 75).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
NOTIFY=$(_abs "${top_builddir:-.}")/contrib/keepalived/arpownd-notify
notify() {
	ARPOWNCTL=$ARPOWNCTL ARPOWND=$ARPOWND ARPOWND_STATE_DIR=$ARPOWND_STATE_DIR \
		sh "$NOTIFY" 10.0.0.50 eth0 INSTANCE web "$@"
}
write_conf "[global]
interfaces = eth0 eth1 eth2"
arpownd_start h -c "$CONF"
out=$(notify MASTER 150 2>&1) || fail "MASTER: $out"
expect_reply c c0 10.0.0.50 "$MAC0" "MASTER: 10.0.0.50 answered"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "arpownd stopped (a restart, an upgrade)"
# the failover happens meanwhile: this host is BACKUP now
r=0; out=$(notify BACKUP 100 2>&1) || r=$?
expect_eq "$r" 0 "arpownd-notify BACKUP while arpownd is down: exit 0 ($out)"
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c.pcap" arp 2>"$TMPDIR_T/td.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td.err" || fail "tcpdump did not start"
arpownd_start h -c "$CONF"
sleep 0.5
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
n=$(tcpdump -r "$TMPDIR_T/c.pcap" -n -e 2>/dev/null | grep -c "$MAC0 > ff:ff:ff:ff:ff:ff, .* 10.0.0.50" || true)
ask c c0 10.0.0.50
echo "# after the restart: $n announcements of 10.0.0.50 from eth0; a request gets $NREPLY replies ($MACS)"
[ "$n" = 0 ] || fail "the BACKUP announced 10.0.0.50 after its restart ($n frames)"
[ "$NREPLY" = 0 ] || fail "the BACKUP answers 10.0.0.50 after its restart"
pass "BACKUP during the restart: 10.0.0.50 neither answered nor announced"
# --withdraw beside the running daemon: refused, the daemon's to do
out=$(notify MASTER 150 2>&1) || fail "MASTER again: $out"
r=0; "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" --withdraw 10.0.0.50 >"$TMPDIR_T/w.out" 2>&1 || r=$?
expect_eq "$r" 75 "arpownd --withdraw while arpownd runs: exit 75 ($(cat "$TMPDIR_T/w.out"))"
expect_reply c c0 10.0.0.50 "$MAC0" "and 10.0.0.50 is still published"
arpownd_stop
# down: a withdraw of what is not published says so
r=0; "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" --withdraw 10.0.0.99 >"$TMPDIR_T/w.out" 2>&1 || r=$?
expect_eq "$r" 65 "arpownd --withdraw of an address not published: exit 65"
