#!/bin/bash
# The in-kernel path's replies are the kernel's, byte for byte, and
# arpownd's capture path's: on the wire at the client (arpc -x, and
# tcpdump -xx there), and tcpdump on the host sees the reply leave, as it
# sees the kernel's.  A request padded to 60 bytes is answered with 42
# (the driver pads, as for the kernel's own), an IEEE 802 hardware type
# with Ethernet's, an RFC 5227 probe and a unicast request as the kernel
# answers them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
kp_need
need_cmd tcpdump timeout

pair_net
HMAC=$(mac_of h hv)
wait_for 3000 ns c "$ARPC" -q -i cv -w 100 10.0.0.1 >/dev/null || fail "veth pair not up"

CASES=(plain padded ieee802 probe unicast)
case_args() {
	case $1 in
	plain) ;;
	padded) printf "%s\n" --pad 18 ;;
	ieee802) printf "%s\n" --hrd 6 ;;
	probe) printf "%s\n" -s 0.0.0.0 ;;
	unicast) printf "%s\n" -E "$HMAC" ;;
	esac
}

# tcpdump_reply NS IF CASE: the hex of the ARP reply tcpdump -xx saw on IF
# while one request of CASE went out, in $TD; the request's in $TDQ.
tcpdump_reply() {
	local nsn=$1 ifn=$2 cs=$3 log=$TMPDIR_T/td.$1.$2.$3 pid
	# shellcheck disable=SC2046 # the case's arguments, split
	bg_run "$nsn" timeout 10 tcpdump -l -n -xx -c 2 -i "$ifn" arp >"$log" 2>"$log.err"
	pid=$LAST_PID
	wait_for 5000 grep -q 'listening on' "$log.err" || fail "tcpdump did not start: $(cat "$log.err")"
	# shellcheck disable=SC2046
	ns c "$ARPC" -q -i cv -w 200 $(case_args "$cs") 10.0.0.1 >/dev/null
	wait "$pid" 2>/dev/null
	TD=$(awk '/ARP, Reply/ { r = 1; next } /ARP, Request/ { r = 0; next }
		r && /^[ \t]+0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) printf "%s", $i }
		END { print "" }' "$log")
	TDQ=$(awk '/ARP, Request/ { r = 1; next } /ARP, Reply/ { r = 0; next }
		r && /^[ \t]+0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) printf "%s", $i }
		END { print "" }' "$log")
	[ -n "$TD" ] || fail "tcpdump on $ifn in $nsn saw no reply ($cs): $(cat "$log")"
}

declare -A K B A KT BT KH BH KQ BQ
# 1. the kernel's own replies (arp_ignore 0)
for cs in "${CASES[@]}"; do
	# shellcheck disable=SC2046
	frame_of c cv 10.0.0.1 $(case_args "$cs")
	K[$cs]=$FRAME
	tcpdump_reply c cv "$cs"
	KT[$cs]=$TD
	tcpdump_reply h hv "$cs"
	KH[$cs]=$TD
	KQ[$cs]=$TDQ
done

# 2. the program's, the kernel silenced
silence h hv
kp_start h hv
for cs in "${CASES[@]}"; do
	# shellcheck disable=SC2046
	frame_of c cv 10.0.0.1 $(case_args "$cs")
	B[$cs]=$FRAME
	tcpdump_reply c cv "$cs"
	BT[$cs]=$TD
	tcpdump_reply h hv "$cs"
	BH[$cs]=$TD
	BQ[$cs]=$TDQ
done
answered=$(kp_c_now answered)
[ "$answered" -ge $((3 * ${#CASES[@]})) ] ||
	fail "the program answered $answered requests, expected $((3 * ${#CASES[@]})): $KP_C"
pass "every request of the second round was answered by the program ($answered)"
kp_stop
[ -z "$(ns h tc filter show dev hv ingress)" ] || fail "kptest left its filter behind"

# 3. arpownd's capture path
write_conf "[global]
interfaces = hv"
arpownd_start h -c "$CONF"
for cs in "${CASES[@]}"; do
	# shellcheck disable=SC2046
	frame_of c cv 10.0.0.1 $(case_args "$cs")
	A[$cs]=$FRAME
done
arpownd_stop

for cs in "${CASES[@]}"; do
	len=$(awk '{ print $1 }' <<<"${B[$cs]}")
	expect_eq "$len" 42 "$cs: the program's reply is 42 bytes on veth"
	expect_eq "${B[$cs]}" "${K[$cs]}" "$cs: the program's reply = the kernel's (arpc -x at the client)"
	expect_eq "${B[$cs]}" "${A[$cs]}" "$cs: the program's reply = arpownd's capture path's"
	expect_eq "${BT[$cs]}" "${KT[$cs]}" "$cs: tcpdump -xx at the client: the same bytes"
	expect_eq "${BH[$cs]}" "${KH[$cs]}" "$cs: tcpdump -xx on the host's interface sees it leave, as the kernel's"
	expect_eq "${BQ[$cs]}" "${KQ[$cs]}" "$cs: ... and the request as it came (rewritten in a copy, not under tcpdump)"
done
