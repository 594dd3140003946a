#!/bin/bash
# The JSON documents arpownctl(8) shows are the daemon's: each example in
# the man page (".\" json: NAME" before its .EX block) has the same keys,
# at every level, with the same JSON types (null stands for any), as what
# the running daemon replies to that command.  A field added, renamed or
# removed in the code without the page fails here.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
MAN=${top_srcdir:-.}/man/arpownctl.8
seed_net
write_conf "[global]
[publish web]
addresses = 10.0.0.48/29
interface = eth0"
arpownd_start h -c "$CONF"
c() { "$ARPOWNCTL" --state-dir "$ARPOWND_STATE_DIR" --json "$@"; }
ask c c0 10.0.0.1
ask c c0 10.0.0.2 -s 10.0.0.1	# a conflict, for the conflicts document
D=$TMPDIR_T/docs
mkdir -p "$D"
for x in status interfaces counters conflicts published; do c "$x" >"$D/$x.json" || fail "$x"; done
c reload -c "$CONF" >"$D/reload.json" || fail reload
c announce 10.0.0.1 >"$D/announce.json" || fail announce
c publish 10.0.0.64/27 eth0 >"$D/publish.json" || fail publish
c withdraw 10.0.0.64/27 >"$D/withdraw.json" || fail withdraw
python3 - "$MAN" "$D" <<'PY' || fail "the man page's JSON differs from the daemon's"
import json, re, sys
man, d = sys.argv[1], sys.argv[2]
text = open(man).read()
blocks = re.findall(r'^\.\\" json: (\w+)\n(?:\.PP\n)?\.EX\n(.*?)\n\.EE$', text, re.M | re.S)
if not blocks:
    sys.exit("no examples found in " + man)
def kind(v):
    return "null" if v is None else type(v).__name__.replace("int", "number").replace("float", "number")
def shape(doc, real, path, errs):
    if doc is None or real is None:
        return
    if kind(doc) != kind(real):
        errs.append("%s: the page has a %s, the daemon a %s" % (path, kind(doc), kind(real)))
    elif isinstance(doc, dict):
        for k in sorted(set(doc) | set(real)):
            if k not in real:
                errs.append("%s.%s: in the page, not from the daemon" % (path, k))
            elif k not in doc:
                errs.append("%s.%s: from the daemon, not in the page" % (path, k))
            else:
                shape(doc[k], real[k], path + "." + k, errs)
    elif isinstance(doc, list) and doc and real:
        shape(doc[0], real[0], path + "[0]", errs)
errs, seen = [], set()
for name, body in blocks:
    seen.add(name)
    doc = json.loads(body.replace("\\e", "\\").replace("\\-", "-"))
    real = json.load(open("%s/%s.json" % (d, name)))
    shape(doc, real, name, errs)
for name in ("status", "interfaces", "counters", "conflicts", "published", "reload",
             "announce", "publish", "withdraw"):
    if name not in seen:
        errs.append("%s: no example in the page" % name)
print("\n".join(errs))
print("%d examples compared" % len(blocks))
sys.exit(1 if errs else 0)
PY
pass "every JSON example in arpownctl(8) has the daemon's keys and types"
arpownd_stop
