#!/usr/bin/env python3
"""docs_names.py — does every name the documentation mentions exist in
what is built and installed?

    docs_names.py SRCDIR FACTS.json DOC...

FACTS.json (tests/integration/docs/docs_names.sh writes it) says what the
build and its install hold: "installed", every path of make install
(DESTDIR, the Debian layout) plus what the package adds; "unit", the
directives of the installed unit and of the drop-in kernel-path.conf;
"options", each program's options (from its -h); "commands", arpownctl's;
"keys", the configuration keys (from arpownd -n); "runtime", the names
the daemon makes in its state directory.  The metrics come from
src/metrics.c (promql_names.py's reading), the alerts from
contrib/prometheus/arpownd.rules.yml, the MESSAGE_IDs from
include/msgid.h.

Each DOC is read as text (a man page's roff escapes undone) and checked:

  unit directives (Foo=)      in the installed unit or the drop-in
  sd_notify / journal fields  (READY=, IFNAME=, ...) set somewhere in src/
  paths                       /usr, /lib, /etc/arpownd*, /run/arpownd:
                              installed, or made at run time; source
                              paths (contrib/..., doc/...) in the source
                              tree; no bare examples/...
  options                     of an arpownd or arpownctl command line: in
                              that program's -h; a man page's SYNOPSIS and
                              OPTIONS list exactly its -h
  arpownctl COMMAND           a command arpownctl has
  key = value                 a key arpownd knows
  arpownd_* metrics           exported (src/metrics.c)
  Arpownd* alerts             in the alert rules
  MESSAGE_IDs                 in include/msgid.h

In the documents a package installs (man pages, the catalog, the alert
rules, the drop-in), a source path whose file is installed must come
with its installed path: a package's user has no source tree.

Exits 1 naming each document, the name, and what it should have been.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promql_names  # noqa: E402  (the metrics as src/metrics.c writes them)

# Directives documents may name without the unit having them, with why:
# they are named as what the unit does NOT do, or as another unit's.
NOT_OURS = {
    "DynamicUser": "0.1.0's unit had it; the docs say why this one has not",
    "After": "systemd-networkd's ordering, in the boot-order test",
    "Before": "systemd-networkd's ordering, in the boot-order test",
}
# paths not ours that the docs may name
SYSTEM_PATHS = (
    "/usr/sbin/nologin", "/etc/sysctl.d", "/etc/sysctl.conf", "/etc/network",
    "/etc/passwd", "/etc/group", "/etc/shadow", "/etc/hostname", "/etc/apt",
    "/usr/share/doc/arpownd/changelog", "/usr/share/doc/arpownd/copyright",
    "/proc/", "/sys/", "/var/lib/prometheus/node-exporter", "/etc/keepalived",
    "/usr/lib/systemd/catalog", "/usr/share/bash-completion", "/usr/share/zsh",
    "/lib/systemd/system", "/usr/lib/systemd/system", "/run/systemd",
    "/run/private", "/etc/systemd/system/arpownd.service.d",
    "/etc/default/arpownd", "/etc/prometheus", "/srv/", "/nonexistent",
    "/etc/resolv.conf", "/tmp", "/home", "/root", "/run/netns",
    "/usr/local",
)
# commands whose options are not arpownd's
SOURCE_DIRS = ("contrib", "doc", "tests", "conf", "systemd", "man", "debian", "src",
               "include")

errors = []


def err(doc, msg):
    errors.append("%s: %s" % (doc, msg))


def text_of(path):
    t = open(path, encoding="utf-8").read()
    if re.search(r"\.[1-8]$", path):
        # roff: escapes undone, font changes dropped, macro names gone
        t = re.sub(r"\\f[BIRP]|\\f\(..", "", t)
        t = t.replace("\\-", "-").replace("\\(em", "--").replace("\\e", "\\")
        t = t.replace("\\&", "").replace("\\ ", " ").replace("\\~", " ")
        t = re.sub(r'^\.\\".*$', "", t, flags=re.M)
        t = re.sub(r"^\.(B|I|BR|BI|IR|RB|IB|RI)\s+", "", t, flags=re.M)
        t = re.sub(r'"', "", t)
    return t


# words after which "arpownd" is an argument, not the command
ARG_OF = {"systemctl", "journalctl", "adduser", "deluser", "useradd", "addgroup", "groupadd",
          "chgrp", "chown", "id", "getent", "edit", "status", "restart", "start", "stop",
          "reload", "enable", "disable", "kill", "show", "is-active", "is-enabled", "cat",
          "user", "group", "service", "unit", "runuser", "-u", "--unit", "purge", "remove",
          "install", "deluser", "the", "of", "coredumpctl", "list", "=", "MESSAGE_ID"}


def at_command(t, start):
    """Is the word at start a command (not systemctl's, journalctl's argument)?"""
    before = t[max(0, start - 80):start].rstrip(" \t")
    prev = before.split()[-1] if before.split() else ""
    if prev.startswith("-") or prev in ARG_OF or prev.endswith(("=", ":arpownd")):
        return False
    return True


def installed_doc(path):
    return re.search(r"(man/|arpownd\.catalog$|rules\.yml$|kernel-path\.conf$)", path)


def main(argv):
    src, facts = argv[1], json.load(open(argv[2]))
    installed = set(facts["installed"])
    inst_dirs = {os.path.dirname(p) for p in installed}
    while True:
        more = {os.path.dirname(d) for d in inst_dirs} - inst_dirs
        if not more:
            break
        inst_dirs |= more
    unit = set(facts["unit"])
    options = {k: set(v) for k, v in facts["options"].items()}
    commands = set(facts["commands"])
    keys = set(facts["keys"])
    runtime = set(facts["runtime"])
    metrics = set(promql_names.catalogue(src))
    rules = open(os.path.join(src, "contrib/prometheus/arpownd.rules.yml")).read()
    alerts = set(re.findall(r"^\s*- alert: (\w+)", rules, re.M))
    msgids = set(re.findall(r'"([0-9a-f]{32})"', open(os.path.join(src, "include/msgid.h")).read()))
    srctext = ""
    for d in ("src", "include"):
        for f in sorted(os.listdir(os.path.join(src, d))):
            if f.endswith((".c", ".h")):
                srctext += open(os.path.join(src, d, f), encoding="utf-8").read()
    unit_text = facts["unit_text"]
    tree_text = srctext + unit_text + open(os.path.join(src, "Makefile.am")).read()
    for d in ("tests", "debian", "contrib", ".ci"):
        for root, _, files in os.walk(os.path.join(src, d)):
            for f in files:
                if f.endswith((".sh", ".py", ".c", ".in", "rules", "run", "postinst", "postrm")) \
                        or f in ("run", "prepare", "guest-init", "init"):
                    try:
                        tree_text += open(os.path.join(root, f), encoding="utf-8").read()
                    except (UnicodeDecodeError, OSError):
                        pass
    # BPF program names (tc shows them), which look like metrics
    progs = set()
    for f in sorted(glob.glob(os.path.join(src, "src/kpath/bpf/*.bpf.[ch]"))):
        progs |= set(re.findall(r'SEC\("[^"]*"\)\s*int\s+(arpownd_\w+)', open(f).read()))

    for doc in argv[3:]:
        name = os.path.relpath(doc, src)
        t = text_of(doc)

        # ---- unit directives and fields
        for d in sorted(set(re.findall(r"(?<![\w$/.-])([A-Z][a-z]+(?:[A-Z][A-Za-z]*)+)=", t))):
            if d not in unit and d not in NOT_OURS:
                err(name, "%s= is not a directive of the installed unit or of kernel-path.conf" % d)
        for d in sorted(set(re.findall(r"(?<![\w$/.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})=", t))):
            if d + "=" not in tree_text and '"' + d + '"' not in tree_text and d not in tree_text:
                err(name, "%s= is set nowhere in src/, the unit or Makefile.am" % d)

        # ---- paths
        for p in sorted(set(re.findall(r"(?<![\w.~-])(/(?:usr|lib|etc|run|var)/[A-Za-z0-9_.@/+-]*[A-Za-z0-9_])", t))):
            p = p.rstrip(".")
            if p in installed or p in inst_dirs:
                continue
            if p.startswith("/run/arpownd"):
                rest = p[len("/run/arpownd"):].lstrip("/")
                if rest == "" or rest in runtime:
                    continue
                err(name, "%s: arpownd makes no %s in its state directory" % (p, rest))
                continue
            if p.startswith(SYSTEM_PATHS):
                continue
            err(name, "%s is not installed (make install, the package's layout)" % p)
        for p in sorted(set(re.findall(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_])" % "|".join(SOURCE_DIRS), t))):
            if p.startswith(("systemd/system", "doc/arpownd", "src/arpownd")) and not os.path.exists(os.path.join(src, p)):
                continue
            if p in ("conf/all", "conf/default") or p.endswith((".log", ".trs")):
                continue	# the sysctls' net.ipv4.conf.all; a test's output
            pat = re.sub(r"[A-Z]{2,}", "*", p)
            if not (os.path.exists(os.path.join(src, p)) or os.path.exists(os.path.join(src, p + ".in"))
                    or glob.glob(os.path.join(src, pat)) or glob.glob(os.path.join(src, pat + "*"))):
                err(name, "%s is not in the source tree" % p)
                continue
            if installed_doc(doc) and p.startswith("contrib"):
                # each installed file it stands for must be named where it is installed
                full = os.path.join(src, p)
                files = [re.sub(r"\.in$", "", f) for f in os.listdir(full)] if os.path.isdir(full) \
                    else [re.sub(r"\.in$", "", os.path.basename(p))]
                for f in sorted(set(files)):
                    inst = sorted(q for q in installed if os.path.basename(q) == f)
                    if inst and not any(q in t for q in inst):
                        err(name, "%s: a package's user has no source tree; name where %s is installed (%s)"
                            % (p, f, ", ".join(inst)))
        for m in re.finditer(r"(?<![\w/.-])examples/[\w.-]+", t):
            err(name, "%s: no such path; the package has it in /usr/share/doc/arpownd/examples/, the source in contrib/" % m.group(0))

        # ---- options and commands of arpownd and arpownctl command lines
        for m in re.finditer(r"(?<![\w/.-])(arpownd|arpownctl)((?:[ \t]+(?:-[-\w]+(?:=\S+)?|[\w./:\[\]=-]+))*)", t):
            prog, rest = m.group(1), m.group(2)
            if not at_command(t, m.start()):
                continue
            words = rest.split()
            for w in words:
                if re.match(r"--?[a-zA-Z]", w):
                    o = w.split("=")[0].rstrip(".,;:)")
                    if o not in options[prog]:
                        err(name, "%s %s: %s has no option %s" % (prog, rest.strip()[:40], prog, o))
            if prog == "arpownctl":
                first = [w for w in words if not w.startswith("-")]
                if first and re.match(r"^[a-z]+$", first[0]) and first[0] not in commands \
                        and first[0] not in ("is", "and", "or", "as", "run", "runs", "exits", "talks",
                                             "the", "in", "to", "passes", "prints", "says", "reload",
                                             "with", "for", "on", "itself", "counts", "shows",
                                             "lists", "does", "gives", "then", "has", "may",
                                             "commands", "can", "waits", "reads", "must", "asks",
                                             "answers", "output", "before", "after", "sends",
                                             "also", "was", "when", "from", "by", "of", "at",
                                             "changes", "command", "server", "client", "uses"):
                    # only the forms "arpownctl WORD" at a command's place
                    if re.search(r"(^|\n)\s*(\$ |# )?arpownctl\s+%s\b" % re.escape(first[0]), t) or \
                            re.search(r"`arpownctl %s" % re.escape(first[0]), t):
                        err(name, "arpownctl %s: no such command" % first[0])

        # ---- configuration keys
        for k in sorted(set(re.findall(r"(?m)(?:^|[\s`(;])([a-z][a-z_]*[a-z]) = ", t))):
            if "_" in k or k in ("interfaces", "mode", "learn", "user", "announce", "defend",
                                 "match", "addresses", "interface", "mac"):
                # the kernel's sysctls, which the docs set as "arp_ignore = 8"
                if k not in keys and k not in ("arp_ignore", "arp_filter", "arp_accept", "rp_filter"):
                    err(name, "%s = : arpownd knows no such key" % k)

        # ---- metrics, alerts, MESSAGE_IDs
        for mt in sorted(set(re.findall(r"\b(arpownd_[a-z_]+[a-z])\b", t))):
            if mt not in metrics and mt not in progs:
                err(name, "%s: no such metric (src/metrics.c)" % mt)
        for a in sorted(set(re.findall(r"\b(Arpownd[A-Z][A-Za-z]+)\b", t))):
            if a not in alerts:
                err(name, "%s: no such alert in contrib/prometheus/arpownd.rules.yml" % a)
        for i in sorted(set(re.findall(r"\b(6a4d0b1f[0-9a-f]{24})\b", t))):
            if i not in msgids:
                err(name, "MESSAGE_ID=%s: not in include/msgid.h" % i)

        # ---- a man page's synopsis and options: what -h says
        mp = re.search(r"man/(arpownd|arpownctl)\.8$", doc)
        if mp:
            prog = mp.group(1)
            raw = open(doc, encoding="utf-8").read()
            syn = re.search(r"^\.SH SYNOPSIS\n(.*?)^\.SH", raw, re.M | re.S)
            opts = re.search(r"^\.SH OPTIONS\n(.*?)^\.SH", raw, re.M | re.S)
            syn_o = set(re.findall(r"\\-(?:\\-)?[a-zA-Z][\w]*(?:\\-[\w]+)*", syn.group(1))) if syn else set()
            syn_o = {o.replace("\\-", "-") for o in syn_o}
            for group in facts["groups"][prog]:
                if not set(group) & syn_o:
                    err(name, "SYNOPSIS lacks %s (%s -h has it)" % (" / ".join(group), prog))
            if opts:
                for o in sorted(set(re.findall(r"^\.TP\n\.(?:BR?|BI)\s+(\\-[^\s\"]+)", opts.group(1), re.M))):
                    # --restore=originals: the option --restore, its value
                    o = o.replace("\\-", "-").split("=")[0]
                    if o not in options[prog]:
                        err(name, "OPTIONS describes %s, which %s -h does not list" % (o, prog))

    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print("%d documents: every directive, path, option, command, key, metric, alert and "
          "MESSAGE_ID they name exists" % (len(argv) - 3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
