#!/bin/bash
# The bridge module sends its own RTM_NEWLINK / RTM_DELLINK with
# ifi_family = AF_BRIDGE to the link group for its ports (br_ifinfo_notify;
# del_nbp() sends RTM_DELLINK when a port leaves the bridge).  rtnl.c's
# parse_link() does not look at ifi_family, so "eth2 left a bridge" is read
# as "eth2 was deleted": its table entry and its saved originals are
# dropped, though eth2 is still there at arp_ignore = 8.  The AF_UNSPEC
# NEWLINK that follows brings it back as a new interface already at 8:
# arpownd records 0 ("the default for new interfaces") and, for
# arp_announce, the 2 it set itself.  A clean stop then "restores"
# arp_ignore = 0 and arp_announce = 2: the admin's 1 and 0 are lost.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
sysctl_set h eth2 arp_ignore 1
sysctl_set h eth2 arp_announce 0
write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth2 arp_ignore)" 8 "eth2 managed"
ns h ip link add brx type bridge || fail "bridge brx"
ns h ip link set eth2 master brx || fail "eth2 into brx"
sleep 0.3
ns h ip link set eth2 nomaster || fail "eth2 out of brx"
sleep 0.5
grep -q 'eth2: interface gone' "$TMPDIR_T/arpownd.log" &&
	fail "eth2 left a bridge and arpownd took it for deleted: $(grep eth2 "$TMPDIR_T/arpownd.log" | tail -n 3 | tr '\n' '|')"
saved_originals | grep -q '^eth2 arp_ignore=1 arp_announce=0$' ||
	fail "eth2's saved originals changed: $(saved_originals | grep '^eth2 ')"
arpownd_stop
expect_eq "$(sysctl_get h eth2 arp_ignore) $(sysctl_get h eth2 arp_announce)" "1 0" \
	"stopped: eth2 has its own arp_ignore and arp_announce back"
