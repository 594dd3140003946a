/* xdp.bpf.h — arpownd_xdp, the answer path at XDP: included by
 * answer.bpf.c after the TC program, so that both are in one object and
 * share its maps (one source of truth: the daemon's grants, the
 * watcher's mirror, the buckets, the counters, the event ring) and its
 * steps (arp_parse, arp_decide, arp_limit, arp_events).  Only the frame
 * view and the reply are XDP's own.
 *
 * A request the maps make certain is rewritten in place into the
 * kernel's reply (42 bytes: longer requests are trimmed with
 * bpf_xdp_adjust_tail, as the kernel's own reply is 42 bytes whatever
 * the request's length) and sent back out of the arrival device with
 * XDP_TX.  The request is consumed: on an interface arpownd manages the
 * kernel (arp_ignore 8) would have done nothing with a request for one
 * of its addresses (arp_process consumes it without a neighbour
 * update); see doc/kpath.md, "The XDP path", for the one difference.
 * What a limit refuses is dropped (XDP_DROP): passed up, the capture
 * path would answer it from a budget of its own.  Everything else goes
 * on (XDP_PASS) to the stack and the capture path, counted under its
 * reason as at TC.
 *
 * Neither the request nor the reply is seen by a packet socket on the
 * host (tcpdump): XDP runs before the taps and XDP_TX bypasses them.
 * The counters (answered = XDP_TX, limited-* = XDP_DROP, pass-* =
 * XDP_PASS) are what an administrator sees instead. */

/* arp_check on an xdp_md: the packet type the stack would give the
 * frame (eth_type_trans: ours, broadcast or multicast; another host's
 * is refused as at TC), then the frame (arp_parse).  A VLAN tag still
 * in the frame makes it not ARP (the caller passed it); one a NIC took
 * off in hardware is not visible here before Linux 6.8's
 * bpf_xdp_metadata_rx_vlan_tag, which is why the daemon puts the XDP
 * program only on interfaces without upper devices (doc/kpath.md). */
static __always_inline __u32
xdp_validate(void *data, void *data_end, __u32 ifindex, struct arp_req *rq)
{
	struct ethhdr *eth = data;
	struct kp_link *lnk;

	if (data + ARP_FRAME > data_end)
		return KP_C_PASS_INVALID;
	if (!(eth->h_dest[0] & 1)) {
		/* unicast: to the link's MAC as the kernel has it now; an
		 * unknown link is refused later (KP_C_PASS_STALE) */
		lnk = bpf_map_lookup_elem(&kp_links, &ifindex);
		if (lnk != NULL && !mac_eq(eth->h_dest, lnk->mac))
			return KP_C_PASS_INVALID;
	}
	return arp_parse(data, data_end, rq);
}

/* The kernel's reply (arp_send_dst: 42 bytes) written over the request
 * in place; 0, or 1 when the frame could not be trimmed.  The length
 * comes from bpf_xdp_get_buff_len (5.18): a pointer difference is what
 * the verifier refuses without CAP_PERFMON. */
static __always_inline int
xdp_reply(struct xdp_md *ctx, const struct arp_req *rq)
{
	int len = (int)bpf_xdp_get_buff_len(ctx);
	void *data, *data_end;

	if (len > ARP_FRAME && bpf_xdp_adjust_tail(ctx, ARP_FRAME - len) != 0)
		return 1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (data + ARP_FRAME > data_end)
		return 1;
	arp_fill_reply(data, rq->sha, rq->mac, rq->sip, rq->tip);
	return 0;
}

/* Not ours to answer: on to the stack (and the capture path). */
static __always_inline int
xpass(__u32 cnt, __u32 why)
{
	count(cnt, why);
	return XDP_PASS;
}

/* validate, decide, limit, reply: the TC program's steps, on an xdp_md.
 * tests/tools/progtest.c runs frames through it with BPF_PROG_TEST_RUN
 * beside the TC program's. */
SEC("xdp")
int
arpownd_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 ifindex = ctx->ingress_ifindex, zero = 0, cnt, why;
	struct ethhdr *eth = data;
	struct kp_iface *ifc;
	struct kp_conf *cf;
	struct arp_req rq = {};

	if (data + sizeof(*eth) > data_end || eth->h_proto != bpf_htons(ETH_P_ARP))
		return XDP_PASS;
	ifc = bpf_map_lookup_elem(&kp_ifaces, &ifindex);
	cnt = ifc != NULL ? ifindex : 0;
	if ((why = xdp_validate(data, data_end, ifindex, &rq)) != 0 ||
	    (why = arp_decide(ctx, ifindex, ifc, &rq)) != 0)
		return xpass(cnt, why);
	if (ifc == NULL || (cf = bpf_map_lookup_elem(&kp_conf, &zero)) == NULL)
		return xpass(cnt, KP_C_PASS_STALE);	/* arp_decide saw both */
	if ((why = arp_limit(cf, &rq)) != 0) {
		count(cnt, why);
		return XDP_DROP;
	}
	if (xdp_reply(ctx, &rq) != 0)
		return xpass(cnt, KP_C_PASS_TRIM);
	count(cnt, KP_C_ANSWERED);
	arp_events(ifc, cf, cnt, ifindex, &rq);
	return XDP_TX;
}
