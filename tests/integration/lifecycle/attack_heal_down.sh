#!/bin/bash
# An arp_ignore rewritten behind the daemon's back on a managed interface
# that is DOWN is never put back to 8.  The kernel sends no RTM_NEWLINK echo
# for a devconf change on a down link (netdev_state_change() only notifies
# when IFF_UP), so the table's conf_pending flag set by ifm's set() is only
# cleared by a message that shows exactly the values we set; once someone
# writes another value, every later message (dumps of the check timer, the
# link coming up) differs, conf_pending stays true forever, the table keeps
# believing 8 and the heal never runs.  Once the link is up, the kernel
# answers on it for every address of the host (weak host): 10.0.0.1 is
# answered from eth1's MAC too.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

ns h ip link set eth1 down
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 8 "eth1 (down) managed: arp_ignore 8"
# the same rewrite on the up eth0 is healed within one check (3 s)
sysctl_set h eth0 arp_ignore 0
sysctl_set h eth1 arp_ignore 0
sleep 7
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "eth0 (up) rewritten to 0: healed to 8"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 8 "eth1 (down) rewritten to 0: healed to 8 within two checks"
ns h ip link set eth1 up
sleep 4
expect_eq "$(sysctl_get h eth1 arp_ignore)" 8 "eth1 brought up: arp_ignore 8"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 alone (not by the kernel on eth1)"
arpownd_stop
