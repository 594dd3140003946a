#!/bin/bash
# arpownctl publish names one existing interface that arpownd answers on,
# literally: a glob, a typo, an interface in monitor mode are refused
# (65) with the reason, and nothing is kept.  Also refused: a subnet's
# broadcast address, and a range wider than a /16 without --force (a /10
# would have been 4 million addresses announced 3 times in 2 forms).  A
# range of more than 256 addresses is answered but never announced.  A
# withdraw of an address inside a published range says so (66).  And
# what the configuration names that does not exist is a warning, from -n
# and from a reload, not silence.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]
announce_count = 1
[interface watched]
match = eth1
mode = monitor
[publish web]
addresses = 10.0.0.40
interface = eth9"
ns h "$ARPOWND" -n -c "$CONF" >"$TMPDIR_T/n.out" 2>"$TMPDIR_T/n.err" || fail "-n refused: $(cat "$TMPDIR_T/n.err")"
grep -q 'warning: .*\[publish web\] interface: "eth9" matches no interface now.*(there are: .*eth0' \
	"$TMPDIR_T/n.err" || fail "-n does not warn of eth9: $(cat "$TMPDIR_T/n.err")"
pass "-n: a [publish] interface that matches nothing is a warning, exit 0"
arpownd_start h -c "$CONF"
grep -q '\[publish web\] interface: "eth9" matches no interface now' "$TMPDIR_T/arpownd.log" ||
	fail "the start does not log the warning"
pass "the start logs it too"
ctl() { "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" "$@"; }
refused() {	# CODE SAYS MSG ARGS...
	local code=$1 says=$2 msg=$3 rc=0
	shift 3
	ctl "$@" >/dev/null 2>"$TMPDIR_T/err" || rc=$?
	[ "$rc" = "$code" ] || fail "$msg: exit $rc, not $code: $(cat "$TMPDIR_T/err")"
	grep -qF -- "$says" "$TMPDIR_T/err" || fail "$msg: the message: $(cat "$TMPDIR_T/err")"
	pass "$msg: $code"
}
refused 65 '*: no such interface (the name is taken literally, never as a pattern); arpownd answers on: eth0 eth2' \
	"publish 10.0.0.50 '*'" publish 10.0.0.50 '*'
refused 65 'eth[0-9]: no such interface' "publish 10.1.0.77 'eth[0-9]'" publish 10.1.0.77 'eth[0-9]'
refused 65 'eht0: no such interface' "publish 10.0.0.51 eht0 (a typo)" publish 10.0.0.51 eht0
refused 65 'eth1: in mode monitor, where arpownd does not answer' "publish 10.0.0.52 eth1 (monitor)" \
	publish 10.0.0.52 eth1
refused 65 '10.0.0.255 is the broadcast address of 10.0.0.1/24 on eth0' "publish 10.0.0.255 eth0" \
	publish 10.0.0.255 eth0
refused 65 '4194304 addresses, more than a /16' "publish 10.64.0.0/10 eth0" publish 10.64.0.0/10 eth0
expect_eq "$(ctl_get published "','.join(p['label'] for p in d['published'])")" "web" \
	"nothing refused was kept"
expect_eq "$(tr -d '\n' <"$ARPOWND_STATE_DIR/published" 2>/dev/null | grep -c 10.0.0.5)" 0 \
	"nothing refused in the state directory"
expect_silence c c0 10.0.0.50 "10.0.0.50: answered by nobody"

# a /10 with --force: answered, not announced (the start's own bursts are over)
sleep 0.3
a0=$(ctl_get counters "d['all']['announcements']")
expect_eq "$(ctl publish 10.64.0.0/10 eth0 --force)" "published 10.64.0.0/10 on eth0" "publish a /10 with --force"
expect_reply c c0 10.64.1.2 "$MAC0" "an address of the /10: answered from eth0"
sleep 0.5
a1=$(ctl_get counters "d['all']['announcements']")
expect_eq "$((a1 - a0))" 0 "the /10 is not announced (4 million addresses)"
refused 66 '10.64.1.2 is inside 10.64.0.0/10, published by arpownctl publish on eth0' \
	"withdraw an address inside a published range" withdraw 10.64.1.2
expect_reply c c0 10.64.1.2 "$MAC0" "and it is still answered"
refused 65 '10.200.0.1/32: not published' "withdraw what nothing publishes" withdraw 10.200.0.1
expect_eq "$(ctl withdraw 10.64.0.0/10)" "withdrew 10.64.0.0/10" "withdraw the range itself"
expect_silence c c0 10.64.1.2 "withdrawn: no longer answered"

# a list written with commas: the reload warns, and says it
write_conf "[global]
interfaces = eth0, eth1"
out=$(ctl reload -c "$CONF" 2>&1) || fail "reload: $out"
grep -q "arpownctl: warning: .*\\[global\\] interfaces: \"eth0,\" matches no interface: a list is separated by spaces, not commas" \
	<<<"$out" || fail "the reload does not warn of the comma: $out"
pass "reload: a list with commas is a warning, in the reply"
grep -q 'a list is separated by spaces, not commas' "$TMPDIR_T/arpownd.log" || fail "not in the log"
pass "and in the log"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
