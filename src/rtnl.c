/* rtnl.c — rtnetlink through libmnl.  Three sockets: one subscribed to the
 * link and IPv4 address groups (events), one for synchronous requests
 * (dumps, sysctl changes, with ACKs), one fire-and-forget for neighbour
 * entries so that their error replies never mix with anything we wait on. */
#include "config.h"

#include <net/if.h>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <sys/socket.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "rtnl.h"
#include "rules.h"

/* Dumps come in messages of up to 32 KiB on current kernels. */
#define RTNL_BUFSIZE	((size_t)64 * 1024)
#define RTNL_EVBUF	(8 * 1024 * 1024)

struct rtnl {
	struct mnl_socket	*ev, *req, *neigh;
	unsigned		 req_portid;
	uint32_t		 seq;
	/* Two buffers: an event callback may send a request (a sysctl
	 * change) while the event buffer is still being walked. */
	char			*evbuf, *buf;
	uint64_t		 drained;	/* CLOCK_REALTIME ns: all read until then */
};

static int
link_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFLA_MAX) < 0)
		return MNL_CB_OK;	/* newer kernel: skip what we don't know */
	switch (type) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		break;
	case IFLA_ADDRESS:
		if (mnl_attr_validate(a, MNL_TYPE_BINARY) < 0)
			return MNL_CB_ERROR;
		break;
	case IFLA_AF_SPEC:
	case IFLA_LINKINFO:
	case IFLA_XDP:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		break;
	case IFLA_MASTER:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	default:
		return MNL_CB_OK;
	}
	tb[type] = a;
	return MNL_CB_OK;
}

/* IFLA_AF_SPEC > AF_INET > IFLA_INET_CONF is a u32 array indexed by
 * IPV4_DEVCONF_* - 1 (inet_fill_link_af); its length varies by kernel. */
static int
parse_inet_conf(const struct nlattr *spec, struct rtnl_msg *m)
{
	const struct nlattr *fam, *a;
	const uint32_t *v;
	size_t n;

	mnl_attr_for_each_nested(fam, spec) {
		if (mnl_attr_get_type(fam) != AF_INET)
			continue;
		if (mnl_attr_validate(fam, MNL_TYPE_NESTED) < 0)
			return -1;
		mnl_attr_for_each_nested(a, fam) {
			if (mnl_attr_get_type(a) != IFLA_INET_CONF)
				continue;
			n = mnl_attr_get_payload_len(a) / 4;
			v = mnl_attr_get_payload(a);
			/* devconf values are ints: /proc takes -1 as well as 9 */
			if (n >= IPV4_DEVCONF_ARP_IGNORE && n >= IPV4_DEVCONF_ARP_ANNOUNCE) {
				m->arp_ignore = (int32_t)v[IPV4_DEVCONF_ARP_IGNORE - 1];
				m->arp_announce = (int32_t)v[IPV4_DEVCONF_ARP_ANNOUNCE - 1];
				m->has_conf = true;
			}
			/* the reverse-path checks the kernel makes (rpf.c) */
			if (n >= IPV4_DEVCONF_RP_FILTER && n >= IPV4_DEVCONF_ARPFILTER) {
				m->rp_filter = (int32_t)v[IPV4_DEVCONF_RP_FILTER - 1];
				m->arp_filter = (int32_t)v[IPV4_DEVCONF_ARPFILTER - 1];
			}
		}
	}
	return 0;
}

/* IFLA_LINKINFO > IFLA_INFO_KIND, IFLA_INFO_SLAVE_KIND: strings; one that
 * does not fit (or is not a string) is left empty. */
static void
parse_linkinfo(const struct nlattr *info, struct rtnl_msg *m)
{
	const struct nlattr *a;
	char *dst;
	size_t len;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND)
			dst = m->link_kind;
		else if (mnl_attr_get_type(a) == IFLA_INFO_SLAVE_KIND)
			dst = m->slave_kind;
		else
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		len = strlen(mnl_attr_get_str(a));
		if (len < sizeof(m->link_kind))
			memcpy(dst, mnl_attr_get_str(a), len + 1);
	}
}

/* IFLA_XDP: the id of the XDP program on the link (anyone's, any mode),
 * 0 for none; the kernel path moves to XDP when another's goes. */
static void
parse_xdp(const struct nlattr *nest, struct rtnl_msg *m)
{
	const struct nlattr *a;

	m->has_xdp = true;
	m->xdp_id = 0;
	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == IFLA_XDP_PROG_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			m->xdp_id = mnl_attr_get_u32(a);
}

static int
parse_link(const struct nlmsghdr *nlh, struct rtnl_msg *m)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	const struct ifinfomsg *ifi;
	size_t len;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return -1;
	ifi = mnl_nlmsg_get_payload(nlh);
	/*
	 * The bridge sends its own RTM_NEWLINK and RTM_DELLINK, of family
	 * AF_BRIDGE, about its ports (br_ifinfo_notify): a DELLINK there means
	 * "left the bridge", not "deleted".  The link itself is told of in
	 * AF_UNSPEC messages.
	 */
	if (ifi->ifi_family == AF_BRIDGE)
		return 0;	/* RTNL_IGNORE */
	if (ifi->ifi_index <= 0)
		return -1;
	if (mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, tb) != MNL_CB_OK)
		return -1;
	m->kind = nlh->nlmsg_type == RTM_NEWLINK ? RTNL_NEWLINK : RTNL_DELLINK;
	m->ifindex = ifi->ifi_index;
	m->type = ifi->ifi_type;
	m->flags = ifi->ifi_flags;
	if (tb[IFLA_IFNAME] == NULL)
		return -1;
	len = strlen(mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (len == 0 || len >= IF_NAMESIZE)
		return -1;
	memcpy(m->name, mnl_attr_get_str(tb[IFLA_IFNAME]), len + 1);
	if (tb[IFLA_ADDRESS] != NULL && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) == 6) {
		memcpy(m->mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), 6);
		m->has_mac = true;
	}
	if (tb[IFLA_AF_SPEC] != NULL && parse_inet_conf(tb[IFLA_AF_SPEC], m) == -1)
		return -1;
	if (tb[IFLA_MASTER] != NULL && mnl_attr_get_u32(tb[IFLA_MASTER]) <= INT32_MAX)
		m->master = (int)mnl_attr_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_LINKINFO] != NULL)
		parse_linkinfo(tb[IFLA_LINKINFO], m);
	if (tb[IFLA_XDP] != NULL)
		parse_xdp(tb[IFLA_XDP], m);
	return 0;
}

static int
addr_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFA_MAX) < 0)
		return MNL_CB_OK;
	if (type == IFA_LOCAL || type == IFA_ADDRESS) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		tb[type] = a;
	}
	return MNL_CB_OK;
}

static int
parse_addr(const struct nlmsghdr *nlh, struct rtnl_msg *m)
{
	const struct nlattr *tb[IFA_MAX + 1] = { 0 };
	const struct ifaddrmsg *ifa;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return -1;
	ifa = mnl_nlmsg_get_payload(nlh);
	if (ifa->ifa_family != AF_INET)
		return 0;		/* RTNL_IGNORE */
	if (ifa->ifa_prefixlen > 32 || ifa->ifa_index == 0 || ifa->ifa_index > INT32_MAX)
		return -1;
	if (mnl_attr_parse(nlh, sizeof(*ifa), addr_attr_cb, tb) != MNL_CB_OK)
		return -1;
	if (tb[IFA_LOCAL] != NULL)
		memcpy(&m->addr, mnl_attr_get_payload(tb[IFA_LOCAL]), 4);
	/* the subnet (the peer on p-t-p): what inet_ifa_match() compares with */
	if (tb[IFA_ADDRESS] != NULL)
		memcpy(&m->prefix, mnl_attr_get_payload(tb[IFA_ADDRESS]), 4);
	if (!rule_ifa_ends(tb[IFA_LOCAL] != NULL, tb[IFA_ADDRESS] != NULL, &m->addr, &m->prefix))
		return -1;
	m->kind = nlh->nlmsg_type == RTM_NEWADDR ? RTNL_NEWADDR : RTNL_DELADDR;
	m->ifindex = (int)ifa->ifa_index;
	m->plen = ifa->ifa_prefixlen;
	return 0;
}

int
rtnl_parse(const struct nlmsghdr *nlh, struct rtnl_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->arp_ignore = m->arp_announce = -1;
	m->rp_filter = m->arp_filter = 0;
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return parse_link(nlh, m);
	case RTM_NEWADDR:
	case RTM_DELADDR:
		return parse_addr(nlh, m);
	default:
		return 0;
	}
}

static struct mnl_socket *
sock_open(int flags, unsigned groups)
{
	struct mnl_socket *s;
	int one = 1;

	if ((s = mnl_socket_open2(NETLINK_ROUTE, flags | SOCK_CLOEXEC)) == NULL)
		return NULL;
	/* extended ACKs name the attribute the kernel did not like */
	(void)mnl_socket_setsockopt(s, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(s, groups, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s);
		return NULL;
	}
	return s;
}

struct rtnl *
rtnl_open(void)
{
	struct rtnl *r;
	int sz = RTNL_EVBUF, fd;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	if ((r->buf = malloc(RTNL_BUFSIZE)) == NULL ||
	    (r->evbuf = malloc(RTNL_BUFSIZE)) == NULL)
		goto err;
	if ((r->ev = sock_open(SOCK_NONBLOCK, RTMGRP_LINK | RTMGRP_IPV4_IFADDR)) == NULL ||
	    (r->req = sock_open(0, 0)) == NULL ||
	    (r->neigh = sock_open(SOCK_NONBLOCK, 0)) == NULL)
		goto err;
	/* A burst of thousands of address events must not overrun us; when it
	 * does anyway (ENOBUFS) we re-dump. */
	fd = mnl_socket_get_fd(r->ev);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	r->req_portid = mnl_socket_get_portid(r->req);
	r->seq = (uint32_t)time(NULL);
	return r;
err:
	rtnl_close(r);
	return NULL;
}

void
rtnl_close(struct rtnl *r)
{
	if (r == NULL)
		return;
	if (r->ev)
		mnl_socket_close(r->ev);
	if (r->req)
		mnl_socket_close(r->req);
	if (r->neigh)
		mnl_socket_close(r->neigh);
	free(r->buf);
	free(r->evbuf);
	free(r);
}

int
rtnl_fd(const struct rtnl *r)
{
	return mnl_socket_get_fd(r->ev);
}

struct cb_arg {
	rtnl_fn	*fn;
	void	*arg;
	int	 intr;
	int	 bad;
};

static int
data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cb_arg *c = data;
	struct rtnl_msg m;

	if (rtnl_parse(nlh, &m) == -1) {
		c->bad++;
		return MNL_CB_OK;
	}
	if (m.kind != RTNL_IGNORE)
		c->fn(&m, c->arg);
	return MNL_CB_OK;
}

/*
 * libmnl turns NLM_F_DUMP_INTR into a hard error (EINTR) in the middle of
 * a batch, which would leave the rest of the dump queued on the request
 * socket, to be read later as the answer to something else.  We want the
 * whole dump read and then redone: note the flag and clear it.
 */
static void
clear_dump_intr(char *buf, size_t len, struct cb_arg *c)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)buf;
	int left = (int)len;

	for (; left >= (int)sizeof(*nlh) && nlh->nlmsg_len <= (unsigned)left &&
	    mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			c->intr = 1;
			nlh->nlmsg_flags &= (uint16_t)~NLM_F_DUMP_INTR;
		}
	}
}

/* Whatever is queued on the request socket is not the answer to the
 * request about to be sent: throw it away. */
static void
req_drain(struct rtnl *r)
{
	int fd = mnl_socket_get_fd(r->req);

	while (recv(fd, r->buf, RTNL_BUFSIZE, MSG_DONTWAIT) > 0)
		;
}

static int
dump_one(struct rtnl *r, int type, struct cb_arg *c)
{
	struct nlmsghdr *nlh;
	uint32_t seq;
	ssize_t n;
	int ret;

	req_drain(r);
	nlh = mnl_nlmsg_put_header(r->buf);
	nlh->nlmsg_type = (uint16_t)type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq = ++r->seq;
	if (type == RTM_GETLINK) {
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_family = AF_UNSPEC;	/* AF_UNSPEC carries IFLA_AF_SPEC */
		/* no statistics: a third of each message, and the periodic
		 * dump of 1,000 links held the loop for tens of ms */
		mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	} else {
		struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

		ifa->ifa_family = AF_INET;
	}
	if (mnl_socket_sendto(r->req, nlh, nlh->nlmsg_len) < 0)
		return -1;
	for (;;) {
		n = mnl_socket_recvfrom(r->req, r->buf, RTNL_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		clear_dump_intr(r->buf, (size_t)n, c);
		ret = mnl_cb_run(r->buf, (size_t)n, seq, r->req_portid, data_cb, c);
		if (ret <= MNL_CB_STOP)
			return ret == MNL_CB_STOP ? 0 : -1;
	}
}

int
rtnl_dump_links(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	struct cb_arg c = { fn, arg, 0, 0 };

	return dump_one(r, RTM_GETLINK, &c);
}

int
rtnl_dump(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	struct cb_arg c = { fn, arg, 0, 0 };
	int tries;

	for (tries = 0; tries < 10; tries++) {
		c.intr = 0;
		if (dump_one(r, RTM_GETLINK, &c) == -1 ||
		    dump_one(r, RTM_GETADDR, &c) == -1)
			return -1;
		if (c.bad)
			log_warnx("rtnetlink: ignored %d malformed messages", c.bad);
		if (!c.intr)
			return 0;
		log_info("rtnetlink: dump interrupted by a change, dumping again");
	}
	log_warnx("rtnetlink: dump interrupted %d times in a row", tries);
	return 0;
}

/* Drop whatever is queued: after an overrun it is older than the re-dump. */
static void
drain(struct mnl_socket *s, char *buf)
{
	while (mnl_socket_recvfrom(s, buf, RTNL_BUFSIZE) > 0 || errno == ENOBUFS)
		;
}

int
rtnl_read(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	struct cb_arg c = { fn, arg, 0, 0 };
	struct timespec ts;
	ssize_t n;

	/*
	 * Until the socket would block, not a fixed budget: a request that
	 * arrived after the kernel acknowledged a delete must find the delete
	 * applied, and the kernel queues the event before it sends the ACK.
	 * The time is taken before each read, so that a frame stamped no later
	 * than r->drained arrived before the read that found nothing.
	 */
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		n = mnl_socket_recvfrom(r->ev, r->evbuf, RTNL_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				r->drained = (uint64_t)ts.tv_sec * 1000000000u +
				    (uint64_t)ts.tv_nsec;
				break;
			}
			if (errno == ENOBUFS) {
				drain(r->ev, r->evbuf);
				return 1;
			}
			return -1;
		}
		(void)mnl_cb_run(r->evbuf, (size_t)n, 0, 0, data_cb, &c);
	}
	if (c.bad)
		log_warnx("rtnetlink: ignored %d malformed messages", c.bad);
	return 0;
}

uint64_t
rtnl_drained(const struct rtnl *r)
{
	return r->drained;
}

int
rtnl_set_arp(struct rtnl *r, int ifindex, int arp_ignore, int arp_announce)
{
	struct nlattr *spec, *fam, *conf;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	uint32_t seq;
	ssize_t n;
	int ret;

	req_drain(r);
	/* The rtnetlink way to write devconf (inet_set_link_af): unlike
	 * /proc/sys it needs only CAP_NET_ADMIN in the netns, and works where
	 * /proc/sys is read-only (ProtectKernelTunables=, containers). */
	nlh = mnl_nlmsg_put_header(r->buf);
	nlh->nlmsg_type = RTM_SETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq = ++r->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	fam = mnl_attr_nest_start(nlh, AF_INET);
	conf = mnl_attr_nest_start(nlh, IFLA_INET_CONF);
	if (arp_ignore >= 0)
		mnl_attr_put_u32(nlh, IPV4_DEVCONF_ARP_IGNORE, (uint32_t)arp_ignore);
	if (arp_announce >= 0)
		mnl_attr_put_u32(nlh, IPV4_DEVCONF_ARP_ANNOUNCE, (uint32_t)arp_announce);
	mnl_attr_nest_end(nlh, conf);
	mnl_attr_nest_end(nlh, fam);
	mnl_attr_nest_end(nlh, spec);
	if (mnl_socket_sendto(r->req, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(r->req, r->buf, RTNL_BUFSIZE);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	ret = mnl_cb_run(r->buf, (size_t)n, seq, r->req_portid, NULL, NULL);
	return ret < 0 ? -1 : 0;
}

struct neigh_found {
	bool		found;
	uint16_t	state;
	bool		has_mac;
	uint8_t		mac[6];
};

static int
neigh_attr_cb(const struct nlattr *a, void *data)
{
	struct neigh_found *n = data;

	if (mnl_attr_type_valid(a, NDA_MAX) < 0)
		return MNL_CB_OK;
	if (mnl_attr_get_type(a) == NDA_LLADDR && mnl_attr_get_payload_len(a) == 6) {
		memcpy(n->mac, mnl_attr_get_payload(a), 6);
		n->has_mac = true;
	}
	return MNL_CB_OK;
}

static int
neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	struct neigh_found *n = data;
	const struct ndmsg *ndm;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ndm)))
		return MNL_CB_OK;
	ndm = mnl_nlmsg_get_payload(nlh);
	n->found = true;
	n->state = ndm->ndm_state;
	return mnl_attr_parse(nlh, sizeof(*ndm), neigh_attr_cb, n) == MNL_CB_ERROR ?
	    MNL_CB_ERROR : MNL_CB_OK;
}

/* The neighbour entry for ip on ifindex, if any; 0, or -1 with errno. */
static int
neigh_get(struct rtnl *r, int ifindex, uint32_t ip, struct neigh_found *n)
{
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	uint32_t seq;
	ssize_t len;
	int ret;

	memset(n, 0, sizeof(*n));
	req_drain(r);
	memset(r->buf, 0, 256);
	nlh = mnl_nlmsg_put_header(r->buf);
	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq = ++r->seq;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_INET;
	ndm->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, 4, &ip);
	if (mnl_socket_sendto(r->req, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		len = mnl_socket_recvfrom(r->req, r->buf, RTNL_BUFSIZE);
	} while (len < 0 && errno == EINTR);
	if (len < 0)
		return -1;
	ret = mnl_cb_run(r->buf, (size_t)len, seq, r->req_portid, neigh_cb, n);
	if (ret < 0 && errno == ENOENT)
		return 0;	/* no entry */
	return ret < 0 ? -1 : 0;
}

void
rtnl_learn(struct rtnl *r, int ifindex, uint32_t ip, const uint8_t mac[static 6])
{
	struct neigh_found n;
	char buf[256];
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	uint16_t flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;

	/*
	 * What neigh_event_ns() does when the kernel answers: a new entry
	 * STALE; an existing one with another MAC overridden (a NIC swapped,
	 * a VM moved), STALE again; one with this MAC left as it is; a
	 * PERMANENT or NOARP one never touched.  Netlink writes are an
	 * admin's and would override those too: so ask first.
	 */
	if (neigh_get(r, ifindex, ip, &n) == 0 && n.found) {
		if ((n.state & (NUD_PERMANENT | NUD_NOARP)) ||
		    (n.has_mac && memcmp(n.mac, mac, 6) == 0))
			return;
		flags = NLM_F_REQUEST | NLM_F_REPLACE;
	}
	/* Replies are EEXIST (an entry came meanwhile) or nothing; read and
	 * drop them. */
	while (mnl_socket_recvfrom(r->neigh, buf, sizeof(buf)) > 0)
		;
	/* attribute padding is not zeroed by every libmnl (valgrind) */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWNEIGH;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = ++r->seq;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_INET;
	ndm->ndm_ifindex = ifindex;
	ndm->ndm_state = NUD_STALE;	/* what neigh_event_ns() leaves */
	ndm->ndm_type = RTN_UNICAST;
	mnl_attr_put(nlh, NDA_DST, 4, &ip);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	if (mnl_socket_sendto(r->neigh, nlh, nlh->nlmsg_len) < 0)
		log_debug("ifindex %d: learning %s failed: %s", ifindex,
		    log_ip(ip), strerror(errno));
}
