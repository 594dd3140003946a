#!/bin/bash
# Sender ACLs per interface: allow_senders / deny_senders (CIDR lists,
# deny wins) and allow_probes.  Requesters outside are not answered and
# are counted by reason; the firewall can refuse its outside segment
# outright.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
write_conf "[global]

[interface outside]
match = eth2
deny_senders = 0.0.0.0/0

[interface lan]
match = eth0
allow_senders = 10.0.0.0/25
deny_senders = 10.0.0.64-10.0.0.99
allow_probes = no"
arpownd_start h -c "$CONF"
expect_silence f f0 10.1.0.1 "deny_senders = 0.0.0.0/0 on eth2: not even eth2's own address is answered outside"
expect_reply c c0 10.0.0.1 "$MAC0" "a sender inside allow_senders (10.0.0.0/25), not denied: answered" -s 10.0.0.120
expect_silence c c0 10.0.0.1 "a sender outside allow_senders: not answered" -s 10.0.0.200
expect_silence c c0 10.0.0.1 "a sender inside allow_senders but in deny_senders: deny wins" -s 10.0.0.70
expect_silence c c0 10.0.0.1 "allow_probes = no: an RFC 5227 probe is not answered" -s 0.0.0.0
expect_reply c c0 10.0.0.2 "$MAC1" "eth1 has no lists: its own address answered to anyone" -s 10.0.0.200
expect_reply c c0 10.0.0.2 "$MAC1" "and probes there too" -s 0.0.0.0
sd=$(ctl_get counters "d['all']['verdicts']['sender_denied']")
pd=$(ctl_get counters "d['all']['verdicts']['probe_denied']")
[ "${sd:-0}" -ge 3 ] || fail "sender-denied counted ${sd:-0}, want at least 3"
[ "${pd:-0}" -ge 1 ] || fail "probe-denied counted ${pd:-0}, want at least 1"
pass "refusals counted by reason: sender_denied $sd, probe_denied $pd"
grep -q 'not answering who-has 10.0.0.1 from 10.0.0.200: sender_denied' "$TMPDIR_T/arpownd.log" ||
	fail "the refusal is not logged at debug with its reason"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
