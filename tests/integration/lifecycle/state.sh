#!/bin/bash
# The saved originals across crashes, renames and hostile input: nothing recorded is ever left at 8 while its interface exists.
#   A. names the kernel allows but a naive file breaks on (v=1, #v2)
#   B. a crash, then a configuration that no longer manages an interface
#   C. an interface renamed while the daemon was down
#   D. --restore after a rename
#   E. a rename during an overrun re-dump (ifindex keys, never record 8)
#   F. a restore that fails at stop: exit 71, named; --restore finishes it
#   G. a state directory others could write, symlinks planted in it
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
kill9() { kill -KILL "$ARPOWND_PID"; wait "$ARPOWND_PID" 2>/dev/null || true; ARPOWND_PID=; }
restore() { ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1; }
ign() { sysctl_get h "$1" arp_ignore; }

# A. hostile names
ns h ip link add 'v=1' type veth peer name '#v2' || fail "veth v=1 / #v2"
ns h ip link set 'v=1' up
ns h ip link set '#v2' up
sysctl_set h 'v=1' arp_ignore 1
sysctl_set h '#v2' arp_ignore 2
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(ign 'v=1') $(ign '#v2')" "8 8" "A: v=1 and #v2 managed"
kill9
rc=0; restore || rc=$?
expect_eq "$rc" 0 "A: --restore after SIGKILL with names v=1 and #v2: exit 0"
expect_eq "$(ign 'v=1') $(ign '#v2') $(ign eth0)" "1 2 0" "A: both restored exactly, and the rest"
arpownd_start h -c "$CONF"
kill9
arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "A: a restart after a crash, then a stop: exit 0"
expect_eq "$(ign 'v=1') $(ign '#v2')" "1 2" "A: the originals, never 8"
ns h ip link del 'v=1'

# B. crashed with interfaces = *, restarted with interfaces = !eth0
sysctl_set h eth1 arp_ignore 2
arpownd_start h -c "$CONF"
kill9
expect_eq "$(ign eth0)" 8 "B: after SIGKILL eth0 is left at 8"
write_conf "[global]
interfaces = !eth0"
arpownd_start h -c "$CONF"
expect_eq "$(ign eth0)" 0 "B: restarted without eth0: its original restored at once"
grep -q 'eth0: not managed by this configuration; restored' "$TMPDIR_T/arpownd.log" ||
	fail "B: the restore at start is not logged"
saved_originals | grep -q '^eth0 ' && fail "B: eth0's record kept: $(saved_originals)"
expect_reply c c0 10.0.0.1 "$MAC0" "B: the kernel answers for eth0 again"
expect_eq "$(ign eth1)" 8 "B: eth1 still managed"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "B: clean stop"
expect_eq "$(ign eth0) $(ign eth1)" "0 2" "B: nothing left at 8"

# C. renamed while the daemon was down, out of the globs
write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
kill9
ns h ip link set eth1 down
ns h ip link set eth1 name lan1
ns h ip link set lan1 up
expect_eq "$(ign lan1)" 8 "C: eth1, renamed lan1 while the daemon was down, is at 8"
arpownd_start h -c "$CONF"
expect_eq "$(ign lan1)" 2 "C: restarted (interfaces = eth*): lan1 gets eth1's original back"
grep -q 'lan1: renamed from eth1' "$TMPDIR_T/arpownd.log" || fail "C: the rename is not logged"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "C: clean stop"
ns h ip link set lan1 down
ns h ip link set lan1 name eth1
ns h ip link set eth1 up

# D. --restore after a rename
arpownd_start h -c "$CONF"
kill9
ns h ip link set eth2 down
ns h ip link set eth2 name wan9
ns h ip link set wan9 up
restore || fail "D: --restore failed"
expect_eq "$(ign wan9)" 0 "D: --restore follows the ifindex: wan9 (was eth2) restored"
grep -q 'wan9 (was eth2): restored' "$TMPDIR_T/arpownd.log" || fail "D: --restore does not say what it restored"
ns h ip link set wan9 down
ns h ip link set wan9 name eth2
ns h ip link set eth2 up

# E. ea deleted and eb renamed ea while the daemon is stopped, during an
# event overrun: the re-dump must keep eb's original under its new name
veth h ea sw pea
veth h eb sw peb
sysctl_set h ea arp_ignore 1
sysctl_set h eb arp_ignore 2
write_conf "[global]"
ARPOWND_FAULTS="NLBUF=16384" arpownd_start h -c "$CONF"
expect_eq "$(ign ea) $(ign eb)" "8 8" "E: ea and eb managed"
kill -STOP "$ARPOWND_PID"
ns h ip link del ea
ns h ip link set eb down
ns h ip link set eb name ea
ns h ip link set ea up
for i in $(seq 0 2999); do echo "addr add 10.201.$((i / 250)).$((i % 250 + 1))/32 dev eth2"; done >"$TMPDIR_T/batch"
ns h ip -batch "$TMPDIR_T/batch"
kill -CONT "$ARPOWND_PID"
wait_for 5000 grep -q 'event queue overrun' "$TMPDIR_T/arpownd.log" || fail "E: no overrun: the case tested nothing"
sleep 0.5
saved_originals | grep -q '^ea arp_ignore=8' && fail "E: 8 saved as an original: $(saved_originals)"
saved_originals | grep -q '^ea arp_ignore=2' || fail "E: eb's original not kept under its new name: $(saved_originals)"
pass "E: after the re-dump the record of ea (formerly eb) holds eb's original 2"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "E: clean stop"
expect_eq "$(ign ea)" 2 "E: ea (formerly eb) back to 2, not 8"
ns h ip -batch <(sed 's/^addr add/addr del/' "$TMPDIR_T/batch")

# F. a restore the kernel refuses at stop: exit 71, the interface named
ARPOWND_FAULTS="RESTORE=eth2" arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$ARPOWND_RC" 71 "F: an interface left unrestored: exit 71"
grep -q 'eth2: cannot restore arp_ignore=0' "$TMPDIR_T/arpownd.log" || fail "F: the interface left is not named"
grep -q 'stopped; 1 interfaces could not be restored' "$TMPDIR_T/arpownd.log" || fail "F: no summary"
expect_eq "$(ign eth2) $(ign eth0)" "8 0" "F: only eth2 left at 8"
restore || fail "F: --restore failed"
expect_eq "$(ign eth2)" 0 "F: --restore gives eth2 back"
expect_eq "$(saved_originals)" "" "F: nothing left recorded"

# G. the state directory: others' or symlinked things are refused
S=$ARPOWND_STATE_DIR
chown 65534:65534 "$S"
rc=0; ns h "$ARPOWND" -c "$CONF" --state-dir "$S" 2>"$TMPDIR_T/g1.err" || rc=$?
[ "$rc" -ne 0 ] || fail "G: started on a directory owned by nobody"
grep -q "$S" "$TMPDIR_T/g1.err" || fail "G: the error does not name the directory: $(cat "$TMPDIR_T/g1.err")"
expect_eq "$(ign eth0)" 0 "G: a state directory owned by nobody: refused (exit $rc), nothing changed"
chown 0:0 "$S"
chmod 777 "$S"
rc=0; ns h "$ARPOWND" -c "$CONF" --state-dir "$S" 2>"$TMPDIR_T/g2.err" || rc=$?
[ "$rc" -ne 0 ] || fail "G: started on a world-writable directory"
expect_eq "$(ign eth0)" 0 "G: a world-writable state directory: refused (exit $rc)"
chmod 755 "$S"
echo precious >"$TMPDIR_T/target"
rm -f "$S/lock"
ln -s "$TMPDIR_T/target" "$S/lock"
rc=0; ns h "$ARPOWND" -c "$CONF" --state-dir "$S" 2>"$TMPDIR_T/g3.err" || rc=$?
[ "$rc" -ne 0 ] || fail "G: started with a symlink as its lock"
expect_eq "$(cat "$TMPDIR_T/target")" precious "G: lock -> a file elsewhere: refused (exit $rc), the file untouched"
rm -f "$S/lock" "$S"/originals.*
ln -s "$TMPDIR_T/target" "$S/originals.0"
rc=0; ns h "$ARPOWND" -c "$CONF" --state-dir "$S" 2>"$TMPDIR_T/g4.err" || rc=$?
[ "$rc" -ne 0 ] || fail "G: started with a symlink as a slot file"
expect_eq "$(cat "$TMPDIR_T/target") $(ign eth0)" "precious 0" \
	"G: originals.0 -> a file elsewhere: refused (exit $rc), the file untouched, nothing changed"
rm -f "$S/originals.0"
rc=0; restore || rc=$?
expect_eq "$rc" 0 "G: cleaned up, --restore runs"

# H. an interface already at 8 with nothing saved: 8 is never recorded as
# an original (it may be ours, from a record lost); the default is, with a
# warning
sysctl_set h eth2 arp_ignore 8
write_conf "[global]"
arpownd_start h -c "$CONF"
grep -q 'eth2: arp_ignore is 8 and no original was saved for it; recording 0' \
	"$TMPDIR_T/arpownd.log" || fail "H: no warning for eth2 found at 8"
saved_originals | grep -q '^eth2 arp_ignore=0' || fail "H: not recorded as the default: $(saved_originals)"
arpownd_stop
expect_eq "$(ign eth2)" 0 "H: found at 8 with no record: given the default (0) at stop, never left at 8"
