#!/bin/bash
# answer_path = kernel in one [interface] section only: the program goes
# on that interface alone (the others keep the capture path, the global
# default), by reload it leaves and comes back, and the answers stay
# right throughout.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
all_filters() { local i; for i in eth0 eth1 eth2; do ns h tc filter show dev $i ingress 2>/dev/null | grep -c arpownd_answer; done | tr -d '\n'; }
paths() { ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))"; }
reload() {
	local r
	write_conf "$1"
	r=$(grep -c 'reloaded ' "$TMPDIR_T/arpownd.log")
	kill -HUP "$ARPOWND_PID"
	wait_for 3000 sh -c "[ \$(grep -c 'reloaded ' '$TMPDIR_T/arpownd.log') -gt $r ]" || fail "reload not done"
}
ONE="[global]
interfaces = eth*

[interface fast]
match = eth1
answer_path = kernel"
NONE="[global]
interfaces = eth*"
ARPOWND_ANSWER_PATH= kp_daemon_start "$ONE"
expect_eq "$(all_filters)" 010 "the program on eth1 alone"
expect_eq "$(paths)" "eth0=capture eth1=kernel eth2=capture" "status: eth1 kernel, the others capture"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 (capture)"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 answered by eth1 (kernel)"
expect_silence f f0 10.0.0.2 "eth2 does not answer 10.0.0.2"
reload "$NONE"
expect_eq "$(all_filters)" 000 "reload without the section: no program"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 answered by eth1 (capture)"
reload "$ONE"
expect_eq "$(all_filters)" 010 "reload with the section again: the program on eth1 alone"
expect_reply c c0 10.0.0.2 "$MAC1" "10.0.0.2 answered by eth1 (kernel again)"
arpownd_stop
expect_eq "$(all_filters)" 000 "stop: no filter left"
