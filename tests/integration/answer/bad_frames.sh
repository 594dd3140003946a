#!/bin/bash
# Bad frames get no reply and do not disturb the daemon; each is counted
# under its reason.  Sent on the single-NIC segment (f0 -> eth2) so that
# the bridge cannot drop the odd ones before they reach the host.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
T=10.1.0.1

# reason | arpc arguments | target
while IFS='|' read -r reason args tgt; do
	[ -n "$reason" ] || continue
	# shellcheck disable=SC2086
	expect_silence f f0 "${tgt:-$T}" "$reason: no reply ($args)" $args
	kill -0 "$ARPOWND_PID" || fail "arpownd died on $reason"
done <<'LIST'
truncated|--truncate 30|
truncated|--truncate 21|
bad_hrd|--hrd 0x20|
bad_pro|--pro 0x86dd|
bad_hln|--hln 8|
bad_pln|--pln 6|
reply|-o 2|
not_request|-o 3|
bad_sender_mac|-m ff:ff:ff:ff:ff:ff|
bad_sender_mac|-m 01:00:5e:00:00:01|
bad_sender_mac|-m 00:00:00:00:00:00|
not_for_us|-E 02:11:22:33:44:55|
martian_sender|-s 127.0.0.1|
martian_sender|-s 224.0.0.1|
martian_sender|-s 255.255.255.255|
bad_target||255.255.255.255
bad_target||224.0.0.5
bad_target||127.0.0.1
bad_target||0.0.0.0
gratuitous|-s 10.1.0.77|10.1.0.77
conflict|-s 10.1.0.1|10.1.0.50
conflict|-s 10.0.0.1|
LIST

expect_reply f f0 "$T" "$MAC2" "after all that, a good request is answered"

# What the kernel answers, arpownd answers too (kernel_oracle.sh compares
# the rest): an Ethernet source other than the ARP sender, answered to
# the ARP sender's MAC; a sender in 0/8 other than 0.0.0.0 (only that one
# is "zeronet" since Linux 5.3); a target in 0/8 the host holds.
expect_reply f f0 "$T" "$MAC2" "Ethernet source != ARP sender: answered" -e 02:aa:bb:cc:dd:ee -m "$(mac_of f f0)"
ns f "$ARPC" -i f0 -e 02:aa:bb:cc:dd:ee -w 300 "$T" | grep -q "eth-dst $(mac_of f f0)" ||
	fail "the reply to a mismatched frame is not addressed to the ARP sender"
pass "and the reply goes to the ARP sender's MAC, as the kernel's"
expect_reply f f0 "$T" "$MAC2" "a sender in 0/8 (0.0.0.1): answered" -s 0.0.0.1
addr_add h eth2 0.1.2.1/24
addr_add f f0 0.1.2.100/24
expect_reply f f0 0.1.2.1 "$MAC2" "a target in 0/8 the host holds (0.1.2.1): answered" -s 0.1.2.100
grep -q 'address conflict: 10.1.0.1 is ours' "$TMPDIR_T/arpownd.log" || fail "conflict not logged"
pass "a sender claiming our address is logged as a conflict"

for r in truncated bad_hrd bad_pro bad_hln bad_pln not_request bad_sender_mac \
	not_for_us martian_sender bad_target; do
	[ "$(ctl_get counters "d['all']['invalid']['$r']")" -gt 0 ] || fail "no count for $r"
done
[ "$(ctl_get counters "d['all']['verdicts']['conflict']")" -gt 0 ] || fail "no count for conflicts"
# a reply and an announcement are not invalid: heard
[ "$(ctl_get counters "d['all']['replies_heard']")" -gt 0 ] || fail "the reply not counted as heard"
[ "$(ctl_get counters "d['all']['announcements_heard']")" -gt 0 ] || fail "the announcement not counted as heard"
pass "every reason counted"
# they add up: every frame is one of invalid, heard, decided, watched
expect_eq "$(ctl_get counters "d['all']['received'] - sum(d['all']['invalid'].values()) - d['all']['announcements_heard'] - d['all']['replies_heard'] - d['all']['requests'] - d['all']['monitored']")" 0 \
	"received = invalid + heard + requests + monitored"
expect_eq "$(ctl_get counters "d['all']['verdicts']['answered'] - d['all']['replies'] - d['all']['rate_limited']['sender'] - d['all']['rate_limited']['total']")" 0 \
	"answered = replies + rate-limited"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
