#!/bin/bash
# The Prometheus alert rules in contrib/prometheus: promtool accepts them,
# their promtool test passes and shows every alert both firing and not
# firing, each alert says how bad it is and what to do, the MESSAGE_IDs
# they name are arpownd's, and every metric, label and label value they
# use is one the daemon exports (read from src/metrics.c by
# tests/tools/promql_names.py).  Then the checks are shown to bite: a
# broken rule fails the promtool test, a misspelt metric fails the name
# check.  No root, no namespaces.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
need_cmd promtool
SRC=${top_srcdir:-.}
RULES=$SRC/contrib/prometheus/arpownd.rules.yml
TESTS=$SRC/contrib/prometheus/arpownd.rules.test.yml
NAMES=$SRC/tests/tools/promql_names.py
command -v python3 >/dev/null || fail "python3 is missing (tests/packages.txt)"
python3 -c 'import yaml' 2>/dev/null || fail "python3 cannot import yaml: install python3-yaml (tests/packages.txt)"

promtool check rules "$RULES" >"$TMPDIR_T/check.out" 2>&1 || fail "promtool check rules: $(cat "$TMPDIR_T/check.out")"
pass "promtool check rules: $(grep -o '[0-9]* rules found' "$TMPDIR_T/check.out")"
promtool test rules "$TESTS" >"$TMPDIR_T/test.out" 2>&1 || fail "promtool test rules: $(cat "$TMPDIR_T/test.out")"
pass "promtool test rules: the alert tests pass"

# every alert firing and not firing in the tests; each with a severity,
# a summary and a description; MESSAGE_IDs that msgid.h defines
python3 - "$RULES" "$TESTS" "$SRC/include/msgid.h" >"$TMPDIR_T/cover.out" 2>&1 <<'PY' || fail "$(cat "$TMPDIR_T/cover.out")"
import re, sys, yaml
rules = [r for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"] if "alert" in r]
tests = yaml.safe_load(open(sys.argv[2]))["tests"]
ids = set(re.findall(r'#define\s+MSGID_\w+\s+"([0-9a-f]{32})"', open(sys.argv[3]).read()))
bad = []
firing, quiet = set(), set()
for t in tests:
    for c in t.get("alert_rule_test", []):
        (firing if c.get("exp_alerts") else quiet).add(c["alertname"])
names = [r["alert"] for r in rules]
if len(names) != len(set(names)):
    bad.append("an alert name is used twice")
for r in rules:
    a = r["alert"]
    if a not in firing:
        bad.append("%s: no test shows it firing" % a)
    if a not in quiet:
        bad.append("%s: no test shows it not firing" % a)
    if r.get("labels", {}).get("severity") not in ("critical", "warning", "info"):
        bad.append("%s: no severity label (critical, warning or info)" % a)
    ann = r.get("annotations", {})
    for k in ("summary", "description"):
        if not ann.get(k, "").strip():
            bad.append("%s: no %s annotation" % (a, k))
    d = ann.get("description", "")
    # it says what to do: a command to run
    if not re.search(r"\b(arpownctl|journalctl|systemctl|arpownd -n|tcpdump|ip )", d):
        bad.append("%s: the description names no command to run" % a)
    for m in re.findall(r"MESSAGE_ID=(\w+)", d):
        if m not in ids:
            bad.append("%s: MESSAGE_ID=%s is not in include/msgid.h" % (a, m))
for a in (firing | quiet) - set(names):
    bad.append("the tests name %s, which the rules do not have" % a)
if bad:
    sys.exit("\n".join(bad))
print(len(names))
PY
pass "each of the $(cat "$TMPDIR_T/cover.out") alerts is tested firing and not firing, has a severity, a summary and a description that names a command; its MESSAGE_IDs are arpownd's"

python3 "$NAMES" "$SRC" rules "$RULES" >"$TMPDIR_T/names.out" 2>&1 || fail "metric names: $(cat "$TMPDIR_T/names.out")"
pass "the rules name only what src/metrics.c exports: $(cat "$TMPDIR_T/names.out")"

# the checks bite: ArpowndDown without its "for" fires on a restart's
# single 0; a misspelt metric and a mode arpownd never prints are found
mkdir "$TMPDIR_T/bite"
cp "$RULES" "$TESTS" "$TMPDIR_T/bite/"
B=$TMPDIR_T/bite/arpownd.rules.yml
awk '/alert: ArpowndDown$/ { d = 1 } d && /^ *for:/ { d = 0; next } { print }' "$RULES" >"$B"
cmp -s "$RULES" "$B" && fail "could not take ArpowndDown's for: out of the copy"
promtool test rules "$TMPDIR_T/bite/arpownd.rules.test.yml" >"$TMPDIR_T/bite.out" 2>&1 &&
	fail "promtool test passes with ArpowndDown firing at once"
grep -q ArpowndDown "$TMPDIR_T/bite.out" || fail "the failing promtool test does not name ArpowndDown: $(cat "$TMPDIR_T/bite.out")"
pass "a broken rule (ArpowndDown without for:) fails the promtool test"
sed 's/arpownd_conflicts_total/arpownd_conflict_total/; s/mode="monitor"/mode="monitoring"/' "$RULES" >"$B"
python3 "$NAMES" "$SRC" rules "$B" >"$TMPDIR_T/bite.out" 2>&1 && fail "the name check passes arpownd_conflict_total"
grep -q 'arpownd_conflict_total is not a metric' "$TMPDIR_T/bite.out" || fail "the misspelt metric is not named: $(cat "$TMPDIR_T/bite.out")"
grep -q 'monitoring is not a value' "$TMPDIR_T/bite.out" || fail "the wrong mode is not named: $(cat "$TMPDIR_T/bite.out")"
pass "a misspelt metric and a mode arpownd never prints fail the name check"
