/* rulesprobe.h — one row of include/rules.h's inputs and answers, as
 * tests/tools/rules.bpf.c reads and writes it after an Ethernet header in
 * a BPF_PROG_TEST_RUN frame, and tests/tools/rulestest.c fills it. */
#ifndef ARPOWND_RULESPROBE_H
#define ARPOWND_RULESPROBE_H

#include <linux/types.h>

struct rules_probe {
	/* in: an address (host order), a prefix, an address entry's ends */
	__u32	h, plen, ip_n, prefix_n;
	__u32	have_l, have_a, local, address;
	/* out: what the program's rules.h said */
	__u32	martian, next, mask, mask_n, bcast, in_prefix;
	__u32	ifa_ok, out_local, out_address;
};

#endif
