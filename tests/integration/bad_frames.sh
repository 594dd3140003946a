#!/bin/bash
# Bad frames get no reply and do not disturb the daemon; each is counted
# under its reason.  Sent on the single-NIC segment (f0 -> eth2) so that
# the bridge cannot drop the odd ones before they reach the host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topo.sh"
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
bad-hrd|--hrd 0x20|
bad-pro|--pro 0x86dd|
bad-hln|--hln 8|
bad-pln|--pln 6|
not-request|-o 2|
not-request|-o 3|
bad-sender-mac|-m ff:ff:ff:ff:ff:ff|
bad-sender-mac|-m 01:00:5e:00:00:01|
bad-sender-mac|-m 00:00:00:00:00:00|
eth-src-mismatch|-e 02:aa:bb:cc:dd:ee|
not-for-us|-E 02:11:22:33:44:55|
martian-sender|-s 127.0.0.1|
martian-sender|-s 224.0.0.1|
martian-sender|-s 255.255.255.255|
martian-sender|-s 0.0.0.1|
bad-target||255.255.255.255
bad-target||224.0.0.5
bad-target||127.0.0.1
bad-target||0.0.0.0
gratuitous|-s 10.1.0.77|10.1.0.77
conflict|-s 10.1.0.1|10.1.0.50
conflict|-s 10.0.0.1|
LIST

expect_reply f f0 "$T" "$MAC2" "after all that, a good request is answered"
grep -q 'address conflict: 10.1.0.1 is ours' "$TMPDIR_T/arpownd.log" || fail "conflict not logged"
pass "a sender claiming our address is logged as a conflict"

for r in truncated bad-hrd bad-pro bad-hln bad-pln not-request bad-sender-mac \
	eth-src-mismatch not-for-us martian-sender bad-target gratuitous; do
	[ "$(ctl_get counters "d['all']['refused']['$r']")" -gt 0 ] || fail "no count for $r"
done
[ "$(ctl_get counters "d['all']['verdicts']['conflict']")" -gt 0 ] || fail "no count for conflicts"
pass "every reason counted"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
