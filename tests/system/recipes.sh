#!/bin/bash
# recipes.sh — the README's and the man pages' shell recipes, as written,
# on a fresh Debian 12 under systemd 252 with the package (make
# check-system).  Each recipe is read from the document itself (the
# README's indented block holding a given line, a man page's example as
# man renders it) and its lines run in the container as an admin would
# type them, so that a recipe that stops working fails here:
#
#   README, Install: the first install watches only (monitor mode, the
#     kernel answers), systemctl status says the one command that makes it
#     answer, and that command does;
#   README, Operate: the metrics recipe on the shipped /etc/arpownd.conf,
#     with node_exporter's directory made after arpownd started (as when
#     prometheus-node-exporter is installed later): a reload then fails
#     and says to restart; the recipe's restart writes a file promtool
#     accepts;
#   README, Operate: keepalived's notify line, run as keepalived runs it
#     (root, no PATH): MASTER publishes the VIP from eth0, BACKUP
#     withdraws it; the sample keepalived.conf names the same script;
#   README, Operate: the kernel path's drop-in: arpownd -n refuses
#     answer_path = kernel without it and accepts it with it, and the
#     restart answers on the kernel path;
#   arpownd(8), EXAMPLES: arpownd -n -c, and arpownd -d by hand (the
#     service stopped first), which runs and answers and leaves the
#     service able to start again; SIGUSR1: one journal entry a document;
#   arpownctl(8), EXAMPLES: each line.
#
# The package is the one package.sh built from this very source when it
# ran first (tests/system/deb.sh keeps it), else built here.  Exit 77
# (SKIP) where the container cannot run; ARPOWND_SYSTEM_REQUIRED=1 (CI)
# makes a skip a failure.  ARPOWND_DEB=path.deb installs that file.

. "${top_srcdir:-.}/tests/system/lib.sh"
need_cmd debootstrap systemd-nspawn nsenter setpriv ip flock dpkg-deb man col python3
need_netns
. "${top_srcdir:-.}/tests/system/deb.sh"

# ---- the recipes, from the documents -------------------------------------
# readme_block LINE: the README's indented code block that holds LINE
readme_block() {
	awk -v want="$1" '
		/^    [^ ]/ || (/^    / && blk != "") { blk = blk substr($0, 5) "\n"; if (index($0, want)) hit = 1; next }
		{ if (hit) { printf "%s", blk; done = 1; exit } blk = "" }
		END { if (hit && !done) printf "%s", blk }' "$SRC/README"
}
# man_block PAGE LINE: the example block of a man page, as man renders it,
# that holds the line LINE, whole (its lines indented deeper than the text)
man_block() {
	MANWIDTH=250 man -l "$SRC/man/$1" 2>/dev/null | col -bx | awk -v want="$2" '
		/^              [^ ]/ { blk = blk substr($0, 15) "\n"; if (substr($0, 15) == want) hit = 1; next }
		{ if (hit) { printf "%s", blk; exit } blk = "" }'
}
# man_examples PAGE: the lines of its EXAMPLES section before any subsection
man_examples() {
	MANWIDTH=250 man -l "$SRC/man/$1" 2>/dev/null | col -bx |
		awk '/^EXAMPLES/ { on = 1; next } on && /^[^ ]|^   [^ ]/ { exit } on && /^       [^ ]/ { print substr($0, 8) }'
}
# the commands of a block, one a line, comments and blank lines dropped
commands() { sed 's/[[:space:]]\+#[[:space:]].*$//; /^[[:space:]]*$/d'; }

INSTALL=$(readme_block 'rm /etc/default/arpownd && systemctl restart arpownd')
METRICS=$(readme_block "printf 'metrics_file =")
KPATH=$(readme_block 'kernel-path.conf /etc/systemd/system/arpownd.service.d/')
NOTIFY=$(readme_block 'notify "/usr/libexec/arpownd/arpownd-notify')
DEBUG=$(man_block arpownd.8 'arpownd -d')
CHECK=$(man_block arpownd.8 'arpownd -n -c /etc/arpownd.conf')
CTLEX=$(man_examples arpownctl.8)
for r in INSTALL METRICS KPATH NOTIFY DEBUG CHECK CTLEX; do
	[ -n "${!r}" ] || fail "no $r recipe found in the README or the man pages"
done
pass "the recipes, read from README, arpownd(8) and arpownctl(8)"

# ---- the package and the container ------------------------------------------
if [ -n "${ARPOWND_DEB:-}" ]; then
	DEB=$(_abs "$ARPOWND_DEB")
	VERSION=$(dpkg-deb -f "$DEB" Version)
	DEB_HOW="ARPOWND_DEB"
else
	deb_this
fi
say "package: $DEB ($DEB_HOW)"
ARCH=$(dpkg-deb -f "$DEB" Architecture)
root_tree
seed_net
sysctl_set h eth1 arp_ignore 2
sysctl_set h eth1 arp_announce 1
make_cgroups
mount_root
# where the README's "apt-get install ../arpownd_VERSION_ARCH.deb" finds it:
# in the parent of the directory the recipe runs in
mkdir -p "$MERGED/root/src"
install -m 0644 "$DEB" "$MERGED/root/${DEB##*/}"
boot

# in_root CMD: one line of a recipe, as root in /root/src, with a login's
# PATH and a non-interactive apt; OUT, RC
in_root() {
	RC=0
	OUT=$(ce_t 120 env DEBIAN_FRONTEND=noninteractive HOME=/root sh -c "cd /root/src && $1" </dev/null 2>&1) || RC=$?
}
run_line() {		# run_line WHAT LINE: must succeed
	in_root "$2"
	[ "$RC" = 0 ] || fail "$1: '$2' exited $RC: $OUT"
}
MANAGED3="eth0=8/2 eth1=8/2 eth2=8/2"

# ---- README: the first install watches, then one command answers ------------
mapfile -t L < <(commands <<<"$INSTALL")
expect_eq "${#L[@]}" 4 "README's install recipe: 4 commands"
[[ ${L[0]} == "apt-get install ../arpownd_${VERSION}_$ARCH.deb" ]] ||
	fail "README installs '${L[0]#apt-get install }', the package is ${DEB##*/}"
run_line install "${L[0]}"
expect_eq "$(pairs)" "$ORIG" "first install: every interface at its original (monitor mode)"
run_line install "${L[1]}"
grep -qF "to answer: rm /etc/default/arpownd && systemctl restart arpownd" <<<"$OUT" ||
	fail "systemctl status does not give the command: $OUT"
pass "first install: '${L[1]}' says the one command that makes it answer"
run_line install "${L[2]}"
grep -q '^eth0 *monitor' <<<"$OUT" || fail "arpownctl counters in monitor mode: $OUT"
run_line install "${L[3]}"
wait_for 3000 _pairs_are "$MANAGED3" || fail "after '${L[3]}': $(pairs)"
expect_reply c c0 10.0.0.1 "$MAC0" "after '${L[3]}': 10.0.0.1 answered by eth0 alone"

# ---- arpownd(8): check a file --------------------------------------------------
run_line "arpownd(8)" "$(commands <<<"$CHECK")"
grep -q '^configuration OK$' <<<"$OUT" || fail "arpownd -n -c /etc/arpownd.conf: $OUT"
pass "arpownd(8): '$(commands <<<"$CHECK")' says configuration OK"

# ---- arpownctl(8): its examples, a line each -------------------------------
while read -r line; do
	case $line in
	*"| python3"* | *"| promtool"*)
		# the container has neither: the filter runs on the host
		in_root "${line%%|*}"
		[ "$RC" = 0 ] || fail "arpownctl(8): '${line%%|*}' exited $RC: $OUT"
		sh -c "${line#*|}" <<<"$OUT" >/dev/null 2>&1 ||
			fail "arpownctl(8): '$line': the host's ${line#*| } refused the output"
		;;
	*) run_line "arpownctl(8)" "$line" ;;
	esac
done < <(commands <<<"$CTLEX")
pass "arpownctl(8): its $(commands <<<"$CTLEX" | wc -l) examples run as written"
ce arpownctl withdraw 10.0.0.64/27 >/dev/null 2>&1

# ---- README: metrics, the directory made after the start ----------------------
mapfile -t L < <(commands <<<"$METRICS")
expect_eq "${#L[@]}" 5 "README's metrics recipe: 5 commands"
TEXTDIR=/var/lib/prometheus/node-exporter
# as prometheus-node-exporter installed after arpownd leaves it: root's,
# 0755, made after the service started (its ReadWritePaths= skipped it)
ce mkdir -p "$TEXTDIR" || fail "mkdir $TEXTDIR"
run_line metrics "${L[0]}"
run_line metrics "${L[1]}"
run_line metrics "${L[2]}"
grep -c '^metrics_file' "$MERGED/etc/arpownd.conf" | grep -qx 1 || fail "metrics_file set $(grep -c '^metrics_file' "$MERGED/etc/arpownd.conf") times"
out=$(ce arpownd -n 2>&1) || fail "arpownd -n after the recipe's printf on the shipped file: $out"
pass "the recipe's printf on the shipped /etc/arpownd.conf: arpownd -n accepts it"
# a reload cannot write there: it fails, and says to restart
rc=0
out=$(ce systemctl reload arpownd 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "systemctl reload with metrics_file in a directory made after the start: exit 0"
ce journalctl -u arpownd --no-pager -n 20 | grep -q "its directory $TEXTDIR: Read-only file system.*systemctl restart arpownd" ||
	fail "the refused reload does not say why and what to do: $(ce journalctl -u arpownd --no-pager -n 5)"
pass "systemctl reload: fails (exit $rc), the journal says read-only until a restart"
run_line metrics "${L[3]}"
wait_for 5000 test -s "$MERGED$TEXTDIR/arpownd.prom" || fail "no $TEXTDIR/arpownd.prom after '${L[3]}'"
if command -v promtool >/dev/null; then
	sh -c "${L[4]//$TEXTDIR/$MERGED$TEXTDIR}" || fail "'${L[4]}' fails"
	pass "README's metrics recipe: the file written, '${L[4]}' accepts it"
elif [ "${ARPOWND_SYSTEM_REQUIRED:-0}" = 1 ]; then
	fail "no promtool on the host for '${L[4]}' (ARPOWND_SYSTEM_REQUIRED=1)"
else
	pass "README's metrics recipe: the file written (no promtool here)"
fi

# ---- README: keepalived's notify, as keepalived runs it ---------------------
line=$(sed -n 's/^notify "\(.*\)"$/\1/p' <<<"$NOTIFY")
[ -n "$line" ] || fail "README's notify line: $NOTIFY"
grep -qF "notify \"$line\"" "$MERGED/usr/share/doc/arpownd/examples/keepalived.conf" ||
	fail "the sample keepalived.conf does not name '$line'"
# keepalived appends TYPE NAME STATE PRIORITY; its environment has no PATH
rc=0
out=$(ce env -i $line INSTANCE VI_1 MASTER 100 2>&1) || rc=$?
expect_eq "$rc" 0 "keepalived's notify MASTER, no PATH ($out)"
expect_reply c c0 10.0.0.50 "$MAC0" "MASTER: the VIP 10.0.0.50 answered from eth0"
rc=0
out=$(ce env -i $line INSTANCE VI_1 BACKUP 100 2>&1) || rc=$?
expect_eq "$rc" 0 "keepalived's notify BACKUP ($out)"
expect_silence c c0 10.0.0.50 "BACKUP: the VIP no longer answered"

# ---- arpownd(8): arpownd -d by hand, the service stopped -----------------------
mapfile -t L < <(commands <<<"$DEBUG")
expect_eq "${L[*]}" "systemctl stop arpownd arpownd -d systemctl start arpownd" "arpownd(8)'s -d example"
run_line "-d" "${L[0]}"
ce sh -c "cd /root/src && ${L[1]} >/run/arpownd-d.log 2>&1 & echo \$! >/run/arpownd-d.pid" || fail "start ${L[1]}"
dpid=$(cat "$MERGED/run/arpownd-d.pid" 2>/dev/null || ce cat /run/arpownd-d.pid)
_d_up() { ce grep -q "started: answering" /run/arpownd-d.log; }
wait_for 5000 _d_up || fail "'${L[1]}' did not start: $(ce cat /run/arpownd-d.log)"
expect_reply c c0 10.0.0.2 "$MAC1" "'${L[1]}': 10.0.0.2 answered by eth1 alone"
# (the shell's kill: the root tree has no procps)
ce sh -c "kill -INT $dpid" || fail "kill -INT $dpid"
_d_gone() { ! ce sh -c "kill -0 $dpid" 2>/dev/null; }
wait_for 5000 _d_gone || fail "'${L[1]}' did not stop on Control-C"
# the shipped default, stop_leaves = strict: the kernel answers, owner only
_d_said() { ce grep -q "stopped; the kernel answers ARP in its strict mode" /run/arpownd-d.log; }
wait_for 2000 _d_said || fail "'${L[1]}' stopped without saying so: $(ce tail -n 3 /run/arpownd-d.log | tr '\n' '|')"
run_line "-d" "${L[2]}"
wait_for 3000 _pairs_are "$MANAGED3" || fail "the service after arpownd -d: $(pairs)"
pass "arpownd(8): '${L[*]}' ran, answered, stopped, and the service started again after it"

# ---- SIGUSR1: one journal entry a document, at notice -------------------------
cur=$(journal_cursor)
ce systemctl kill -s USR1 arpownd || fail "systemctl kill -s USR1"
_dumped() { ce journalctl -u arpownd -o cat --no-pager --after-cursor="$cur" | grep -q '^counters: {'; }
wait_for 3000 _dumped || fail "SIGUSR1: no counters entry"
sleep 0.3
# --all: without it journalctl -o json gives a field over 4,096 bytes as
# null, and the counters of three interfaces are more
ce journalctl -u arpownd -o json --all --no-pager --after-cursor="$cur" >"$TMPDIR_T/usr1.json"
got=$(python3 - "$TMPDIR_T/usr1.json" <<'PY'
import json, sys
seen = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    m = e.get("MESSAGE")
    if isinstance(m, list):
        m = bytes(m).decode("utf-8", "replace")
    for doc in ("status", "counters"):
        if m and m.startswith(doc + ": {"):
            json.loads(m[len(doc) + 2:])
            seen.append("%s/%s" % (doc, e.get("PRIORITY")))
print(" ".join(seen))
PY
) || fail "SIGUSR1: the journal's entries: $(head -c 300 "$TMPDIR_T/usr1.json")"
expect_eq "$got" "status/5 counters/5" "SIGUSR1: the status and the counters, one journal entry each (whole JSON), at notice"

# ---- README: the kernel path's drop-in ------------------------------------------
if ! ce arpownd -V | grep -q 'kernel answer path: built'; then
	pass "the kernel path's recipe: this package is built without it ($(ce arpownd -V))"
else
	mapfile -t L < <(commands <<<"$KPATH")
	expect_eq "${#L[@]}" 5 "README's kernel path recipe: 5 commands"
	# first without the drop-in: -n, which asks systemd, refuses it
	cp "$MERGED/etc/arpownd.conf" "$TMPDIR_T/conf.before"
	printf 'answer_path = kernel\n' >>"$MERGED/etc/arpownd.conf"
	rc=0
	out=$(ce arpownd -n -q 2>&1) || rc=$?
	expect_eq "$rc" 78 "answer_path = kernel without the drop-in: arpownd -n refuses it"
	grep -q "/usr/share/doc/arpownd/examples/kernel-path.conf" <<<"$out" || fail "arpownd -n does not name the drop-in: $out"
	cp "$TMPDIR_T/conf.before" "$MERGED/etc/arpownd.conf"
	for line in "${L[@]}"; do run_line "kernel path" "$line"; done
	_kpath() { ce arpownctl --json status | grep -q '"answer_path":"kernel"'; }
	wait_for 3000 _kpath || fail "after the kernel path's recipe: no interface on the kernel path: $(ce arpownctl status)"
	expect_reply c c0 10.0.0.1 "$MAC0" "the kernel path: 10.0.0.1 answered by eth0 alone"
	pass "README's kernel path recipe: arpownd -n accepts it, the restart answers on the kernel path"
fi

poweroff
expect_eq "$(pairs)" "$ORIG" "after poweroff: the originals"
say "done: the root tree was $ROOT_HOW; the package $DEB_HOW"
