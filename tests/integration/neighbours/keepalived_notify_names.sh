#!/bin/bash
# contrib/keepalived/arpownd-notify with interface names the kernel
# allows and a shell or JSON treats apart: one that starts with a dash
# ("-k0": arpownctl took it for an option, the publish failed, and the new
# MASTER did not answer its VIP), one with a DEL byte and one with a byte
# that is not UTF-8 (arpownctl's JSON writes them \u007f and \u00ff: the
# script compared that with the raw name and failed a MASTER that was
# answering), beside the plain ones that worked ('k"2', 'k\3', UTF-8).
# Expected for each: MASTER exits 0 and the VIP is answered from that
# interface, BACKUP exits 0 and it is not.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
ns_new h
ns_new c
NOTIFY=$(_abs "${top_builddir:-.}")/contrib/keepalived/arpownd-notify
NAMES=('-k0' $'k\x7f1' 'k"2' 'k\3' "kä4" $'k\xff5')
i=0
for n in "${NAMES[@]}"; do
	ip -n "${NS_PREFIX}h" link add "$n" type veth peer name "c$i" netns "${NS_PREFIX}c" ||
		fail "cannot make an interface named $(printf %q "$n")"
	ip -n "${NS_PREFIX}h" link set "$n" up || fail "up $(printf %q "$n")"
	ns c ip link set "c$i" up
	ip -n "${NS_PREFIX}h" addr add "10.9.$i.1/24" dev "$n" || fail "address on $(printf %q "$n")"
	addr_add c "c$i" "10.9.$i.100/24"
	i=$((i + 1))
done
write_conf "[global]
interfaces = *
announce = no"
arpownd_start h -c "$CONF"
notify() {
	ARPOWNCTL=$ARPOWNCTL ARPOWND_STATE_DIR=$ARPOWND_STATE_DIR sh "$NOTIFY" "$1" "$2" INSTANCE web "$3" 150
}
i=0
for n in "${NAMES[@]}"; do
	q=$(printf %q "$n")
	mac=$(ns h cat "/sys/class/net/$n/address")
	out=$(notify "10.9.$i.50" "$n" MASTER 2>&1) || fail "$q: MASTER failed: $out"
	expect_reply c "c$i" "10.9.$i.50" "$mac" "$q: MASTER exits 0, the VIP answered from it"
	out=$(notify "10.9.$i.50" "$n" BACKUP 2>&1) || fail "$q: BACKUP failed: $out"
	expect_silence c "c$i" "10.9.$i.50" "$q: BACKUP exits 0, the VIP no longer answered"
	i=$((i + 1))
done
arpownd_stop
expect_eq "$ARPOWND_RC" 0 "a clean stop"
