#!/bin/bash
# answer_path = kernel where the service cannot load the program (the unit
# without its drop-in kernel-path.conf: no CAP_BPF) is a configuration it
# cannot honour: the start fails once with 78 (the unit's
# RestartPreventExitStatus=, no restart loop) and names the drop-in and
# where it is; a reload to it is refused (arpownctl reload exits 78, the
# running configuration stays) and says the same; a daemon that had
# CAP_BPF but did not load the program is told to restart.  auto there
# stays the capture path, said once with the drop-in named.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd setpriv
need_netns
seed_net
chmod 755 "$TMPDIR_T"
chown 65534:65534 "$ARPOWND_STATE_DIR"
# the unit's identity without the drop-in: an unprivileged uid, exactly
# CAP_NET_RAW and CAP_NET_ADMIN
wrap=$TMPDIR_T/as-unit
cat >"$wrap" <<WRAP
#!/bin/sh
chmod 777 "$TMPDIR_T/notify.sock" 2>/dev/null
exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \\
	--inh-caps=-all,+net_raw,+net_admin --ambient-caps=-all,+net_raw,+net_admin \\
	--bounding-set=-all,+net_raw,+net_admin "$ARPOWND" "\$@"
WRAP
chmod 755 "$wrap"
DROPIN_SAID='install the drop-in kernel-path.conf (/[^ ]*/examples/kernel-path.conf, or contrib/systemd/kernel-path.conf in the source) as /etc/systemd/system/arpownd.service.d/kernel-path.conf, then systemctl daemon-reload and systemctl restart arpownd'

# the start: 78, once, the drop-in named, nothing changed
write_conf "[global]
interfaces = eth*
answer_path = kernel"
chmod 644 "$CONF"
rc=0
ns h "$wrap" --state-dir "$ARPOWND_STATE_DIR" -c "$CONF" >"$TMPDIR_T/start.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "answer_path = kernel without CAP_BPF: the start exits 78 (a configuration error: not retried)"
grep -q "arpownd.conf: answer_path = kernel: this arpownd has no CAP_BPF and cannot load the kernel answer path: under systemd, $DROPIN_SAID; or set answer_path = auto or capture; not starting, nothing changed" \
	"$TMPDIR_T/start.out" || fail "the start's error does not name the drop-in: $(cat "$TMPDIR_T/start.out")"
pass "the start's error names kernel-path.conf, where it is, and what else to set"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "refused start: eth0 untouched"

# a reload to it: refused, the drop-in named, the capture path goes on
write_conf "[global]
interfaces = eth*"
chmod 644 "$CONF"
ARPOWND=$wrap arpownd_start h -c "$CONF"
write_conf "[global]
interfaces = eth*
mode = subnet
answer_path = kernel"
chmod 644 "$CONF"
rc=0
ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "arpownctl reload to answer_path = kernel without CAP_BPF: exit 78 (systemctl reload fails)"
grep -q "arpownctl: .*arpownd.conf: answer_path = kernel: this arpownd has no CAP_BPF and cannot load the kernel answer path: under systemd, $DROPIN_SAID" \
	"$TMPDIR_T/reload.out" || fail "the reload's refusal does not name the drop-in: $(cat "$TMPDIR_T/reload.out")"
grep -q "not reloaded, the running configuration stays" "$TMPDIR_T/reload.out" || fail "the reload does not say what stays"
pass "reload: refused with the drop-in named, the running configuration stays"
expect_eq "$(ctl_get status "d['mode']")" owner "still the old configuration (owner, not the refused subnet)"
expect_reply c c0 10.0.0.1 "$MAC0" "the capture path answers on"
kill -HUP "$ARPOWND_PID"
wait_for 3000 grep -q "^<3>.*answer_path = kernel: this arpownd has no CAP_BPF" "$TMPDIR_T/arpownd.log" ||
	fail "SIGHUP: the refusal is not logged at err"
pass "SIGHUP: refused too, logged at err"
# auto: accepted, the capture path answers, the drop-in named
write_conf "[global]
interfaces = eth*
answer_path = auto"
chmod 644 "$CONF"
out=$(ctl reload -c "$CONF" 2>&1) || fail "reload to answer_path = auto: $out"
wait_for 3000 grep -q "answer_path = auto: the kernel answer path loads only at start .*which needs the drop-in kernel-path.conf" \
	"$TMPDIR_T/arpownd.log" || fail "auto: the notice does not name the drop-in"
pass "reload to auto: accepted, the capture path answers, the drop-in named"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# with CAP_BPF but the program not loaded (the file said capture at the
# start): a restart loads it, and the refusal says so (as root, in a
# state directory of root's)
ARPOWND_STATE_DIR=$TMPDIR_T/state-root
mkdir -p "$ARPOWND_STATE_DIR"
write_conf "[global]
interfaces = eth*"
arpownd_start h -c "$CONF"
write_conf "[global]
interfaces = eth*
answer_path = kernel"
rc=0
ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "with CAP_BPF, the program not loaded: reload to kernel refused (78)"
grep -q "answer_path = kernel: the kernel answer path loads only at start .*: systemctl restart arpownd" "$TMPDIR_T/reload.out" ||
	fail "the refusal does not say a restart loads it: $(cat "$TMPDIR_T/reload.out")"
pass "with CAP_BPF: the refusal says a restart loads it"
# the same for xdp, in its own words
sed -i 's/^answer_path = kernel$/answer_path = xdp/' "$CONF"
rc=0
ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "with CAP_BPF, the program not loaded: reload to xdp refused (78)"
grep -q "answer_path = xdp: the kernel answer path loads only at start .*: systemctl restart arpownd" "$TMPDIR_T/reload.out" ||
	fail "the refusal of xdp does not name xdp: $(cat "$TMPDIR_T/reload.out")"
pass "reload to xdp: the refusal names answer_path = xdp"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
