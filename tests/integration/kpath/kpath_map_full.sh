#!/bin/bash
# More host addresses than the kernel answer path's maps were sized for
# at the start (16,384 at least), on 64 interfaces arpownd does not
# manage (each is one of the host's: a marker each): the program cannot
# mark them all as the host's, so it answers nothing and the capture path
# answers everything; status, the metrics and the journal say so and
# why; once 1,000 of them go and there is room again, it answers again,
# by itself (doc/kpath.md, "Sizes, and what does not fit").
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
need_cmd tc
seed_net
capture_lines() { grep -c "$1: answered who-has $2 " "$TMPDIR_T/arpownd.log"; }
kp() { ctl_get status "d['kernel_path']['$1']"; }
unheld() { ctl_get status "d['kernel_path']['unheld']['addresses']"; }
path0() { ctl_get status "[i['answer_path'] for i in d['managed'] if i['name'] == 'eth0'][0]"; }
# by_program WHAT: 10.0.0.1 answered by eth0, and not by the capture path
by_program() {
	local before
	before=$(capture_lines eth0 10.0.0.1)
	expect_reply c c0 10.0.0.1 "$MAC0" "$1: 10.0.0.1 answered by eth0"
	expect_eq "$(capture_lines eth0 10.0.0.1)" "$before" "$1: by the kernel path (no capture line)"
}

kp_daemon_start "[global]
interfaces = eth*
answer_path = kernel
announce = no"
CAP=$(kp capacity)
echo "# maps sized for $CAP address entries"
# what they cost, as status says it: the kernel's own count (bpftool's
# memlock of the kp_ maps; the globals' small maps on top)
MB=$(kp map_bytes)
# (this daemon's maps only, by the map ids of the fds it holds: another
# arpownd on the host has kp_ maps of its own)
ids=$(grep -h '^map_id:' /proc/"$ARPOWND_PID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
BT=$(for id in $ids; do bpftool map show id "$id" 2>/dev/null; done | awk '/^[0-9]+:/ { ours = / name kp_/ }
	ours { for (i = 1; i <= NF; i++) if ($i == "memlock") { v = $(i + 1); sub(/B$/, "", v); s += v } }
	END { printf "%d", s }')
[ "$BT" -gt 0 ] && [ "$MB" -ge "$BT" ] && [ "$MB" -le $((BT + 65536)) ] ||
	fail "status says the maps take $MB bytes, bpftool counts $BT for the kp_ maps"
[ "$(ctl metrics | sed -n 's/^arpownd_kernel_path_map_bytes //p')" = "$MB" ] ||
	fail "the metric arpownd_kernel_path_map_bytes is not status's $MB"
pass "status and the metrics say the maps take $MB bytes (bpftool: $BT in the kp_ maps)"

# --- more host addresses than the maps hold, on 64 interfaces arpownd
# does not manage (each is still one of the host's: a marker each; spread
# out, as the kernel adds an address in time linear in its device's)
N=$((CAP + 200))
for k in $(seq 0 63); do echo "link add x$k type veth peer name y$k"; echo "link set x$k up"; done >"$TMPDIR_T/links"
ns h ip -batch "$TMPDIR_T/links" || fail "adding 64 veth pairs"
for ((j = 0; j < N; j++)); do
	echo "addr add 10.$((64 + j / 65536)).$((j / 256 % 256)).$((j % 256))/32 dev x$((j % 64))"
done >"$TMPDIR_T/add"
ns h ip -batch "$TMPDIR_T/add" || fail "adding $N addresses"
stalled() { [ "$(kp answering)" = False ]; }
wait_for 20000 stalled || fail "$N host addresses: status still says the kernel path answers ($(ctl status 2>&1 | grep -i kernel))"
pass "$N host addresses: status says the kernel path answers nothing"
expect_eq "$(path0)" capture "status: eth0 answered by the capture path"
grep -q 'kernel answer path: no room to mark .* it answers nothing, and the capture path answers everything' "$TMPDIR_T/arpownd.log" ||
	fail "no journal line says the kernel path stopped answering and why"
pass "the journal says which address does not fit and that the capture path answers"
ctl status | grep -q 'kernel path:   ANSWERS NOTHING' || fail "arpownctl status does not say so: $(ctl status)"
ctl metrics | grep -q '^arpownd_kernel_path_answering 0$' ||
	fail "the metrics do not say so: $(ctl metrics | grep kernel_path)"
pass "arpownctl status and the metrics say it answers nothing"
before=$(capture_lines eth0 10.0.0.1)
expect_reply c c0 10.0.0.1 "$MAC0" "stalled: 10.0.0.1 still answered by eth0"
[ "$(capture_lines eth0 10.0.0.1)" -gt "$before" ] || fail "stalled: that answer was not the capture path's"
pass "stalled: by the capture path"

# room again: 1,000 addresses go
head -n 1000 "$TMPDIR_T/add" | sed 's/^addr add/addr del/' >"$TMPDIR_T/del"
ns h ip -batch "$TMPDIR_T/del" || fail "deleting 1000 addresses"
answering() { [ "$(kp answering)" = True ]; }
wait_for 10000 answering || fail "room again: the kernel path does not answer again ($(ctl status 2>&1 | grep -A1 'kernel path'))"
pass "room again: status says the kernel path answers"
none_unheld() { [ "$(ctl_get status "sum(d['kernel_path']['unheld'].values())")" = 0 ]; }
wait_for 5000 none_unheld || fail "room again: still unheld: $(ctl status | grep -A1 'kernel path')"
pass "room again: nothing unheld (addresses, ranges, interfaces, kernel entries)"
grep -q 'kernel answer path: every host address is marked again' "$TMPDIR_T/arpownd.log" ||
	fail "the journal does not say it answers again"
pass "the journal says it answers again"
by_program "room again"
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "stopped cleanly"
