#!/bin/bash
# A hostile local user (uid 65534: no capability, not in group arpownd)
# against the kernel answer path while the daemon runs: the program's
# maps and filters must stay out of reach (DESIGN: nothing pinned, the
# fds only in the daemon).  Tries: list/dump programs and maps by id,
# pinned objects in bpffs, the daemon's fds in /proc, deleting or
# replacing the TC filter, adding a clsact qdisc elsewhere; then the
# daemon must still answer from the program.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc
need_cmd setpriv

seed_net
nobody() { ns h setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
all_filters() { local i; for i in eth0 eth1 eth2; do ns h tc filter show dev $i ingress 2>/dev/null | grep -c arpownd_answer; done | tr -d '\n'; }
cap_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }
kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel"

if command -v bpftool >/dev/null 2>&1; then
	ids=$(bpftool prog show 2>/dev/null | sed -n 's/^\([0-9]*\): .*name arpownd_answer.*/\1/p' | tr "\n" " ")
	out=$(nobody bpftool prog show 2>&1) && [ -n "$(grep -c arpownd <<<"$out" | grep -v '^0$')" ] &&
		fail "uid 65534 lists the programs: $out"
	pass "uid 65534 cannot list the programs"
	for id in $ids; do
		out=$(nobody bpftool prog dump xlated id "$id" 2>&1) && fail "uid 65534 dumps program $id"
		out=$(nobody bpftool prog show id "$id" 2>&1) && fail "uid 65534 opens program $id by id"
	done
	pass "uid 65534 cannot open the program by id (${ids:-none listed})"
	mids=$(bpftool map show 2>/dev/null | sed -n 's/^\([0-9]*\): .*name kp_\(answers\|alive\|conf\|ifaces\).*/\1/p' | tr "\n" " ")
	for id in $mids; do
		out=$(nobody bpftool map dump id "$id" 2>&1) && fail "uid 65534 dumps map $id: $out"
		out=$(nobody bpftool map update id "$id" key hex 00 00 00 00 value hex 00 2>&1) &&
			fail "uid 65534 writes map $id"
	done
	pass "uid 65534 cannot read or write the maps by id (${mids:-none} )"
fi
pins=$(find /sys/fs/bpf -name '*arpownd*' -o -name 'kp_*' 2>/dev/null | head -n 3)
expect_eq "$pins" "" "nothing pinned in bpffs"
out=$(nobody ls -l "/proc/$ARPOWND_PID/fd/" 2>&1) && fail "uid 65534 lists the daemon's fds: $out"
pass "uid 65534 cannot see the daemon's fds"
for h in 0xa4d0; do
	out=$(nobody tc filter del dev eth0 ingress pref 42192 handle "$h" bpf 2>&1) &&
		fail "uid 65534 deleted the filter on eth0"
	out=$(nobody tc filter replace dev eth0 ingress pref 42192 handle "$h" bpf bytecode '1,6 0 0 0,' 2>&1) &&
		fail "uid 65534 replaced the filter on eth0"
done
out=$(nobody tc qdisc del dev eth1 clsact 2>&1) && fail "uid 65534 deleted eth1's clsact qdisc"
pass "uid 65534 cannot delete or replace the filters or the qdisc"
expect_eq "$(all_filters)" 111 "the filters stay"
before=$(cap_lines eth0 10.0.0.1)
expect_reply c c0 10.0.0.1 "$MAC0" "10.0.0.1 answered by eth0"
expect_eq "$(cap_lines eth0 10.0.0.1)" "$before" "by the program"
