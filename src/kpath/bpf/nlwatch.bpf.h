/* nlwatch.bpf.h — arpownd_nlwatch, the netlink watcher of answer.bpf.c
 * (included there, at its end: one object, one set of maps).  A socket
 * filter on the loader's rtnetlink socket: it keeps kp_links and
 * kp_alive, the kernel's truth, in step synchronously, and marks new
 * addresses as the host's in kp_locals (answer.bpf.c's header says why). */
#ifndef ARPOWND_NLWATCH_BPF_H
#define ARPOWND_NLWATCH_BPF_H

/* Walk netlink attributes with bpf_loop (5.17): the verifier checks the
 * step once, not once per attribute.  Finds want's payload (want_len
 * bytes, copied to val); found says how it went. */
struct attr_walk {
	struct __sk_buff	*skb;
	__u32			 a, end;
	__u16			 want, want_len;
	int			 found;		/* 0 not yet, 1 found, -1 there but malformed */
	__u8			 val[8];
};

static long
attr_step(__u32 i, void *arg)
{
	struct attr_walk *w = arg;
	struct nlattr na;
	__u32 n;

	(void)i;
	if (w->a + sizeof(na) > w->end || bpf_skb_load_bytes(w->skb, w->a, &na, sizeof(na)) != 0 ||
	    na.nla_len < sizeof(na))
		return 1;
	if ((na.nla_type & NLA_TYPE_MASK) == w->want) {
		n = w->want_len;
		w->found = -1;
		if (na.nla_len != sizeof(na) + n || w->a + sizeof(na) + n > w->end)
			return 1;
		if (n == 4 && bpf_skb_load_bytes(w->skb, w->a + sizeof(na), w->val, 4) == 0)
			w->found = 1;
		else if (n == 6 && bpf_skb_load_bytes(w->skb, w->a + sizeof(na), w->val, 6) == 0)
			w->found = 1;
		return 1;
	}
	w->a += NLA_ALIGN(na.nla_len);
	return 0;
}

/* The payload of attribute want (exactly len bytes) in [a, end) into val; 1 found. */
static __always_inline int
find_attr(struct __sk_buff *skb, __u32 a, __u32 end, __u16 want, __u16 len, void *val)
{
	struct attr_walk w = { .skb = skb, .a = a, .end = end, .want = want, .want_len = len };

	bpf_loop(128, attr_step, &w, 0);
	if (w.found != 1)
		return 0;
	__builtin_memcpy(val, w.val, 8);
	return 1;
}

/* A new instance id.  The watcher runs for one notification at a time
 * (the kernel sends link and address notifications under RTNL, and the
 * socket asks for no dumps), so the add and the read that follows see no
 * other watcher in between; the add is atomic anyway. */
static __always_inline __u64
new_id(struct kp_watch *st)
{
	__sync_fetch_and_add(&st->next_id, 1);
	return st->next_id;
}

static __always_inline void
revoke(struct kp_watch *st)
{
	__sync_fetch_and_add(&st->revokes, 1);
}

/* Something revoking that could not be read: every grant stops until a
 * full resync (kp_resync) covers it. */
static __always_inline void
unparsed(struct kp_watch *st)
{
	revoke(st);
	__sync_fetch_and_add(&st->bad_gen, 1);
}

static __always_inline void
on_addr(struct __sk_buff *skb, struct kp_watch *st, __u32 off, const struct nlmsghdr *h)
{
	struct kp_ifa_key key = {};
	struct ifaddrmsg ifa;
	__u32 a, end, local = 0, address = 0;
	__u8 buf[8];
	int have_l, have_a, del = h->nlmsg_type == RTM_DELADDR;

	if (bpf_skb_load_bytes(skb, off + NLMSG_HDRLEN, &ifa, sizeof(ifa)) != 0) {
		if (del)
			unparsed(st);
		return;
	}
	if (ifa.ifa_family != AF_INET_)
		return;
	a = off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifa));
	end = off + h->nlmsg_len;
	have_l = find_attr(skb, a, end, IFA_LOCAL, 4, buf);
	__builtin_memcpy(&local, buf, 4);
	have_a = find_attr(skb, a, end, IFA_ADDRESS, 4, buf);
	__builtin_memcpy(&address, buf, 4);
	/* rtnl.c's reading: the local end, and the subnet's (or peer's) address */
	if (!rule_ifa_ends(have_l, have_a, &local, &address) || ifa.ifa_prefixlen > 32) {
		if (del)
			unparsed(st);
		return;
	}
	key.ifindex = ifa.ifa_index;
	key.local = local;
	key.net = address & rule_mask_n(ifa.ifa_prefixlen);
	key.plen = ifa.ifa_prefixlen;
	if (del) {
		revoke(st);	/* counted before it acts: see kp_resync */
		bpf_map_delete_elem(&kp_alive, &key);
	} else {
		struct kp_answer m = { .flags = KP_ANS_LOCAL };
		__u64 id = new_id(st);

		/* full: never confirms (passed up); counted for the daemon,
		 * which reads the mirror again once there is room */
		if (bpf_map_update_elem(&kp_alive, &key, &id, BPF_NOEXIST) != 0 &&
		    bpf_map_lookup_elem(&kp_alive, &key) == NULL)
			__sync_fetch_and_add(&st->alive_full, 1);
		/* "one of ours" from now on, before the daemon hears of it; when
		 * that does not fit, a sender using it would be answered: stop */
		if (bpf_map_update_elem(&kp_locals, &local, &m, BPF_NOEXIST) != 0 &&
		    bpf_map_lookup_elem(&kp_locals, &local) == NULL)
			unparsed(st);
	}
}

static __always_inline void
on_link(struct __sk_buff *skb, struct kp_watch *st, __u32 off, const struct nlmsghdr *h)
{
	struct ifinfomsg ifi;
	struct kp_link nl = {}, *cur;
	__u32 a, end, idx;
	__u8 buf[8];
	int found;

	if (bpf_skb_load_bytes(skb, off + NLMSG_HDRLEN, &ifi, sizeof(ifi)) != 0) {
		unparsed(st);
		return;
	}
	idx = ifi.ifi_index;
	/* down, gone, or NOARP (ip link set arp off: the kernel answers
	 * nothing there, and the daemon unmanages it): no instance */
	if (h->nlmsg_type == RTM_DELLINK || !(ifi.ifi_flags & IFF_UP_) ||
	    (ifi.ifi_flags & IFF_NOARP_)) {
		revoke(st);
		bpf_map_delete_elem(&kp_links, &idx);
		return;
	}
	a = off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifi));
	end = off + h->nlmsg_len;
	found = find_attr(skb, a, end, IFLA_ADDRESS, 6, buf);
	__builtin_memcpy(nl.mac, buf, 6);
	/* made a port of a bridge or bond: its frames are the master's now
	 * (the daemon unmanages it); a new instance until it has seen that */
	if (find_attr(skb, a, end, IFLA_MASTER, 4, buf))
		__builtin_memcpy(&nl.master, buf, 4);
	cur = bpf_map_lookup_elem(&kp_links, &idx);
	if (!found) {
		/* no Ethernet address to answer with: not answered there */
		revoke(st);
		bpf_map_delete_elem(&kp_links, &idx);
		return;
	}
	if (cur != NULL) {
		if (mac_eq(cur->mac, nl.mac) && cur->master == nl.master)
			return;		/* the same instance: up, same MAC, same master */
		revoke(st);
	}
	nl.id = new_id(st);
	bpf_map_update_elem(&kp_links, &idx, &nl, BPF_ANY);
}

SEC("socket")
int
arpownd_nlwatch(struct __sk_buff *skb)
{
	struct kp_watch *st;
	struct nlmsghdr h;
	__u32 len = skb->len, zero = 0;

	st = bpf_map_lookup_elem(&kp_watch, &zero);
	if (st == NULL)
		return 0;
	/* a notification is one message: anything else is not understood */
	if (bpf_skb_load_bytes(skb, 0, &h, sizeof(h)) != 0 || h.nlmsg_len < sizeof(h) ||
	    NLMSG_ALIGN(h.nlmsg_len) < len) {
		unparsed(st);
		return 0;
	}
	switch (h.nlmsg_type) {
	case RTM_NEWADDR:
	case RTM_DELADDR:
		on_addr(skb, st, 0, &h);
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		on_link(skb, st, 0, &h);
		break;
	default:
		break;
	}
	return 0;	/* nothing is queued on the socket */
}

#endif
