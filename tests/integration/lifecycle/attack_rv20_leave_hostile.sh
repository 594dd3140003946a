#!/bin/bash
# --restore runs as root (the unit's ExecStopPost) and must not trust a
# value from the state directory, which the unprivileged daemon writes.
# A record's leave= says what a stop leaves; a daemon that turned hostile
# writes leave=8 for an interface in owner mode (its own records, its own
# checksum): after it is killed, root's --restore would leave eth0 deaf
# for good (arp_ignore 8, no daemon to answer).  What --restore leaves
# must follow the configuration, which root reads itself: owner mode,
# stop_leaves = strict: arp_ignore 1.  About 3 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
ARPOWND_STOP_LEAVES=
write_conf "[global]"
arpownd_start h -c "$CONF"
grep -q 'name=eth0 .*leave=1' "$ARPOWND_STATE_DIR"/originals.* ||
	fail "no strict record for eth0: $(cat "$ARPOWND_STATE_DIR"/originals.*)"
# the daemon (its uid) rewrites its records: eth0's leave=8
python3 - "$ARPOWND_STATE_DIR" <<'PY'
import sys, os, re, zlib
d = sys.argv[1]
for s in ("originals.0", "originals.1"):
    p = os.path.join(d, s)
    if not os.path.exists(p) or os.path.getsize(p) == 0:
        continue
    t = open(p).read()
    body = t[:t.rindex("crc32=")]
    body = re.sub(r"(name=eth0 .*?)leave=1", r"\1leave=8", body)
    body = re.sub(r"gen=(\d+)", lambda m: "gen=%d" % (int(m.group(1)) + 100), body, count=1)
    open(p, "w").write(body + "crc32=%08x\n" % zlib.crc32(body.encode()))
PY
grep -q 'name=eth0 .*leave=8' "$ARPOWND_STATE_DIR"/originals.* || fail "the forged record was not written"
kill -KILL "$ARPOWND_PID"
arpownd_stop
ns h "$ARPOWND" --restore -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "arpownd --restore: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 1 "--restore after a forged leave=8: eth0 in owner's strict mode, not deaf"
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0 (the kernel) after --restore"
