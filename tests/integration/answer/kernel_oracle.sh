#!/bin/bash
# kernel_oracle.sh — the kernel is the oracle: arpownd in mode owner, subnet
# and system must answer exactly what the kernel answers at arp_ignore 1, 2
# and 0, byte for byte, and per-interface modes what the kernel answers with
# the matching arp_ignore per NIC (off = 8).
#
# For each seed, tests/tools/oracle.py draws a host (2 to 5 NICs, some on
# one bridged segment, others alone; primary and secondary addresses, one
# address on two NICs, one address with two prefixes, point-to-point peers,
# scope host and link, addresses on lo, a NIC that is down, 0/8, class E,
# a /32 that is another subnet's broadcast address) and a batch of requests
# from the peer side (senders in and out of the subnet, RFC 5227 probes,
# gratuitous, our own addresses, martians, broadcast and unicast Ethernet
# destinations, Ethernet source != ARP sender, ...).  The batch goes to the
# kernel (arpownd not running) at arp_ignore 1, 2, 0 and mixed, then to
# arpownd in the matching mode; each time every reply is captured on the
# peer side of every host NIC.  Each request's replies (which NIC, the whole
# frame) must be the same.  Neighbour tables and the bridge's FDB are
# flushed before every run.
#
#   ORACLE_SEED=n         one seed (printed with every result)
#   ORACLE_SEEDS=spec     "1-8", "3 7 11", or "random:N" (N random seeds);
#                         default 1-10, within ORACLE_BUDGET_S (100) seconds
#   ORACLE_REQUESTS=n     requests per seed (default 100)
#   ORACLE_ONLY=i,j       only these requests of the batch (with ORACLE_SEED)
#   ORACLE_SHOW=n         disagreements printed in full per kind and seed (2)
#   KEEP_TMP=1            keep the plans and captures (lib.sh)
#
# Exit 0 only when every disagreement is in the list of intended ones below.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd python3

ORACLE="$(cd "$(dirname "$0")/../../tools" && pwd)/oracle.py"
[ -r "$ORACLE" ] || fail "no $ORACLE"
# the interpreter itself: a version manager's python3 may be a script that
# costs 0.3 s a call, and the helper is called 20 times a seed
PY=$(python3 -c 'import sys; print(sys.executable)') && [ -x "$PY" ] || PY=python3
oracle() { "$PY" -I -S "$ORACLE" "$@"; }
NREQ=${ORACLE_REQUESTS:-100}
SHOW=${ORACLE_SHOW:-2}

# Intended differences, reported and not counted: one per line,
#   PATTERN | why | where arpownd.conf(5) says so
# PATTERN is a glob over the kind that compare prints, "MODE WHO WHY SHAPE":
# the arpownd run (owner, subnet, system, mixed), who answered alone
# (kernel-only, arpownd-only) or how the replies differ (bytes-differ,
# count-differs), why the other side did not (arpownd's verdict, or the
# kernel's as its model says), and the request's most telling feature,
# e.g. "system kernel-only arpownd:other-interface tip-on-lo".
# Each is justified in arpownd.conf(5), section DIFFERENCES FROM THE KERNEL.
cat >"$TMPDIR_T/intended" <<'EOF'
* kernel-only arpownd:bad_sender_mac sha-group | a broadcast or multicast sender MAC: the kernel replies to that group, arpownd does not | arpownd.conf(5) DIFFERENCES
* kernel-only arpownd:bad_sender_mac sha-zero | a zero sender MAC: the kernel replies to 00:00:00:00:00:00, arpownd does not | arpownd.conf(5) DIFFERENCES
system kernel-only arpownd:other_interface tip-on-down-nic | system: an address on a down interface | arpownd.conf(5) DIFFERENCES
mixed kernel-only arpownd:other_interface tip-on-down-nic | system: an address on a down interface | arpownd.conf(5) DIFFERENCES
system kernel-only arpownd:other_interface tip-on-lo | system: an address on lo | arpownd.conf(5) DIFFERENCES
mixed kernel-only arpownd:other_interface tip-on-lo | system: an address on lo | arpownd.conf(5) DIFFERENCES
system kernel-only arpownd:not_local tip-in-lo-subnet | system: an address only routed to lo | arpownd.conf(5) DIFFERENCES
mixed kernel-only arpownd:not_local tip-in-lo-subnet | system: an address only routed to lo | arpownd.conf(5) DIFFERENCES
system kernel-only arpownd:gratuitous tip-in-lo-subnet | system: an address only routed to lo, asked for by itself | arpownd.conf(5) DIFFERENCES
mixed kernel-only arpownd:gratuitous tip-in-lo-subnet | system: an address only routed to lo, asked for by itself | arpownd.conf(5) DIFFERENCES
mixed kernel-only arpownd:other_interface tip-only-on-off-nics | system: an address held only by interfaces in mode off | arpownd.conf(5) DIFFERENCES
* arpownd-only kernel:broadcast-route tip-ours-but-broadcast-route-wins | an address that is also another subnet's broadcast: the kernel's answer depends on which was configured first | arpownd.conf(5) DIFFERENCES
EOF

# make check's set: about 5 s a seed on 2 cores; should a loaded machine
# make it slower, seeds past ORACLE_BUDGET_S are left out (and named)
budget=${ORACLE_BUDGET_S:-}
if [ -z "${ORACLE_SEED:-}${ORACLE_SEEDS:-}" ]; then
	ORACLE_SEEDS=1-10
	budget=${budget:-100}
fi
seeds=
spec=${ORACLE_SEED:-$ORACLE_SEEDS}
case $spec in
random:*)
	for ((i = 0; i < ${spec#random:}; i++)); do
		seeds+=" $((RANDOM * 32768 + RANDOM))"
	done
	;;
*-*)
	seeds=$(seq "${spec%-*}" "${spec#*-}")
	;;
*)
	seeds=${spec//,/ }
	;;
esac
seeds=$(tr -s '\n ' '  ' <<<"$seeds")
seeds=${seeds# }
seeds=${seeds% }
[ -n "$seeds" ] || fail "no seeds in '$spec'"

# send LABEL QUIET_MS [ARP_IGNORE]: the batch (at that arp_ignore), once more
# if the kernel's ARP table (shared by every namespace of the machine) was
# full meanwhile: the kernel then drops requests it would answer, and the
# run says nothing about arp_ignore
send() {
	local rc
	for _ in 1 2 3; do
		rc=0
		oracle send "$D" "$@" || rc=$?
		[ "$rc" = 3 ] || break
		echo "  (the kernel's ARP table was full: run $1 again)"
		sleep 1
	done
	[ "$rc" != 3 ] || fail "seed $SEED: run $1: the kernel's ARP table (one for the whole" \
		"machine) was full three times in a row: something else is filling it"
	[ "$rc" = 0 ] || fail "seed $SEED: run $1 failed ($rc)"
}

run_seed() {
	local n nss t0 t1
	SEED=$1
	D=$TMPDIR_T/seed-$SEED
	_now_ms
	t0=$_NOW_MS
	nss=$(oracle plan "$SEED" "$NREQ" "${NS_PREFIX}s$SEED" "$D") ||
		fail "seed $SEED: plan"
	for n in $nss; do
		ns_new "s$SEED$n"
	done
	echo "=== ORACLE_SEED=$SEED"
	oracle setup "$D" || fail "seed $SEED: setup"

	# the kernel, arpownd not running
	for n in 1 2 0 mixed; do
		send "k$n" 60 "$n"
	done
	# arpownd, the kernel silent (arp_ignore 8 on every NIC it manages)
	for n in owner subnet system mixed; do
		write_conf "$(cat "$D/arpownd-$n.conf")"
		arpownd_start "s${SEED}h" -c "$CONF"
		send "$n" 200
		arpownd_stop
		[ "$ARPOWND_RC" = 0 ] || fail "seed $SEED: arpownd ($n) exited with $ARPOWND_RC"
		# its reasons, one line a request (-d), for compare
		mv "$TMPDIR_T/arpownd.log" "$D/arpownd-$n.log"
	done
	# the kernel once more, as at first: what the runs left behind (neighbour
	# entries, the FDB, the sysctls arpownd restored) changes no answer
	send k1again 60 1
	oracle compare "$D" "$TMPDIR_T/intended" "$SHOW" ||
		fail "seed $SEED: compare"
	for n in $nss; do
		ip netns del "${NS_PREFIX}s$SEED$n" 2>/dev/null
	done
	# the daemon's logs matter only when it failed (above)
	rm -f "$TMPDIR_T"/notify.log*
	_now_ms
	t1=$_NOW_MS
	echo "seed $SEED took $((t1 - t0)) ms"
}

_now_ms
T0=$_NOW_MS
dirs=()
left=
for s in $seeds; do
	_now_ms
	if [ -n "$budget" ] && [ "$budget" != 0 ] && [ $((_NOW_MS - T0)) -ge $((budget * 1000)) ]; then
		left+=" $s"
		continue
	fi
	run_seed "$s"
	dirs+=("$TMPDIR_T/seed-$s")
done
[ -z "$left" ] || echo "time budget of $budget s spent: seeds not run:$left"
_now_ms
echo "whole run: $((_NOW_MS - T0)) ms"
rc=0
oracle summary "${dirs[@]}" || rc=$?
[ "$rc" = 0 ] || fail "arpownd and the kernel disagree (seeds: $seeds); see above"
pass "arpownd gives the kernel's answers (seeds: $seeds)"
