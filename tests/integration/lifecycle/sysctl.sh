#!/bin/bash
# Sysctls: originals saved before the change and restored exactly; after a
# SIGKILL, --restore restores them; a restart after a crash keeps the true
# originals; conf/all is never written; unmanaged interfaces are untouched;
# a second instance changes nothing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
sysctl_set h eth1 arp_ignore 2
sysctl_set h eth0 arp_announce 1
sysctl_set h eth2 arp_announce 1
sysctl_set h all arp_ignore 1
vals() { echo "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth0 arp_announce)" \
	"$(sysctl_get h eth1 arp_ignore) $(sysctl_get h eth1 arp_announce)" \
	"$(sysctl_get h eth2 arp_ignore) $(sysctl_get h eth2 arp_announce)" \
	"$(sysctl_get h all arp_ignore) $(sysctl_get h all arp_announce)"; }
ORIG="0 1 2 0 0 1 1 0"
MANAGED="8 2 8 2 0 1 1 0"
expect_eq "$(vals)" "$ORIG" "preset values"
write_conf "[global]
interfaces = eth0 eth1"

arpownd_start h -c "$CONF"
expect_eq "$(vals)" "$MANAGED" "running: eth0/eth1 at 8/2, eth2 and all untouched"
expect_eq "$(saved_originals | tr '\n' ';')" \
	"eth0 arp_ignore=0 arp_announce=1;eth1 arp_ignore=2 arp_announce=0;" "originals on disk"
grep -q 'net.ipv4.conf.all.arp_ignore is 1' "$TMPDIR_T/arpownd.log" || fail "no warning about conf/all"
pass "warned that conf/all/arp_ignore is above 0"
expect_eq "$(ls -A "$ARPOWND_STATE_DIR" | tr "\n" " ")" "announced.0 announced.1 control lock originals.0 originals.1 published.0 published.1 published.log " \
	"the state directory holds the control socket, the lock and the slot files, nothing else"

# A second instance on the same state dir refuses and changes nothing.
cat "$ARPOWND_STATE_DIR"/originals.* >"$TMPDIR_T/orig.copy"
rc=0
ns h "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" 2>"$TMPDIR_T/second.err" || rc=$?
[ "$rc" -ne 0 ] || fail "second instance started"
grep -q 'another arpownd' "$TMPDIR_T/second.err" || fail "second instance: $(cat "$TMPDIR_T/second.err")"
cat "$ARPOWND_STATE_DIR"/originals.* | cmp -s - "$TMPDIR_T/orig.copy" || fail "second instance changed the state file"
expect_eq "$(vals)" "$MANAGED" "second instance refused (exit $rc) and changed nothing"

arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(vals)" "$ORIG" "SIGTERM: originals restored exactly (eth1 arp_ignore back to 2)"
expect_eq "$(saved_originals)" "" "no record left after a clean stop"

# SIGKILL leaves 8 behind; --restore (the unit's ExecStopPost) fixes it.
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"; wait "$ARPOWND_PID" 2>/dev/null || true; ARPOWND_PID=
expect_eq "$(vals)" "$MANAGED" "after SIGKILL the values stay set"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" || fail "--restore failed"
expect_eq "$(vals)" "$ORIG" "--restore after SIGKILL: originals back"
expect_eq "$(saved_originals)" "" "--restore left no record"
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" || fail "--restore with nothing saved"
pass "--restore with nothing saved is a no-op"

# start, SIGKILL, start, SIGTERM: the originals, never 8.
arpownd_start h -c "$CONF"
kill -KILL "$ARPOWND_PID"; wait "$ARPOWND_PID" 2>/dev/null || true; ARPOWND_PID=
arpownd_start h -c "$CONF"
grep -q 'did not stop cleanly' "$TMPDIR_T/arpownd.log" || fail "restart did not notice the crash"
expect_eq "$(saved_originals | wc -l)" 2 "restart kept the crashed run's record"
saved_originals | grep -q '^eth1 arp_ignore=2' || fail "restart recorded 8 as an original"
arpownd_stop
expect_eq "$(vals)" "$ORIG" "start, SIGKILL, start, SIGTERM: the originals, not 8"

# The record cannot be written: nothing is changed.
rm -f "$ARPOWND_STATE_DIR"/originals.*
mkdir "$ARPOWND_STATE_DIR/originals.0"
rc=0
ns h "$ARPOWND" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" 2>"$TMPDIR_T/ro.err" || rc=$?
[ "$rc" -ne 0 ] || fail "started with an unusable state file"
expect_eq "$(vals)" "$ORIG" "unusable state file: refused (exit $rc), nothing changed"
