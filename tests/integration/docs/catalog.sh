#!/bin/bash
# The journal's message catalog, contrib/systemd/arpownd.catalog: one
# entry for each MESSAGE_ID of include/msgid.h and none other, each with
# Subject, Defined-By: arpownd, Support, Documentation and a body, and
# @FIELD@ substitutions only of the fields arpownd logs; then journalctl
# itself builds its catalog database from the file in a scratch root
# (journalctl --root=DIR --update-catalog, as systemd's dpkg trigger does
# on install) and lists exactly those entries, each read back whole.
# A broken entry header is shown to fail both checks.  No root needed.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
SRC=${top_srcdir:-.}
CAT=$SRC/contrib/systemd/arpownd.catalog
MSGID=$SRC/include/msgid.h
command -v python3 >/dev/null || fail "python3 is missing (tests/packages.txt)"

# check_file FILE: the entries against msgid.h
check_file() {
	python3 - "$1" "$MSGID" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
ids = dict(re.findall(r'#define\s+(MSGID_\w+)\s+"([0-9a-f]{32})"', open(sys.argv[2]).read()))
if len(ids) < 10:
    sys.exit("only %d MESSAGE_IDs read from msgid.h" % len(ids))
FIELDS = {"IFNAME", "ADDR", "SENDER_IP", "SENDER_MAC"}
HEADERS = ("Subject", "Defined-By", "Support", "Documentation")
bad, seen = [], {}
entries = re.split(r"(?m)^(?=-- )", text)
for e in entries[1:]:
    lines = e.split("\n")
    m = re.fullmatch(r"-- ([0-9a-f]{32})", lines[0])
    if not m:
        bad.append("not an entry header: %r" % lines[0])
        continue
    i = m.group(1)
    if i in seen:
        bad.append("%s: two entries" % i)
    head = {}
    n = 1
    while n < len(lines) and lines[n] != "":
        k, sep, v = lines[n].partition(": ")
        if not sep or k in head:
            bad.append("%s: header line %r" % (i, lines[n]))
        head[k] = v
        n += 1
    body = "\n".join(lines[n:]).strip()
    for h in HEADERS:
        if not head.get(h, "").strip():
            bad.append("%s: no %s:" % (i, h))
    if head.get("Defined-By") != "arpownd":
        bad.append("%s: Defined-By: %r, not arpownd" % (i, head.get("Defined-By")))
    for h in ("Support", "Documentation"):
        for u in head.get(h, "").split():
            if not re.fullmatch(r"(man:[\w.-]+\([0-9]\)|https?://\S+)", u):
                bad.append("%s: %s: %r is not a man: or http(s) URI" % (i, h, u))
    if len(body) < 100:
        bad.append("%s: the body says too little" % i)
    for f in re.findall(r"@(\w+)@", head.get("Subject", "") + body):
        if f not in FIELDS:
            bad.append("%s: @%s@ is not a field arpownd logs" % (i, f))
    seen[i] = head.get("Subject", "")
for name, i in ids.items():
    if i not in seen:
        bad.append("%s (%s) has no entry" % (name, i))
for i in seen:
    if i not in ids.values():
        bad.append("%s has an entry but is not in msgid.h" % i)
if bad:
    sys.exit("\n".join(bad))
print(len(seen))
PY
}

n=$(check_file "$CAT" 2>"$TMPDIR_T/check.err") || fail "$CAT: $(cat "$TMPDIR_T/check.err")"
pass "an entry for each of the $n MESSAGE_IDs of msgid.h and no other, each with its headers and a body"

# journalctl_reads FILE: journalctl's own parser, on a scratch root
journalctl_reads() {
	local root=$TMPDIR_T/root.$RANDOM id want got
	mkdir -p "$root/usr/lib/systemd/catalog"
	cp "$1" "$root/usr/lib/systemd/catalog/arpownd.catalog"
	journalctl --root="$root" --update-catalog 2>"$TMPDIR_T/jc.err" ||
		{ echo "journalctl --update-catalog: $(cat "$TMPDIR_T/jc.err")"; return 1; }
	[ -s "$root/var/lib/systemd/catalog/database" ] ||
		{ echo "journalctl --update-catalog wrote no database"; return 1; }
	want=$(sed -n 's/^#define[[:space:]]*MSGID_[A-Z_]*[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$MSGID" | sort)
	got=$(journalctl --root="$root" --list-catalog | awk '{ print $1 }' | sort)
	[ "$got" = "$want" ] || { echo "journalctl --list-catalog lists:"; echo "$got"; echo "msgid.h has:"; echo "$want"; return 1; }
	for id in $want; do
		journalctl --root="$root" --dump-catalog "$id" >"$TMPDIR_T/entry" 2>&1 ||
			{ echo "journalctl --dump-catalog $id failed"; return 1; }
		grep -qx "Defined-By: arpownd" "$TMPDIR_T/entry" || { echo "$id: no Defined-By: arpownd as journalctl reads it"; return 1; }
		grep -q '^Subject: ' "$TMPDIR_T/entry" || { echo "$id: no Subject: as journalctl reads it"; return 1; }
		# a header journalctl did not take for one ends up in the body before it
		[ "$(grep -c '^-- ' "$TMPDIR_T/entry")" = 1 ] ||
			{ echo "$id: another entry's header inside its text: $(grep '^-- ' "$TMPDIR_T/entry")"; return 1; }
	done
}

if command -v journalctl >/dev/null; then
	journalctl_reads "$CAT" >"$TMPDIR_T/jr.out" 2>&1 || fail "$(cat "$TMPDIR_T/jr.out")"
	pass "journalctl --update-catalog on a scratch root: --list-catalog lists exactly msgid.h's $n, each read back with its headers"
else
	echo "# journalctl is not installed: its own parse not checked"
fi

# the checks bite: an entry header with a digit lost (journalctl takes it
# for text and runs the entry into the one before, without an error)
sed 's/^-- 6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b07$/-- 6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b7/' "$CAT" >"$TMPDIR_T/bite.catalog"
cmp -s "$CAT" "$TMPDIR_T/bite.catalog" && fail "could not break the copy"
check_file "$TMPDIR_T/bite.catalog" >/dev/null 2>"$TMPDIR_T/bite.err" && fail "the file check passes a broken header"
grep -q 'MSGID_CONFLICT (6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b07) has no entry' "$TMPDIR_T/bite.err" ||
	fail "the broken header is not named: $(cat "$TMPDIR_T/bite.err")"
if command -v journalctl >/dev/null; then
	journalctl_reads "$TMPDIR_T/bite.catalog" >"$TMPDIR_T/bite.out" 2>&1 && fail "journalctl's read passes a broken header"
fi
pass "a broken entry header fails the checks"
