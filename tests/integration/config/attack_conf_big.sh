#!/bin/bash
# Reading the configuration is quadratic in its size, and a reload reads it
# inside the event loop: while it reads, nothing is answered (the kernel is
# at arp_ignore 8).  conf.c's scan() keeps every section and key in an
# array searched linearly by line_of() for each new line, and read_section()
# asks iniparser for each section's keys by walking the whole dictionary.
# Measured here: 2,000 one-interface sections take 0.45 s, 8,000 take 6 s
# (arpownd -n as well, so ExecStartPre/ExecReload too; at ~20,000 the
# reload outlasts WatchdogSec=30s).  One [interface] section per VLAN or
# per port is what configuration management generates.
# Expected: the 8,000-section file (400 KB) is checked in well under 2 s,
# and a request sent just after SIGHUP is answered within 1 s (an ARP
# client's first retry).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd python3
seed_net
write_conf "[global]"
BIG=$TMPDIR_T/big.conf
python3 - "$ARPOWND_TEST_USER" >"$BIG" <<'PY'
import sys
print("[global]\nuser = %s" % sys.argv[1])
for i in range(8000):
    print("[interface s%d]\nmatch = lan%d wan%d\nmode = owner" % (i, i, i))
PY
_now_ms; t0=$_NOW_MS
"$ARPOWND" -n -q -c "$BIG" || fail "the big file is refused"
_now_ms; took=$((_NOW_MS - t0))
[ "$took" -lt 2000 ] || fail "arpownd -n on 8,000 sections (400 KB) took $took ms"
pass "arpownd -n on 8,000 sections: $took ms"

cp "$CONF" "$TMPDIR_T/run.conf"
arpownd_start h -c "$TMPDIR_T/run.conf"
cp "$BIG" "$TMPDIR_T/run.conf"
kill -HUP "$ARPOWND_PID"
sleep 0.1
ask c c0 10.0.0.1 -w 1000 -t 1200
expect_eq "$NREPLY" 1 "a request 100 ms after SIGHUP (8,000 sections) is answered within 1 s"
arpownd_stop
