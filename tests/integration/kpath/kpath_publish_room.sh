#!/bin/bash
# Published ranges never crowd out the host's own addresses in the kernel
# answer path's maps (doc/kpath.md, "Sizes, and what does not fit"): 130
# runtime publishes of a /24 (33,280 addresses), then an address added:
# published ranges are CIDRs in the program, the markers of the host's
# addresses a map of their own, so 10.0.0.1 and the new 10.0.0.9 are
# still answered by the program, a published address too, status says
# kernel and nothing unheld; the same after withdraws.  Before, each
# published address was a grant in the map that held the markers: the
# new address's did not fit, and the program answered nothing, for good.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc
seed_net
capture_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }
kp() { ctl_get status "d['kernel_path']['$1']"; }
unheld() { ctl_get status "d['kernel_path']['unheld']['addresses']"; }
path0() { ctl_get status "[i['answer_path'] for i in d['managed'] if i['name'] == 'eth0'][0]"; }
# by_program WHAT: 10.0.0.1 answered by eth0, and not by the capture path
by_program() {
	local before
	before=$(capture_lines eth0 10.0.0.1)
	expect_reply c c0 10.0.0.1 "$MAC0" "$1: 10.0.0.1 answered by eth0"
	expect_eq "$(capture_lines eth0 10.0.0.1)" "$before" "$1: by the kernel path (no capture line)"
}

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel
announce = no"
# --- 130 /24 publishes
for i in $(seq 0 129); do
	out=$(ctl publish "10.$((100 + i / 200)).$((i % 200)).0/24" eth1 2>&1) || fail "publish $i: $out"
done
# an address added meanwhile: one of the host's, a marker more
ns h ip addr add 10.0.0.9/24 dev eth0 || fail "ip addr add 10.0.0.9/24 dev eth0"
sleep 0.6
by_program "130 /24 published, an address added"
before=$(capture_lines eth0 10.0.0.9)
expect_reply c c0 10.0.0.9 "$MAC0" "130 /24 published: the added 10.0.0.9 answered by eth0"
expect_eq "$(capture_lines eth0 10.0.0.9)" "$before" "the added address answered by the kernel path"
expect_eq "$(kp answering) $(unheld) $(path0)" "True 0 kernel" "130 /24 published: status: answering, nothing unheld, eth0 on the kernel path"
before=$(capture_lines eth1 10.100.129.77)
expect_reply c c0 10.100.129.77 "$MAC1" "130 /24 published: 10.100.129.77 answered by eth1"
expect_eq "$(capture_lines eth1 10.100.129.77)" "$before" "a published address answered by the kernel path too"
for i in $(seq 125 129); do
	out=$(ctl withdraw "10.$((100 + i / 200)).$((i % 200)).0/24" 2>&1) || fail "withdraw $i: $out"
done
expect_silence c c0 10.100.129.77 "withdrawn: no longer answered"
by_program "five withdrawn"

arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
