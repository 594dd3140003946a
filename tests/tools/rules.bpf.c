/* rules.bpf.c — include/rules.h compiled for the BPF target with the flags
 * of src/kpath/bpf/answer.bpf.c, run by tests/tools/rulestest.c through
 * BPF_PROG_TEST_RUN on tests/unit/rules_table.h: the program and the
 * daemon answer from the same text, and this shows the BPF build of it
 * gives the same answers as the C one.  One row per run, written back
 * into the frame after its Ethernet header. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "rules.h"
#include "rulesprobe.h"

SEC("tc")
int
rules_probe(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct rules_probe *p = data + ETH_HLEN;
	__u32 local, address;

	if ((void *)(p + 1) > end)
		return TC_ACT_SHOT;
	p->martian = rule_martian(p->h);
	p->next = rule_next_martian(p->h);
	p->mask = rule_mask(p->plen);
	p->mask_n = rule_mask_n(p->plen);
	p->bcast = rule_bcast(p->h, p->plen);
	p->in_prefix = rule_in_prefix_n(p->ip_n, p->prefix_n, p->plen);
	local = p->local;
	address = p->address;
	p->ifa_ok = rule_ifa_ends(p->have_l, p->have_a, &local, &address);
	p->out_local = local;
	p->out_address = address;
	return TC_ACT_OK;
}
