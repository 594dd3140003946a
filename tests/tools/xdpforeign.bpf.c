/* xdpforeign.bpf.c — someone else's XDP program (a firewall, a load
 * balancer), for tests/integration/xdp/xdp_coexist.sh: it drops the ARP
 * frames whose sender IP is 10.0.0.66 (a sender the admin refuses) and
 * passes everything else.  Loaded with:
 *   ip link set dev IF xdpgeneric obj FILE sec xdp */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define REFUSED_SENDER	0x0a000042	/* 10.0.0.66 */

SEC("xdp")
int
fw_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 sip;

	if (data + ETH_HLEN + 18 > data_end || eth->h_proto != bpf_htons(ETH_P_ARP))
		return XDP_PASS;
	__builtin_memcpy(&sip, data + ETH_HLEN + 14, 4);
	return sip == bpf_htonl(REFUSED_SENDER) ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
