/* rpf.c — the kernel's reverse-path checks of an ARP request's sender.
 *
 * The kernel answers a request (with a sender) for one of its addresses
 * only after ip_route_input_noref(skb, tip, sip, 0, dev) accepted it
 * (arp_process): fib_validate_source() there applies rp_filter, the max
 * of net.ipv4.conf.all and the device's: strict (1) wants the route back
 * to the sender through the arrival device, loose (2) any unicast route
 * back.  Then arp_filter (all or the device's) routes to the sender
 * (ip_route_output(sip, tip)) and stays silent unless that route leaves
 * through the arrival device.  Probes (sender 0.0.0.0) skip both.
 *
 * Rather than model routing (policy rules, multipath, VRFs, accept_local,
 * src_valid_mark), the kernel is asked: RTM_GETROUTE with RTA_IIF runs
 * that very ip_route_input (inet_rtm_getroute), and without it the very
 * output lookup.  The answers are cached per (arrival ifindex, sender,
 * target) (rpcache.c); any route, rule or netconf event, any link or
 * address change, and a change of the settings the periodic check
 * finds, forget them all.  Lookups are bounded (RPF_LOOKUP_RATE for the
 * host, RPF_IFACE_RATE for any one interface): past it a request that
 * needs one is not answered (RPF_UNCHECKED): a flood of spoofed senders
 * does not buy a kernel round trip each, is not answered on the
 * assumption that it passes, and spends only its own segment's share.
 * Nothing is asked where neither check is on (the kernel's defaults).
 */
#include "config.h"

#include <linux/netconf.h>
#include <linux/rtnetlink.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rpcache.h"
#include "rpf.h"
#include "siphash.h"
#include "sysctl.h"

#define BUFSZ	8192		/* one reply to a route lookup; events */

struct rpf {
	struct tbl		*t;
	rpf_fn			*fn;
	void			*arg;
	struct mnl_socket	*req, *ev;
	unsigned		 portid, seq;
	int			 all_rp, all_af;	/* net.ipv4.conf.all */
	uint64_t		 sum;			/* of the settings at the last refresh */
	bool			 any;			/* some interface has rp_check on */
	bool			 warned;		/* all's sysctls unreadable: said once */
	struct sip_key		 key;			/* the settings' sum */
	unsigned long long	 lookups, cached;
	struct rpc		 cache;
	/* netlink messages are read into it: aligned as they are */
	char			 buf[BUFSZ] __attribute__((aligned(NLMSG_ALIGNTO)));
};

/* rp_filter as the kernel takes it on ifp: IN_DEV_MAXCONF */
static int
rp_of(const struct rpf *r, const struct tbl_iface *ifp)
{
	return ifp->rp_filter > r->all_rp ? ifp->rp_filter : r->all_rp;
}

/* arp_filter as the kernel takes it on ifp: IN_DEV_ORCONF */
static bool
af_of(const struct rpf *r, const struct tbl_iface *ifp)
{
	return ifp->arp_filter != 0 || r->all_af != 0;
}

static int
settle_cb(struct tbl_iface *ifp, void *arg)
{
	struct rpf *r = arg;
	bool on = rp_of(r, ifp) != 0 || af_of(r, ifp);
	__u64 m[2] = { (__u64)(uint32_t)ifp->ifindex << 32 | (uint32_t)rp_of(r, ifp),
	    (__u64)af_of(r, ifp) };

	r->sum += sip_blocks(&r->key, m, 2);
	r->any |= on;
	if (on != ifp->rp_check) {
		ifp->rp_check = on;
		if (r->fn != NULL)
			r->fn(r->arg, ifp);
	}
	return 0;
}

/* Every interface's rp_check set again; the settings' sum. */
static uint64_t
settle_all(struct rpf *r)
{
	r->sum = 0;
	r->any = false;
	(void)tbl_iface_each(r->t, settle_cb, r);
	return r->sum;
}

void
rpf_changed(struct rpf *r, struct tbl_iface *ifp)
{
	uint64_t keep = r->sum;

	rpc_forget(&r->cache);
	if (ifp != NULL) {
		(void)settle_cb(ifp, r);
		r->sum = keep;
	} else
		(void)settle_all(r);
}

void
rpf_refresh(struct rpf *r)
{
	uint64_t before = r->sum;
	int rp, af;

	if (sys_get("all", "rp_filter", &rp) == 0 && sys_get("all", "arp_filter", &af) == 0) {
		r->all_rp = rp;
		r->all_af = af;
	} else if (!r->warned) {
		r->warned = true;
		log_warn("net.ipv4.conf.all.rp_filter and arp_filter: cannot read them "
		    "(taken as %d and %d, the last known)", r->all_rp, r->all_af);
	}
	/* a settings change (arp_filter's sends no event; the devices' come
	 * with the link dump) forgets the cache; routes tell of themselves */
	if (settle_all(r) != before)
		rpc_forget(&r->cache);
}

struct rpf *
rpf_new(struct tbl *t, rpf_fn *fn, void *arg)
{
	static const int groups[] = { RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV4_RULE,
	    RTNLGRP_IPV4_NETCONF };
	unsigned char k[32];
	struct rpf *r;
	size_t i;
	int e;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->t = t;
	r->fn = fn;
	r->arg = arg;
	if (getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k))
		goto fail;
	r->key = sip_key_of(k);
	rpc_init(&r->cache, k + 16, RPF_LOOKUP_RATE, RPF_IFACE_RATE);
	if ((r->req = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL ||
	    mnl_socket_bind(r->req, 0, MNL_SOCKET_AUTOPID) == -1 ||
	    (r->ev = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK)) == NULL ||
	    mnl_socket_bind(r->ev, 0, MNL_SOCKET_AUTOPID) == -1)
		goto fail;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int g = groups[i];

		if (mnl_socket_setsockopt(r->ev, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) == -1)
			goto fail;
	}
	r->portid = mnl_socket_get_portid(r->req);
	rpf_refresh(r);
	return r;
fail:
	e = errno;
	rpf_free(r);
	errno = e;
	return NULL;
}

void
rpf_free(struct rpf *r)
{
	if (r == NULL)
		return;
	if (r->req != NULL)
		mnl_socket_close(r->req);
	if (r->ev != NULL)
		mnl_socket_close(r->ev);
	free(r);
}

bool
rpf_active(const struct rpf *r)
{
	return r->any;
}

int
rpf_fd(const struct rpf *r)
{
	return mnl_socket_get_fd(r->ev);
}

/* A netconf message: rp_filter of all, or of one device, now v. */
static void
netconf(struct rpf *r, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	struct tbl_iface *ifp;
	int32_t ifindex = 0;
	bool has_if = false, has_rp = false;
	uint32_t rp = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct netconfmsg) ||
	    ((const struct netconfmsg *)mnl_nlmsg_get_payload(nlh))->ncm_family != AF_INET)
		return;
	mnl_attr_for_each(a, nlh, sizeof(struct netconfmsg)) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			continue;
		if (mnl_attr_get_type(a) == NETCONFA_IFINDEX) {
			ifindex = (int32_t)mnl_attr_get_u32(a);
			has_if = true;
		} else if (mnl_attr_get_type(a) == NETCONFA_RP_FILTER) {
			rp = mnl_attr_get_u32(a);
			has_rp = true;
		}
	}
	if (!has_if || !has_rp)
		return;
	if (ifindex == NETCONFA_IFINDEX_ALL)
		r->all_rp = (int)rp;
	else if ((ifp = tbl_iface(r->t, ifindex)) != NULL)
		ifp->rp_filter = (int)rp;
}

void
rpf_read(struct rpf *r)
{
	const struct nlmsghdr *nlh;
	bool any = false, lost = false, conf = false;
	ssize_t n;
	int len;

	for (;;) {
		n = mnl_socket_recvfrom(r->ev, r->buf, sizeof(r->buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: events were lost, rp_filter's among them */
			lost = errno == ENOBUFS;
			break;
		}
		any = true;
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)(void *)r->buf; mnl_nlmsg_ok(nlh, len);
		    nlh = mnl_nlmsg_next(nlh, &len))
			if (nlh->nlmsg_type == RTM_NEWNETCONF) {
				netconf(r, nlh);
				conf = true;
			}
	}
	if (lost) {
		rpf_refresh(r);	/* rp_filter's news may be among the lost */
		rpc_forget(&r->cache);
	}
	if (conf)
		rpf_changed(r, NULL);	/* and every interface's rp_check again */
	else if (any)
		rpc_forget(&r->cache);	/* a route or a rule: the verdicts go */
}

/* What the kernel answered a route lookup. */
struct route {
	int		err;		/* 0, or the lookup's errno */
	uint8_t		type;		/* RTN_* */
	int		oif;
};

static int
route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route *rt = data;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return MNL_CB_OK;
	rt->type = rtm->rtm_type;
	mnl_attr_for_each(a, nlh, sizeof(*rtm))
		if (mnl_attr_get_type(a) == RTA_OIF && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			rt->oif = (int)mnl_attr_get_u32(a);
	return MNL_CB_STOP;
}

/* RTM_GETROUTE to dst from src: arriving on iif (ip_route_input), or
 * sent (iif 0: an output route, from oif when not 0, as root's); 0 with
 * the kernel's answer in rt (a refusal in rt->err), -1 on a socket error. */
static int
lookup(struct rpf *r, uint32_t dst, uint32_t src, int iif, int oif, struct route *rt)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned seq;
	ssize_t n;
	int cb;

	memset(rt, 0, sizeof(*rt));
	nlh = mnl_nlmsg_put_header(r->buf);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq = ++r->seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	rtm->rtm_src_len = 32;
	mnl_attr_put(nlh, RTA_DST, 4, &dst);
	mnl_attr_put(nlh, RTA_SRC, 4, &src);
	if (iif != 0)
		mnl_attr_put_u32(nlh, RTA_IIF, (uint32_t)iif);
	else {
		/* arp_filter's ip_route_output() is the namespace's root's */
		mnl_attr_put_u32(nlh, RTA_UID, 0);
		if (oif != 0)
			mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	}
	r->lookups++;
	if (mnl_socket_sendto(r->req, nlh, nlh->nlmsg_len) < 0)
		return -1;
	/* the kernel answers a lookup before sendto returns */
	for (;;) {
		n = recv(mnl_socket_get_fd(r->req), r->buf, sizeof(r->buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		cb = mnl_cb_run(r->buf, (size_t)n, seq, r->portid, route_cb, rt);
		if (cb == MNL_CB_ERROR) {
			if (errno == ESRCH || errno == EPROTO)
				continue;	/* another request's late reply */
			rt->err = errno;
			return 0;
		}
		if (rt->type != 0)
			return 0;
	}
}

/* The VRF ifp is in (arp_filter routes in its table), or 0. */
static int
vrf_of(const struct tbl_iface *ifp)
{
	return ifp->master != 0 && strcmp(ifp->slave_kind, "vrf") == 0 ? ifp->master : 0;
}

/* Ask the kernel: the verdict, or RPF_UNCHECKED. */
static enum rpf_verdict
ask(struct rpf *r, const struct tbl_iface *in, uint32_t sip, uint32_t dst, int rp, bool af)
{
	struct route rt;

	/* ip_route_input_noref(skb, tip, sip, 0, dev): rp_filter's verdict
	 * (dst is tip, or a stand-in for a published address) */
	if (rp != 0) {
		if (lookup(r, dst, sip, in->ifindex, 0, &rt) == -1)
			return RPF_UNCHECKED;
		if (rt.err != 0 || rt.type != RTN_LOCAL)
			return RPF_RP_FILTER;
	}
	/* arp_filter(): ip_route_output(sip, tip) must leave through in */
	if (af) {
		if (lookup(r, sip, dst, 0, vrf_of(in), &rt) == -1)
			return RPF_UNCHECKED;
		if (rt.err != 0 || rt.oif != in->ifindex)
			return RPF_ARP_FILTER;
	}
	return RPF_OK;
}

enum rpf_verdict
rpf_check(struct rpf *r, const struct tbl_iface *in, uint32_t sip, uint32_t tip,
    uint32_t dst, double now)
{
	enum rpf_verdict v;
	int rp = rp_of(r, in), got;
	bool af = af_of(r, in);

	if (sip == 0 || (rp == 0 && !af))
		return RPF_OK;
	if ((got = rpc_find(&r->cache, in->ifindex, sip, tip)) != -1) {
		r->cached++;
		return (enum rpf_verdict)got;
	}
	if (!rpc_budget(&r->cache, in->ifindex, (rp != 0) + af, now))
		return RPF_UNCHECKED;
	if ((v = ask(r, in, sip, dst, rp, af)) != RPF_UNCHECKED)
		rpc_put(&r->cache, in->ifindex, sip, tip, (uint8_t)v);
	return v;
}

void
rpf_counts(const struct rpf *r, unsigned long long *lookups, unsigned long long *cached)
{
	*lookups = r->lookups;
	*cached = r->cached;
}
