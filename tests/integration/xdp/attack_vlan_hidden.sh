#!/bin/bash
# A VLAN-tagged ARP request (VID 5) reaching an interface that has no
# VLAN 5 device: the kernel drops it (no device for the VID: OTHERHOST),
# and so do the capture path and the TC program (skb->vlan_present).
# At XDP the tag is not in the frame when a device before it took it
# off into the skb's metadata (here the bridge, on real NICs rx VLAN
# offload): arpownd_xdp sees a plain ARP request and answers it, as if
# the host had the address on VLAN 5.  Priority-tagged (VID 0) requests
# are answered by the kernel, and must stay answered.
# Not in TESTS: fails on the current code; the fix is a design decision
# (see the review report): generic XDP gives the program no way to see
# the offloaded tag.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_netns
need_cmd python3

# vreq VID TARGET: send one request from c0 tagged VID (-1: untagged),
# print how many replies for TARGET came back within 300 ms
cat >"$TMPDIR_T/vreq.py" <<'PY'
import select, socket, struct, sys, time
vid, tip = int(sys.argv[1]), socket.inet_aton(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
s.bind(("c0", 0))
mac = s.getsockname()[4]
arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + mac + socket.inet_aton("10.0.0.100") + bytes(6) + tip
tag = struct.pack("!HH", 0x8100, vid) if vid >= 0 else b""
s.send(b"\xff" * 6 + mac + tag + b"\x08\x06" + arp)
end, n = time.time() + 0.3, 0
while True:
    left = end - time.time()
    if left <= 0 or not select.select([s], [], [], left)[0]:
        break
    d = s.recv(2048)
    if len(d) >= 42 and d[20:22] == b"\x00\x02" and d[28:32] == tip:
        n += 1
print(n)
PY
vreq() { ns c python3 "$TMPDIR_T/vreq.py" "$@"; }

seed_net
for i in eth0 eth1 eth2; do sysctl_set h "$i" arp_ignore 1; done
expect_eq "$(vreq 5 10.0.0.2)" 0 "kernel: a request tagged VID 5 is not answered (no VLAN 5 here)"
expect_eq "$(vreq 0 10.0.0.2)" 1 "kernel: a priority-tagged (VID 0) request is answered"
for i in eth0 eth1 eth2; do sysctl_set h "$i" arp_ignore 0; done

for p in capture kernel xdp; do
	write_conf "[global]
interfaces = eth*
answer_path = $p"
	arpownd_start h -c "$CONF"
	expect_eq "$(vreq -1 10.0.0.2)" 1 "$p: an untagged request is answered"
	expect_eq "$(vreq 0 10.0.0.2)" 1 "$p: a priority-tagged (VID 0) request is answered, as by the kernel"
	expect_eq "$(vreq 5 10.0.0.2)" 0 "$p: a request tagged VID 5 is not answered, as by the kernel"
	arpownd_stop
done
