#!/bin/bash
# The metrics: promtool check metrics accepts both what arpownctl metrics
# prints and the file the daemon writes for node_exporter; the numbers
# are the real ones; the file is replaced atomically (a reader polling it
# never sees half of one) and never written through a link planted at its
# temporary name; a hostile interface name is escaped in labels and JSON;
# at a clean stop the file says arpownd_up 0.  The names, labels and
# label values are those tests/tools/promql_names.py reads from
# src/metrics.c for the alert rules' and the dashboard's checks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd promtool python3
seed_net
uid=${ARPOWND_TEST_USER%%:*}
M=$TMPDIR_T/textfile/arpownd.prom
mkdir "$TMPDIR_T/textfile"
chown "$uid" "$TMPDIR_T/textfile"	# the directory node_exporter reads, ours to write
write_conf "[global]
metrics_file = $M
metrics_interval = 1"
# a name promtool and JSON must both survive: a quote, a backslash, a
# control byte and a byte that is not UTF-8
bad=$'q"\\\x01\xff'
ns h ip link add "$bad" type veth peer name qpeer || fail "cannot make an interface called $bad"
ns h ip link set "$bad" up
ns h ip link set qpeer up
arpownd_start h -c "$CONF"
wait_for 3000 test -s "$M" || fail "no metrics file at start"
pass "metrics file written at start"
for i in 1 2 3; do expect_reply c c0 10.0.0.1 "$MAC0" "request $i answered"; done

out=$(ctl metrics)
promtool check metrics <<<"$out" >"$TMPDIR_T/promtool.out" 2>&1 || fail "promtool on arpownctl metrics: $(cat "$TMPDIR_T/promtool.out")"
pass "promtool check metrics: arpownctl metrics is clean"
# the names the alert rules and the dashboard are checked against
# (tests/tools/promql_names.py reads them from src/metrics.c): the same as
# a live daemon's, labels and label values included
printf '%s\n' "$out" >"$TMPDIR_T/live.prom"
python3 "${top_srcdir:-.}/tests/tools/promql_names.py" "${top_srcdir:-.}" exposition "$TMPDIR_T/live.prom" \
	>"$TMPDIR_T/names.out" 2>&1 || fail "src/metrics.c as the rules' check reads it differs from the live metrics: $(cat "$TMPDIR_T/names.out")"
pass "the live metrics are what contrib/'s checks read from src/metrics.c: $(cat "$TMPDIR_T/names.out")"
grep -qx 'arpownd_replies_total{interface="eth0"} 3' <<<"$out" || fail "replies_total for eth0 is not 3"
grep -qx 'arpownd_up 1' <<<"$out" || fail "arpownd_up"
grep -q "^arpownd_build_info{version=\"[0-9.]*\"} 1$" <<<"$out" || fail "build_info"
grep -qF 'arpownd_received_total{interface="q\"\\'$'\x01\xc3\xbf''"}' <<<"$out" || fail "the hostile name's label: $(grep -a qpeer -m1 <<<"$out")"
pass "the numbers, and a hostile name as a label: quote and backslash escaped, 0xff as UTF-8"
js=$(ctl --json interfaces)
expect_eq "$(jq_py "[i['name'] for i in d['interfaces'] if i['name'].startswith('q\"')][0] == 'q\"\\\\\\x01\\xff'" <<<"$js")" True \
	"the same name in JSON: valid, and read back"
ctl interfaces | grep -qF 'q"\\x01'$'\xc3\xbf''  ' || fail "arpownctl interfaces does not show the name safely: $(ctl interfaces | grep -a '^q')"
pass "in columns the control byte is shown as \\x01"

# the file: promtool-clean, the same numbers within a second or two
wait_for 3000 grep -qx 'arpownd_replies_total{interface="eth0"} 3' "$M" || fail "the file does not catch up"
promtool check metrics <"$M" >"$TMPDIR_T/promtool.out" 2>&1 || fail "promtool on the file: $(cat "$TMPDIR_T/promtool.out")"
pass "promtool check metrics: the file is clean"
expect_eq "$(stat -c '%a %u' "$M")" "644 $uid" "the file: 0644, readable by node_exporter"

# atomic replacement: poll for 4.5 s while it is rewritten every second
python3 - "$M" >"$TMPDIR_T/poll.out" <<'PY'
import os, sys, time
path = sys.argv[1]
reads = torn = 0
inodes = set()
end = time.monotonic() + 4.5
while time.monotonic() < end:
    try:
        with open(path, "rb") as f:
            inodes.add(os.fstat(f.fileno()).st_ino)
            data = f.read()
    except FileNotFoundError:
        torn += 1
        continue
    reads += 1
    lines = data.split(b"\n")
    # complete: ends with its last family's sample and a newline
    if not data.endswith(b"\n") or not lines[-2].startswith(b"arpownd_conflict_logs_suppressed_total "):
        torn += 1
print(reads, torn, len(inodes))
PY
read -r reads torn inodes <"$TMPDIR_T/poll.out"
expect_eq "$torn" 0 "$reads reads while it was rewritten: none missing or half-written"
[ "$inodes" -ge 3 ] || fail "only $inodes versions seen in 4.5 s at metrics_interval = 1"
pass "$inodes versions seen (replaced by rename, every second)"
[ -e "$M.tmp" ] && fail "the temporary file is left behind"

# a link planted at the temporary name is removed, never written through
echo precious >"$TMPDIR_T/victim"
ln -s "$TMPDIR_T/victim" "$M.tmp"
sleep 1.5
expect_eq "$(cat "$TMPDIR_T/victim")" precious "a symbolic link at $M.tmp: its target untouched"
[ -L "$M.tmp" ] && fail "the link is still there"
promtool check metrics <"$M" >/dev/null 2>&1 || fail "the file after the link"
pass "the link replaced, the file still good"

# reload: metrics_file off stops the writes; back on, they resume
write_conf "[global]"
ctl reload >/dev/null || fail "reload"
sleep 0.2
m1=$(stat -c %Y.%y "$M")
sleep 1.5
expect_eq "$(stat -c %Y.%y "$M")" "$m1" "metrics_file off after reload: no more writes"
write_conf "[global]
metrics_file = $M
metrics_interval = 1"
ctl reload >/dev/null || fail "reload"
wait_for 3000 sh -c "[ \"\$(stat -c %Y.%y '$M')\" != '$m1' ]" || fail "metrics_file on again: not written"
pass "metrics_file on again: written"
grep -q '^arpownd_last_reload_success_timestamp_seconds ' "$M" || fail "no last reload timestamp"

# a reload to a metrics_file the daemon cannot write fails, and says why
# and what to do, where it used to be accepted and the file never written
NW=$TMPDIR_T/notours
mkdir "$NW"
chmod 755 "$NW"
for d in "$NW" "$TMPDIR_T/nosuchdir"; do
	write_conf "[global]
metrics_file = $d/arpownd.prom
metrics_interval = 1"
	rc=0
	ctl reload -c "$CONF" >"$TMPDIR_T/reload.out" 2>&1 || rc=$?
	expect_eq "$rc" 78 "reload to a metrics_file in $d, not writable: refused (78)"
	grep -q "metrics_file = $d/arpownd.prom: its directory $d: " "$TMPDIR_T/reload.out" ||
		fail "the refusal does not name the file and its directory: $(cat "$TMPDIR_T/reload.out")"
done
grep -q "its directory $NW: Permission denied: the user arpownd must be able to write it (chgrp arpownd DIR; chmod 0775 DIR)" \
	"$TMPDIR_T/arpownd.log" || fail "the refusal does not say what to do"
pass "reload to an unwritable metrics_file: refused, saying why and what to do"
expect_eq "$(stat -c %Y.%y "$M" >/dev/null && wait_for 2500 sh -c "[ \"\$(stat -c %Y.%y '$M')\" != '$(stat -c %Y.%y "$M")' ]" && echo yes)" yes \
	"the running configuration stays: $M still written"

arpownd_stop
expect_eq "$ARPOWND_RC" 0 "clean stop"
grep -qx 'arpownd_up 0' "$M" || fail "after a clean stop the file does not say arpownd_up 0"
promtool check metrics <"$M" >/dev/null 2>&1 || fail "promtool on the last file"
pass "at stop: arpownd_up 0, still clean"

# a directory the daemon may not write: one warning that says what to do,
# not one every metrics_interval (5,760 a day at 15 s); and a notice when
# it works again
RO=$TMPDIR_T/readonly
mkdir "$RO"
chmod 555 "$RO"
write_conf "[global]
metrics_file = $RO/arpownd.prom
metrics_interval = 1"
arpownd_start h -c "$CONF"
sleep 4.5
n=$(grep -c "$RO/arpownd.prom: cannot write the metrics" "$TMPDIR_T/arpownd.log")
expect_eq "$n" 1 "an unwritable metrics directory: one warning in 4.5 s at metrics_interval = 1"
grep -q "cannot write the metrics: Permission denied: the user arpownd must be able to write it (chgrp arpownd DIR; chmod 0775 DIR)" \
	"$TMPDIR_T/arpownd.log" || fail "the warning does not say what to do: $(grep 'cannot write' "$TMPDIR_T/arpownd.log")"
pass "the warning names the fix"
chown "$uid" "$RO"
chmod 755 "$RO"
wait_for 3000 grep -q "$RO/arpownd.prom: the metrics are written again" "$TMPDIR_T/arpownd.log" ||
	fail "no word when the writes work again"
pass "a notice once it works again"
arpownd_stop
