#!/bin/bash
# mode = monitor: arpownd leaves the sysctls alone (the kernel keeps
# answering: two replies on the shared segment, the inside probed from
# outside), sends nothing itself, writes no record, and counts and logs
# each request the kernel answered that owner mode would have refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net
sysctl_set h eth1 arp_ignore 1
vals() { echo "$(sysctl_get h eth0 arp_ignore) $(sysctl_get h eth1 arp_ignore) $(sysctl_get h eth2 arp_ignore)" \
	"$(sysctl_get h eth0 arp_announce) $(sysctl_get h eth1 arp_announce) $(sysctl_get h eth2 arp_announce)"; }
before=$(vals)
write_conf "[global]
mode = monitor
log_level = info"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
expect_eq "$(vals)" "$before" "monitor: not a sysctl written (arp_ignore 0 1 0, arp_announce untouched)"
expect_eq "$(saved_originals)" "" "monitor: no record in the state directory"

# eth0 (arp_ignore 0): the kernel answers for eth1's address too
ask c c0 10.0.0.2
expect_eq "$NREPLY" 2 "the kernel still answers 10.0.0.2 from both NICs (eth0's weak host)"
wait_for 2000 grep -q 'eth0: the kernel answered who-has 10.0.0.2 from 10.0.0.100; arpownd (owner) would refuse: other_interface, owned by eth1' \
	"$TMPDIR_T/arpownd.log" || fail "no 'would refuse' line for eth0's weak-host reply"
pass "logged: the kernel answered on eth0 what owner would refuse (owned by eth1)"
# eth1 (arp_ignore 1) answers only for its own: nothing to report there
grep -q 'eth1: the kernel answered who-has' "$TMPDIR_T/arpownd.log" &&
	fail "a would-refuse logged on eth1, where the kernel (arp_ignore 1) did not answer"
pass "nothing logged for eth1, whose arp_ignore = 1 already refuses"
# the firewall probe
ask f f0 10.0.0.1 -c 3 -r 20
[ "$NREPLY" -ge 1 ] || fail "the kernel should answer the outside probe"
expect_eq "$(grep -c 'eth2: the kernel answered who-has 10.0.0.1 from 10.1.0.100; arpownd (owner) would refuse: other_interface, owned by eth0' "$TMPDIR_T/arpownd.log")" 1 \
	"the outside probe for 10.0.0.1 answered by the kernel: one line for three"
expect_eq "$(ctl_get counters "d['all']['replies']")" 0 \
	"arpownd itself answered nothing"
wr=$(ctl_get counters "d['all']['would_refuse']['other_interface']")
[ "${wr:-0}" -ge 4 ] || fail "would-refuse other-interface counted ${wr:-0}, want at least 4"
pass "would-refuse other-interface counted: $wr"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
expect_eq "$(vals)" "$before" "stopped: still not a sysctl changed"

# from owner to monitor by reload: the originals come back at once
write_conf "[global]"
arpownd_start h -c "$CONF"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 8 "owner: eth0 at 8"
write_conf "[global]
mode = monitor"
kill -HUP "$ARPOWND_PID"
wait_for 3000 sh -c "[ \$(ip netns exec ${NS_PREFIX}h cat /proc/sys/net/ipv4/conf/eth0/arp_ignore) = 0 ]" ||
	fail "owner -> monitor: eth0 not given back to the kernel"
expect_eq "$(vals)" "$before" "reloaded into monitor: every original back"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# --monitor (try it first): an owner configuration, every interface only
# watched, no sysctl changed; a reload keeps it watching; the status and
# the metrics say so, and so does STATUS=
write_conf "[global]
mode = owner
[interface uplink]
match = eth2
mode = subnet"
# as the unit passes it: ARPOWND_OPTIONS from /etc/default/arpownd
export ARPOWND_OPTIONS=--monitor
arpownd_start h -c "$CONF" --monitor
unset ARPOWND_OPTIONS
expect_eq "$(vals)" "$before" "--monitor: not a sysctl changed"
expect_eq "$(ctl_get status "d['interfaces_answering'], d['interfaces_monitor']")" "(0, 3)" \
	"--monitor: status says 0 answering, 3 in monitor mode"
"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" metrics | grep -qx 'arpownd_interfaces{mode="monitor"} 3' ||
	fail "--monitor: the metrics do not count 3 monitor interfaces"
grep -q 'STATUS=answering ARP on 0 interfaces for 0 addresses; 3 in monitor mode' "$TMPDIR_T/notify.log" ||
	fail "--monitor: STATUS= does not say monitor: $(grep STATUS= "$TMPDIR_T/notify.log" | tail -n 1)"
pass "--monitor: STATUS= names the monitor interfaces"
# what forces it, and the one command that leaves it (editing the file
# would not): in STATUS= (systemctl status), in arpownctl status
TO_ANSWER="rm /etc/default/arpownd \&\& systemctl restart arpownd"
grep -q "STATUS=answering ARP on 0 interfaces for 0 addresses; 3 in monitor mode (the kernel answers there); to answer: $TO_ANSWER\$" \
	"$TMPDIR_T/notify.log" || fail "--monitor: STATUS= does not say how to answer: $(grep STATUS= "$TMPDIR_T/notify.log" | tail -n 1)"
pass "--monitor: STATUS= says the one command that makes it answer"
out=$(ctl status)
grep -qx "mode: *monitor, forced by --monitor in ARPOWND_OPTIONS (/etc/default/arpownd)" <<<"$out" ||
	fail "--monitor: arpownctl status does not say what forces monitor mode: $out"
grep -qx "to answer: *$TO_ANSWER" <<<"$out" || fail "--monitor: arpownctl status does not say how to answer: $out"
pass "--monitor: arpownctl status says the command line forces it, and how to leave it"
expect_eq "$(ctl_get status "d['monitor_forced']['to_answer']")" "rm /etc/default/arpownd && systemctl restart arpownd" \
	"--monitor: status --json, monitor_forced"
# the file says owner: a reload keeps monitor mode, and says so
rc=0
ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 0 "--monitor: a reload of an owner configuration is accepted"
grep -q "arpownctl: warning: .*: its mode is not in effect: --monitor in ARPOWND_OPTIONS (/etc/default/arpownd) keeps every interface in monitor mode.  To answer: $TO_ANSWER" \
	"$TMPDIR_T/reload.out" || fail "--monitor: the reload does not say the file's mode is set aside: $(cat "$TMPDIR_T/reload.out")"
grep -q "^<4>.*its mode is not in effect" "$TMPDIR_T/arpownd.log" || fail "--monitor: the reload's warning is not logged"
pass "--monitor: the reload says the file's mode is set aside, and how to answer"
kill -HUP "$ARPOWND_PID"
sleep 0.5
expect_eq "$(vals)" "$before" "--monitor: a reload still changes no sysctl"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
grep -q 'STATUS=stopped; every sysctl restored' "$TMPDIR_T/notify.log" || fail "no last STATUS= at stop"
pass "a last STATUS= at stop"
