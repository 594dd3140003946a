#!/bin/bash
# Journal logging for real: in a private mount namespace, the journal's
# socket is a test listener and stderr is "the journal stream"
# (JOURNAL_STREAM names it), so arpownd sends native journal datagrams;
# we parse the fields that arrive.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd unshare stat
"$ARPOWND" -V >/dev/null
if ! grep -q 'define HAVE_SYSTEMD 1' "${top_builddir:-.}/config.h" 2>/dev/null; then
	echo "SKIP: built without libsystemd (--with-systemd=no): no journal output"
	exit 77
fi
seed_net
write_conf "[global]"
J=$TMPDIR_T/journal.log
inner=$TMPDIR_T/inner.sh
cat >"$inner" <<INNER
set -e
mount -t tmpfs arpownd-test /run
mkdir -p /run/systemd/journal
"$ARPC" --notify-listen /run/systemd/journal/socket --notify-timeout 20000 >"$J" &
L=\$!
for i in \$(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.02; done
chmod 666 /run/systemd/journal/socket
exec 2>"$TMPDIR_T/stderr.log"
export JOURNAL_STREAM=\$(stat -c '%d:%i' "$TMPDIR_T/stderr.log")
"$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" &
D=\$!
for i in \$(seq 500); do [ -e "$TMPDIR_T/stop" ] && break; sleep 0.02; done
kill -TERM \$D; wait \$D || true
sleep 0.3
kill \$L 2>/dev/null || true
INNER
bg_run h unshare -m --propagation private bash "$inner"
inner_pid=$LAST_PID
wait_for 5000 grep -qs 'MESSAGE=arpownd .* started' "$J" || fail "no start message in the journal"
addr_add h eth0 10.0.0.7/24
ask c c0 10.0.0.1 -s 10.0.0.2      # a stranger using eth1's address: conflict
wait_for 3000 grep -q 'address conflict' "$J" || fail "no conflict in the journal"
touch "$TMPDIR_T/stop"
wait "$inner_pid" || true
cat "$J"

line() { grep -- "$1" "$J" | head -n 1; }
has() { case " $1 " in *" $2 "*) return 0 ;; esac; fail "field $2 missing in: $1"; }
l=$(line 'MESSAGE=arpownd .* started')
has "$l" PRIORITY=5
has "$l" MESSAGE_ID=6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b01
pass "start: PRIORITY=5 (notice) with its MESSAGE_ID"
l=$(line 'address 10.0.0.7/24 added')
has "$l" PRIORITY=6
has "$l" IFNAME=eth0
has "$l" ADDR=10.0.0.7
has "$l" MESSAGE_ID=6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b05
pass "address added: PRIORITY=6 IFNAME=eth0 ADDR=10.0.0.7"
l=$(line 'eth1: managed, mode owner')
has "$l" IFNAME=eth1
l=$(line 'address conflict')
has "$l" PRIORITY=4
has "$l" SENDER_IP=10.0.0.2
has "$l" "SENDER_MAC=$(mac_of c c0)"
has "$l" MESSAGE_ID=6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b07
pass "conflict: PRIORITY=4 with SENDER_IP and SENDER_MAC"
# the location is the caller's, never the logging wrapper's own
grep -q 'CODE_FILE=[^ ]*log\.c' "$J" && fail "an entry names log.c as its CODE_FILE: $(grep -m1 'CODE_FILE=[^ ]*log\.c' "$J")"
has "$l" CODE_FUNC=note_claim
case $l in *CODE_FILE=*notes.c*) ;; *) fail "conflict CODE_FILE is not notes.c: $l" ;; esac
pass "CODE_FILE/CODE_FUNC name the caller (notes.c, note_claim), not log.c"
grep -q 'MESSAGE=stopped; every sysctl restored' "$J" || fail "no stop message"
pass "stop logged"
! grep -q 'answered who-has' "$J" || fail "per-packet lines above debug"
pass "nothing per packet at the default level"
[ ! -s "$TMPDIR_T/stderr.log" ] || fail "stderr got: $(cat "$TMPDIR_T/stderr.log")"
pass "nothing on stderr when the journal listens"
