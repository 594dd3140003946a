#!/usr/bin/env python3
"""Write the seed corpora for the libFuzzer targets (tests/fuzz/corpus/).

Seeds are real shapes: a DLT_LINUX_SLL2 ARP request and its variants,
rtnetlink link and address messages as the kernel lays them out, state
files and configuration files.  Run from the top of the tree."""
import os
import struct
import zlib

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(kind, name, data):
    d = os.path.join(TOP, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def ip(s):
    return bytes(int(x) for x in s.split("."))


def sll2(body, ifindex=2, pkttype=1, src=b"\x02\x00\x00\x00\x00\x64"):
    return struct.pack(">HHIHBB8s", 0x0806, 0, ifindex, 1, pkttype, 6, src + b"\0\0") + body


def arp(op=1, sha=b"\x02\x00\x00\x00\x00\x64", sip="10.0.0.100", tip="10.0.0.1",
        hrd=1, pro=0x0800, hln=6, pln=4):
    return struct.pack(">HHBBH", hrd, pro, hln, pln, op) + sha + ip(sip) + b"\0" * 6 + ip(tip)


put("frame", "request", sll2(arp()))
put("frame", "request-eth1", sll2(arp(tip="10.0.0.2"), ifindex=3))
put("frame", "probe", sll2(arp(sip="0.0.0.0")))
put("frame", "system", sll2(arp(tip="10.0.0.1"), ifindex=4))
put("frame", "subnet-out", sll2(arp(sip="192.168.1.1", tip="10.0.0.2"), ifindex=3))
put("frame", "reply", sll2(arp(op=2)))
put("frame", "hrd6", sll2(arp(hrd=6)))
put("frame", "otherhost", sll2(arp(), pkttype=3))
put("frame", "conflict", sll2(arp(sip="10.0.0.1", tip="10.0.0.2"), ifindex=3))
put("frame", "padded", sll2(arp() + b"\0" * 18))


def nla(t, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)


def nlmsg(t, payload, flags=0):
    return struct.pack("=IHHII", 16 + len(payload), t, flags, 1, 0) + payload


RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR, RTM_DELADDR = 16, 17, 20, 21
IFLA_ADDRESS, IFLA_IFNAME, IFLA_AF_SPEC = 1, 3, 26
conf = struct.pack("=32I", *([0] * 32))
link = nlmsg(RTM_NEWLINK, struct.pack("=BxHiII", 0, 1, 2, 0x1043, 0xffffffff)
             + nla(IFLA_IFNAME, b"eth0\0") + nla(IFLA_ADDRESS, b"\x02\0\0\0\0\x01")
             + nla(IFLA_AF_SPEC, nla(2, nla(1, conf))))
addr = nlmsg(RTM_NEWADDR, struct.pack("=BBBBI", 2, 24, 0, 0, 2)
             + nla(1, ip("10.0.0.1")) + nla(2, ip("10.0.0.1")))
put("rtnl", "newlink", link)
put("rtnl", "newaddr", addr)
put("rtnl", "batch", link + addr + nlmsg(RTM_DELADDR, addr[16:]) + nlmsg(RTM_DELLINK, link[16:]))
put("rtnl", "dump-intr", nlmsg(RTM_NEWLINK, link[16:], flags=0x10))

# State files.  v1, as arpownd before v2 wrote them (raw names: "v=1" and
# "#v2" are what it broke on); v2, as state_format writes them, with the
# checksum zlib computes; and bare v2 records, which fuzz_state also frames.
put("state", "two", "# arpownd\neth0 arp_ignore=0 arp_announce=0\neth1 arp_ignore=2\n")
put("state", "announce-only", "eth2 arp_announce=1\n")
put("state", "empty", "")
put("state", "v1-hostile", "# arpownd: sysctl values found before arpownd changed them\n"
    "v=1 arp_ignore=0 arp_announce=0\n#v2 arp_ignore=1 arp_announce=2\n"
    "%x arp_ignore=8\n\x01\xff arp_announce=1\n")


def v2(records, gen=1):
    text = b"arpownd originals v2 gen=%d\n" % gen + records.encode("latin-1")
    return text + b"crc32=%08x\n" % zlib.crc32(text)


HOSTILE = ("ifindex=2 name=v%3D1 arp_ignore=0 arp_announce=2\n"
           "ifindex=3 name=%23v2 arp_ignore=1\n"
           "ifindex=4 name=%25 arp_announce=0\n"
           "ifindex=5 name=%01%1F%7F%FF arp_ignore=8 arp_announce=1\n"
           "ifindex=6 name=abcdefghijklmno arp_ignore=2\n"
           "ifindex=7 name=caf%C3%A9 arp_ignore=3\n"
           "ifindex=8 name=.x arp_ignore=4\n"
           "ifindex=9 name=- arp_ignore=5\n"
           "ifindex=2147483647 name=%85x arp_ignore=6\n")
put("state", "v2-two", v2("ifindex=2 name=eth0 arp_ignore=0 arp_announce=0\n"
                          "ifindex=3 name=eth1 arp_ignore=2\n", gen=7))
put("state", "v2-empty", v2("", gen=18446744073709551615))
put("state", "v2-hostile", v2(HOSTILE))
put("state", "v2-legacy", v2("ifindex=0 name=eth0 arp_ignore=0\n"
                             "ifindex=5 name=eth0 arp_announce=1\n"
                             "name=eth2 arp_announce=1 arp_ignore=1 ifindex=6\n", gen=3))
put("state", "v2-many", v2("".join("ifindex=%d name=veth%d arp_ignore=%d\n" % (i + 1, i, i % 9)
                               for i in range(64))))
put("state", "body-hostile", HOSTILE)
put("state", "body-one", "ifindex=3 name=eth0 arp_ignore=0 arp_announce=2\n")

with open(os.path.join(os.path.dirname(TOP), "..", "..", "conf", "arpownd.conf")) as f:
    put("conf", "example", f.read())
put("conf", "sections", "[global]\ninterfaces = eth* !eth9\nmode = subnet\narp_announce = keep\n"
    "learn = no\nlog_level = debug\n\n[interface up]\nmatch = eth1\nmode = off\n")
put("conf", "quoted", "[global]\ninterfaces = \"eth0 eth1\"\nuser = nobody\nsender_rate = 0\n")

# Control protocol requests, one or more lines each, and reply headers.
for name, text in [
        ("status", "status\n"), ("all", "status\ninterfaces\ncounters\nconflicts\nmetrics\n"),
        ("reload", "reload\r\n"), ("announce-addr", "announce 10.0.0.1\n"),
        ("announce-iface", "announce eth0\n"), ("announce-dev", "announce dev 10.0.0.1\n"),
        ("publish", "publish 10.0.0.0/24 eth0\n"), ("withdraw", "withdraw 10.0.0.0/24\n"),
        ("published", "published\n"), ("hostile-name", "announce \x01\"\\\xff\xc3\xa9\n"),
        ("host-bits", "publish 10.0.0.1/24 eth0\n"), ("martian", "announce 127.0.0.1\n"),
        ("heads", "OK 12 json\nERR 64 5\nOK 0 text\n")]:
    put("ctl", name, text.encode("latin-1"))
