#!/bin/bash
# 1,000 interfaces: the XDP side must not ask the kernel about each one
# with a dump of all of them (libbpf's bpf_xdp_query is a dump of every
# link, filtered in user space).  It did, three times over: another's
# program's name at the start, a check before each attach, and the purge
# of a start and of --restore (ExecStopPost).  --restore took 10 s here
# and a start with answer_path = auto 30 s; one dump each now: 20 ms and
# about a second.  The bounds are five times that, for a loaded host.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
ns_new h
b=$TMPDIR_T/links.batch
{
	for i in $(seq 0 499); do echo "link add s${i}a type veth peer name s${i}b"; done
	for i in $(seq 0 499); do echo "link set s${i}a up"; echo "link set s${i}b up"; done
	for k in $(seq 0 999); do
		if [ $((k % 2)) = 0 ]; then n=s$((k / 2))a; else n=s$((k / 2))b; fi
		echo "addr add 10.$((64 + k / 256)).$((k % 256)).1/32 dev $n"
	done
} >"$b"
ns h ip -batch "$b" || fail "ip -batch"

ms() { echo $(( (${EPOCHREALTIME/[.,]/} - $1) / 1000 )); }
t0=${EPOCHREALTIME/[.,]/}
ns h "$ARPOWND" --restore --state-dir "$ARPOWND_STATE_DIR" >>"$TMPDIR_T/arpownd.log" 2>&1 ||
	fail "--restore failed: $(tail -n 3 "$TMPDIR_T/arpownd.log")"
t=$(ms "$t0")
[ "$t" -le 1000 ] || fail "--restore at 1,000 interfaces took $t ms (at most 1,000)"
pass "--restore at 1,000 interfaces: $t ms"

write_conf "[global]
interfaces = s*
announce = no
answer_path = auto"
t0=${EPOCHREALTIME/[.,]/}
arpownd_start h -c "$CONF"
t=$(ms "$t0")
if grep -q 'the kernel answer path did not load' "$TMPDIR_T/arpownd.log"; then
	echo "SKIP: $(grep -m1 'did not load' "$TMPDIR_T/arpownd.log")"
	exit 77
fi
expect_eq "$(ns h ip -o link show | grep -c 'name arpownd_xdp')" 1000 "auto: arpownd_xdp on the 1,000 veths"
[ "$t" -le 6000 ] || fail "auto at 1,000 interfaces: READY after $t ms (at most 6,000)"
pass "auto at 1,000 interfaces: READY after $t ms"
arpownd_stop
