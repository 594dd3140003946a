#!/bin/bash
# The Grafana dashboard in contrib/grafana: valid JSON that Grafana 9 and
# later imports (an __inputs datasource every panel and variable uses, and
# a datasource variable of that name for provisioning; the instance and
# interface variables; panels that fit the 24-column grid
# without overlapping, unique ids), every query valid PromQL (promtool
# checks each, Grafana's variables filled in) and naming only the
# metrics, labels and label values arpownd exports (tests/tools/
# promql_names.py, from src/metrics.c).  A misspelt metric is shown to
# fail the check.  No root, no namespaces.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
need_cmd promtool
SRC=${top_srcdir:-.}
DASH=$SRC/contrib/grafana/arpownd.json
NAMES=$SRC/tests/tools/promql_names.py
command -v python3 >/dev/null || fail "python3 is missing (tests/packages.txt)"

python3 - "$DASH" "$TMPDIR_T/exprs.rules.yml" >"$TMPDIR_T/shape.out" 2>&1 <<'PY' || fail "$(cat "$TMPDIR_T/shape.out")"
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as e:
    sys.exit("not valid JSON: %s" % e)
bad = []
inputs = [i for i in d.get("__inputs", []) if i.get("type") == "datasource"]
if len(inputs) != 1 or inputs[0].get("pluginId") != "prometheus":
    sys.exit("__inputs: want one Prometheus datasource input, got %r" % d.get("__inputs"))
DS = "${%s}" % inputs[0]["name"]
if not d.get("uid") or not d.get("title"):
    bad.append("no uid or title")
if d.get("schemaVersion", 0) < 36:
    bad.append("schemaVersion %s: Grafana 9 writes 36 and later" % d.get("schemaVersion"))
if d.get("id") is not None:
    bad.append("id must be null for an import")
req = {r.get("id"): r.get("version") for r in d.get("__requires", [])}
if not str(req.get("grafana", "")).startswith("9."):
    bad.append("__requires: no grafana 9.x")

def ds_ok(where, ds):
    if not isinstance(ds, dict) or ds.get("type") != "prometheus" or ds.get("uid") != DS:
        bad.append("%s: datasource %r, not the __inputs' %s" % (where, ds, DS))

variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
# provisioned from a file nothing fills __inputs in: a datasource variable
# of the same name stands for it
v = variables.pop(inputs[0]["name"], {})
if v.get("type") != "datasource" or v.get("query") != "prometheus":
    bad.append("no datasource variable %s for provisioning" % inputs[0]["name"])
for name in ("instance", "interface"):
    v = variables.get(name)
    if v is None or v.get("type") != "query":
        bad.append("no query variable %s" % name)
        continue
    ds_ok("variable " + name, v.get("datasource"))

exprs = []
panels, cells, ids = [], {}, set()
def walk(ps):
    for p in ps:
        panels.append(p)
        walk(p.get("panels", []))
walk(d.get("panels", []))
for p in panels:
    t = p.get("title") or "(untitled)"
    if p.get("id") in ids:
        bad.append("%s: id %s used twice" % (t, p.get("id")))
    ids.add(p.get("id"))
    g = p.get("gridPos", {})
    if g.get("x", 0) + g.get("w", 0) > 24 or g.get("w", 0) <= 0 or g.get("h", 0) <= 0:
        bad.append("%s: gridPos %r outside the 24 columns" % (t, g))
    for x in range(g.get("x", 0), g.get("x", 0) + g.get("w", 0)):
        for y in range(g.get("y", 0), g.get("y", 0) + g.get("h", 0)):
            if (x, y) in cells:
                bad.append("%s overlaps %s at %d,%d" % (t, cells[(x, y)], x, y))
                break
            cells[(x, y)] = t
        else:
            continue
        break
    if p.get("type") == "row":
        continue
    if not p.get("title") or not p.get("description"):
        bad.append("%s: a panel needs a title and a description" % t)
    ds_ok(t, p.get("datasource"))
    if not p.get("targets"):
        bad.append("%s: no query" % t)
    for q in p.get("targets", []):
        ds_ok(t, q.get("datasource"))
        exprs.append((t, q.get("expr", "")))
for a in d.get("annotations", {}).get("list", []):
    if "expr" in a:
        ds_ok("annotation " + a.get("name", ""), a.get("datasource"))
        exprs.append(("annotation " + a.get("name", ""), a["expr"]))
for name, v in variables.items():
    exprs.append(("variable " + name, v.get("query") if isinstance(v.get("query"), str) else v.get("query", {}).get("query", "")))

# what the issue asks to see
titles = {p.get("title") for p in panels}
for want in ("Replies sent /s", "Received /s", "Refused /s", "Rate-limited /s",
             "Requests by verdict /s", "Invalid frames by reason /s", "Conflicts",
             "Capture drops and errors", "Interfaces by mode", "Announcements sent /s",
             "Up", "Uptime", "Last reload"):
    if want not in titles:
        bad.append("no panel %r" % want)
# interfaces by mode: red when monitor > 0
modes = [p for p in panels if p.get("title") == "Interfaces by mode"]
if modes:
    red = False
    for o in modes[0].get("fieldConfig", {}).get("overrides", []):
        if o.get("matcher", {}).get("options") == "monitor":
            for pr in o.get("properties", []):
                steps = pr.get("value", {}).get("steps", []) if pr.get("id") == "thresholds" else []
                red = red or any(s.get("color") == "red" and s.get("value") is not None and s["value"] <= 1 for s in steps)
    if not red:
        bad.append("Interfaces by mode: monitor does not turn red at 1")
if bad:
    sys.exit("\n".join(bad))

# each query as a recording rule, Grafana's variables filled in, for promtool
import re
with open(sys.argv[2], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, (t, e) in enumerate(exprs):
        m = re.fullmatch(r"\s*label_values\((.*),\s*\w+\s*\)\s*", e, re.S)
        if m:
            e = m.group(1)
        e = e.replace("$__rate_interval", "1m").replace("$__range", "1h").replace("$__interval", "1m")
        e = re.sub(r"\$\{?\w+\}?", ".*", e)
        f.write("      - record: dashboard:query%d\n        expr: %s\n" % (i, json.dumps(e)))
print("%d panels, %d queries" % (len(panels), len(exprs)))
PY
pass "valid JSON for Grafana 9 and later: $(cat "$TMPDIR_T/shape.out"), one __inputs datasource used throughout, variables instance and interface, the grid without overlaps"

promtool check rules "$TMPDIR_T/exprs.rules.yml" >"$TMPDIR_T/check.out" 2>&1 || fail "a dashboard query is not valid PromQL: $(cat "$TMPDIR_T/check.out")"
pass "promtool parses every query"

python3 "$NAMES" "$SRC" grafana "$DASH" >"$TMPDIR_T/names.out" 2>&1 || fail "metric names: $(cat "$TMPDIR_T/names.out")"
pass "the dashboard names only what src/metrics.c exports: $(cat "$TMPDIR_T/names.out")"

sed 's/arpownd_rate_limited_total/arpownd_ratelimited_total/' "$DASH" >"$TMPDIR_T/bite.json"
python3 "$NAMES" "$SRC" grafana "$TMPDIR_T/bite.json" >"$TMPDIR_T/bite.out" 2>&1 && fail "the name check passes arpownd_ratelimited_total"
grep -q 'Rate-limited /s: arpownd_ratelimited_total is not a metric' "$TMPDIR_T/bite.out" ||
	fail "the misspelt metric is not named with its panel: $(cat "$TMPDIR_T/bite.out")"
pass "a misspelt metric fails the check, naming the panel"
