#!/bin/bash
# Root's offline commands and a second daemon beside a running daemon on
# the kernel answer path: none may take the running daemon's program
# away behind its back (status would still say "kernel").
#  1. arpownd --restore on the running daemon's state dir: refused, the
#     filters stay;
#  2. a second arpownd in the same namespace (another state dir):
#     refused by the namespace lock, the filters stay, answers still
#     the program's;
#  3. arpownd --restore on another (empty) state dir, e.g. a leftover of
#     an old instance or a typo: kp_purge removes every arpownd filter
#     of the namespace; the running daemon's must stay.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc

seed_net
all_filters() { local i; for i in eth0 eth1 eth2; do ns h tc filter show dev $i ingress 2>/dev/null | grep -c arpownd_answer; done | tr -d '\n'; }
cap_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }
kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"
expect_eq "$(all_filters)" 111 "the program on eth0, eth1, eth2"

# 1
rc=0
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/r1.log" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--restore on the running daemon's state dir succeeded"
pass "--restore on the running daemon's state dir refused ($rc): $(head -n1 "$TMPDIR_T/r1.log")"
expect_eq "$(all_filters)" 111 "1: the filters stay"

# 2
mkdir -p "$TMPDIR_T/state2"
rc=0
ns h timeout 10 "$ARPOWND" -d --state-dir "$TMPDIR_T/state2" -c "$CONF" >"$TMPDIR_T/d2.log" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a second daemon in the namespace ran"
pass "a second daemon refused ($rc): $(grep -m1 -i 'another\|lock' "$TMPDIR_T/d2.log")"
expect_eq "$(all_filters)" 111 "2: the filters stay"
before=$(cap_lines eth0 10.0.0.1)
expect_reply c c0 10.0.0.1 "$MAC0" "2: 10.0.0.1 answered by eth0"
expect_eq "$(cap_lines eth0 10.0.0.1)" "$before" "2: still by the program"

# 3
mkdir -p "$TMPDIR_T/state3"
rc=0
ns h "$ARPOWND" --restore --state-dir "$TMPDIR_T/state3" >"$TMPDIR_T/r3.log" 2>&1 || rc=$?
echo "# --restore --state-dir state3: exit $rc: $(tr '\n' ' ' <"$TMPDIR_T/r3.log")"
f=$(all_filters)
st=$(ctl_get status "' '.join(i['name'] + '=' + i['answer_path'] for i in sorted(d['managed'], key=lambda i: i['name']))")
[ "$f" = 111 ] || fail "3: --restore on another state dir removed the running daemon's filters ($f left) while its status says: $st"
pass "3: the filters stay"
