/* rules.h — the kernel's IPv4 address rules, written once for the daemon
 * and the BPF program (src/kpath/bpf/answer.bpf.c), which include this file
 * alike so that the two cannot drift: only linux/types.h, static inline,
 * no libc, no BPF helpers, no loops.  Host order unless a name ends in _n
 * (network order, as the frame and netlink carry it).
 * tests/unit/test_rules.c runs them on a table of addresses. */
#ifndef ARPOWND_RULES_H
#define ARPOWND_RULES_H

#include <linux/types.h>

#define RULE_INLINE	static inline __attribute__((always_inline))

/* Host to network order; a builtin, so that the BPF target needs no
 * helper and the daemon no libc. */
RULE_INLINE __u32
rule_hton(__u32 h)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(h);
#else
	return h;
#endif
}

/* Never a sender or target the kernel answers (h host order): 0.0.0.0,
 * 127/8, 224/4 and the limited broadcast — arp_process drops a multicast
 * or loopback target, ip_route_input a multicast, limited-broadcast,
 * zeronet or loopback source.  Since Linux 5.3 ipv4_is_zeronet is only
 * 0.0.0.0 (the rest of 0/8 is usable), in 6.1 and 6.18 alike; class E
 * (240/4) is usable too. */
RULE_INLINE int
rule_martian(__u32 h)
{
	return h == 0 || (h >> 24) == 127 || (h >> 28) == 0xe || h == 0xffffffffu;
}

/* The first martian address at or after h (0xffffffff at worst): a range
 * [lo, hi] holds a martian exactly when rule_next_martian(lo) <= hi. */
RULE_INLINE __u32
rule_next_martian(__u32 h)
{
	if (rule_martian(h))
		return h;
	if (h < 0x7f000000u)
		return 0x7f000000u;
	if (h < 0xe0000000u)
		return 0xe0000000u;
	return 0xffffffffu;
}

/* The netmask of a prefix length 0..32, host order (no shift by 32). */
RULE_INLINE __u32
rule_mask(__u32 plen)
{
	return plen == 0 ? 0 : 0xffffffffu << (32 - plen);
}

/* The same, network order. */
RULE_INLINE __u32
rule_mask_n(__u32 plen)
{
	return rule_hton(rule_mask(plen));
}

/* The last address of the prefix holding h: its broadcast address (below
 * /31, where the kernel's local table routes it as broadcast). */
RULE_INLINE __u32
rule_bcast(__u32 h, __u32 plen)
{
	return (h & rule_mask(plen)) | ~rule_mask(plen);
}

/* The kernel's inet_ifa_match(): is ip inside prefix/plen (network order)?
 * What "in one of the interface's subnets" means for arp_ignore 1 and 2. */
RULE_INLINE int
rule_in_prefix_n(__u32 ip, __u32 prefix, __u32 plen)
{
	return ((ip ^ prefix) & rule_mask_n(plen)) == 0;
}

/* An address entry's two ends from RTM_NEWADDR/DELADDR as rtnl.c, the
 * mirror and the watcher read them: IFA_LOCAL is the local end, IFA_ADDRESS
 * the subnet's address (the peer on point-to-point links); either stands
 * in for the other when alone, as the kernel reads a request
 * (rtm_to_ifaddr).  0 when neither came. */
RULE_INLINE int
rule_ifa_ends(int have_local, int have_address, __u32 *local, __u32 *address)
{
	if (!have_local && !have_address)
		return 0;
	if (!have_local)
		*local = *address;
	if (!have_address)
		*address = *local;
	return 1;
}

#endif
