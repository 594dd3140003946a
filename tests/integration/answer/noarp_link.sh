#!/bin/bash
# A link made NOARP (ip link set eth0 arp off) is never answered, as the
# kernel never answers there: while the daemon runs, and while it is
# SIGSTOPped (on the kernel answer path the program must revoke the link
# by itself, as it does for a link going down: nobody reads rtnetlink for
# it then); with arp on again, eth0 is answered once the daemon runs.
# tests/integration/kpath/noarp_link.sh runs it with answer_path = kernel.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
answered() { ask c c0 10.0.0.1 -w 50; [ "$MACS" = "$MAC0" ]; }

write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.1 "$MAC0" "eth0 answers 10.0.0.1"

ns h ip link set eth0 arp off
expect_silence c c0 10.0.0.1 "running: eth0 made NOARP is not answered"
ns h ip link set eth0 arp on
wait_for 3000 answered || fail "running: arp on again, 10.0.0.1 not answered by eth0 ('$MACS')"
pass "running: arp on again: eth0 answers"

kill -STOP "$ARPOWND_PID"
ns h ip link set eth0 arp off
expect_silence c c0 10.0.0.1 "stopped: eth0 made NOARP is not answered"
expect_silence c c0 10.0.0.1 "stopped: nor a moment later"
ns h ip link set eth0 arp on
kill -CONT "$ARPOWND_PID"
wait_for 3000 answered || fail "continued: 10.0.0.1 not answered by eth0 ('$MACS')"
pass "continued, arp on: eth0 answers again"
expect_reply c c0 10.0.0.1 "$MAC0" "and only eth0"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
