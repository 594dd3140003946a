#!/bin/bash
# Docs that cannot drift: every unit directive, file path, option,
# arpownctl command, configuration key, metric, alert and MESSAGE_ID that
# README, doc/, the man pages, the journal's catalog, the alert rules, the
# drop-in and the configuration's comments mention exists in what is
# built and installed (tests/tools/docs_names.py says how each is
# checked).  What is installed is make install into a scratch DESTDIR in
# the Debian package's layout (prefix /usr, /etc, /lib/systemd/system),
# plus what the package adds (debian/arpownd.docs).  No root, no network.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
need_cmd python3 make
SRC=$(cd "${top_srcdir:-.}" && pwd)
BUILD=$(cd "${top_builddir:-.}" && pwd)
D=$TMPDIR_T/dest

# ---- what make install puts where the package puts it ------------------
make -s -C "$BUILD" install DESTDIR="$D" prefix=/usr exec_prefix=/usr sysconfdir=/etc \
	localstatedir=/var systemdsystemunitdir=/lib/systemd/system >"$TMPDIR_T/install.log" 2>&1 ||
	fail "make install DESTDIR=$D: $(tail -n 5 "$TMPDIR_T/install.log")"
# (a dist tarball has no debian/: only make install's then)
if [ -f "$SRC/debian/arpownd.docs" ]; then
	while read -r f; do
		[ -n "$f" ] && install -D -m 0644 "$SRC/$f" "$D/usr/share/doc/arpownd/${f##*/}"
	done < <(sed 's/#.*//' "$SRC/debian/arpownd.docs")
fi
UNIT=$D/lib/systemd/system/arpownd.service
[ -f "$UNIT" ] || fail "make install put no unit in /lib/systemd/system"

# ---- the facts -------------------------------------------------------------
"$ARPOWND" -h >"$TMPDIR_T/arpownd.h" 2>&1
"$ARPOWNCTL" -h >"$TMPDIR_T/arpownctl.h" 2>&1
# every key, as the built arpownd prints a file that sets each
cat >"$TMPDIR_T/keys.conf" <<'EOF'
[global]
allow_senders = 10.0.0.0/8
deny_senders = 10.9.0.0/16
[interface a]
match = x
mode = subnet
[publish b]
addresses = 10.9.9.9
interface = x
mac = 02:00:00:00:00:01
EOF
"$ARPOWND" -n -c "$TMPDIR_T/keys.conf" >"$TMPDIR_T/keys.out" 2>/dev/null || fail "arpownd -n on every key: $(cat "$TMPDIR_T/keys.out")"
python3 - "$D" "$UNIT" "$SRC" "$TMPDIR_T" >"$TMPDIR_T/facts.json" <<'PY' || fail "gathering the facts"
import json, os, re, sys
dest, unit, src, tmp = sys.argv[1:5]
installed = []
for root, dirs, files in os.walk(dest):
    for f in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
        installed.append("/" + os.path.relpath(os.path.join(root, f), dest))
unit_text = open(unit).read() + open(os.path.join(src, "contrib/systemd/kernel-path.conf")).read()
directives = set(re.findall(r"^([A-Z][A-Za-z]+)=", unit_text, re.M))
def help_opts(path):
    groups, opts = [], set()
    for line in open(path):
        m = re.match(r"^\s+(-\w)?(?:, )?(--[\w-]+)?", line)
        if m and (m.group(1) or m.group(2)) and line.lstrip().startswith("-"):
            g = [x for x in m.group(1, 2) if x]
            groups.append(g)
            opts.update(g)
    return groups, opts
ag, _ = help_opts(os.path.join(tmp, "arpownd.h"))
cg, _ = help_opts(os.path.join(tmp, "arpownctl.h"))
def src_opts(path):
    """What getopt_long accepts: the short option string, the long names."""
    t = open(path).read()
    shorts = re.search(r'getopt_long\(argc, argv, "([^"]*)"', t).group(1)
    longs = re.findall(r'\{ "([\w-]+)",\s+\w+_argument', t)
    return {"-" + c for c in shorts if c != ":"} | {"--" + l for l in longs}
ao = src_opts(os.path.join(src, "src/main.c"))
co = src_opts(os.path.join(src, "src/arpownctl.c"))
ctl_h = open(os.path.join(tmp, "arpownctl.h")).read()
commands = set(re.findall(r"^  ([a-z]+)\s", ctl_h, re.M))
keys = sorted(set(re.findall(r"^([a-z_]+) =", open(os.path.join(tmp, "keys.out")).read(), re.M)))
# what the daemon makes in its state directory, from the source
sd = open(os.path.join(src, "src/statedir.c")).read() + open(os.path.join(src, "include/ctl.h")).read() + \
    open(os.path.join(src, "include/statefile.h")).read() + open(os.path.join(src, "include/statedir.h")).read()
names = set(re.findall(r'#define\s+\w+\s+"([a-z]+(?:\.[a-z]+)?)"', sd))
runtime = set()
for n in names:
    runtime |= {n, n + ".0", n + ".1", n + ".N"}
json.dump({"installed": installed, "unit": sorted(directives), "unit_text": unit_text,
           "options": {"arpownd": sorted(ao), "arpownctl": sorted(co)},
           "groups": {"arpownd": ag, "arpownctl": cg},
           "commands": sorted(commands), "keys": keys, "runtime": sorted(runtime)}, sys.stdout)
PY

# ---- the documents -----------------------------------------------------------
DOCS=("$SRC/README" "$SRC"/doc/*.md "$SRC"/man/*.[58] "$SRC/contrib/systemd/arpownd.catalog"
	"$SRC/contrib/prometheus/arpownd.rules.yml" "$SRC/contrib/systemd/kernel-path.conf"
	"$SRC/conf/arpownd.conf" "$SRC/contrib/keepalived/keepalived.conf"
	"$SRC/contrib/keepalived/arpownd-notify.in")
[ -f "$SRC/debian/arpownd.postinst" ] && DOCS+=("$SRC/debian/arpownd.postinst")
python3 "$SRC/tests/tools/docs_names.py" "$SRC" "$TMPDIR_T/facts.json" "${DOCS[@]}" ||
	fail "the documentation names what is not built or installed (above)"
pass "$(python3 "$SRC/tests/tools/docs_names.py" "$SRC" "$TMPDIR_T/facts.json" "${DOCS[@]}" 2>&1)"

# ---- what the alert that finds no metrics tells the admin to do ----------
# (the unit lists node_exporter's directory already: the step it needs is
# the directory's group, as README's recipe does)
python3 - "$SRC/contrib/prometheus/arpownd.rules.yml" <<'PY' || fail "ArpowndMetricsAbsent's steps"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"- alert: ArpowndMetricsAbsent\n(.*?)(?=\n      - alert:|\Z)", t, re.S)
d = m.group(1)
if "chgrp arpownd" not in d:
    sys.exit("ArpowndMetricsAbsent leaves out the directory's group (chgrp arpownd ...)")
if re.search(r"add (that directory|it|/var/lib/prometheus/node-exporter) to ReadWritePaths", d):
    sys.exit("ArpowndMetricsAbsent says to add to ReadWritePaths= what the unit has already")
PY
pass "ArpowndMetricsAbsent: the group step, no ReadWritePaths= the unit has already"

# ---- README: what an admin reads in five minutes ------------------------
# at most ~250 lines, in the order what, why, the quick start (whose test
# command CI runs), install, configure, operate, undo, where the rest is;
# how the tests, the VM, the container and the benchmark work is doc/'s
n=$(wc -l <"$SRC/README")
[ "$n" -le 250 ] || fail "README is $n lines: at most 250 (how things are tested and measured belongs in doc/)"
heads=$(awk 'prev != "" && /^-+$/ && length($0) == length(prev) { print prev } { prev = $0 }' "$SRC/README" | paste -sd '|')
expect_eq "$heads" "Why|Quick start|Install|Configure|Operate|Undo|Known limits|Where the rest is" "README's sections"
grep -qx '    make check' "$SRC/README" || fail "README's quick start does not say make check"
for f in doc/architecture.md doc/testing.md doc/benchmark.md doc/kpath.md; do
	grep -q "$f" "$SRC/README" || fail "README does not say where $f is"
done
pass "README: $n lines, what, why, the quick start (make check), install, configure, operate, undo, where the rest is"
