#!/bin/bash
# [publish] sections accepted what arpownctl publish refuses as "never
# answered over ARP": 0.0.0.0, 127.0.0.0/8 (when lo does not hold it),
# multicast and 255.255.255.255, even 0.0.0.0/0, and the daemon then
# announced them: gratuitous ARP claiming 224.0.0.251 and 255.255.255.255
# with our MAC.  Now -n and the start refuse such a section (exit 78, the
# address named), and nothing martian is ever announced.  The rest of
# 0/8 is an ordinary range since Linux 5.3: accepted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd tcpdump
seed_net
bad=
rc() { local r=0; ns h "$ARPOWND" -n -c "$CONF" >"$TMPDIR_T/out" 2>&1 || r=$?; echo "$r"; }
for a in 224.0.0.251 255.255.255.255 0.0.0.0/0 127.0.0.0/8 0.0.0.0; do
	write_conf "[publish m]
addresses = $a
interface = eth0"
	r=$(rc)
	if [ "$r" = 78 ]; then pass "[publish] addresses = $a refused by -n"
	else echo "not ok - [publish] addresses = $a: -n exits $r"; bad=1; fi
done
# the daemon refuses such a file at start: exit 78, no sysctl touched,
# nothing announced, the file, the section and the address named
write_conf "[global]
interfaces = eth0 eth1 eth2
announce_count = 1

[publish m]
addresses = 10.0.0.60 224.0.0.251 255.255.255.255
interface = eth0"
bg_run c tcpdump -i c0 -n -e -U --immediate-mode -w "$TMPDIR_T/c.pcap" arp 2>"$TMPDIR_T/td.err"
TD=$LAST_PID
wait_for 5000 grep -q 'listening on' "$TMPDIR_T/td.err" || fail "tcpdump did not start"
r=0; ns h "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" >"$TMPDIR_T/start.out" 2>&1 || r=$?
expect_eq "$r" 78 "the daemon refuses to start with a martian published"
grep -q "$CONF.*\[publish m\].*addresses.*224.0.0.251" "$TMPDIR_T/start.out" ||
	fail "the refusal does not name the file, section, key and address: $(cat "$TMPDIR_T/start.out")"
pass "refused: $(head -n 1 "$TMPDIR_T/start.out")"
expect_eq "$(sysctl_get h eth0 arp_ignore)" 0 "eth0 left as it was"
sleep 0.3
kill -INT "$TD"; wait "$TD" 2>/dev/null || true
n=$(tcpdump -r "$TMPDIR_T/c.pcap" -n -e 2>/dev/null | grep -cE "^.* $MAC0 > .*(who-has|is-at|Reply|Request).*(224\.0\.0\.251|255\.255\.255\.255)" || true)
[ "$n" = 0 ] || { echo "not ok - $n gratuitous ARP frames from eth0 claim 224.0.0.251 / 255.255.255.255"; bad=1; }
[ -z "$bad" ] || fail "martian addresses published from the configuration (see above)"
pass "nothing martian published or announced"
