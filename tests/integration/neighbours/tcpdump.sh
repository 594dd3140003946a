#!/bin/bash
# An admin debugging with tcpdump on the host sees arpownd's replies, as
# they see the kernel's: replies go through the qdisc and the packet taps
# unless qdisc_bypass = yes (the documented trade-off: then they do not).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
CMAC=$(mac_of c c0)

# seen_replies NAME: run tcpdump on eth0 in h while the client asks once;
# SEEN is the number of replies from eth0's MAC tcpdump saw going out.
seen_replies() {
	local pcap=$TMPDIR_T/$1.pcap
	bg_run h tcpdump -i eth0 -n -U --immediate-mode -w "$pcap" arp 2>"$TMPDIR_T/$1.err"
	local tp=$LAST_PID
	# it says so once its socket is live
	wait_for 5000 grep -q 'listening on' "$TMPDIR_T/$1.err" || fail "tcpdump did not start"
	ask c c0 10.0.0.1
	case $MACS in *"$MAC0"*) ;; *) fail "$1: no reply from eth0 ($NREPLY from $MACS)" ;; esac
	sleep 0.3
	kill -INT "$tp"; wait "$tp" 2>/dev/null || true
	# the reply to the client, not an announcement (to the broadcast)
	SEEN=$(tcpdump -r "$pcap" -n -e 2>/dev/null | grep -c "^.*$MAC0 > $CMAC, .*Reply 10.0.0.1 is-at $MAC0")
}

seen_replies kernel
expect_eq "$SEEN" 1 "kernel's reply seen by tcpdump -i eth0"

write_conf "[global]"
arpownd_start h -c "$CONF"
seen_replies arpownd
expect_eq "$SEEN" 1 "arpownd's reply seen by tcpdump -i eth0 (qdisc_bypass = no, the default)"

write_conf "[global]
qdisc_bypass = yes"
kill -HUP "$ARPOWND_PID"
wait_for 3000 grep -q "reloaded $CONF" "$TMPDIR_T/arpownd.log" || fail "no reload"
seen_replies bypass
expect_eq "$SEEN" 0 "qdisc_bypass = yes: the reply goes past tcpdump (documented)"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
