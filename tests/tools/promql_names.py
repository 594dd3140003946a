#!/usr/bin/env python3
"""promql_names.py — do the PromQL expressions shipped in contrib/ name only
metrics, labels and label values arpownd really exports?

    promql_names.py SRCDIR rules FILE.yml ... | grafana FILE.json ...
    promql_names.py SRCDIR exposition FILE    (what arpownctl metrics prints)

What arpownd exports is read from its source, the one place that writes
the metrics: src/metrics.c (each family's name and labels, from its
head(), gauge(), counter() and per_iface() calls and the label text its
fprintf()s print), src/policy.c (the mode and verdict names) and
src/arp.c (the invalid-frame reasons).  A rule file is checked expression
by expression (and its annotations' metric names); a Grafana dashboard's
every "expr" and template query.  Exits 1 naming each expression that
refers to a metric, a label or a label value that does not exist.  The
exposition mode holds what a live daemon printed against the same
reading of the source (tests/integration/control/metrics.sh runs it, as root), so
that a change to metrics.c this reading misses cannot go unnoticed.

Not a PromQL parser: selectors, label lists (by, on, ...) and the names
left over are picked out of the text with regular expressions, which is
enough for what contrib/ holds; a construct it cannot read is an error,
not a pass.
"""
import json
import os
import re
import sys

# node_exporter's own series that the rules use beside arpownd's (the
# textfile collector's view of arpownd's metrics_file)
EXTERNAL = {
    "node_textfile_mtime_seconds": {"file"},
    "node_textfile_scrape_error": set(),
    "up": set(),
}
# labels Prometheus adds to every scraped series
TARGET_LABELS = {"job", "instance"}
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool", "inf", "nan"}

errors = []


def err(where, msg):
    errors.append("%s: %s" % (where, msg))


def c_names(path, array):
    """The strings of a C array of names: [ENUM] = "name", ..."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"\b%s\s*\[[^]]*\]\s*=\s*\{(.*?)\};" % re.escape(array), text, re.S)
    if not m:
        sys.exit("promql_names: no %s in %s" % (array, path))
    return dict(re.findall(r"\[(\w+)\]\s*=\s*\"([^\"]*)\"", m.group(1)))


def catalogue(src):
    """{metric: {label: set of values, or None for any value}}"""
    path = os.path.join(src, "src", "metrics.c")
    text = open(path, encoding="utf-8").read()
    # a family starts where its name is first printed
    starts = [(m.start(), m.group(2), m.group(1)) for m in re.finditer(
        r"\b(head|gauge|counter|per_iface)\s*\([^;]*?\"(arpownd_\w+)\"", text, re.S)]
    fams = {}
    for i, (pos, name, kind) in enumerate(starts):
        if name in fams:
            continue
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        body = text[pos:end]
        labels = {}
        if kind == "per_iface" or "iface_label(" in body:
            labels["interface"] = None
        # in the C text: label=\"%s\", label=\"literal\", or label=\" at the
        # end of the string (the value printed by the call after it)
        for lab, val, close in re.findall(r'(\w+)=\\"((?:[^"\\]|\\[^"])*)(\\"|")', body):
            if close == '"' or val == "%s":
                labels[lab] = None
            elif labels.get(lab, set()) is not None:
                labels.setdefault(lab, set()).add(val)
        fams[name] = labels
    modes = set(c_names(os.path.join(src, "src", "policy.c"), "mode_names").values())
    verdicts = set(c_names(os.path.join(src, "src", "policy.c"), "verdict_names").values())
    # metrics.c prints every reason but ARP_OK and ARP_GRATUITOUS
    reasons = c_names(os.path.join(src, "src", "arp.c"), "reason_names")
    reasons = {v for k, v in reasons.items() if k not in ("ARP_OK", "ARP_GRATUITOUS")}
    named = {"mode": modes, "verdict": verdicts, "reason": reasons,
             "path": {"kernel", "capture"}}
    for labels in fams.values():
        for lab in labels:
            if labels[lab] is None and lab in named:
                labels[lab] = named[lab]
    # what the rest of this check relies on: if metrics.c changes shape,
    # say so instead of passing on a catalogue that lost its labels
    for name, want in (("arpownd_up", set()), ("arpownd_replies_total", {"interface"}),
                       ("arpownd_interfaces", {"mode"}),
                       ("arpownd_interface_info", {"interface", "mode", "path"}),
                       ("arpownd_requests_total", {"verdict"}),
                       ("arpownd_invalid_total", {"reason"}),
                       ("arpownd_heard_total", {"kind"}),
                       ("arpownd_capture_drops_total", set()),
                       ("arpownd_build_info", {"version"})):
        if name not in fams or set(fams[name]) != want:
            sys.exit("promql_names: src/metrics.c no longer reads as expected: %s has "
                     "labels %s, expected %s" % (name, sorted(fams.get(name, {"?": 0})),
                                                 sorted(want)))
    if "monitor" not in modes or "answered" not in verdicts or "bad_hrd" not in reasons:
        sys.exit("promql_names: the mode, verdict or reason names were not found")
    return fams


def label_values(pattern):
    """The values a literal alternation like a|b|c matches, or None."""
    if re.fullmatch(r"[\w]+(\|[\w]+)*", pattern):
        return pattern.split("|")
    return None


def check_expr(where, expr, fams, grafana=False):
    used = set()
    text = expr
    if grafana:
        # a template query: label_values(SELECTOR, label)
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", text, re.S)
        if m:
            names = check_expr(where, m.group(1), fams, grafana)
            if not any(m.group(2) in labels_of(n, fams) for n in names):
                err(where, "label_values: no metric of %s has the label %s"
                    % (sorted(names), m.group(2)))
            return names
        # ${var}, $var, [$__rate_interval]: Grafana's, not PromQL's
        text = re.sub(r"\$\{\w+(:\w+)?\}|\$\w+", "VAR", text)
    # selectors with matchers
    for m in re.finditer(r"([A-Za-z_:][\w:]*)?\s*\{([^{}]*)\}", text):
        name, body = m.group(1), m.group(2)
        if not name or name in KEYWORDS:
            err(where, "a selector without a metric name: {%s}" % body)
            continue
        used.add(name)
        rest = body
        for lm in re.finditer(r"\s*(\w+)\s*(=~|!~|!=|=)\s*\"((?:[^\"\\]|\\.)*)\"\s*,?", body):
            rest = rest.replace(lm.group(0), "", 1)
            check_label(where, name, lm.group(1), lm.group(2), lm.group(3), fams)
        if rest.strip():
            err(where, "cannot read the matchers of %s{%s}" % (name, body))
    # then what is left: no strings, matchers, ranges, offsets
    text = re.sub(r"\"(?:[^\"\\]|\\.)*\"", " ", text)
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r"\[[^]]*\]", " ", text)
    text = re.sub(r"\boffset\s+-?\w+", " ", text)
    groups = []
    for m in re.finditer(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)", text):
        groups += [g.strip() for g in m.group(2).split(",") if g.strip()]
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", text)
    for m in re.finditer(r"\b([A-Za-z_:][\w:]*)\b(\s*\()?", text):
        word, call = m.group(1), m.group(2)
        if call or word in KEYWORDS or word == "VAR":
            continue
        # a number's exponent or a duration's unit: 1e3, 5m
        if m.start() > 0 and text[m.start() - 1].isdigit():
            continue
        used.add(word)
    for name in used:
        if name not in fams and name not in EXTERNAL:
            err(where, "%s is not a metric arpownd exports (src/metrics.c)" % name)
    known = set(TARGET_LABELS)
    for name in used:
        known |= labels_of(name, fams)
    for g in groups:
        if g not in known:
            err(where, "grouping by %s, a label none of %s has" % (g, sorted(used)))
    if not used:
        err(where, "no metric found in %r" % expr)
    return used


def labels_of(name, fams):
    if name in fams:
        return set(fams[name]) | TARGET_LABELS
    return EXTERNAL.get(name, set()) | TARGET_LABELS


def check_label(where, name, lab, op, val, fams):
    if name not in fams:
        if name in EXTERNAL and lab not in labels_of(name, fams) and lab != "__name__":
            err(where, "%s has no label %s" % (name, lab))
        return
    if lab in TARGET_LABELS:
        return
    if lab not in fams[name]:
        err(where, "%s has no label %s (it has: %s)" % (name, lab,
                                                         ", ".join(sorted(fams[name])) or "none"))
        return
    allowed = fams[name][lab]
    if allowed is None or "VAR" in val:
        return
    vals = [val] if op in ("=", "!=") else label_values(val)
    if vals is None:
        return
    for v in vals:
        if v not in allowed:
            err(where, '%s{%s%s"%s"}: %s is not a value arpownd prints (it prints: %s)'
                % (name, lab, op, val, v, ", ".join(sorted(allowed))))


def check_rules(path, fams):
    import yaml
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    n = 0
    for g in doc.get("groups", []):
        for r in g.get("rules", []):
            name = r.get("alert") or r.get("record")
            check_expr("%s: %s" % (path, name), str(r["expr"]), fams)
            n += 1
            # metric names in the annotations, e.g. "see arpownd_would_refuse_total"
            for k, v in (r.get("annotations") or {}).items():
                for word in re.findall(r"\barpownd_\w+", v):
                    if word not in fams:
                        err("%s: %s: annotation %s" % (path, name, k),
                            "%s is not a metric arpownd exports" % word)
    if n == 0:
        err(path, "no rules")
    return n


def check_grafana(path, fams):
    doc = json.load(open(path, encoding="utf-8"))
    n = 0

    def walk(o, where):
        nonlocal n
        if isinstance(o, dict):
            title = o.get("title") or o.get("name") or where
            for k, v in o.items():
                if k == "expr" and isinstance(v, str):
                    check_expr("%s: %s" % (path, title), v, fams, grafana=True)
                    n += 1
                elif k in ("query", "definition") and isinstance(v, str) and \
                        "label_values" in v:
                    check_expr("%s: variable %s" % (path, title), v, fams, grafana=True)
                    n += 1
                else:
                    walk(v, title)
        elif isinstance(o, list):
            for v in o:
                walk(v, where)
    walk(doc, "dashboard")
    if n == 0:
        err(path, "no expressions")
    return n


def check_exposition(path, fams):
    """What a live daemon printed (arpownctl metrics) against the catalogue
    read from the source: the same families, each sample with exactly the
    catalogue's labels, and values from its sets."""
    seen = set()
    n = 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"# TYPE (\S+) ", line)
        if m:
            seen.add(m.group(1))
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([A-Za-z_:][\w:]*)(?:\{(.*)\})? \S+$", line)
        if not m:
            err(path, "cannot read the sample %r" % line)
            continue
        name, body = m.group(1), m.group(2) or ""
        n += 1
        if name not in fams:
            err(path, "%s is exported but not found in src/metrics.c" % name)
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', body))
        if set(labels) != set(fams[name]):
            err(path, "%s has the labels %s; src/metrics.c reads as %s"
                % (name, sorted(labels), sorted(fams[name])))
        for k, v in labels.items():
            allowed = fams[name].get(k)
            if allowed is not None and v not in allowed:
                err(path, '%s{%s="%s"}: a value not found in the source' % (name, k, v))
    for name in set(fams) - seen:
        err(path, "%s is read from src/metrics.c but not exported" % name)
    for name in seen - set(fams):
        err(path, "%s is exported but not found in src/metrics.c" % name)
    return n


def main(argv):
    modes = {"rules": check_rules, "grafana": check_grafana, "exposition": check_exposition}
    if len(argv) < 4 or argv[2] not in modes:
        sys.exit(__doc__.split("\n\n")[1])
    fams = catalogue(argv[1])
    total = 0
    for path in argv[3:]:
        total += modes[argv[2]](path, fams)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print("%d %s checked against the %d metrics of src/metrics.c"
          % (total, "samples" if argv[2] == "exposition" else "expressions", len(fams)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
