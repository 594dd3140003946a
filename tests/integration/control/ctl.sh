#!/bin/bash
# arpownctl against a daemon in the seed's network: every command, in
# columns and as --json (valid JSON), with the real numbers: 5 requests
# for eth0's address are 5 answers on eth0; a request refused because
# another interface owns the address counts under that verdict on the
# interface it arrived on; a malformed frame under its reason.  SIGUSR1
# logs the same documents.  reload says whether the file was taken.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
write_conf "[global]"
arpownd_start h -c "$CONF"
[ -x "$ARPOWNCTL" ] || fail "arpownctl not built: $ARPOWNCTL"
json_ok() { python3 -c 'import json, sys; json.load(sys.stdin)' 2>&1; }

for i in 1 2 3 4 5; do expect_reply c c0 10.0.0.1 "$MAC0" "request $i for 10.0.0.1 answered by eth0"; done
# 10.0.0.1 asked from the outside: arrives on eth2, owned by eth0
expect_silence f f0 10.0.0.1 "the inside address is not answered on eth2"
# a request with a multicast sender MAC: refused by validation on eth2
expect_silence f f0 10.1.0.1 "a multicast sender MAC is refused" -m 01:00:5e:00:00:01

# status
out=$(ctl status) || fail "arpownctl status: exit $?"
echo "$out"
grep -q "^arpownd [0-9.]*, pid $ARPOWND_PID, up " <<<"$out" || fail "status: no version/pid/uptime line"
grep -q "^mode: *owner$" <<<"$out" || fail "status: no mode"
grep -qF "configuration: $CONF, loaded " <<<"$out" || fail "status: no configuration line"
grep -q "^interfaces: *answering on 3 of 4, 3 addresses$" <<<"$out" || fail "status: counts"
grep -Eq '^eth0 +2 +owner +capture +up +1$' <<<"$out" || fail "status: no aligned eth0 row (answered by the capture path)"
pass "status in columns: version, pid, uptime, mode, configuration, managed interfaces"
js=$(ctl --json status)
expect_eq "$(json_ok <<<"$js")" "" "status --json is JSON"
expect_eq "$(jq_py "d['pid'], d['mode'], d['interfaces_managed'], d['addresses'], d['config']['path'] == '$CONF', d['schema']" <<<"$js")" \
	"($ARPOWND_PID, 'owner', 3, 3, True, 2)" "status --json: pid, mode, counts, config path, schema"
expect_eq "$(jq_py "[m['name'] for m in d['managed']]" <<<"$js" | tr '\n' ' ')" "eth0 eth1 eth2 " "status --json: managed interfaces"
up=$(jq_py "d['uptime_seconds']" <<<"$js")
python3 -c "import sys; sys.exit(not 0 < $up < 60)" || fail "uptime $up"

# interfaces
out=$(ctl interfaces) || fail "arpownctl interfaces: exit $?"
echo "$out"
grep -Eq "^eth0 +2 +$MAC0 +up +yes +owner +8 \(was 0\) +2 \(was 0\) +10\.0\.0\.1/24$" <<<"$out" ||
	fail "interfaces: eth0's row"
grep -Eq '^lo +1 +00:00:00:00:00:00 +up +no +- ' <<<"$out" || fail "interfaces: lo unmanaged"
js=$(ctl --json interfaces)
expect_eq "$(json_ok <<<"$js")" "" "interfaces --json is JSON"
expect_eq "$(jq_py "[(i['name'], i['mac'], i['managed'], i['arp_ignore'], i['arp_announce'], [a['address'] + '/' + str(a['prefixlen']) for a in i['addresses']]) for i in d['interfaces'] if i['name'] == 'eth1'][0]" <<<"$js")" \
	"('eth1', '$MAC1', True, {'current': 8, 'original': 0}, {'current': 2, 'original': 0}, ['10.0.0.2/24'])" \
	"interfaces --json: eth1's MAC, sysctls now and original, addresses"

# counters: the real numbers
out=$(ctl counters) || fail "arpownctl counters: exit $?"
echo "$out"
js=$(ctl --json counters)
expect_eq "$(json_ok <<<"$js")" "" "counters --json is JSON"
c() { jq_py "[i for i in d['interfaces'] if i['name'] == '$1'][0]$2" <<<"$js"; }
expect_eq "$(c eth0 "['replies']")" 5 "5 requests for 10.0.0.1: answered 5 on eth0"
expect_eq "$(c eth0 "['verdicts']['answered']")" 5 "and 5 decided for an answer"
# the bridge takes every broadcast to eth1 too: 5 refused there, owned by eth0
expect_eq "$(c eth1 "['verdicts']['other_interface']")" 5 "the same 5 on eth1: refused, other-interface"
expect_eq "$(c eth1 "['replies']")" 0 "eth1 answered none of them"
expect_eq "$(c eth2 "['verdicts']['other_interface']")" 1 "10.0.0.1 asked on eth2: other-interface, on eth2"
expect_eq "$(c eth2 "['invalid']['bad_sender_mac']")" 1 "a multicast sender MAC: bad_sender_mac, on eth2"
expect_eq "$(jq_py "d['all']['replies'], d['all']['received'] >= 12" <<<"$js")" "(5, True)" "in all: 5 answered"
grep -Eq '^eth0 +owner +[0-9]+ +5 +0 +0 +0 +[0-9]+ +0 +[0-9]+ +0$' <<<"$out" || fail "counters: eth0's row in columns"
grep -Eq '^eth2 +invalid +bad_sender_mac +1$' <<<"$out" || fail "counters: the reason row"
grep -Eq '^eth1 +not answered +other_interface +5$' <<<"$out" || fail "counters: the verdict row"
pass "counters in columns: the same numbers"

# conflicts: someone on the outside claims 10.1.0.1 (ours, on eth2)
expect_silence f f0 10.1.0.50 "a request from a sender using our address is not answered" -s 10.1.0.1
out=$(ctl conflicts) || fail "arpownctl conflicts: exit $?"
echo "$out"
fmac=$(mac_of f f0)
grep -Eq "^10\.1\.0\.1 +eth2 +$fmac +[0-9-]+ [0-9:]+ +[0-9-]+ [0-9:]+ +1$" <<<"$out" || fail "conflicts: the row"
js=$(ctl --json conflicts)
expect_eq "$(json_ok <<<"$js")" "" "conflicts --json is JSON"
expect_eq "$(jq_py "[(x['address'], x['interface'], x['mac'], x['count']) for x in d['conflicts']]" <<<"$js")" \
	"('10.1.0.1', 'eth2', '$fmac', 1)" "conflicts --json: address, interface, claimant, count"

# metrics
out=$(ctl metrics) || fail "arpownctl metrics: exit $?"
grep -qx 'arpownd_replies_total{interface="eth0"} 5' <<<"$out" || fail "metrics: replies on eth0"
grep -qx 'arpownd_requests_refused_total{interface="eth1"} 5' <<<"$out" || fail "metrics: requests refused on eth1"
grep -qx 'arpownd_requests_total{verdict="other_interface"} 6' <<<"$out" || fail "metrics: requests by verdict"
grep -qx 'arpownd_invalid_total{reason="bad_sender_mac"} 1' <<<"$out" || fail "metrics: invalid by reason"
grep -qx 'arpownd_interfaces{mode="owner"} 3' <<<"$out" || fail "metrics: interfaces by mode"
grep -qx 'arpownd_interface_info{interface="eth1",mode="owner",path="capture"} 1' <<<"$out" || fail "metrics: eth1's mode and answer path"
expect_eq "$(ctl --json metrics)" "$out" "metrics --json: the same text (it is not JSON)"

# SIGUSR1: the status and counters documents, one log entry (a line of
# JSON) each, at notice
n=$(grep -c '^<5>counters: {' "$TMPDIR_T/arpownd.log" || true)
kill -USR1 "$ARPOWND_PID"
wait_for 3000 sh -c "[ \$(grep -c '^<5>counters: {' '$TMPDIR_T/arpownd.log') -gt $n ]" || fail "no SIGUSR1 dump"
sleep 0.2
# usr1 DOC: the last document DOC logged, its one line
usr1() { sed -n "s/^<5>$1: //p" "$TMPDIR_T/arpownd.log" | tail -n 1; }
expect_eq "$(grep -c '^<5>counters: ' "$TMPDIR_T/arpownd.log")" "$((n + 1))" "SIGUSR1: one entry for the counters, at notice"
expect_eq "$(usr1 counters | json_ok)" "" "SIGUSR1's counters entry is one JSON document"
expect_eq "$(usr1 counters)" "$(ctl --json counters | tr -d '\n')" "SIGUSR1 logs what counters says"
expect_eq "$(usr1 status | jq_py "d['pid'], d['interfaces_managed']")" "($ARPOWND_PID, 3)" \
	"SIGUSR1 logs the status document, one entry"
grep -q '^<[0-7]>\(counters\|status\): [^{]' "$TMPDIR_T/arpownd.log" && fail "SIGUSR1: a document spread over more entries"

# reload: accepted, as root with the file passed; refused with the errors
js=$(ctl --json reload -c "$CONF") || fail "reload: exit $?"
expect_eq "$(jq_py "d['reloaded'], d['config'] == '$CONF', d['passed']" <<<"$js")" "(True, True, True)" \
	"reload -c FILE as root: accepted, the file passed over the socket"
js=$(ctl reload --json) || fail "reload: exit $?"
expect_eq "$(jq_py "d['reloaded'], d['passed']" <<<"$js")" "(True, False)" \
	"reload as root without -c: arpownctl's own default path is not there, nothing passed"
expect_eq "$(ctl reload -c "$CONF")" "reloaded $CONF" "reload in words"
printf '[global]\nmode = bogus\nlearn = maybe\n' >"$CONF"
rc=0
ctl reload >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
cat "$TMPDIR_T/reload.out"
expect_eq "$rc" 78 "a bad file: reload exits 78"
grep -q "arpownd.conf:2: \[global\] mode = bogus" "$TMPDIR_T/reload.out" || fail "reload does not print the first error"
grep -q "arpownd.conf:3: \[global\] learn = maybe" "$TMPDIR_T/reload.out" || fail "reload does not print the second error"
grep -q "not reloaded, the running configuration stays" "$TMPDIR_T/reload.out" || fail "reload does not say what stays"
expect_reply c c0 10.0.0.1 "$MAC0" "the old configuration keeps serving"
js=$(ctl --json status)
[ "$(jq_py "d['config']['last_reload_failure_at'] is not None" <<<"$js")" = True ] || fail "status: the refused reload not shown"
pass "status shows when a reload was refused"

# a 0600 file only root may read: SIGHUP cannot, root's arpownctl can
write_conf "[global]
mode = subnet"
chmod 600 "$CONF"
expect_eq "$(ctl reload -c "$CONF")" "reloaded $CONF" "a 0600 file: root's reload passes it and it is taken"
expect_eq "$(ctl_get status "d['mode']")" subnet "and its mode is in force"
rc=0
du=${ARPOWND_TEST_USER%%:*}
setpriv --reuid="$du" --regid="$du" --clear-groups --inh-caps=+dac_override --ambient-caps=+dac_override \
	"$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" reload >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
expect_eq "$rc" 78 "a 0600 file, reload by the daemon's own user (no file to pass): refused"
grep -q "not readable by uid ${ARPOWND_TEST_USER%%:*}, which arpownd runs as: run arpownctl reload as root" \
	"$TMPDIR_T/reload.out" || fail "the refusal does not say what to do: $(cat "$TMPDIR_T/reload.out")"

# announce: an address from the interface that owns it, an interface
n0=$(ctl_get counters "[i['announcements'] for i in d['interfaces'] if i['name'] == 'eth0'][0]")
expect_eq "$(ctl announce 10.0.0.1)" "announcing 10.0.0.1 from eth0" "announce 10.0.0.1: from eth0, its owner"
expect_eq "$(ctl --json announce eth1 | jq_py "d['announced'], d['interface'], d['address']")" "(True, 'eth1', None)" \
	"announce eth1: every address of eth1"
wait_for 2000 sh -c "[ \$('$ARPOWNCTL' --state-dir '$ARPOWND_STATE_DIR' --json counters | python3 -c \"import json,sys; print([i['announcements'] for i in json.load(sys.stdin)['interfaces'] if i['name'] == 'eth0'][0])\") -gt $n0 ]" ||
	fail "announce 10.0.0.1: eth0's announcements counter did not move"
pass "eth0's announcements counter counts it"
rc=0; ctl announce lo 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc:$(cat "$TMPDIR_T/err")" "65:arpownctl: lo: not managed, in monitor or off mode, or announce = no there: arpownd does not announce there" \
	"announce lo: refused (65)"
rc=0; ctl announce 10.9.9.9 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 65 "announce an address nobody here holds: 65"
rc=0; ctl announce nosuch0 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc:$(cat "$TMPDIR_T/err")" "65:arpownctl: nosuch0: no such interface" "announce a missing interface: 65"

# publish, published, withdraw: runtime entries
expect_silence c c0 10.0.0.77 "10.0.0.77, nobody's: not answered"
expect_eq "$(ctl publish 10.0.0.64/27 eth0)" "published 10.0.0.64/27 on eth0" "publish 10.0.0.64/27 on eth0"
expect_reply c c0 10.0.0.77 "$MAC0" "10.0.0.77 published: answered by eth0"
expect_eq "$(ctl_get published "[(p['runtime'], p['interface'], p['addresses'], p['ranges']) for p in d['published']]")" \
	"(True, 'eth0', 32, [{'first': '10.0.0.64', 'last': '10.0.0.95'}])" "published --json: the runtime entry"
ctl published | grep -Eq '^\(runtime\) +eth0 +\(the interface.s\) +32 +10\.0\.0\.64-10\.0\.0\.95$' ||
	fail "published in columns: $(ctl published)"
rc=0; ctl publish 10.0.0.1 eth1 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 65 "publishing an address eth0 holds: refused (65)"
expect_eq "$(ctl withdraw 10.0.0.64/27)" "withdrew 10.0.0.64/27" "withdraw 10.0.0.64/27"
expect_silence c c0 10.0.0.77 "withdrawn: no longer answered"
rc=0; ctl withdraw 10.0.0.64/27 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 65 "withdrawing it again: 65"
rc=0; ctl withdraw 10.9.0.1/24 2>"$TMPDIR_T/err" || rc=$?
expect_eq "$rc" 65 "withdraw with host bits set: 65"
rc=0; ctl frobnicate 2>/dev/null || rc=$?
expect_eq "$rc" 64 "an unknown command: 64"
rc=0; ctl status extra 2>/dev/null || rc=$?
expect_eq "$rc" 64 "an extra argument: 64"
# the daemon validates too, not only arpownctl
out=$(python3 - "$ARPOWND_STATE_DIR/control" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"announce a/b\nstatus\n")
print(s.recv(200).split(b"\n")[0].decode().rsplit(" ", 1)[0])
PY
)
expect_eq "$out" "ERR 64" "the daemon refuses a bad interface name itself"
kill -0 "$ARPOWND_PID" || fail "arpownd died"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"

# SIGUSR1 at log_level = notice, the daemon's own level (no -d): the
# documents still come, one entry each
write_conf "[global]
log_level = notice"
ARPOWND_DEBUG=0 arpownd_start h -c "$CONF"
n=$(grep -c '^<5>counters: {' "$TMPDIR_T/arpownd.log" || true)
kill -USR1 "$ARPOWND_PID"
wait_for 3000 sh -c "[ \$(grep -c '^<5>counters: {' '$TMPDIR_T/arpownd.log') -gt $n ]" ||
	fail "log_level = notice: no SIGUSR1 dump"
sleep 0.2
expect_eq "$(usr1 status | jq_py "d['pid']")" "$ARPOWND_PID" "log_level = notice: SIGUSR1 logs the status document"
expect_eq "$(usr1 counters | json_ok)" "" "log_level = notice: SIGUSR1 logs the counters document"
arpownd_stop

# not running: a clear message, 69
rc=0
ctl status >"$TMPDIR_T/out" 2>&1 || rc=$?
expect_eq "$rc" 69 "daemon stopped: exit 69"
grep -qx "arpownctl: arpownd is not running: nothing listens on $ARPOWND_STATE_DIR/control" "$TMPDIR_T/out" ||
	fail "the message: $(cat "$TMPDIR_T/out")"
rc=0
"$ARPOWNCTL" --state-dir "$TMPDIR_T/nowhere" status >"$TMPDIR_T/out" 2>&1 || rc=$?
expect_eq "$rc:$(cat "$TMPDIR_T/out")" "69:arpownctl: arpownd is not running: no control socket at $TMPDIR_T/nowhere/control" \
	"no socket at all: exit 69 and the message"
