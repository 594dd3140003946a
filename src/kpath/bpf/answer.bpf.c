/* answer.bpf.c — arpownd's in-kernel answer path.
 *
 * Two programs over one set of maps (include/kpath_abi.h):
 *
 * arpownd_answer (TC ingress, clsact, direct action, the last preference)
 * answers the ARP requests it is sure of, by the capture path's rules
 * (arp_check, then pol_decide), and gives no verdict on anything:
 * TC_ACT_UNSPEC for every frame, so the next filter, the stack, upper
 * devices (a macvlan) and packet sockets see the frame as if it were not
 * there.  A reply is the request rewritten into the kernel's reply,
 * trimmed to 42 bytes, and sent as a clone out of the arrival device's
 * egress (bpf_clone_redirect: the qdisc and tcpdump see it as they see
 * the kernel's); the request is then put back as it came and goes on
 * marked PACKET_OTHERHOST (and KP_DECIDED_HASH), which the stack's
 * arp_rcv and arpownd's capture socket (its filter) both drop, so that
 * nobody answers it twice,
 * while a macvlan above still gets its broadcast (macvlan and ipvlan set
 * the type afresh from the destination).  Requests sender_rate or
 * total_rate refuse go on marked the same way: passed up, the capture
 * path would answer them from its own budget.
 *
 * arpownd_nlwatch (socket filter on the loader's rtnetlink socket,
 * subscribed to link and IPv4 address notifications) keeps kp_links and
 * kp_alive: the kernel's truth about which links are up, doing ARP, with
 * which MAC, and which address entries exist, each an instance with an
 * id.  A socket filter runs while the notification is delivered, before
 * the kernel acknowledges the change to whoever asked for it; so a
 * deleted address entry is gone from kp_alive before any request sent
 * after the acknowledgement can arrive, and the grants made for it no
 * longer confirm.  It returns 0: nothing is ever queued on that socket.
 *
 * Only what Linux 6.1 has: ring buffer (5.8), bpf_loop (5.17), bpf_spin_lock
 * in TC (5.1), bpf_sk_lookup_udp (4.20); no kfuncs, no BTF of the kernel.
 * It loads with CAP_BPF + CAP_NET_ADMIN, without CAP_PERFMON: the verifier
 * then refuses pointer arithmetic it cannot bound and smaller stores into
 * stack slots that held a pointer.  Hence -mcpu=v2 (no 32-bit
 * subregisters: every spill is 8 bytes), no pointer kept in a stack
 * struct (ref_walk holds a key), counters found by key (no variable
 * offset into a map value), daemon_alive and reply in frames of their
 * own, buffers zeroed before a helper fills them by a variable length.
 * No pointer subtraction either (pointer - pointer needs CAP_PERFMON):
 * the XDP program asks bpf_xdp_get_buff_len for its frame's length.
 * tests/integration/kpath/kpath_priv.sh loads it so.
 * No GPL-only helper is called (the object carries no license section).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "kpath_abi.h"
#include "rules.h"
#include "siphash.h"

#define AF_INET_		2
#define IFF_UP_			0x1
#define IFF_NOARP_		0x80
#define PACKET_HOST_		0
#define PACKET_BROADCAST_	1
#define PACKET_MULTICAST_	2
#define PACKET_OTHERHOST_	3
#define ARPHRD_ETHER_		1
#define ARPHRD_IEEE802_		6
#define ARPOP_REQUEST_		1
#define ARPOP_REPLY_		2
#define ARP_FRAME		42	/* Ethernet + RFC 826 body for Ethernet/IPv4 */
#define ARP_TAIL_MAX		64	/* padding or trailer kept across a reply */
#define NSEC			1000000000ull

/* ------------------------------------------------------------------ maps */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_MAX_IFACES);
	__type(key, __u32);
	__type(value, struct kp_iface);
} kp_ifaces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KP_MAX_IFACES);
	__type(key, __u32);
	__type(value, struct kp_link);
} kp_links SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KP_MAX_ALIVE);
	__type(key, struct kp_ifa_key);
	__type(value, __u64);
} kp_alive SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KP_MAX_ANSWERS);
	__type(key, struct kp_ans_key);
	__type(value, struct kp_answer);
} kp_answers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KP_MAX_LOCALS);
	__type(key, __u32);
	__type(value, struct kp_answer);
} kp_locals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KP_MAX_PUB);
	__type(key, struct kp_lpm_key);
	__type(value, struct kp_pub);
} kp_pub SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KP_MAX_SENDERS);
	__type(key, struct kp_lpm_key);
	__type(value, __u8);
} kp_senders SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_watch);
} kp_watch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_conf);
} kp_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_NBUCKETS);
	__type(key, __u32);
	__type(value, struct kp_bucket);
} kp_buckets SEC(".maps");

/* preallocated: a per-CPU element allocated at each insert (an attach
 * makes KP_NCOUNTERS of them) cost a seventh of a start at 1,000
 * interfaces; preallocated, an insert takes one off a free list */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, (KP_MAX_IFACES + 1) * KP_NCOUNTERS);
	__type(key, struct kp_cnt_key);
	__type(value, __u64);
} kp_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, KP_RING_BYTES);
} kp_events SEC(".maps");

/* ----------------------------------------------------------- answer path */

/* An RFC 826 body for Ethernet/IPv4, as on the wire. */
struct arp_eth {
	__be16	hrd, pro;
	__u8	hln, pln;
	__be16	op;
	__u8	sha[6];
	__u8	sip[4];
	__u8	tha[6];
	__u8	tip[4];
} __attribute__((packed));

/* The kernel's reply (arp_send_dst: 42 bytes, the driver pads) to a
 * requester sha at sip, for tip at mac, written by field name into f:
 * the one writer of it, for the TC program's buffer and the XDP
 * program's frame alike. */
static __always_inline void
arp_fill_reply(struct ethhdr *eth, const __u8 *sha, const __u8 *mac, __u32 sip, __u32 tip)
{
	struct arp_eth *arp = (struct arp_eth *)(eth + 1);

	__builtin_memcpy(eth->h_dest, sha, 6);		/* to the requester */
	__builtin_memcpy(eth->h_source, mac, 6);
	eth->h_proto = bpf_htons(ETH_P_ARP);
	arp->hrd = bpf_htons(ARPHRD_ETHER_);		/* 1, as the kernel, whatever came */
	arp->pro = bpf_htons(ETH_P_IP);
	arp->hln = 6;
	arp->pln = 4;
	arp->op = bpf_htons(ARPOP_REPLY_);
	__builtin_memcpy(arp->sha, mac, 6);		/* ours */
	__builtin_memcpy(arp->sip, &tip, 4);		/* the target */
	__builtin_memcpy(arp->tha, sha, 6);		/* the requester */
	__builtin_memcpy(arp->tip, &sip, 4);		/* its address */
}

/* One counter, found by its key: never a variable offset into a map
 * value, which a program loaded without CAP_PERFMON may not take when
 * the compiler merges the increments of several call sites. */
static __always_inline void
count(__u32 ifindex, __u32 what)
{
	struct kp_cnt_key k = { .ifindex = ifindex, .what = what };
	__u64 *v = bpf_map_lookup_elem(&kp_counters, &k);

	if (v != NULL)
		*v += 1;
}

/* Not ours to answer: on to the next filter, or the stack (TC_ACT_UNSPEC
 * is no verdict; TC_ACT_OK would end the filter chain here). */
static __always_inline int
pass(__u32 ifindex, __u32 why)
{
	count(ifindex, why);
	return TC_ACT_UNSPEC;
}

/* Decided here (answered or refused by a limit): on, but as a frame for
 * another host, which arp_rcv drops, with a hash that tells arpownd's
 * capture it was decided (KP_DECIDED_HASH). */
static __always_inline int
decided(struct __sk_buff *skb)
{
	bpf_set_hash(skb, KP_DECIDED_HASH);
	bpf_skb_change_type(skb, PACKET_OTHERHOST_);
	return TC_ACT_UNSPEC;
}

static __always_inline int
mac_eq(const __u8 *a, const __u8 *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] &&
	    a[4] == b[4] && a[5] == b[5];
}

/* limit.c's token bucket: rate a second, burst a tenth of a second's
 * (at least 10), starts full; shared by every CPU under its lock. */
static __always_inline int
take(__u32 slot, __u64 rate, __u64 now)
{
	struct kp_bucket *b = bpf_map_lookup_elem(&kp_buckets, &slot);
	__u64 burst = rate / 10, el;
	int ok;

	if (b == NULL)
		return 0;
	/* an empty bucket refuses without its lock, which every CPU shares:
	 * under a flood beyond the rate (and for learning, at 200/s beside
	 * 400k answers/s) most requests stop here.  The read is racy; at
	 * worst a token is taken one request late. */
	el = now - b->last_ns;
	if (b->last_ns != 0 && now > b->last_ns && el < NSEC && b->tokens < NSEC &&
	    b->tokens + el * rate < NSEC)
		return 0;
	if (burst < 10)
		burst = 10;
	burst *= NSEC;
	bpf_spin_lock(&b->lock);
	if (b->last_ns == 0)
		b->tokens = burst;
	else if (now > b->last_ns) {
		el = now - b->last_ns;
		if (el > 10 * NSEC)
			el = 10 * NSEC;		/* keeps el * rate in 64 bits */
		b->tokens += el * rate;
	}
	if (b->tokens > burst)
		b->tokens = burst;
	b->last_ns = now;
	ok = b->tokens >= NSEC;
	if (ok)
		b->tokens -= NSEC;
	bpf_spin_unlock(&b->lock);
	return ok;
}

/* Is the address entry r was granted for still the kernel's, and (system
 * mode) its holder's link still the same instance? */
static __always_inline int
ref_alive(const struct kp_ref *r)
{
	struct kp_link *l;
	__u64 *id;
	__u32 k;

	if (r->id == 0)
		return 0;
	id = bpf_map_lookup_elem(&kp_alive, &r->ifa);
	if (id == NULL || *id != r->id)
		return 0;
	if (r->link_id != 0) {
		k = r->ifa.ifindex;
		l = bpf_map_lookup_elem(&kp_links, &k);
		if (l == NULL || l->id != r->link_id)
			return 0;
	}
	return 1;
}

/* What a grant's refs say, gathered by ref_step through bpf_loop (5.17):
 * the verifier checks one step, not KP_NREF copies of it.  The walk holds
 * the grant's key, not a pointer to it (looked up again each step): a
 * stack slot that held a pointer may not take a smaller store later, in a
 * program loaded without CAP_PERFMON, and the compiler shares slots. */
struct ref_walk {
	struct kp_ans_key	key;	/* ifindex 0: kp_locals (system mode's holders) */
	__u32			sip;
	__u32			need_sender;
	__u32			own, cover_any, cover, pad;
};

static long
ref_step(__u32 i, void *arg)
{
	struct ref_walk *w = arg;
	const struct kp_answer *a;
	const struct kp_ref *r;
	__u32 kind, in_net;

	a = w->key.ifindex == 0 ? bpf_map_lookup_elem(&kp_locals, &w->key.addr) :
	    bpf_map_lookup_elem(&kp_answers, &w->key);
	if (a == NULL || i >= KP_NREF || i >= a->nref)
		return 1;
	/* masked as well, behind a barrier the compiler cannot see through:
	 * the bound must reach the verifier in the very register the index
	 * is added with (without CAP_PERFMON, unbounded is refused) */
	asm volatile("" : "+r"(i));
	r = &a->ref[i & (KP_NREF - 1)];
	if (!ref_alive(r))
		return 0;
	kind = r->kind;
	in_net = rule_in_prefix_n(w->sip, r->ifa.net, r->ifa.plen);
	w->own |= kind & KP_REF_OWN;
	if (kind & KP_REF_COVER) {
		w->cover_any = 1;
		if (!w->need_sender || in_net)
			w->cover = 1;
	}
	return 0;
}

/* The daemon's liveness socket still open (and its watcher with it)?
 * A function of its own: its stack frame shares no slot with the
 * caller's (a slot that held a pointer may not take a 4-byte store
 * without CAP_PERFMON). */
static __attribute__((noinline)) int
daemon_alive(void *ctx, __u32 addr, __u32 port, __u32 mark)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;
	int ok;

	t.ipv4.saddr = addr;		/* any: the socket is not connected */
	t.ipv4.sport = (__u16)port;
	t.ipv4.daddr = addr;
	t.ipv4.dport = (__u16)port;
	/* ctx: an skb (TC) or an xdp_md (XDP): the helper takes either, in
	 * the arrival device's namespace */
	sk = bpf_sk_lookup_udp(ctx, &t, sizeof(t.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (sk == NULL)
		return 0;
	/* the daemon's own socket, not one a local user bound there after
	 * it died: the mark takes CAP_NET_ADMIN to set */
	ok = sk->src_ip4 == addr && sk->src_port == bpf_ntohs((__u16)port) && sk->mark == mark;
	bpf_sk_release(sk);
	return ok;
}

/* Send the kernel's reply (arp_send_dst: 42 bytes, the driver pads) to
 * the request in skb as a clone out of ifindex's egress, then put the
 * request back byte for byte, for whoever comes after: 0 sent, 1 not sent
 * (the request as it came), -1 the request could not be put back.  A
 * frame of its own: its buffers share no stack slot with a pointer of the
 * caller's.  mac and sha are 6 bytes each in the low bytes of a u64. */
static __attribute__((noinline)) int
reply(struct __sk_buff *skb, __u32 ifindex, __u64 ips, __u64 mac64, __u64 sha64)
{
	__u8 orig[ARP_FRAME], rep[ARP_FRAME] __attribute__((aligned(8))), tail[ARP_TAIL_MAX];
	__u32 len = skb->len, n, sip = (__u32)(ips >> 32), tip = (__u32)ips;
	int sent;

	if (len < ARP_FRAME || len > ARP_FRAME + ARP_TAIL_MAX)
		return 1;
	n = len - ARP_FRAME;
	/* zeroed: a helper filling a variable length must find it written */
	__builtin_memset(tail, 0, sizeof(tail));
	/* ((n - 1) & 63) + 1 is n for 1 <= n <= 64, and bounds it there in
	 * the very register the helper gets: the verifier wants it non-zero */
	if (bpf_skb_load_bytes(skb, 0, orig, ARP_FRAME) != 0 ||
	    (n > 0 && bpf_skb_load_bytes(skb, ARP_FRAME, tail, ((n - 1) & (ARP_TAIL_MAX - 1)) + 1) != 0))
		return 1;
	arp_fill_reply((struct ethhdr *)rep, (const __u8 *)&sha64, (const __u8 *)&mac64, sip, tip);
	if (n > 0 && bpf_skb_change_tail(skb, ARP_FRAME, 0) != 0)
		return skb->len == len ? 1 : -1;
	sent = bpf_skb_store_bytes(skb, 0, rep, ARP_FRAME, 0) == 0 &&
	    bpf_clone_redirect(skb, ifindex, 0) == 0;
	/* the request again, as it came */
	if (n > 0 && (bpf_skb_change_tail(skb, len, 0) != 0 ||
	    bpf_skb_store_bytes(skb, ARP_FRAME, tail, ((n - 1) & (ARP_TAIL_MAX - 1)) + 1, 0) != 0))
		return -1;
	if (bpf_skb_store_bytes(skb, 0, orig, ARP_FRAME, 0) != 0)
		return -1;
	return sent ? 0 : 1;
}

static __always_inline void
event(__u32 c, __u32 type, __u32 ifindex, __u32 sip, __u32 tip,
    const __u8 *sha, __u8 flags)
{
	struct kp_event *e = bpf_ringbuf_reserve(&kp_events, sizeof(*e), 0);

	if (e == NULL) {
		count(c, KP_C_RING_DROPS);
		return;
	}
	e->type = type;
	e->ifindex = ifindex;
	e->sip = sip;
	e->tip = tip;
	__builtin_memcpy(e->sha, sha, 6);
	e->flags = flags;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
	count(c, KP_C_EVENTS);
}

/* A request as validated: plain numbers only (no pointer into the frame
 * or a map, which the verifier would have to track through the stack). */
struct arp_req {
	__u32	sip, tip;	/* network order, as in the frame */
	__u32	hs;		/* sip in host order */
	__u8	sha[6];		/* the requester's MAC */
	__u8	mac[6];		/* ours to answer with (arp_target fills it) */
	__u8	evflags;	/* KP_EVF_* for a learning event */
	__u8	pad[3];
};

/* arp_check's frame rules, on the 42 bytes at data (made linear, from
 * either context): 0 and *rq filled, or the KP_C_PASS_* counter that
 * says why not.  Shared by the TC and the XDP program, so that what is
 * refused before any map is read stays the capture path's list, in its
 * order, on both. */
static __always_inline __u32
arp_parse(void *data, void *data_end, struct arp_req *rq)
{
	struct ethhdr *eth = data;
	struct arp_eth *arp = data + sizeof(*eth);
	__u16 hrd, op;
	__u32 ht;

	if (data + ARP_FRAME > data_end)
		return KP_C_PASS_TRIM;
	if (eth->h_proto != bpf_htons(ETH_P_ARP))
		return KP_C_PASS_INVALID;
	hrd = bpf_ntohs(arp->hrd);
	op = bpf_ntohs(arp->op);
	if ((hrd != ARPHRD_ETHER_ && hrd != ARPHRD_IEEE802_) || arp->pro != bpf_htons(ETH_P_IP) ||
	    arp->hln != 6 || arp->pln != 4 || (op != ARPOP_REQUEST_ && op != ARPOP_REPLY_))
		return KP_C_PASS_INVALID;
	__builtin_memcpy(rq->sha, arp->sha, 6);
	__builtin_memcpy(&rq->sip, arp->sip, 4);
	__builtin_memcpy(&rq->tip, arp->tip, 4);
	if ((rq->sha[0] | rq->sha[1] | rq->sha[2] | rq->sha[3] | rq->sha[4] | rq->sha[5]) == 0 ||
	    (rq->sha[0] & 1))
		return KP_C_PASS_INVALID;
	if (!mac_eq(rq->sha, eth->h_source))
		return KP_C_PASS_INVALID;
	rq->hs = bpf_ntohl(rq->sip);
	ht = bpf_ntohl(rq->tip);
	if (rq->sip != 0 && rule_martian(rq->hs))
		return KP_C_PASS_INVALID;
	if (op != ARPOP_REQUEST_)
		return KP_C_PASS_REPLY;
	if (rule_martian(ht))
		return KP_C_PASS_INVALID;
	if (rq->sip == rq->tip)
		return KP_C_PASS_GRATUITOUS;
	return 0;
}

/* arp_check, as the capture path does it, on an skb: the VLAN the
 * device took off, the packet type, the 42 bytes made linear, then the
 * frame (arp_parse); 0, or the KP_C_PASS_* counter that says why not. */
static __always_inline __u32
arp_validate(struct __sk_buff *skb, struct arp_req *rq)
{
	void *data, *data_end;

	if (skb->vlan_present)
		return KP_C_PASS_VLAN;		/* for a VLAN device above */
	if (skb->pkt_type != PACKET_HOST_ && skb->pkt_type != PACKET_BROADCAST_ &&
	    skb->pkt_type != PACKET_MULTICAST_)
		return KP_C_PASS_INVALID;
	if (skb->len < ARP_FRAME)
		return KP_C_PASS_INVALID;
	/* the 42 bytes linear: a pull moves the data, so the bounds are
	 * read again after it */
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (data + ARP_FRAME > data_end) {
		if (bpf_skb_pull_data(skb, ARP_FRAME) != 0)
			return KP_C_PASS_TRIM;
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
	}
	return arp_parse(data, data_end, rq);
}

/* pol_decide's sender half: a conflict, allow/deny_senders, probes; 0 or
 * why not (KP_C_PASS_*).  Sets rq->evflags when the sender may be learnt.
 * Apart from the target so that each half reads the maps it needs. */
static __always_inline __u32
arp_sender(const struct kp_iface *ifc, __u32 ifindex, struct arp_req *rq)
{
	if (rq->sip == 0)
		return (ifc->flags & KP_IF_PROBES) ? 0 : KP_C_PASS_PROBE;
	if (bpf_map_lookup_elem(&kp_locals, &rq->sip) != NULL)
		return KP_C_PASS_OURS;		/* conflict, or our own */
	if (ifc->flags & KP_IF_SENDERS) {
		struct kp_lpm_key lk = { .prefixlen = 64, .addr = rq->sip };
		__u8 *bits, b;

		lk.ifindex = bpf_htonl(ifindex);
		bits = bpf_map_lookup_elem(&kp_senders, &lk);
		b = bits != NULL ? *bits : 0;
		if (b & KP_SND_OURS)
			return KP_C_PASS_OURS;
		if ((b & KP_SND_DENY) || ((ifc->flags & KP_IF_ALLOWLIST) && !(b & KP_SND_ALLOW)))
			return KP_C_PASS_SENDER;
		/* learnable as the capture path learns: the sender in a
		 * subnet of the arrival interface (tbl_in_subnet) */
		if (b & KP_SND_SUBNET)
			rq->evflags = KP_EVF_IN_SUBNET;
	}
	return 0;
}

/* pol_decide's target half, confirmed against the kernel's entries: a
 * grant whose address entries (and, system mode, holders' links) are
 * still the kernel's, or a published range no interface holds; 0 or why
 * not (KP_C_PASS_*).  Fills rq->mac: the link's MAC as the kernel has it
 * now (the instance the daemon's settings were written for), or the
 * published one. */
static __always_inline __u32
arp_target(const struct kp_iface *ifc, const struct kp_link *lnk, __u32 ifindex,
    struct arp_req *rq)
{
	struct kp_ans_key ak = {};
	struct kp_answer *ans;
	int need_sender;

	__builtin_memcpy(rq->mac, lnk->mac, 6);
	need_sender = ifc->mode == KP_MODE_SUBNET && rq->sip != 0;
	ak.ifindex = ifc->mode == KP_MODE_SYSTEM ? 0 : ifindex;
	ak.addr = rq->tip;
	ans = ak.ifindex == 0 ? bpf_map_lookup_elem(&kp_locals, &rq->tip) :
	    bpf_map_lookup_elem(&kp_answers, &ak);
	if (ans != NULL && ans->nref > 0) {
		struct ref_walk w = { .key = ak, .sip = rq->sip, .need_sender = need_sender };

		bpf_loop(KP_NREF, ref_step, &w, 0);
		if (ifc->mode == KP_MODE_SYSTEM)
			w.cover = w.cover_any = 1;	/* no subnet test in system mode */
		if (!w.own || !w.cover_any)
			return KP_C_PASS_UNCONFIRMED;
		if (!w.cover)
			return KP_C_PASS_NOT_SUBNET;
	} else {
		/* published on this interface: no entry to confirm, but no
		 * interface may hold it meanwhile */
		struct kp_lpm_key lk = { .prefixlen = 64, .addr = rq->tip };
		struct kp_pub *pv;

		if (bpf_map_lookup_elem(&kp_locals, &rq->tip) != NULL)
			return KP_C_PASS_NO_ENTRY;
		lk.ifindex = bpf_htonl(ifindex);
		if ((pv = bpf_map_lookup_elem(&kp_pub, &lk)) == NULL)
			return KP_C_PASS_NO_ENTRY;
		if (need_sender)
			return KP_C_PASS_NOT_SUBNET;	/* the daemon's subnets */
		/* its own MAC, or the link's as the kernel has it now: never
		 * one written before a MAC change */
		if (pv->flags & KP_PUB_MAC)
			__builtin_memcpy(rq->mac, pv->mac, 6);
	}
	return 0;
}

/* sender_rate, then total_rate, as the capture path: 0 admitted, or the
 * KP_C_LIMITED_* counter of the bucket that refused.  A sender is its
 * address and its MAC, as on the capture path: one host sending probes
 * (from 0.0.0.0), or using another's address, is held to the limit
 * without spending another's; its slot is keyed (limit.c's), so no
 * sender can aim at another's. */
static __always_inline __u32
arp_limit(const struct kp_conf *cf, const struct arp_req *rq)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 k;

	if (cf->sender_rate != 0) {
		struct sip_key sk = { cf->slot_k0, cf->slot_k1 };

		k = (__u32)sip_hash_sender(&sk, rq->hs, rq->sha) & (KP_SENDER_SLOTS - 1);
		if (!take(k, cf->sender_rate, now))
			return KP_C_LIMITED_SENDER;
	}
	if (cf->total_rate != 0 && !take(KP_BUCKET_TOTAL, cf->total_rate, now))
		return KP_C_LIMITED_TOTAL;
	return 0;
}

/* The reply, sent by reply() from the request in place (a clone out of
 * the arrival device; the request put back): its arguments as plain
 * numbers, which is what keeps reply()'s frame apart from ours. */
static __always_inline int
arp_reply(struct __sk_buff *skb, __u32 ifindex, const struct arp_req *rq)
{
	__u64 mac64 = 0, sha64 = 0;

	__builtin_memcpy(&mac64, rq->mac, 6);
	__builtin_memcpy(&sha64, rq->sha, 6);
	return reply(skb, ifindex, (__u64)rq->sip << 32 | rq->tip, mac64, sha64);
}

/* After an answer: the events the daemon asked for (learning, within
 * learn_rate; probes). */
static __always_inline void
arp_events(const struct kp_iface *ifc, const struct kp_conf *cf, __u32 cnt, __u32 ifindex,
    const struct arp_req *rq)
{
	__u64 now = bpf_ktime_get_ns();

	if (rq->evflags && (ifc->flags & KP_IF_LEARN) && cf->learn_rate != 0 &&
	    take(KP_BUCKET_LEARN, cf->learn_rate, now))
		event(cnt, KP_EV_LEARN, ifindex, rq->sip, rq->tip, rq->sha, rq->evflags);
	if (rq->sip == 0 && (ifc->flags & KP_IF_PROBE_EVENTS))
		event(cnt, KP_EV_PROBE, ifindex, rq->sip, rq->tip, rq->sha, 0);
}

/* The interface, and is what we know of it current; then pol_decide
 * (sender, target), the routing checks and the daemon's liveness: 0 to
 * answer (rq->mac filled), or the KP_C_PASS_* counter that says why
 * not.  Shared by the TC and the XDP program: one decision, one set of
 * maps.  ctx is the program's own (daemon_alive's socket lookup). */
static __always_inline __u32
arp_decide(void *ctx, __u32 ifindex, const struct kp_iface *ifc, struct arp_req *rq)
{
	__u32 zero = 0, why;
	struct kp_link *lnk;
	struct kp_watch *wt;
	struct kp_conf *cf;

	if (ifc == NULL || ifc->mode < KP_MODE_OWNER || ifc->mode > KP_MODE_SYSTEM)
		return KP_C_PASS_MODE;
	lnk = bpf_map_lookup_elem(&kp_links, &ifindex);
	wt = bpf_map_lookup_elem(&kp_watch, &zero);
	cf = bpf_map_lookup_elem(&kp_conf, &zero);
	if (lnk == NULL || lnk->id != ifc->link_id || wt == NULL || cf == NULL ||
	    wt->bad_gen != cf->ok_gen || (cf->flags & KP_CF_FULL))
		return KP_C_PASS_STALE;
	if ((why = arp_sender(ifc, ifindex, rq)) != 0 ||
	    (why = arp_target(ifc, lnk, ifindex, rq)) != 0)
		return why;
	/* rp_filter, arp_filter: the kernel's routing decides (the capture
	 * path asks it); bpf_fib_lookup is GPL-only, and this object
	 * declares no license */
	if (rq->sip != 0 && (ifc->flags & KP_IF_RPCHECK))
		return KP_C_PASS_RPF;
	/* the daemon still there (its watcher with it) */
	if ((cf->flags & KP_CF_LIVENESS) &&
	    !daemon_alive(ctx, cf->live_addr, cf->live_port, cf->live_mark))
		return KP_C_PASS_STALE;
	return 0;
}

/* validate, decide (interface current, sender, target, routing, daemon
 * alive), limit, reply in place: each step passes the frame on, counted
 * under its reason, or hands over to the next.
 * tests/tools/progtest.c runs frames through it with BPF_PROG_TEST_RUN. */
SEC("tc")
int
arpownd_answer(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, zero = 0, cnt, why;
	struct kp_iface *ifc;
	struct kp_conf *cf;
	struct arp_req rq = {};
	int r;

	if (skb->protocol != bpf_htons(ETH_P_ARP))
		return TC_ACT_UNSPEC;
	/* counted under this interface once configured, else under 0; the
	 * frames received are the sum of the outcomes (kp_counters) */
	ifc = bpf_map_lookup_elem(&kp_ifaces, &ifindex);
	cnt = ifc != NULL ? ifindex : 0;
	if ((why = arp_validate(skb, &rq)) != 0 ||
	    (why = arp_decide(skb, ifindex, ifc, &rq)) != 0)
		return pass(cnt, why);
	if (ifc == NULL || (cf = bpf_map_lookup_elem(&kp_conf, &zero)) == NULL)
		return pass(cnt, KP_C_PASS_STALE);	/* arp_decide saw both */

	/* what a limit refuses goes on marked as decided, so that the
	 * capture path does not answer it from a budget of its own */
	if ((why = arp_limit(cf, &rq)) != 0) {
		count(cnt, why);
		return decided(skb);
	}

	/* the reply, a clone; the request goes on */
	r = arp_reply(skb, ifindex, &rq);
	if (r < 0) {
		/* half-rewritten: not a frame to pass on */
		count(cnt, KP_C_PASS_TRIM);
		return TC_ACT_SHOT;
	}
	if (r > 0)
		return pass(cnt, KP_C_PASS_TRIM);
	count(cnt, KP_C_ANSWERED);
	arp_events(ifc, cf, cnt, ifindex, &rq);
	return decided(skb);
}

/* ---------------------------------------------------------- XDP answer */

/* arpownd_xdp: the same steps before the stack builds an skb (a file of
 * its own for its job: the frame view and the reply of an xdp_md) */
#include "xdp.bpf.h"

/* ------------------------------------------------------------- watcher */

/* arpownd_nlwatch, on the same maps: a file of its own for its length */
#include "nlwatch.bpf.h"
