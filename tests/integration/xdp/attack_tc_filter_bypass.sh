#!/bin/bash
# An administrator's TC ingress filter that drops a sender's ARP (the
# shared clsact of doc/kpath.md: tests/tools/tcforeign.bpf.c drops ARP
# from 10.0.0.66 and ICMP) applies to arpownd's answers as it does to the
# kernel's: at TC arpownd's program runs last, so it never sees what the
# admin dropped.  At XDP it would run before every TC filter and answer
# the very sender the admin refused.  So an interface whose clsact
# ingress holds another's filter is answered at TC (answer_path = auto
# and xdp alike), status says why, and the admin's drop still applies.
# Before the fix eth2 went to XDP and answered 10.0.0.66.
# The same at egress: the kernel's reply, the capture path's and the TC
# program's (a clone out of the device's egress) pass the admin's egress
# filters; an XDP_TX reply goes straight to the driver, past them.  Here
# eth0 holds 10.0.0.66/32 too and the admin's filter at eth0's egress
# drops ARP whose sender is 10.0.0.66: a reply for it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd tc
FOREIGN=$(_abs "${TCFOREIGN:-${top_builddir:-.}/tests/tools/tcforeign.bpf.o}")
if [ ! -f "$FOREIGN" ]; then
	echo "SKIP: $FOREIGN not built (configure found no BPF toolchain)"
	exit 77
fi

seed_net
ns h tc qdisc add dev eth2 clsact || fail "tc qdisc add dev eth2 clsact"
ns h tc filter add dev eth2 ingress pref 49152 bpf da obj "$FOREIGN" sec tc ||
	fail "the admin's filter on eth2"
ns h tc qdisc add dev eth0 clsact || fail "tc qdisc add dev eth0 clsact"
ns h tc filter add dev eth0 egress pref 49152 bpf da obj "$FOREIGN" sec tc ||
	fail "the admin's egress filter on eth0"
ns h ip addr add 10.0.0.66/32 dev eth0
# the kernel, arpownd not running: the admin's filter decides
for i in eth0 eth1 eth2; do sysctl_set h "$i" arp_ignore 1; done
expect_silence c c0 10.0.0.66 "kernel: eth0's reply for 10.0.0.66 dropped at its egress by the admin"
for i in eth0 eth1 eth2; do sysctl_set h "$i" arp_ignore 0; done
expect_silence f f0 10.1.0.1 "kernel: the sender the admin refused (10.0.0.66) is not answered" -s 10.0.0.66
expect_reply f f0 10.1.0.1 "$MAC2" "kernel: another sender is answered"

path2() { ctl_get status "[i['answer_path'] + ' ' + (i.get('not_xdp') or '-') for i in d['managed'] if i['name'] == 'eth2'][0]"; }
for p in auto xdp; do
	write_conf "[global]
interfaces = eth*
answer_path = $p"
	arpownd_start h -c "$CONF"
	if grep -q 'the kernel answer path did not load' "$TMPDIR_T/arpownd.log"; then
		echo "SKIP: $(grep -m1 'did not load' "$TMPDIR_T/arpownd.log")"
		exit 77
	fi
	expect_silence f f0 10.1.0.1 "$p: the sender the admin refused (10.0.0.66) is not answered on eth2" -s 10.0.0.66
	expect_reply f f0 10.1.0.1 "$MAC2" "$p: another sender is answered on eth2"
	case $(path2) in kernel*filter*) pass "$p: status: eth2 at TC, saying why ($(path2))" ;;
	*) fail "$p: status for eth2: '$(path2)'" ;; esac
	expect_silence c c0 10.0.0.66 "$p: eth0's reply for 10.0.0.66 dropped at its egress by the admin"
	expect_reply c c0 10.0.0.1 "$MAC0" "$p: eth0 answers 10.0.0.1"
	expect_eq "$(ctl_get status "[i['answer_path'] for i in d['managed'] if i['name'] == 'eth1'][0]")" xdp \
		"$p: eth1 (no other filter) still at XDP"
	arpownd_stop
done
expect_eq "$(ns h tc filter show dev eth2 ingress | grep -c admin_filter)" 1 "the admin's filter stays on eth2"
