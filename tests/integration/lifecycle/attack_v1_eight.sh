#!/bin/bash
# A saved original of arp_ignore = 8 is restored as such: deaf for good.
# The daemon never records 8 (original_ignore() substitutes the default
# and says why), but it believes a file that says 8.  Such files exist:
# the arpownd before the v2 format wrote "ea arp_ignore=8" after a rename
# during an overrun re-dump.  After
# the upgrade, the new daemon adopts that record, and its clean stop (and
# arpownd --restore, the unit's ExecStopPost) "restores" eth1 to 8: nobody
# answers for 10.0.0.2 again, and the stop says "every sysctl restored".
# Expected: an original of 8 is treated as start-up treats a link found at
# 8 with no record (the default for new interfaces, and a warning).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

v1() {
	printf '# arpownd: sysctl values found before arpownd changed them\neth1 arp_ignore=8 arp_announce=0\n' \
		>"$ARPOWND_STATE_DIR/originals"
	chmod 600 "$ARPOWND_STATE_DIR/originals"
	rm -f "$ARPOWND_STATE_DIR"/originals.[01]
	# what the old daemon's crash left: eth1 at 8
	sysctl_set h eth1 arp_ignore 8
}

# 1. the new daemon adopts the record, then stops cleanly
v1
write_conf "[global]"
arpownd_start h -c "$CONF"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "after a clean stop eth1 is not left at arp_ignore=8"
ask c c0 10.0.0.2
case $MACS in *"$MAC1"*) pass "the kernel answers for 10.0.0.2 again (eth1 among $MACS)" ;;
*) fail "eth1 does not answer for its 10.0.0.2: $NREPLY replies from $MACS" ;; esac

# 2. arpownd --restore (ExecStopPost) on the same file
v1
rc=0
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 || rc=$?
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "arpownd --restore does not set eth1 to arp_ignore=8 (rc $rc)"
