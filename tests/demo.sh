#!/bin/bash
# The seed's network in namespaces, asked the same questions twice: first
# the kernel answers, then arpownd.  Nothing outside the namespaces changes.
. "$(dirname "$0")/integration/lib.sh"
. "$(dirname "$0")/integration/topo.sh"
trap cleanup EXIT
seed_net
name_of() {
	case $1 in
	"$MAC0") echo "eth0" ;; "$MAC1") echo "eth1" ;; "$MAC2") echo "eth2" ;;
	*) echo "$1" ;;
	esac
}
who() {
	local m out=
	ask "$1" "$2" "$3"
	for m in ${MACS//,/ }; do [ "$m" = - ] || out="$out $(name_of "$m")"; done
	echo "${out:- (nobody)}"
}
questions=(
	"c c0 10.0.0.1 client on the LAN asks for eth0's 10.0.0.1"
	"c c0 10.0.0.2 client on the LAN asks for eth1's 10.0.0.2"
	"f f0 10.0.0.1 outside client probes for inside 10.0.0.1"
	"f f0 10.1.0.1 outside client asks for eth2's 10.1.0.1"
)
declare -a K A
for i in "${!questions[@]}"; do
	read -r n i_ t _ <<<"${questions[$i]}"
	K[$i]=$(who "$n" "$i_" "$t")
done
write_conf "[global]"
arpownd_start h -c "$CONF"
for i in "${!questions[@]}"; do
	read -r n i_ t _ <<<"${questions[$i]}"
	A[$i]=$(who "$n" "$i_" "$t")
done
arpownd_stop
echo
echo "host: eth0 10.0.0.1/24 and eth1 10.0.0.2/24 on one LAN, eth2 10.1.0.1/24 outside"
printf '\n%-50s %-20s %-20s\n' "question" "kernel: answered by" "arpownd: answered by"
for i in "${!questions[@]}"; do
	read -r _ _ _ q <<<"${questions[$i]}"
	printf '%-50s %-20s %-20s\n' "$q" "${K[$i]}" "${A[$i]}"
done
echo
echo "after arpownd stopped, arp_ignore on eth0 is back to $(sysctl_get h eth0 arp_ignore)"
