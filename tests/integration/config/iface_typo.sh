#!/bin/bash
# A typo in an interface list is visible, not only warned about once:
# "interfaces = eth0 ehh1" starts (a name that comes later is managed
# then), warns at start with "did you mean", and arpownctl status and
# arpownctl interfaces list each configured name or glob with what it
# matches now, the typo as "nothing (did you mean "eth1"?)".  A reload
# with another typo warns again, in the log and in arpownctl reload's
# own output.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net

write_conf "[global]
interfaces = eth0 ehh1 !eth2
[interface uplink]
match = eth2 e*
mode = subnet"
arpownd_start h -c "$CONF"
grep -q '^<4>.*\[global\] interfaces: "ehh1" matches no interface now; did you mean "eth1"?' "$TMPDIR_T/arpownd.log" ||
	fail "the start does not warn about ehh1 with 'did you mean': $(grep -i warn "$TMPDIR_T/arpownd.log")"
pass "start: \"ehh1\" matches nothing, did you mean \"eth1\"? (a warning)"
expect_eq "$(sysctl_get h eth1 arp_ignore)" 0 "eth1 is not managed: the typo left it to the kernel"

# the JSON: each configured name or glob, where, and what it matches now
expect_eq "$(ctl_get status "str([(p['section'], p['pattern'], p['exclude'], p['matches'], p['did_you_mean']) for p in d['interfaces_configured']])")" \
	"[(None, 'eth0', False, ['eth0'], None), (None, 'ehh1', False, [], 'eth1'), (None, 'eth2', True, ['eth2'], None), ('uplink', 'eth2', False, ['eth2'], None), ('uplink', 'e*', False, ['eth0', 'eth1', 'eth2'], None)]" \
	"status --json: every configured name and glob with its matches"
expect_eq "$(ctl_get interfaces "str([(p['pattern'], p['matches']) for p in d['interfaces_configured']][:2])")" \
	"[('eth0', ['eth0']), ('ehh1', [])]" "interfaces --json: the same list"

# in words
out=$(ctl status) || fail "arpownctl status: $out"
grep -Eq '^ehh1 +interfaces +nothing \(did you mean "eth1"\?\)$' <<<"$out" ||
	fail "arpownctl status does not show the typo: $out"
grep -Eq '^eth0 +interfaces +eth0$' <<<"$out" || fail "arpownctl status: eth0's row: $out"
grep -Eq '^!eth2 +interfaces +eth2$' <<<"$out" || fail "arpownctl status: the exclusion's row: $out"
grep -Eq '^e\* +\[interface uplink\] match +eth0 eth1 eth2$' <<<"$out" || fail "arpownctl status: the section's glob: $out"
pass "arpownctl status: each configured name with what it matches now"
out=$(ctl interfaces) || fail "arpownctl interfaces: $out"
grep -Eq '^ehh1 +interfaces +nothing \(did you mean "eth1"\?\)$' <<<"$out" ||
	fail "arpownctl interfaces does not show the typo: $out"
pass "arpownctl interfaces: the same"

# a reload with another typo: warned in the log and in the reply
write_conf "[global]
interfaces = eth0 eth1 etj2"
rc=0
ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 0 "reload with a typo: accepted (a name may come later)"
grep -q 'arpownctl: warning: .*"etj2" matches no interface now; did you mean "eth2"?' "$TMPDIR_T/reload.out" ||
	fail "arpownctl reload does not print the typo's warning: $(cat "$TMPDIR_T/reload.out")"
wait_for 2000 grep -q '^<4>.*"etj2" matches no interface now; did you mean "eth2"?' "$TMPDIR_T/arpownd.log" ||
	fail "the reload's warning is not in the log"
pass "reload: \"etj2\", did you mean \"eth2\"? in the log and in arpownctl reload's output"
expect_eq "$(ctl_get status "str([(p['pattern'], p['did_you_mean']) for p in d['interfaces_configured']])")" \
	"[('eth0', None), ('eth1', None), ('etj2', 'eth2')]" "status after the reload: the new list"
# a glob that matches nothing is no typo: no guess
write_conf "[global]
interfaces = eth* wlan*"
ctl reload -c "$CONF" >/dev/null 2>&1 || fail "reload with wlan*"
expect_eq "$(ctl_get status "str([(p['pattern'], p['matches'], p['did_you_mean']) for p in d['interfaces_configured']])")" \
	"[('eth*', ['eth0', 'eth1', 'eth2'], None), ('wlan*', [], None)]" "a glob matching nothing: no guess"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
