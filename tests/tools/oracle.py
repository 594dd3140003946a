#!/usr/bin/env python3
"""oracle.py - the kernel as the oracle for arpownd; the helper of
tests/integration/answer/kernel_oracle.sh.  Standard library only (ctypes for
setns, raw AF_PACKET sockets); run as root.

  plan SEED NREQ NS_PREFIX DIR   a random topology and request batch for
                                 SEED: DIR/plan.json, and arpownd's
                                 configuration for each run:
                                 DIR/arpownd-{owner,subnet,system,mixed}.conf;
                                 prints the short names of the namespaces
                                 to create
  setup DIR                      build it (ip -batch per namespace, the
                                 sysctls), wait for the bridge, save what
                                 the kernel made of it (DIR/observed.json)
                                 and describe it
  send DIR LABEL QUIET_MS [IGN]  set arp_ignore on every host NIC to IGN (a
                                 number, or "mixed": the plan's per-NIC
                                 modes), flush the neighbour tables, send
                                 the batch, capture the replies on the peer
                                 side of every host NIC until QUIET_MS pass
                                 without one: DIR/run-LABEL.json
  compare DIR INTENDED_FILE      compare each kernel run with its arpownd
                                 run, print the disagreements: DIR/summary.json
  summary DIR...                 add up the summaries of several seeds
  describe DIR                   the topology, for a person

Requests are told apart by (sender MAC, sender IP, target IP), unique in
a batch: a reply's (target MAC, target IP, sender IP) names its request.
"""

import ctypes
import fnmatch
import ipaddress
import json
import os
import random
import select
import socket
import struct
import subprocess
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_ARP = 0x0806
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
CLONE_NEWNET = 0x40000000
BCAST = "ff:ff:ff:ff:ff:ff"
ZERO = "00:00:00:00:00:00"

# kernel run -> arpownd run, and the arp_ignore that a mode stands for
PAIRS = [("k1", "owner"), ("k2", "subnet"), ("k0", "system"), ("kmixed", "mixed")]
MODE_IGNORE = {"owner": 1, "subnet": 2, "system": 0, "off": 8}
RUN_TITLE = {"owner": "owner vs arp_ignore=1", "subnet": "subnet vs arp_ignore=2",
             "system": "system vs arp_ignore=0", "mixed": "per-interface modes vs per-NIC arp_ignore"}


def die(msg):
    print("oracle.py: " + msg, file=sys.stderr)
    sys.exit(2)


# ---- addresses -------------------------------------------------------

def ip2i(s):
    return int(ipaddress.IPv4Address(s))


def i2ip(n):
    return str(ipaddress.IPv4Address(n & 0xffffffff))


def mask(plen):
    return (0xffffffff << (32 - plen)) & 0xffffffff if plen else 0


def net_of(a, plen):
    return a & mask(plen)


def bcast_of(a, plen):
    return net_of(a, plen) | (~mask(plen) & 0xffffffff)


def host_in(rng, net, plen, avoid=()):
    """A random host of net/plen: not the network or broadcast address
    (for plen <= 30), not in avoid."""
    size = 1 << (32 - plen)
    lo, hi = (0, size - 1) if plen >= 31 else (1, size - 2)
    for _ in range(50):
        a = net + rng.randint(lo, hi)
        if a not in avoid:
            return a
    return net + lo


def mac_s(b):
    return ":".join("%02x" % x for x in b)


def mac_b(s):
    return bytes(int(x, 16) for x in s.split(":"))


# ---- namespaces ------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


class InNs:
    """Run the body in network namespace `full` (this thread only)."""

    def __init__(self, full):
        self.full = full

    def __enter__(self):
        self.orig = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        for d in ("/run/netns", "/var/run/netns"):
            p = os.path.join(d, self.full)
            if os.path.exists(p):
                fd = os.open(p, os.O_RDONLY)
                try:
                    _setns(fd)
                finally:
                    os.close(fd)
                return self
        os.close(self.orig)
        raise OSError("no network namespace " + self.full)

    def __exit__(self, *a):
        _setns(self.orig)
        os.close(self.orig)


def run(cmd, inp=None, check=True):
    p = subprocess.run(cmd, input=inp, capture_output=True, text=True)
    if check and p.returncode != 0:
        die("%s failed (%d): %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout).strip()))
    return p.stdout


def ip_batch(full, lines):
    if lines:
        run(["ip", "-n", full, "-batch", "-"], "\n".join(lines) + "\n")


def ns_sh(full, script):
    run(["ip", "netns", "exec", full, "sh", "-ec", script])


# ---- the plan: a random topology ---------------------------------------

class Topo:
    """What the generator decided.  nics: name, mac, peer (interface on
    the other side), peer_ns, seg, down, mode (for the mixed run).
    addrs, in the order they are added: dev, local, plen, peer (None or
    the p-t-p peer), scope (None, 'host', 'link'), why."""

    def __init__(self, rng, seed):
        self.rng = rng
        n = rng.randint(2, 5)
        sb = seed & 0xff
        self.nics = [dict(name="eth%d" % k, mac=mac_s([0x02, 0xa0, sb, (seed >> 8) & 0xff, 0, k]),
                          peer="p%d" % k, down=False) for k in range(n)]
        self.features = []
        bridged = []
        if rng.random() < 0.8:
            bridged = sorted(rng.sample(range(n), rng.randint(2, min(3, n))))
        for k, nic in enumerate(self.nics):
            if k in bridged:
                nic["seg"], nic["peer_ns"] = "br", "sw"
            else:
                nic["seg"], nic["peer_ns"] = "l%d" % k, "l%d" % k
        if bridged:
            self.features.append("bridged segment: " + " ".join("eth%d" % k for k in bridged))
        if rng.random() < 0.5:
            d = rng.randrange(n)
            self.nics[d]["down"] = True
            self.features.append("eth%d down" % d)
        for nic in self.nics:
            nic["mode"] = rng.choice(["owner", "owner", "subnet", "system", "system", "off"])
        self.blocks = rng.sample(range(1, 250), 80)
        self.addrs = []
        self._base(bridged)
        self._features(bridged)
        # the kernel's choices (primary or secondary, which of a local and
        # a broadcast route for one address wins) follow the order
        rng.shuffle(self.addrs)

    def block(self):
        return (10 << 24) | (self.blocks.pop() << 16)

    def add(self, dev, local, plen, why, peer=None, scope=None):
        self.addrs.append(dict(dev=dev, local=local, plen=plen, peer=peer, scope=scope, why=why))

    def _base(self, bridged):
        rng = self.rng
        shared = None
        if len(bridged) >= 2 and rng.random() < 0.7:
            shared = self.block() | (rng.randrange(256) << 8)
            self.features.append("bridged NICs share %s/24" % i2ip(shared))
        used = set()
        for k, nic in enumerate(self.nics):
            if k > 0 and rng.random() < 0.1:
                self.features.append("%s has no address of its own" % nic["name"])
                continue
            if shared is not None and k in bridged:
                net, plen = shared, 24
            else:
                plen = rng.choice([24, 24, 24, 16, 22, 28, 29, 30, 31, 32])
                net = net_of(self.block() | rng.randrange(1 << 16), plen)
            a = host_in(rng, net, plen, used)
            used.add(a)
            self.add(nic["name"], a, plen, "primary")
            if rng.random() < 0.4 and plen <= 29:
                b = host_in(rng, net, plen, used)
                used.add(b)
                self.add(nic["name"], b, plen, "secondary")
            if rng.random() < 0.3:
                p2 = rng.choice([24, 25, 27])
                n2 = net_of(self.block() | rng.randrange(1 << 16), p2)
                self.add(nic["name"], host_in(rng, n2, p2), p2, "second subnet")

    def _nic(self):
        return self.rng.choice([x["name"] for x in self.nics])

    def _features(self, bridged):
        rng = self.rng
        names = [x["name"] for x in self.nics]
        if rng.random() < 0.5:
            a, b = rng.sample(names, 2)
            x = self.block() | (rng.randrange(256) << 8) | rng.randint(1, 254)
            self.add(a, x, 24, "one address on two NICs")
            self.add(b, x, 24, "one address on two NICs")
            self.features.append("%s on %s and %s" % (i2ip(x), a, b))
        if rng.random() < 0.5:
            a = self._nic()
            x = self.block() | (rng.randrange(256) << 8) | rng.randint(1, 254)
            self.add(a, x, 24, "two prefixes")
            self.add(a, x, 16, "two prefixes")
            self.features.append("%s/24 and /16 on %s" % (i2ip(x), a))
        if rng.random() < 0.4:
            a = self._nic()
            x = self.block() | (rng.randrange(256) << 8)
            self.add(a, x | 1, 32, "p-t-p peer /32", peer=x | 2)
            self.features.append("%s peer %s/32 on %s" % (i2ip(x | 1), i2ip(x | 2), a))
        if rng.random() < 0.3:
            a = self._nic()
            x = self.block() | (rng.randrange(256) << 8)
            self.add(a, x | 1, 24, "p-t-p peer /24", peer=x | 2)
            self.features.append("%s peer %s/24 on %s" % (i2ip(x | 1), i2ip(x | 2), a))
        for scope in ("host", "link"):
            if rng.random() < 0.4:
                a = self._nic()
                x = self.block() | (rng.randrange(256) << 8) | rng.randint(1, 254)
                self.add(a, x, 24, "scope " + scope, scope=scope)
                self.features.append("%s/24 scope %s on %s" % (i2ip(x), scope, a))
        if rng.random() < 0.6:
            x = self.block() | (rng.randrange(256) << 8) | rng.randint(1, 254)
            self.add("lo", x, 32, "on lo")
            self.features.append("%s/32 on lo" % i2ip(x))
        if rng.random() < 0.3:
            x = self.block() | (rng.randrange(256) << 8) | 1
            self.add("lo", x, 24, "subnet on lo")
            self.features.append("%s/24 on lo" % i2ip(x))
        if rng.random() < 0.5:
            a = self._nic()
            x = (rng.randint(1, 255) << 16) | (rng.randrange(256) << 8)
            self.add(a, x | rng.randint(1, 254), 24, "0/8")
            self.features.append("%s/24 (0/8) on %s" % (i2ip(x), a))
        if rng.random() < 0.5:
            a = self._nic()
            x = (rng.randint(240, 254) << 24) | (rng.randrange(1 << 16) << 8)
            self.add(a, x | rng.randint(1, 254), 24, "class E")
            self.features.append("%s/24 (class E) on %s" % (i2ip(x), a))
        if rng.random() < 0.6:
            a, b = rng.sample(names, 2)
            p = self.block() | (rng.randrange(256) << 8) | (rng.randrange(32) << 3)
            self.add(a, p | 5, 29, "its broadcast is another NIC's address")
            which = rng.choice([7, 7, 0])
            self.add(b, p | which, 32, "the broadcast (or network) address of another subnet")
            self.features.append("%s/29 on %s, %s/32 on %s" % (i2ip(p | 5), a, i2ip(p | which), b))

    # -- derived ---------------------------------------------------------

    def entries(self, dev):
        return [x for x in self.addrs if x["dev"] == dev]

    def local_set(self):
        return {x["local"] for x in self.addrs}

    @staticmethod
    def subnet(e):
        base = e["peer"] if e["peer"] is not None else e["local"]
        return net_of(base, e["plen"]), e["plen"]


def gen_requests(rng, topo, nreq, seed):
    """The batch: each request a dict of the frame's fields plus where it
    is sent (segment) and the NIC it aims at (focus)."""
    segs = {}
    for nic in topo.nics:
        if not nic["down"]:
            segs.setdefault(nic["seg"], []).append(nic)
    if not segs:
        return []
    locals_ = sorted(topo.local_set())
    lo_entries = topo.entries("lo")
    host_macs = [x["mac"] for x in topo.nics]
    keys = set()
    reqs = []
    serial = 0

    def fresh_mac():
        nonlocal serial
        serial += 1
        return mac_s([0x02, 0x5a, seed & 0xff, (serial >> 16) & 0xff, (serial >> 8) & 0xff, serial & 0xff])

    def pick(choices):
        tot = sum(w for w, _ in choices)
        r = rng.uniform(0, tot)
        for w, f in choices:
            r -= w
            if r <= 0:
                return f
        return choices[-1][1]

    def nonlocal_in(net, plen):
        avoid = set(locals_)
        for e in topo.addrs:
            if e["peer"] is not None:
                avoid.add(e["peer"])
        return host_in(rng, net, plen, avoid)

    while len(reqs) < nreq:
        seg = rng.choice(sorted(segs))
        focus = rng.choice(segs[seg])
        fent = topo.entries(focus["name"])
        others = [x for x in topo.addrs if x["dev"] != focus["name"]]
        down = [x for x in topo.addrs if any(n["down"] and n["name"] == x["dev"] for n in topo.nics)]
        special = [x for x in topo.addrs if x["why"].startswith(("its broadcast", "the broadcast", "0/8", "class E"))]
        ptp = [x for x in topo.addrs if x["peer"] is not None]
        tcat = pick([
            (30, "focus"), (12, "other"), (5 if down else 0, "down"),
            (5 if lo_entries else 0, "lo"), (8 if special else 0, "special"),
            (8, "focus-subnet"), (4, "bcast"), (3 if ptp else 0, "ptp-peer"),
            (4, "random"), (3, "zero"), (2, "lbcast"), (2, "mcast"), (2, "loopback"),
            (4, "zeronet"), (3, "classE")])
        if tcat == "focus":
            tip = rng.choice(fent)["local"] if fent else rng.choice(locals_)
        elif tcat == "other":
            tip = rng.choice(others)["local"] if others else rng.choice(locals_)
        elif tcat == "down":
            tip = rng.choice(down)["local"]
        elif tcat == "lo":
            e = rng.choice(lo_entries)
            tip = e["local"] if e["plen"] == 32 or rng.random() < 0.5 else host_in(rng, *topo.subnet(e))
        elif tcat == "special":
            e = rng.choice(special)
            tip = e["local"] if rng.random() < 0.7 else bcast_of(e["local"], e["plen"])
        elif tcat == "focus-subnet":
            e = rng.choice(fent) if fent else rng.choice(topo.addrs)
            tip = nonlocal_in(*topo.subnet(e))
        elif tcat == "bcast":
            e = rng.choice(fent if fent and rng.random() < 0.6 else topo.addrs)
            tip = bcast_of(*topo.subnet(e))
        elif tcat == "ptp-peer":
            tip = rng.choice(ptp)["peer"]
        elif tcat == "random":
            tip = rng.choice([(192 << 24) | (168 << 16), (172 << 24) | (16 << 16)]) | rng.randrange(1 << 16)
        elif tcat == "zero":
            tip = 0
        elif tcat == "lbcast":
            tip = 0xffffffff
        elif tcat == "mcast":
            tip = rng.choice([0xe0000001, 0xe00000fb, (239 << 24) | rng.randrange(1 << 24)])
        elif tcat == "loopback":
            tip = rng.choice([0x7f000001, (127 << 24) | rng.randrange(1 << 24)])
        elif tcat == "zeronet":
            tip = rng.randint(1, (1 << 24) - 1)
        else:
            tip = (rng.randint(240, 254) << 24) | rng.randrange(1 << 24)

        # entries of the focus NIC that hold the target, and the others
        holding = [e for e in fent if net_of(tip, e["plen"]) == topo.subnet(e)[0]]
        not_holding = [e for e in fent if e not in holding]
        scat = pick([
            (30, "same-subnet"), (10 if not_holding else 0, "focus-other-subnet"),
            (8, "other-nic-subnet"), (8, "random"), (10, "probe"), (4, "garp"),
            (6, "own"), (2, "loopback"), (2, "mcast"), (1, "lbcast"),
            (5, "zeronet"), (4, "classE"), (3, "bcast"), (2 if ptp else 0, "ptp-peer")])
        if scat == "same-subnet":
            e = rng.choice(holding or fent or topo.addrs)
            sip = nonlocal_in(*topo.subnet(e))
        elif scat == "focus-other-subnet":
            sip = nonlocal_in(*topo.subnet(rng.choice(not_holding)))
        elif scat == "other-nic-subnet":
            sip = nonlocal_in(*topo.subnet(rng.choice(others or topo.addrs)))
        elif scat == "random":
            sip = (192 << 24) | (168 << 16) | rng.randrange(1 << 16)
        elif scat == "probe":
            sip = 0
        elif scat == "garp":
            sip = tip
        elif scat == "own":
            sip = rng.choice(locals_ + [0x7f000001])
        elif scat == "loopback":
            sip = (127 << 24) | rng.randrange(1 << 24)
        elif scat == "mcast":
            sip = (224 << 24) | rng.randrange(1 << 24)
        elif scat == "lbcast":
            sip = 0xffffffff
        elif scat == "zeronet":
            z = [e for e in topo.addrs if e["why"] == "0/8"]
            sip = nonlocal_in(*topo.subnet(rng.choice(z))) if z and rng.random() < 0.6 \
                else rng.randint(1, (1 << 24) - 1)
        elif scat == "classE":
            z = [e for e in topo.addrs if e["why"] == "class E"]
            sip = nonlocal_in(*topo.subnet(rng.choice(z))) if z and rng.random() < 0.6 \
                else (rng.randint(240, 254) << 24) | rng.randrange(1 << 24)
        elif scat == "bcast":
            sip = bcast_of(*topo.subnet(rng.choice(fent or topo.addrs)))
        else:
            sip = rng.choice(ptp)["peer"]

        shcat = pick([(86, "fresh"), (4, "host"), (3, "group"), (2, "zero"), (5, "esrc-differs")])
        if shcat == "host":
            sha = rng.choice([focus["mac"]] + host_macs)
        elif shcat == "group":
            sha = rng.choice([BCAST, "01:00:5e:00:00:01", "33:33:00:00:00:01"])
        elif shcat == "zero":
            sha = ZERO
        else:
            sha = fresh_mac()
        esrc = sha if shcat in ("fresh", "host") else fresh_mac()
        if shcat == "fresh" and rng.random() < 0.05:
            esrc = fresh_mac()
        seg_macs = [n["mac"] for n in segs[seg]]
        edst = pick([(75, BCAST), (12, focus["mac"]),
                     (4, rng.choice([m for m in host_macs if m != focus["mac"]] or host_macs)),
                     (4, fresh_mac()), (3, "01:00:5e:00:00:01")])
        if edst in seg_macs:
            focus = next(n for n in segs[seg] if n["mac"] == edst)
        op = 2 if rng.random() < 0.03 else 1
        hrd = 6 if rng.random() < 0.04 else 1
        tha = pick([(90, ZERO), (5, BCAST), (5, focus["mac"])])
        pad = rng.choice([0, 18])
        key = (sha, sip, tip)
        if key in keys:
            continue
        keys.add(key)
        reqs.append(dict(i=len(reqs), seg=seg, focus=focus["name"], tcat=tcat, scat=scat,
                         edst=edst, esrc=esrc, sha=sha, sip=i2ip(sip), tha=tha, tip=i2ip(tip),
                         op=op, hrd=hrd, pad=pad))
    return reqs


def gen_rpf(rng, topo):
    """The reverse-path settings (issue 23.4), from a generator of their
    own, so that a seed's topology and requests stay what they were:
    rp_filter for all and for each NIC (0 off, 1 strict, 2 loose; the
    kernel takes the higher), arp_filter for all and for each NIC (either
    turns it on), and half the time a default route through one NIC (a
    sender off every subnet then has a route back: through that NIC)."""
    s = {"all": dict(rp_filter=rng.choice([0, 0, 1, 2]), arp_filter=int(rng.random() < 0.15))}
    for n in topo.nics:
        s[n["name"]] = dict(rp_filter=rng.choice([0, 0, 1, 2]), arp_filter=int(rng.random() < 0.25))
    routes = []
    if rng.random() < 0.5:
        cands = [(n, a) for n in topo.nics if not n["down"] for a in topo.entries(n["name"])
                 if a["peer"] is None and a["scope"] is None and a["plen"] <= 30 and
                 a["why"] in ("primary", "secondary", "second subnet")]
        if cands:
            n, a = rng.choice(cands)
            gw = host_in(rng, *topo.subnet(a), avoid=topo.local_set())
            routes.append(dict(dst="default", via=i2ip(gw), dev=n["name"]))
    return s, routes


def frame(r):
    return (mac_b(r["edst"]) + mac_b(r["esrc"]) + struct.pack("!H", ETH_P_ARP) +
            struct.pack("!HHBBH", r["hrd"], 0x0800, 6, 4, r["op"]) +
            mac_b(r["sha"]) + socket.inet_aton(r["sip"]) +
            mac_b(r["tha"]) + socket.inet_aton(r["tip"]) + bytes(r["pad"]))


def cmd_plan(seed, nreq, prefix, d):
    rng = random.Random(seed)
    topo = Topo(rng, seed)
    reqs = gen_requests(random.Random(seed * 7919 + 1), topo, nreq, seed)
    rpf, routes = gen_rpf(random.Random(seed * 6007 + 3), topo)
    on = ["%s=%d" % (k, v["rp_filter"]) for k, v in rpf.items() if v["rp_filter"]]
    af = [k for k, v in rpf.items() if v["arp_filter"]]
    if on:
        topo.features.append("rp_filter " + " ".join(on))
    if af:
        topo.features.append("arp_filter on " + " ".join(af))
    for rt in routes:
        topo.features.append("default via %s dev %s" % (rt["via"], rt["dev"]))
    segs = sorted({n["seg"] for n in topo.nics})
    sends = {}
    for s in segs:
        sends[s] = ["c", "c0"] if s == "br" else [s, "p" + s[1:]]
    plan = dict(seed=seed, prefix=prefix, nics=topo.nics, features=topo.features,
                addrs=[dict(x, local=i2ip(x["local"]), peer=None if x["peer"] is None else i2ip(x["peer"]))
                       for x in topo.addrs],
                sends=sends, requests=reqs, rpf=rpf, routes=routes)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    for m in RUN_TITLE:
        with open(os.path.join(d, "arpownd-%s.conf" % m), "w") as f:
            f.write(conf_text(plan, m) + "\n")
    names = ["h"] + [s if s != "br" else "sw" for s in segs] + (["c"] if "br" in segs else [])
    print(" ".join(names))


def load(d, name="plan.json"):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


# ---- setup -----------------------------------------------------------

SYSCTL_V4 = dict(arp_ignore=0, arp_filter=0, arp_accept=0, proxy_arp=0, proxy_arp_pvlan=0,
                 rp_filter=0, accept_local=0, route_localnet=0, drop_gratuitous_arp=0,
                 forwarding=0, arp_announce=0, arp_notify=0)


def cmd_setup(d):
    plan = load(d)
    P = plan["prefix"]
    full = lambda s: P + s
    nss = {"h"} | {n["peer_ns"] for n in plan["nics"]} | ({"c"} if "br" in plan["sends"] else set())
    # no IPv6 anywhere (no chatter on the segments); the host's IPv4
    # knobs that change who answers, all at their defaults, stated
    for s in sorted(nss):
        script = "for f in all default; do echo 1 > /proc/sys/net/ipv6/conf/$f/disable_ipv6; done\n"
        if s == "h":
            script += "for f in all default; do\n" + "".join(
                "echo %d > /proc/sys/net/ipv4/conf/$f/%s\n" % (v, k) for k, v in SYSCTL_V4.items()) + "done\n"
        ns_sh(full(s), script)
    if "br" in plan["sends"]:
        ip_batch(full("sw"), ["link add br0 type bridge forward_delay 0 stp_state 0",
                              "link set br0 up"])
        ip_batch(full("c"), ["link add c0 address 02:c0:00:00:00:01 type veth peer name pc netns " + full("sw"),
                             "link set c0 up"])
        ip_batch(full("sw"), ["link set pc master br0", "link set pc up"])
    host = []
    peers = {}
    for k, n in enumerate(plan["nics"]):
        host.append("link add %s address %s type veth peer name %s address 02:b0:00:00:00:%02x netns %s" %
                    (n["name"], n["mac"], n["peer"], k, full(n["peer_ns"])))
        peers.setdefault(n["peer_ns"], [])
        if n["seg"] == "br":
            peers[n["peer_ns"]] += ["link set %s master br0" % n["peer"]]
        peers[n["peer_ns"]] += ["link set %s up" % n["peer"]]
    for n in plan["nics"]:
        host.append("link set %s up" % n["name"])
    for a in plan["addrs"]:
        if a["peer"]:
            s = "addr add %s peer %s/%d dev %s" % (a["local"], a["peer"], a["plen"], a["dev"])
        else:
            s = "addr add %s/%d dev %s" % (a["local"], a["plen"], a["dev"])
        if a["scope"]:
            s += " scope " + a["scope"]
        host.append(s)
    for rt in plan.get("routes", []):
        host.append("route add %s via %s dev %s" % (rt["dst"], rt["via"], rt["dev"]))
    for n in plan["nics"]:
        if n["down"]:
            host.append("link set %s down" % n["name"])
    ip_batch(full("h"), host)
    # the reverse-path checks, all's and each NIC's (the NICs exist now)
    ns_sh(full("h"), "".join("echo %d > /proc/sys/net/ipv4/conf/%s/%s\n" % (v[k], dev, k)
                             for dev, v in sorted(plan.get("rpf", {}).items())
                             for k in ("rp_filter", "arp_filter")))
    for s, lines in peers.items():
        ip_batch(full(s), lines)
    # the switch knows where the host's NICs are, for good: a request that
    # spoofs a NIC's MAC as its Ethernet source must not move it to the
    # client's port (a later request to that MAC would go nowhere, and
    # whether it does would depend on who answered the requests before)
    fdb = ["fdb add %s dev %s master static sticky" % (n["mac"], n["peer"]) for n in plan["nics"] if n["seg"] == "br"]
    if fdb:
        run(["bridge", "-n", full("sw"), "-batch", "-"], "\n".join(fdb) + "\n")
    # the bridge forwards once its ports are up and forwarding
    if "br" in plan["sends"]:
        want = ["pc"] + [n["peer"] for n in plan["nics"] if n["seg"] == "br" and not n["down"]]
        end = time.monotonic() + 5
        while True:
            links = json.loads(run(["ip", "-n", full("sw"), "-d", "-j", "link", "show"]))
            st = {l["ifname"]: l.get("linkinfo", {}).get("info_slave_data", {}).get("state") for l in links}
            if all(st.get(p) == "forwarding" for p in want):
                break
            if time.monotonic() > end:
                die("bridge ports not forwarding: %s" % st)
            time.sleep(0.02)
    obs = dict(addr=json.loads(run(["ip", "-n", full("h"), "-j", "-d", "addr", "show"])),
               local=json.loads(run(["ip", "-n", full("h"), "-j", "route", "show", "table", "local"])),
               main=json.loads(run(["ip", "-n", full("h"), "-j", "route", "show", "table", "main"])))
    with open(os.path.join(d, "observed.json"), "w") as f:
        json.dump(obs, f, indent=1)
    cmd_describe(d)


def set_ignore(plan, spec):
    """/proc/sys/net follows the opening thread's network namespace:
    written from inside it, no ip netns exec needed."""
    with InNs(plan["prefix"] + "h"):
        for n in plan["nics"]:
            v = MODE_IGNORE[n["mode"]] if spec == "mixed" else int(spec)
            with open("/proc/sys/net/ipv4/conf/%s/arp_ignore" % n["name"], "w") as f:
                f.write("%d\n" % v)


def conf_text(plan, mode):
    out = ["[global]", "interfaces = *", "mode = %s" % ("owner" if mode == "mixed" else mode),
           # nothing but replies on the wire: no announcements, no defence
           "announce = no", "defend = never", "sender_rate = 0", "total_rate = 0"]
    if mode == "mixed":
        for n in plan["nics"]:
            out += ["", "[interface m_%s]" % n["name"], "match = %s" % n["name"], "mode = %s" % n["mode"]]
    return "\n".join(out)


# ---- send and capture ----------------------------------------------------

def table_fulls():
    """The ARP table's table_fulls (all CPUs): a full table makes the
    kernel drop a request it would answer (neigh_event_ns fails)."""
    tot = 0
    with open("/proc/net/stat/arp_cache") as f:
        head = f.readline().split()
        col = head.index("table_fulls")
        for line in f:
            tot += int(line.split()[col], 16)
    return tot


def parse_reply(b):
    if len(b) < 42 or b[12:14] != b"\x08\x06":
        return None
    hrd, pro, hln, pln, op = struct.unpack("!HHBBH", b[14:22])
    if hln != 6 or pln != 4:
        return None
    return dict(op=op, sha=mac_s(b[22:28]), spa=socket.inet_ntoa(b[28:32]),
                tha=mac_s(b[32:38]), tpa=socket.inet_ntoa(b[38:42]))


def cmd_send(d, label, quiet_ms, ignore):
    plan = load(d)
    P = plan["prefix"]
    if ignore is not None:
        set_ignore(plan, ignore)
    only = os.environ.get("ORACLE_ONLY")
    reqs = plan["requests"]
    if only:
        keep = {int(x) for x in only.replace(",", " ").split()}
        reqs = [r for r in reqs if r["i"] in keep]
    # a clean slate: neighbour tables everywhere, the bridge's FDB
    nss = sorted({"h"} | {n["peer_ns"] for n in plan["nics"]} | ({"c"} if "br" in plan["sends"] else set()))
    script = "".join("ip -n %s neigh flush all\n" % (P + x) for x in nss)
    if "br" in plan["sends"]:
        script += "ip -n %s link set br0 type bridge fdb_flush\n" % (P + "sw")
    run(["sh", "-c", script])
    tf0 = table_fulls()
    caps = {}
    for n in plan["nics"]:
        with InNs(P + n["peer_ns"]):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)
            s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            s.bind((n["peer"], ETH_P_ALL))
            s.setblocking(False)
        caps[s.fileno()] = (s, n["name"])
    senders = {}
    for seg, (ns, ifn) in plan["sends"].items():
        with InNs(P + ns):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            s.bind((ifn, 0))
        senders[seg] = (s, ifn)
    got = []

    def drain():
        for s, nic in caps.values():
            while True:
                try:
                    b, addr = s.recvfrom(2048)
                except BlockingIOError:
                    break
                if addr[2] != PACKET_OUTGOING:
                    got.append((nic, b))

    drain()
    got.clear()
    t0 = time.monotonic()
    for r in reqs:
        s, ifn = senders[r["seg"]]
        s.sendto(frame(r), (ifn, ETH_P_ARP))
        time.sleep(0.0003)
        drain()
    poll = select.poll()
    for fd in caps:
        poll.register(fd, select.POLLIN)
    last = time.monotonic()
    end = last + 5
    while True:
        now = time.monotonic()
        if now - last >= quiet_ms / 1000 or now >= end:
            break
        ev = poll.poll(max(1, int((last + quiet_ms / 1000 - now) * 1000)))
        if ev:
            n0 = len(got)
            drain()
            if len(got) > n0:
                last = time.monotonic()
    t1 = time.monotonic()
    bykey = {(r["sha"], r["sip"], r["tip"]): r["i"] for r in reqs}
    replies = {str(r["i"]): [] for r in reqs}
    stray = []
    for nic, b in got:
        p = parse_reply(b)
        if p is None or p["op"] != 2:
            if b[12:14] == b"\x08\x06":
                stray.append([nic, b.hex()])
            continue
        i = bykey.get((p["tha"], p["tpa"], p["spa"]))
        if i is None:
            stray.append([nic, b.hex()])
        else:
            replies[str(i)].append([nic, b.hex()])
    for v in replies.values():
        v.sort()
    out = dict(label=label, sent=len(reqs), replies=replies, stray=stray,
               table_fulls=table_fulls() - tf0, ms=round((t1 - t0) * 1000))
    with open(os.path.join(d, "run-%s.json" % label), "w") as f:
        json.dump(out, f)
    print("%s: sent %d, %d replies, %d stray, %d ms%s" % (
        label, len(reqs), sum(len(v) for v in replies.values()), len(stray), out["ms"],
        ", ARP TABLE FULL %d times" % out["table_fulls"] if out["table_fulls"] else ""))
    return 3 if out["table_fulls"] else 0


# ---- comparing --------------------------------------------------------

class Observed:
    """The host as the kernel holds it: addresses with flags and scopes,
    the local routing table (which of a local and a broadcast route for
    one address comes first)."""

    def __init__(self, obs, plan):
        self.ent = []
        self.down = {n["name"] for n in plan["nics"] if n["down"]}
        for l in obs["addr"]:
            for a in l.get("addr_info", []):
                if a.get("family") != "inet":
                    continue
                loc = ip2i(a["local"])
                peer = ip2i(a["address"]) if "address" in a and a["address"] != a["local"] else None
                plen = a["prefixlen"]
                self.ent.append(dict(dev=l["ifname"], local=loc, plen=plen, peer=peer,
                                     net=net_of(peer if peer is not None else loc, plen),
                                     scope=a.get("scope", "global"), secondary=bool(a.get("secondary"))))
        self.routes = []
        for r in obs["local"]:
            n, _, pl = r["dst"].partition("/")
            self.routes.append((ip2i(n), int(pl or 32), r.get("type", "unicast"), r.get("dev")))
        self.main = []
        for r in obs.get("main", []):
            n, _, pl = r["dst"].partition("/")
            if n == "default":
                n, pl = "0.0.0.0", "0"
            self.main.append((ip2i(n), int(pl or 32), r.get("type", "unicast"), r.get("dev")))
        rpf = plan.get("rpf", {})
        al = rpf.get("all", {})
        # the kernel's: rp_filter max(all, dev), arp_filter all || dev
        self.rp = {n["name"]: max(al.get("rp_filter", 0), rpf.get(n["name"], {}).get("rp_filter", 0))
                   for n in plan["nics"]}
        self.af = {n["name"]: bool(al.get("arp_filter", 0) or rpf.get(n["name"], {}).get("arp_filter", 0))
                   for n in plan["nics"]}

    def fib(self, a):
        """fib_lookup(a) as a route back to a sender: the local table, then
        the main one; (type, dev) of the longest prefix, or None."""
        r = self.route_type(a)
        if r is not None:
            return r[2], r[3]
        best = None
        for net, pl, typ, dev in self.main:
            if net_of(a, pl) == net and (best is None or pl > best[1]):
                best = (net, pl, typ, dev)
        return (best[2], best[3]) if best else None

    def route_type(self, a):
        """The local table's answer for a: (net, plen, type, dev), the
        longest prefix, the first of equal ones (the kernel's alias
        order, which ip route shows), or None."""
        best = None
        for net, pl, typ, dev in self.routes:
            if net_of(a, pl) == net and (best is None or pl > best[1]):
                best = (net, pl, typ, dev)
        return best

    def holders(self, a):
        return [e for e in self.ent if e["local"] == a]

    def local(self, a):
        r = self.route_type(a)
        return r is not None and r[2] == "local"

    def on(self, dev):
        return [e for e in self.ent if e["dev"] == dev]


def is_mcast(a):
    return a >> 28 == 0xe


def ifa_match(a, e):
    """inet_ifa_match(): a in the entry's subnet (the peer's, on p-t-p)."""
    return net_of(a, e["plen"]) == e["net"]


def k_ignored(ob, nic, sip, tip, ig):
    """net/ipv4/arp.c arp_ignore(): true when the kernel stays silent.
    For 1 and 2, inet_confirm_addr() -> confirm_addr_indev() on the arrival
    device: some entry holds tip as its address, and some entry's subnet
    holds tip (and, for 2, sip); the scope test min(scope, host) <= host
    always passes.  Secondaries count."""
    if ig == 8:
        return True
    if ig not in (1, 2):
        return False
    dst = sip if ig == 2 else 0
    ents = ob.on(nic)
    has = any(e["local"] == tip for e in ents)
    same = any(ifa_match(tip, e) and (dst == 0 or ifa_match(dst, e)) for e in ents)
    return not (has and same)


def k_decide(r, nic, ig, ob):
    """What the kernel does with request r arriving on nic at arp_ignore
    ig: "answer" or why not.  arp_rcv(), arp_process(), and for requests
    with a sender ip_route_input_noref() -> ip_route_input_slow(),
    fib_validate_source() (rp_filter 0: a sender that is one of the
    host's addresses is a martian); the RFC 5227 probe path asks only
    inet_addr_type_dev_table() (the local table) and arp_ignore."""
    sip, tip = ip2i(r["sip"]), ip2i(r["tip"])
    if r["hrd"] not in (1, 6):
        return "bad-hrd"
    if r["op"] not in (1, 2):
        return "bad-op"
    if is_mcast(tip) or tip >> 24 == 127:
        return "target-multicast-or-loopback"
    if sip == 0:
        if r["op"] != 1:
            return "not-request"
        if tip == 0 or tip == 0xffffffff or not ob.local(tip):
            return "probe-for-non-local"
        return "arp_ignore-%d" % ig if k_ignored(ob, nic, sip, tip, ig) else "answer"
    if r["op"] != 1:
        return "not-request"
    if is_mcast(sip) or sip == 0xffffffff:
        return "martian-source"
    if tip == 0xffffffff:
        return "target-limited-broadcast"
    if tip == 0:
        return "martian-destination"
    if sip >> 24 == 127:
        return "martian-source"
    rt = ob.route_type(tip)
    if rt is None or rt[2] not in ("local", "broadcast"):
        return "not-local"
    if rt[2] == "broadcast":
        return "broadcast-route"
    if ob.holders(sip):
        return "martian-source-is-ours"
    # fib_validate_source(): rp_filter, max(all, dev)
    rp, back = ob.rp.get(nic, 0), ob.fib(sip)
    if rp:
        if back is None or back[0] != "unicast":
            return "rp_filter"
        if back[1] != nic and (rp == 1 or not ob.on(nic)):
            return "rp_filter"
    if k_ignored(ob, nic, sip, tip, ig):
        return "arp_ignore-%d" % ig
    # arp_filter(): the route to the sender must leave through nic
    if ob.af.get(nic) and (back is None or back[0] not in ("unicast", "broadcast") or back[1] != nic):
        return "arp_filter"
    return "answer"


def a_check(r):
    """src/arp.c arp_check(), the frame's validation, before the policy."""
    sip, tip = ip2i(r["sip"]), ip2i(r["tip"])
    # since Linux 5.3 only 0.0.0.0 is zeronet; sip 0.0.0.0 is a probe
    martian = lambda a: a == 0 or a >> 24 == 127 or is_mcast(a) or a == 0xffffffff
    sha = mac_b(r["sha"])
    if r["hrd"] not in (1, 6):
        return "bad_hrd"
    if r["op"] not in (1, 2):
        return "not_request"
    if sha == bytes(6) or sha[0] & 1:
        return "bad_sender_mac"
    if sip != 0 and martian(sip):
        return "martian_sender"
    if r["op"] != 1:
        return "not_request"
    if martian(tip):
        return "bad_target"
    if sip == tip:
        return "gratuitous"
    return None


def receivers(r, plan):
    """The host NICs that take the request for themselves (not
    PACKET_OTHERHOST): the up NICs of its segment, all of them for a
    group destination, else the one whose MAC it is sent to."""
    nics = [n for n in plan["nics"] if n["seg"] == r["seg"] and not n["down"]]
    if mac_b(r["edst"])[0] & 1:
        return [n["name"] for n in nics]
    return [n["name"] for n in nics if n["mac"] == r["edst"]]


def reply_hex(r, mac):
    """The kernel's reply: arp_send_dst(ARPOP_REPLY, ETH_P_ARP, sip, dev,
    tip, sha, dev->dev_addr, sha): 42 bytes, hardware type the device's."""
    return (mac_b(r["sha"]) + mac_b(mac) + struct.pack("!HHHBBH", ETH_P_ARP, 1, 0x0800, 6, 4, 2) +
            mac_b(mac) + socket.inet_aton(r["tip"]) + mac_b(r["sha"]) + socket.inet_aton(r["sip"])).hex()


def read_verdicts(path):
    """arpownd's reasons, from its debug log: (nic, tip, sip) -> verdict;
    conflicts (logged once per address and interval, with the claimant's
    MAC, no target): (nic, sip, mac) -> "conflict"."""
    v = {}
    if not os.path.exists(path):
        return v
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line[:1] == "<" and ">" in line[:4]:
                line = line[line.index(">") + 1:]
            nic, _, rest = line.partition(": ")
            w = rest.split()
            if rest.startswith("answered who-has ") and len(w) >= 5:
                v[(nic, w[2], w[4])] = "answered"
            elif rest.startswith("not answering who-has ") and len(w) >= 7:
                v[(nic, w[3], w[5].rstrip(":"))] = w[6].rstrip(",")
            elif rest.startswith("address conflict: ") and "claims it" in rest:
                mac = rest.split(", but ")[1].split()[0] if ", but " in rest else ""
                v[(nic, w[2], mac)] = "conflict"
    return v


def a_reason(r, nic, verdicts, ob):
    c = a_check(r)
    if c:
        return c
    v = verdicts.get((nic, r["tip"], r["sip"]))
    if v:
        return v
    if verdicts.get((nic, r["sip"], r["sha"])) or ob.holders(ip2i(r["sip"])):
        return "conflict-or-own-sender"
    return "no-log-line"


def tags_of(r, ob, plan, run=None):
    """Features of a request that explain why someone would answer it or
    not; the first suspect in SUSPECTS names a disagreement's kind.  With
    run "mixed", also whether the target's NICs are all in mode off."""
    t = []
    modes = {n["name"]: n["mode"] for n in plan["nics"]}
    hs0 = ob.holders(ip2i(r["tip"]))
    if run == "mixed" and hs0 and all(modes.get(h["dev"]) == "off" for h in hs0):
        t.append("tip-only-on-off-nics")
    sip, tip = ip2i(r["sip"]), ip2i(r["tip"])
    macs = {n["mac"] for n in plan["nics"]}
    if r["op"] != 1:
        t.append("op-%d" % r["op"])
    if r["hrd"] != 1:
        t.append("hrd-%d" % r["hrd"])
    if r["sha"] == ZERO:
        t.append("sha-zero")
    elif mac_b(r["sha"])[0] & 1:
        t.append("sha-group")
    elif r["sha"] in macs:
        t.append("sha-ours")
    if r["esrc"] != r["sha"]:
        t.append("esrc!=sha")
    if r["edst"] == BCAST:
        pass
    elif mac_b(r["edst"])[0] & 1:
        t.append("edst-multicast")
    elif r["edst"] in macs:
        t.append("edst-unicast-host")
    else:
        t.append("edst-unicast-other")
    if sip == 0:
        t.append("probe")
    elif sip == tip:
        t.append("gratuitous")
    if sip >> 24 == 0 and sip != 0:
        t.append("sip-0/8")
    if tip >> 24 == 0 and tip != 0:
        t.append("tip-0/8")
    if sip >> 24 == 127 or (sip >> 28) == 0xe or sip == 0xffffffff:
        t.append("sip-martian")
    if ob.holders(sip) or (sip and ob.local(sip)):
        t.append("sip-ours")
    if (sip >> 28) == 0xf and sip != 0xffffffff:
        t.append("sip-classE")
    if (tip >> 28) == 0xf and tip != 0xffffffff:
        t.append("tip-classE")
    rt = ob.route_type(sip)
    if sip and rt and rt[2] == "broadcast" and rt[1] == 32:
        t.append("sip-subnet-broadcast")
    hs = ob.holders(tip)
    rt = ob.route_type(tip)
    if hs and rt and rt[2] == "broadcast":
        t.append("tip-ours-but-broadcast-route-wins")
    elif hs and any(x for x in ob.routes if x[0] == tip and x[1] == 32 and x[2] == "broadcast"):
        t.append("tip-ours-and-broadcast-route")
    if any(ob.rp.get(n) or ob.af.get(n) for n in receivers(r, plan)):
        t.append("rpf-on")
    if any(h["dev"] in ob.down for h in hs):
        t.append("tip-on-down-nic")
    if any(h["dev"] == "lo" for h in hs):
        t.append("tip-on-lo")
    elif not hs and rt and rt[2] == "local":
        t.append("tip-in-lo-subnet")
    if any(h["scope"] == "host" for h in hs):
        t.append("tip-scope-host")
    if any(h["scope"] == "link" for h in hs):
        t.append("tip-scope-link")
    if any(h["peer"] is not None for h in hs):
        t.append("tip-ptp")
    if any(h["secondary"] for h in hs):
        t.append("tip-secondary")
    if len({h["dev"] for h in hs}) > 1:
        t.append("tip-on-two-nics")
    if len([h for h in hs if h["dev"] == r["focus"]]) > 1:
        t.append("tip-two-prefixes")
    if not hs and not (rt and rt[2] == "local"):
        t.append("tip-not-ours")
    if hs and r["focus"] not in {h["dev"] for h in hs}:
        t.append("tip-on-other-nic")
    return t


# the order in which a request's features are taken as the reason of a
# disagreement: the most specific first
# Where arpownd means to differ first (arpownd.conf(5)), so that a kind is
# named by the reason it differs, not by a feature both sides now take alike.
SUSPECTS = ["sha-group", "sha-zero",
            "tip-only-on-off-nics", "tip-on-down-nic", "tip-on-lo", "tip-in-lo-subnet",
            "tip-ours-but-broadcast-route-wins", "esrc!=sha", "sip-0/8", "tip-0/8",
            "tip-ours-and-broadcast-route", "rpf-on",
            "sip-ours", "sip-martian", "gratuitous", "tip-scope-host", "tip-scope-link",
            "tip-ptp", "sip-subnet-broadcast", "sip-classE", "tip-classE", "probe",
            "tip-secondary", "tip-two-prefixes", "tip-on-two-nics", "edst-multicast",
            "edst-unicast-host", "op-2", "hrd-6", "tip-on-other-nic"]


def who(lst):
    return ",".join(n for n, _ in lst) or "-"


def describe_req(r):
    return ("sent on %s (%s) to %s: eth %s > %s, who-has %s tell %s, sha %s tha %s op %d hrd %d pad %d" %
            (r["seg"], r["focus"], r["tcat"] + "/" + r["scat"], r["esrc"], r["edst"], r["tip"], r["sip"],
             r["sha"], r["tha"], r["op"], r["hrd"], r["pad"]))


def repro(r, plan):
    ns, ifn = plan["sends"][r["seg"]]
    a = ["arpc", "-i", ifn, "-s", r["sip"], "-m", r["sha"]]
    if r["esrc"] != r["sha"]:
        a += ["-e", r["esrc"]]
    if r["edst"] != BCAST:
        a += ["-E", r["edst"]]
    if r["tha"] != ZERO:
        a += ["-T", r["tha"]]
    if r["op"] != 1:
        a += ["-o", str(r["op"])]
    if r["hrd"] != 1:
        a += ["--hrd", str(r["hrd"])]
    if r["pad"]:
        a += ["--pad", str(r["pad"])]
    a += ["-x", r["tip"]]
    return "ip netns exec <%s> %s" % (ns, " ".join(a))


def relevant_addrs(r, plan, ob):
    """The host's addresses that bear on the request: the arrival NICs',
    and whatever holds or routes the target."""
    seg_nics = {n["name"] for n in plan["nics"] if n["seg"] == r["seg"]}
    tip = ip2i(r["tip"])
    devs = set(seg_nics) | {h["dev"] for h in ob.holders(tip)}
    out = []
    for e in ob.ent:
        if e["dev"] in devs:
            s = "%s %s%s/%d%s%s%s" % (e["dev"], i2ip(e["local"]),
                                        " peer " + i2ip(e["peer"]) if e["peer"] is not None else "",
                                        e["plen"], " scope " + e["scope"] if e["scope"] != "global" else "",
                                        " secondary" if e["secondary"] else "",
                                        " (down)" if e["dev"] in ob.down else "")
            out.append(s)
    for net, pl, typ, dev in ob.routes:
        if net_of(tip, pl) == net and typ != "local":
            out.append("route %s %s/%d dev %s" % (typ, i2ip(net), pl, dev))
    return out


def load_intended(path):
    """The test's list of intended differences: (pattern, why, where)."""
    out = []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip() and not line.lstrip().startswith("#"):
                    parts = [x.strip() for x in line.split("|")] + ["", ""]
                    out.append(tuple(parts[:3]))
    return out


def ignore_of(plan, label):
    """The arp_ignore of each NIC in kernel run label (k1, k2, k0, kmixed)."""
    return {n["name"]: MODE_IGNORE[n["mode"]] if label == "kmixed" else int(label[1:])
            for n in plan["nics"]}


def cmd_compare(d, intended_path, max_show):
    plan = load(d)
    ob = Observed(load(d, "observed.json"), plan)
    intended = load_intended(intended_path)
    macs = {n["name"]: n["mac"] for n in plan["nics"]}
    reqs = {r["i"]: r for r in plan["requests"]}
    kinds, model = {}, {}
    compared = dis = allowed = 0
    shown = {}
    for kl, al in PAIRS:
        try:
            K = load(d, "run-%s.json" % kl)
            A = load(d, "run-%s.json" % al)
        except FileNotFoundError:
            continue
        ig = ignore_of(plan, kl)
        verdicts = read_verdicts(os.path.join(d, "arpownd-%s.log" % al))
        for i, kr in K["replies"].items():
            if i not in A["replies"]:
                continue
            r = reqs[int(i)]
            ar = A["replies"][i]
            rx = receivers(r, plan)
            kwhy = {n: k_decide(r, n, ig[n], ob) for n in rx}
            # the model of the kernel against the kernel: reported, not counted
            pred = sorted([n, reply_hex(r, macs[n])] for n in rx if kwhy[n] == "answer")
            if pred != kr:
                m = model.setdefault("%s: model %s, kernel %s" % (kl, who(pred), who(kr)),
                                     dict(n=0, examples=[]))
                m["n"] += 1
                if len(m["examples"]) < 2:
                    m["examples"].append(dict(seed=plan["seed"], i=r["i"], req=describe_req(r),
                                              why=kwhy, tags=tags_of(r, ob, plan),
                                              addrs=relevant_addrs(r, plan, ob)))
            compared += 1
            if kr == ar:
                continue
            t = tags_of(r, ob, plan, al)
            kn, an = {n for n, _ in kr}, {n for n, _ in ar}
            if kn - an:
                direction, nic = "kernel-only", sorted(kn - an)[0]
                reason = "arpownd:" + a_reason(r, nic, verdicts, ob)
            elif an - kn:
                direction, nic = "arpownd-only", sorted(an - kn)[0]
                reason = "kernel:" + (kwhy.get(nic, "not-received"))
            else:
                direction = "bytes-differ" if len(kr) == len(ar) else "count-differs"
                reason = "-"
            shape = next((x for x in SUSPECTS if x in t), "-")
            kind = "%s %s %s %s" % (al, direction, reason, shape)
            ok = next(("%s (%s)" % (w, where) for p, w, where in intended
                       if fnmatch.fnmatchcase(kind, p)), None)
            if ok:
                allowed += 1
            else:
                dis += 1
            k = kinds.setdefault(kind, dict(n=0, intended=ok, examples=[]))
            k["n"] += 1
            if len(k["examples"]) < 2:
                k["examples"].append(dict(seed=plan["seed"], i=r["i"], req=describe_req(r), tags=t,
                                          kernel=kr, arpownd=ar, repro=repro(r, plan),
                                          addrs=relevant_addrs(r, plan, ob)))
            if shown.get(kind, 0) < max_show:
                shown[kind] = shown.get(kind, 0) + 1
                print("%s: seed %d request #%d [%s]%s" % (
                    "intended" if ok else "DISAGREEMENT", plan["seed"], r["i"], kind,
                    "" if shown[kind] < max_show else " (further ones of this kind not shown)"))
                print("    request: " + describe_req(r))
                print("    tags:    " + " ".join(t))
                print("    kernel (%s): %s; arpownd (%s): %s" % (kl, who(kr), al, who(ar)))
                print("    why:     " + "; ".join("%s kernel %s, arpownd %s" % (
                    n, kwhy[n], a_reason(r, n, verdicts, ob)) for n in rx))
                if direction == "bytes-differ":
                    for (n1, b1), (n2, b2) in zip(kr, ar):
                        if b1 != b2:
                            print("      %s kernel  %s\n      %s arpownd %s" % (n1, b1, n2, b2))
                for x in relevant_addrs(r, plan, ob):
                    print("    host:    " + x)
                print("    repro:   " + repro(r, plan))
    # the first kernel run, repeated after all the others: the same answers
    repeat = 0
    try:
        K1, K1b = load(d, "run-k1.json"), load(d, "run-k1again.json")
        for i, v in K1["replies"].items():
            if i in K1b["replies"] and K1b["replies"][i] != v:
                repeat += 1
                if repeat <= 3:
                    print("NOT REPEATABLE: seed %d request #%d: the kernel at arp_ignore 1 answered %s "
                          "the first time, %s after the other runs\n    %s" % (
                              plan["seed"], int(i), who(v), who(K1b["replies"][i]), describe_req(reqs[int(i)])))
    except FileNotFoundError:
        pass
    strays = 0
    for f in sorted(os.listdir(d)):
        if f.startswith("run-"):
            R = load(d, f)
            strays += len(R["stray"])
            for nic, b in R["stray"][:3]:
                print("STRAY: seed %d run %s: an ARP frame from %s that answers no request: %s" % (
                    plan["seed"], R["label"], nic, b))
    for k, m in model.items():
        print("kernel model differs, %d times: %s" % (m["n"], k))
        for e in m["examples"][:1]:
            print("    #%d %s\n    why %s\n    tags %s" % (e["i"], e["req"], e["why"], " ".join(e["tags"])))
    summ = dict(seed=plan["seed"], requests=len(plan["requests"]), compared=compared,
                disagreements=dis, intended=allowed, strays=strays, kinds=kinds, model=model,
                repeat=repeat)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summ, f, indent=1)
    print("seed %d: %d comparisons, %d disagreements, %d intended, %d stray frames, "
          "the kernel model wrong %d times, %d kernel answers not repeatable" % (
              plan["seed"], compared, dis, allowed, strays, sum(m["n"] for m in model.values()), repeat))


def cmd_summary(dirs):
    tot = dict(seeds=0, requests=0, compared=0, disagreements=0, intended=0, strays=0, model=0,
               repeat=0)
    kinds = {}
    model = {}
    for d in dirs:
        try:
            s = load(d, "summary.json")
        except FileNotFoundError:
            continue
        tot["seeds"] += 1
        for k in ("requests", "compared", "disagreements", "intended", "strays", "repeat"):
            tot[k] += s.get(k, 0)
        for k, v in s.get("model", {}).items():
            m = model.setdefault(k, dict(n=0, examples=[]))
            m["n"] += v["n"]
            tot["model"] += v["n"]
            m["examples"] += v["examples"][:1]
        for kind, v in s["kinds"].items():
            k = kinds.setdefault(kind, dict(n=0, seeds=[], intended=v["intended"], examples=[]))
            k["n"] += v["n"]
            k["seeds"].append(s["seed"])
            if len(k["examples"]) < 1:
                k["examples"] += v["examples"][:1]
    print("== kernel oracle: %(seeds)d seeds, %(requests)d requests, %(compared)d comparisons, "
          "%(disagreements)d disagreements, %(intended)d intended, %(strays)d stray frames, "
          "the kernel model wrong %(model)d times, %(repeat)d kernel answers not repeatable" % tot)
    if kinds:
        print("%-80s %6s  %s" % ("kind: mode, who answered, why the other did not, the request's shape",
                                  "count", "seeds"))
        for kind in sorted(kinds, key=lambda k: (bool(kinds[k]["intended"]), -kinds[k]["n"])):
            v = kinds[kind]
            seeds = sorted(set(v["seeds"]))
            print("%-80s %6d  %s%s" % (kind, v["n"], " ".join(map(str, seeds[:8])),
                                       " ..." if len(seeds) > 8 else ""))
            if v["intended"]:
                print("    intended: " + v["intended"])
        print("one example of each kind:")
        for kind in sorted(kinds, key=lambda k: (bool(kinds[k]["intended"]), -kinds[k]["n"])):
            for e in kinds[kind]["examples"]:
                print("  [%s] ORACLE_SEED=%d ORACLE_ONLY=%d" % (kind, e["seed"], e["i"]))
                print("      " + e["req"])
                print("      kernel: %s  arpownd: %s" % (who(e["kernel"]), who(e["arpownd"])))
                for s in e["addrs"]:
                    print("      host: " + s)
                print("      " + e["repro"])
    for k, m in sorted(model.items()):
        print("kernel model wrong %d times: %s" % (m["n"], k))
        for e in m["examples"][:2]:
            print("    ORACLE_SEED=%d ORACLE_ONLY=%d %s\n      why %s\n      tags %s" % (
                e["seed"], e["i"], e["req"], e["why"], " ".join(e["tags"])))
            for x in e["addrs"]:
                print("      host: " + x)
    if tot["repeat"]:
        print("the kernel's answers changed between two identical runs: the runs are not "
              "independent, and the comparison is not to be trusted")
    if tot["strays"]:
        print("ARP frames that answer none of the requests were captured (printed with their "
              "seed above): a reply with a wrong target, or something else talking")
    return 1 if tot["disagreements"] or tot["repeat"] or tot["strays"] else 0


def cmd_describe(d):
    plan = load(d)
    print("seed %d: %d NICs; %s" % (plan["seed"], len(plan["nics"]), "; ".join(plan["features"])))
    for n in plan["nics"]:
        print("  %s %s segment %s%s, mixed mode %s: %s" % (
            n["name"], n["mac"], n["seg"], " DOWN" if n["down"] else "", n["mode"],
            " ".join("%s%s/%d%s" % (a["local"], " peer " + a["peer"] if a["peer"] else "", a["plen"],
                                    " scope " + a["scope"] if a["scope"] else "")
                     for a in plan["addrs"] if a["dev"] == n["name"])))
    lo = [a for a in plan["addrs"] if a["dev"] == "lo"]
    if lo:
        print("  lo: " + " ".join("%s/%d" % (a["local"], a["plen"]) for a in lo))


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    c, a = argv[1], argv[2:]
    if c == "plan" and len(a) == 4:
        cmd_plan(int(a[0]), int(a[1]), a[2], a[3])
    elif c == "setup" and len(a) == 1:
        cmd_setup(a[0])
    elif c == "send" and len(a) in (3, 4):
        return cmd_send(a[0], a[1], int(a[2]), a[3] if len(a) == 4 else None)
    elif c == "compare" and len(a) in (2, 3):
        cmd_compare(a[0], a[1], int(a[2]) if len(a) == 3 else 2)
    elif c == "summary":
        return cmd_summary(a)
    elif c == "describe" and len(a) == 1:
        cmd_describe(a[0])
    else:
        die(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
