/* rules_table.h — the table of addresses and prefixes with the answers
 * include/rules.h must give, shared by tests/unit/test_rules.c (the C
 * build) and tests/tools/rulestest.c (the BPF build).  Host order. */
#ifndef ARPOWND_RULES_TABLE_H
#define ARPOWND_RULES_TABLE_H

#include <stdint.h>

#define IP4(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* An address: martian (as the kernel on 6.1 and 6.18), the first martian
 * at or after it. */
static const struct rt_addr {
	const char	*name;
	uint32_t	 h;
	int		 martian;
	uint32_t	 next;
} rt_addrs[] = {
	{ "0.0.0.0", IP4(0, 0, 0, 0), 1, IP4(0, 0, 0, 0) },
	{ "0.0.0.1", IP4(0, 0, 0, 1), 0, IP4(127, 0, 0, 0) },	/* zeronet is 0.0.0.0 alone */
	{ "0.1.2.3", IP4(0, 1, 2, 3), 0, IP4(127, 0, 0, 0) },
	{ "0.255.255.255", IP4(0, 255, 255, 255), 0, IP4(127, 0, 0, 0) },
	{ "1.2.3.4", IP4(1, 2, 3, 4), 0, IP4(127, 0, 0, 0) },
	{ "10.0.0.1", IP4(10, 0, 0, 1), 0, IP4(127, 0, 0, 0) },
	{ "126.255.255.255", IP4(126, 255, 255, 255), 0, IP4(127, 0, 0, 0) },
	{ "127.0.0.0", IP4(127, 0, 0, 0), 1, IP4(127, 0, 0, 0) },
	{ "127.0.0.1", IP4(127, 0, 0, 1), 1, IP4(127, 0, 0, 1) },
	{ "127.255.255.255", IP4(127, 255, 255, 255), 1, IP4(127, 255, 255, 255) },
	{ "128.0.0.0", IP4(128, 0, 0, 0), 0, IP4(224, 0, 0, 0) },
	{ "192.168.1.255", IP4(192, 168, 1, 255), 0, IP4(224, 0, 0, 0) },
	{ "223.255.255.255", IP4(223, 255, 255, 255), 0, IP4(224, 0, 0, 0) },
	{ "224.0.0.0", IP4(224, 0, 0, 0), 1, IP4(224, 0, 0, 0) },
	{ "224.0.0.251", IP4(224, 0, 0, 251), 1, IP4(224, 0, 0, 251) },
	{ "239.255.255.255", IP4(239, 255, 255, 255), 1, IP4(239, 255, 255, 255) },
	{ "240.0.0.0", IP4(240, 0, 0, 0), 0, IP4(255, 255, 255, 255) },	/* class E: usable */
	{ "240.0.0.1", IP4(240, 0, 0, 1), 0, IP4(255, 255, 255, 255) },
	{ "255.255.255.254", IP4(255, 255, 255, 254), 0, IP4(255, 255, 255, 255) },
	{ "255.255.255.255", IP4(255, 255, 255, 255), 1, IP4(255, 255, 255, 255) },
};
#define RT_NADDRS	(sizeof(rt_addrs) / sizeof(rt_addrs[0]))

/* A prefix h/plen: its mask, its last (broadcast) address, and whether ip
 * is inside it. */
static const struct rt_prefix {
	uint32_t	h;
	uint32_t	plen;
	uint32_t	mask, bcast, ip;
	int		in;
} rt_prefixes[] = {
	{ IP4(10, 1, 2, 3), 0, 0, 0xffffffffu, IP4(192, 0, 2, 1), 1 },
	{ IP4(10, 1, 2, 3), 1, 0x80000000u, IP4(127, 255, 255, 255), IP4(127, 0, 0, 1), 1 },
	{ IP4(10, 1, 2, 3), 1, 0x80000000u, IP4(127, 255, 255, 255), IP4(128, 0, 0, 1), 0 },
	{ IP4(10, 1, 2, 3), 8, 0xff000000u, IP4(10, 255, 255, 255), IP4(10, 255, 0, 1), 1 },
	{ IP4(10, 1, 2, 3), 8, 0xff000000u, IP4(10, 255, 255, 255), IP4(11, 0, 0, 0), 0 },
	{ IP4(0, 1, 2, 3), 8, 0xff000000u, IP4(0, 255, 255, 255), IP4(0, 0, 0, 1), 1 },
	{ IP4(192, 168, 1, 77), 24, 0xffffff00u, IP4(192, 168, 1, 255), IP4(192, 168, 1, 1), 1 },
	{ IP4(192, 168, 1, 77), 24, 0xffffff00u, IP4(192, 168, 1, 255), IP4(192, 168, 2, 1), 0 },
	{ IP4(192, 168, 1, 6), 31, 0xfffffffeu, IP4(192, 168, 1, 7), IP4(192, 168, 1, 7), 1 },
	{ IP4(192, 168, 1, 6), 31, 0xfffffffeu, IP4(192, 168, 1, 7), IP4(192, 168, 1, 8), 0 },
	{ IP4(192, 168, 1, 6), 32, 0xffffffffu, IP4(192, 168, 1, 6), IP4(192, 168, 1, 6), 1 },
	{ IP4(192, 168, 1, 6), 32, 0xffffffffu, IP4(192, 168, 1, 6), IP4(192, 168, 1, 7), 0 },
};
#define RT_NPREFIXES	(sizeof(rt_prefixes) / sizeof(rt_prefixes[0]))

/* IFA_LOCAL and IFA_ADDRESS as they came (or not), and what is read. */
static const struct rt_ifa {
	int		have_l, have_a;
	uint32_t	local, address;
	int		ok;
	uint32_t	want_local, want_address;
} rt_ifas[] = {
	{ 1, 1, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2) },
	{ 1, 0, IP4(10, 0, 0, 1), 0, 1, IP4(10, 0, 0, 1), IP4(10, 0, 0, 1) },
	{ 0, 1, 0, IP4(10, 0, 0, 2), 1, IP4(10, 0, 0, 2), IP4(10, 0, 0, 2) },
	{ 0, 0, 0, 0, 0, 0, 0 },
};
#define RT_NIFAS	(sizeof(rt_ifas) / sizeof(rt_ifas[0]))

#endif
