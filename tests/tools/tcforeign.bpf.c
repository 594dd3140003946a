/* tcforeign.bpf.c — an administrator's TC filter, for the tests of a
 * clsact hook arpownd shares (tests/integration/kpath/kpath_shared_clsact.sh):
 * it drops IPv4 ICMP, and the ARP frames whose sender IP is 10.0.0.66
 * (a sender the admin refuses), and gives no verdict on anything else.
 * Loaded with: tc filter add dev IF ingress pref N bpf da obj FILE sec tc */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define REFUSED_SENDER	0x0a000042	/* 10.0.0.66 */

SEC("tc")
int
admin_filter(struct __sk_buff *skb)
{
	__u32 sip;
	__u8 proto;

	if (skb->protocol == bpf_htons(ETH_P_IP) &&
	    bpf_skb_load_bytes(skb, ETH_HLEN + 9, &proto, 1) == 0 && proto == 1)
		return TC_ACT_SHOT;
	/* the ARP sender IP: Ethernet header, then 14 bytes into the body */
	if (skb->protocol == bpf_htons(ETH_P_ARP) &&
	    bpf_skb_load_bytes(skb, ETH_HLEN + 14, &sip, 4) == 0 &&
	    sip == bpf_htonl(REFUSED_SENDER))
		return TC_ACT_SHOT;
	return TC_ACT_UNSPEC;
}

char _license[] SEC("license") = "GPL";
