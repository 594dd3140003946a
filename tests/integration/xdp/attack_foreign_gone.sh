#!/bin/bash
# Another's XDP program on eth0 kept arpownd at TC there (answer_path =
# auto; xdp_coexist.sh).  When its owner takes it off (`ip link set dev
# eth0 xdpgeneric off`, a netlink detach: the kernel sends an RTM_NEWLINK
# for it), the program's reason is gone: eth0 must move to XDP, and
# `arpownctl status` must stop naming a program that is not there.
# Before the fix the daemon ignored that RTM_NEWLINK (nothing it tracked
# had changed): status kept saying "another XDP program is on it:
# fw_xdp" and eth0 stayed at TC until some unrelated link event.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
. "$(dirname "$0")/../kpath_lib.sh"
trap cleanup EXIT
need_netns
xdp_foreign

seed_net
path0() { ctl_get status "[i['answer_path'] + ' ' + (i.get('not_xdp') or '-') for i in d['managed'] if i['name'] == 'eth0'][0]"; }
ns h ip link set dev eth0 xdpgeneric obj "$FOREIGN" sec xdp || fail "the foreign XDP program on eth0"
write_conf "[global]
interfaces = eth*
answer_path = auto"
arpownd_start h -c "$CONF"
if grep -q 'the kernel answer path did not load' "$TMPDIR_T/arpownd.log"; then
	echo "SKIP: $(grep -m1 'did not load' "$TMPDIR_T/arpownd.log")"
	exit 77
fi
case $(path0) in kernel*fw_xdp*) pass "eth0 at TC behind fw_xdp, status names it" ;;
*) fail "eth0 at start: '$(path0)'" ;; esac

# its owner takes it off
ns h ip link set dev eth0 xdpgeneric off || fail "cannot take fw_xdp off eth0"
case $(xprog h eth0) in fw_xdp*) fail "fw_xdp still on eth0" ;; esac
pass "fw_xdp is off eth0"
at_xdp() { [ "$(xprog h eth0 | cut -d' ' -f1)" = arpownd_xdp ]; }
wait_for 2000 at_xdp || fail "fw_xdp gone 2 s ago, eth0 still not at XDP; status: '$(path0)'"
pass "eth0 moves to XDP once fw_xdp is gone"
case $(path0) in xdp*) pass "status: eth0 answered at XDP ($(path0))" ;;
*) fail "status after fw_xdp went: '$(path0)'" ;; esac
expect_reply c c0 10.0.0.1 "$MAC0" "eth0 answers 10.0.0.1 at XDP"
