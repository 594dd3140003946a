#!/bin/bash
# The in-kernel path beside arpownd, in the seed's network, in owner,
# subnet and system modes: the program answers what it is sure of and
# passes everything else up unchanged, where arpownd's capture (libpcap,
# ETH_P_ARP on "any") receives it and decides.  For each of 14 questions
# (the sure ones, and every unsure class: another interface's address, a
# sender outside the subnets, a conflict, a gratuitous ARP, bad frames, a
# reply, a spoofed Ethernet source, an address on lo, nobody's) three runs:
#   D   arpownd alone          K   the program alone (kernel at arp_ignore 8)
#   DK  both, as deployed
# and then: DK answers exactly as D (who, how many: no duplicates); K
# answers a subset of D; and every frame K did not answer reached the
# capture in DK: arpownd's "received" grew by D's count less K's answers.
# Then sender lists (allow_senders, deny_senders) the same way.  arpownd
# neither announces nor defends here: its own frames, flooded by the
# bridge to the sibling NIC, would blur the count of what it captured.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need
seed_net
addr_add h lo 10.0.0.50/32

QUESTIONS=(
	"c c0 10.0.0.1"
	"c c0 10.0.0.2"
	"c c0 10.1.0.1"
	"f f0 10.1.0.1"
	"f f0 10.0.0.1"
	"c c0 10.0.0.1 -s 192.168.77.5"
	"c c0 10.0.0.1 -s 0.0.0.0"
	"c c0 10.0.0.1 -s 10.0.0.2"
	"c c0 10.0.0.1 -s 10.0.0.1"
	"c c0 10.0.0.1 --hln 8"
	"c c0 10.0.0.1 -o 2"
	"c c0 10.0.0.1 -e 02:00:00:00:00:99"
	"c c0 10.0.0.50"
	"c c0 10.0.0.77"
)

# arpownd's "received", all interfaces (sed, not python: this runs 200 times)
received() {
	ctl --json counters | tr -d ' \n\t' | sed -n 's/.*"all":{"received":\([0-9]*\).*/\1/p'
}

# run TAG MODE [with_daemon]: ask every question; R_TAG[i] = "count macs",
# N_TAG[i] = frames arpownd received meanwhile (with the daemon).
declare -A R N
run() {
	local tag=$1 i q r0 r1
	for i in "${!QUESTIONS[@]}"; do
		q=${QUESTIONS[$i]}
		[ "$tag" = K ] || r0=$(received)
		# shellcheck disable=SC2086 # the question's words
		ask $q
		R[$tag.$i]="$NREPLY $MACS"
		if [ "$tag" != K ]; then
			# the capture may still be reading the last frame
			sleep 0.05
			r1=$(received)
			N[$tag.$i]=$((r1 - r0))
		fi
	done
}

check_mode() {
	local mode=$1 conf_extra=$2 kp_extra=$3 i q nk
	write_conf "[global]
interfaces = eth0 eth1 eth2
mode = $mode
announce = no
defend = never
$conf_extra"
	# D: arpownd alone
	arpownd_start h -c "$CONF"
	run D
	arpownd_stop
	# K: the program alone, the kernel silenced as arpownd silences it
	silence h eth0 eth1 eth2
	# shellcheck disable=SC2086
	kp_start h -m "$mode" $kp_extra eth0 eth1 eth2
	run K
	kp_stop
	# DK: both (arpownd first: a start removes the arpownd filters it
	# finds, a killed run's as it must take them, and kptest's alike)
	arpownd_start h -c "$CONF"
	silence h eth0 eth1 eth2
	# shellcheck disable=SC2086
	kp_start h -m "$mode" $kp_extra eth0 eth1 eth2
	run DK
	kp_counters
	kp_stop
	arpownd_stop
	for i in "${!QUESTIONS[@]}"; do
		q=${QUESTIONS[$i]}
		[ "${R[DK.$i]}" = "${R[D.$i]}" ] ||
			fail "$mode: '$q': with the program, '${R[DK.$i]}'; arpownd alone '${R[D.$i]}'"
		nk=${R[K.$i]%% *}
		if [ "$nk" != 0 ]; then
			[ "${R[K.$i]}" = "${R[D.$i]}" ] || [ "$nk" -lt "${R[D.$i]%% *}" ] ||
				fail "$mode: '$q': the program alone answered '${R[K.$i]}', arpownd '${R[D.$i]}'"
		fi
		[ "${N[DK.$i]}" = $((N[D.$i] - nk)) ] ||
			fail "$mode: '$q': arpownd received ${N[DK.$i]} frames beside the program, ${N[D.$i]} alone, the program answered $nk"
		echo "# $mode: $q: arpownd ${R[D.$i]:-0 -} | program ${R[K.$i]} | both ${R[DK.$i]}; captured ${N[D.$i]} -> ${N[DK.$i]}"
	done
	pass "$mode: with the program, answers as arpownd's alone; all it did not answer reached the capture"
	echo "# $mode: program counters: $KP_C"
}

check_mode owner "" ""
# the program must have answered something, and passed up each class
for c in answered pass-invalid pass-reply pass-gratuitous pass-ours pass-no-entry; do
	[ "$(kp_c "$c")" -gt 0 ] || fail "owner: counter $c stayed 0: $KP_C"
done
pass "owner: answered, and passed up invalid, reply, gratuitous, ours, no-entry"
check_mode subnet "" ""
[ "$(kp_c pass-not-subnet)" -gt 0 ] || fail "subnet: nothing passed up as not-subnet: $KP_C"
pass "subnet: a sender outside the subnets passed up"
check_mode system "" ""
check_mode owner "allow_senders = 10.0.0.0/24 10.1.0.0/24
deny_senders = 10.0.0.100" "--allow 10.0.0.0/24,10.1.0.0/24 --deny 10.0.0.100"
[ "$(kp_c pass-sender)" -gt 0 ] || fail "sender lists: nothing passed up for them: $KP_C"
pass "sender lists: deny and allow passed up, the rest as arpownd"

# A VLAN on top of a managed interface (where the kernel has 8021q): its
# frames reach the parent's TC hook tagged (veth offloads the tag) and are
# passed up, to be answered, or not, on the VLAN device; never untagged
# from the parent.
ns_new v
ns_new w
veth v pv w pw
if ns v ip link add link pv name pv.5 type vlan id 5 2>/dev/null &&
    ns w ip link add link pw name pw.5 type vlan id 5 2>/dev/null; then
	ns v ip link set pv.5 up
	ns w ip link set pw.5 up
	addr_add v pv 10.7.0.1/24
	addr_add v pv.5 10.5.0.1/24
	addr_add w pw.5 10.5.0.100/24
	silence v pv pv.5
	kp_start v pv pv.5
	expect_reply w pw.5 10.5.0.1 "$(mac_of v pv.5)" "VLAN: answered once, on the VLAN device"
	expect_silence w pw.5 10.7.0.1 "VLAN: the parent's address not answered on the VLAN"
	ns v ip link set pv.5 down
	expect_silence w pw.5 10.5.0.1 "VLAN device down: nothing answered from the parent"
	kp_counters
	[ "$(kp_c pass-vlan)" -gt 0 ] || fail "VLAN: no tagged frame passed up at the parent: $KP_C"
	pass "VLAN: tagged frames at the parent passed up ($(kp_c pass-vlan))"
	kp_stop
else
	echo "# no 8021q in this kernel: the VLAN case is skipped"
fi
