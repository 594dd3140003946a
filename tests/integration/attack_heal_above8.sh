#!/bin/bash
# An arp_ignore rewritten behind the daemon's back to a value above 8 (the
# sysctl takes any int; the kernel's arp_ignore() treats 9.. like 0: reply
# for any local address) is never put back.  carry_out() logs "arp_ignore
# was changed to 9 by someone else; setting it to 8 again", then set()
# refuses ("arp_ignore is 9, outside 0..8: not managing it") although the
# interface is managed and its original is already recorded; the
# interface stays managed, so arpownd answers and the kernel answers too:
# 10.0.0.1 is answered from eth1's MAC (the weak host arpownd exists to
# stop).  The range check matters only when an original must be recorded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
sysctl_set h eth1 arp_ignore 9
sleep 4
expect_eq "$(sysctl_get h eth1 arp_ignore)" 8 "eth1 rewritten to 9: healed to 8 within a check"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 alone"
arpownd_stop
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "stopped: eth1's original back"
