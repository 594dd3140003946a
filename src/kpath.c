/* kpath.c — the in-kernel answer path's loader and feeder: loads the two
 * programs of src/bpf/answer.bpf.c (embedded as a bpftool skeleton),
 * attaches the answerer to clsact ingress, runs the netlink watcher on a
 * socket of its own, and writes the daemon's grants into the maps.
 *
 * Privileges, measured on Linux 6.18 and read in 6.1's source: loading
 * (map, BTF and program creation) needs CAP_BPF + CAP_NET_ADMIN (or
 * CAP_SYS_ADMIN); everything after it works on the file descriptors made
 * then, with CAP_NET_ADMIN alone: map reads and writes, the ring buffer,
 * attaching to a new interface (a TC filter takes the program's fd) and
 * detaching.  See tests/integration/kpath_priv.sh.
 */
#include "config.h"

#include "kpath.h"

#ifdef HAVE_BPF

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>

#include "answer.skel.h"

#ifndef TC_H_CLSACT
#define TC_H_CLSACT		TC_H_INGRESS
#endif
#ifndef TC_H_MIN_INGRESS
#define TC_H_MIN_INGRESS	0xFFF2U
#define TC_H_MIN_EGRESS		0xFFF3U
#endif
#ifndef SO_ATTACH_BPF
#define SO_ATTACH_BPF		50
#endif

#define USER_ID_BASE	(1ull << 63)	/* the watcher's ids stay below */
#define RESYNC_TRIES	8
#define LOG_KEEP	4096

struct kp_att {
	int	ifindex;
	bool	made_qdisc;
};

struct kp {
	struct kp_bpf	*skel;
	int		 fd_ifaces, fd_links, fd_alive, fd_answers, fd_senders;
	int		 fd_watch, fd_conf, fd_counters;
	int		 watch_sock, live_sock;
	struct ring_buffer *rb;
	kp_event_fn	*fn;
	void		*fnarg;
	int		 nconsumed;
	int		 ncpu;
	uint64_t	 user_id;
	struct kp_att	*att;
	size_t		 natt, aatt;
	uint64_t	*pcpu;		/* ncpu values, for reads and writes */
};

/* ------------------------------------------------------------------ logs */

/* libbpf's messages: kept (the last LOG_KEEP bytes) for the reason a load
 * failed, shown on stderr only with ARPOWND_BPF_DEBUG set. */
static char g_log[LOG_KEEP];
static size_t g_loglen;

static int
libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	int n;

	if (level == LIBBPF_DEBUG && getenv("ARPOWND_BPF_DEBUG") == NULL)
		return 0;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (getenv("ARPOWND_BPF_DEBUG") != NULL)
		fputs(line, stderr);
	if (g_loglen + (size_t)n >= sizeof(g_log)) {
		size_t drop = g_loglen + (size_t)n - sizeof(g_log) + 1;

		if (drop > g_loglen)
			drop = g_loglen;
		memmove(g_log, g_log + drop, g_loglen - drop);
		g_loglen -= drop;
	}
	memcpy(g_log + g_loglen, line, (size_t)n);
	g_loglen += (size_t)n;
	g_log[g_loglen] = '\0';
	return 0;
}

static void
setwhy(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The verifier's complaint: the last lines of a log that say something. */
static void
log_tail(const char *log, char *out, size_t len)
{
	const char *lines[3] = { NULL, NULL, NULL }, *p = log, *e;
	size_t n = 0, k;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		if ((e == NULL ? strlen(p) : (size_t)(e - p)) > 0 &&
		    strncmp(p, "processed ", 10) != 0 && strncmp(p, "verification time", 17) != 0 &&
		    strncmp(p, "stack depth", 11) != 0 && strncmp(p, "-- END", 6) != 0 &&
		    strncmp(p, "libbpf: ", 8) != 0) {
			lines[0] = lines[1];
			lines[1] = lines[2];
			lines[2] = p;
			n++;
		}
		p = e != NULL ? e + 1 : NULL;
	}
	for (k = 0; k < 3; k++) {
		size_t l, o = strlen(out);

		if (lines[k] == NULL)
			continue;
		e = strchr(lines[k], '\n');
		l = e != NULL ? (size_t)(e - lines[k]) : strlen(lines[k]);
		if (o + l + 4 >= len)
			break;
		if (o > 0)
			strcat(out, " | ");
		strncat(out, lines[k], l);
	}
	(void)n;
}

/* ------------------------------------------------------------- netlink */

typedef int nl_cb(const struct nlmsghdr *nlh, void *arg);

struct nl_run {
	nl_cb	*cb;
	void	*arg;
	int	 rc;
};

static int
nl_one(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *r = data;

	if (r->cb != NULL && r->cb(nlh, r->arg) == -1)
		r->rc = -1;
	return MNL_CB_OK;
}

/* Send req on a fresh rtnetlink socket and hand every reply to cb until
 * the dump is done or the ACK arrives; 0, or -1 with errno. */
static int
nl_talk(struct nlmsghdr *req, nl_cb *cb, void *arg)
{
	struct mnl_socket *nl;
	struct nl_run r = { cb, arg, 0 };
	char *buf;
	size_t blen = MNL_SOCKET_BUFFER_SIZE > 32768 ? MNL_SOCKET_BUFFER_SIZE : 32768;
	unsigned portid, seq = (unsigned)time(NULL);
	ssize_t n;
	int ret, err = 0;

	if ((buf = malloc(blen)) == NULL)
		return -1;
	if ((nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL) {
		free(buf);
		return -1;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	portid = mnl_socket_get_portid(nl);
	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		goto fail;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, blen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, nl_one, &r);
		if (ret == MNL_CB_ERROR) {
			err = errno;
			goto fail;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
	mnl_socket_close(nl);
	free(buf);
	if (r.rc == -1) {
		errno = EIO;
		return -1;
	}
	return 0;
fail:
	if (err == 0)
		err = errno;
	mnl_socket_close(nl);
	free(buf);
	errno = err;
	return -1;
}

static int
nl_dump(uint16_t type, const void *hdr, size_t hdrlen, nl_cb *cb, void *arg)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	memcpy(mnl_nlmsg_put_extra_header(nlh, hdrlen), hdr, hdrlen);
	return nl_talk(nlh, cb, arg);
}

/* ----------------------------------------------------- the kernel's truth */

static uint32_t
mask_of(uint8_t plen)
{
	return plen == 0 ? 0 : htonl(0xffffffffu << (32 - plen));
}

static void
ifa_key(struct kp_ifa_key *k, int ifindex, uint32_t local, uint32_t prefix, uint8_t plen)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = (uint32_t)ifindex;
	k->local = local;
	k->net = prefix & mask_of(plen);
	k->plen = plen;
}

struct resync {
	struct kp		*kp;
	uint32_t		*links;		/* keys we inserted, and their ids */
	uint64_t		*link_ids;
	size_t			 nlinks, alinks;
	struct kp_ifa_key	*addrs;
	uint64_t		*addr_ids;
	size_t			 naddrs, aaddrs;
	int			 err;
};

static int
grow(void **v, void **ids, size_t *alloc, size_t n, size_t sz)
{
	void *nv, *ni;
	size_t na;

	if (n < *alloc)
		return 0;
	na = *alloc ? *alloc * 2 : 64;
	if ((nv = realloc(*v, na * sz)) == NULL)
		return -1;
	*v = nv;
	if ((ni = realloc(*ids, na * sizeof(uint64_t))) == NULL)
		return -1;
	*ids = ni;
	*alloc = na;
	return 0;
}

static int
rs_link(const struct nlmsghdr *nlh, void *arg)
{
	struct resync *rs = arg;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	struct kp_link l;
	bool have_mac = false;
	uint32_t idx;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    !(ifi->ifi_flags & IFF_UP))
		return 0;
	memset(&l, 0, sizeof(l));
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) == IFLA_ADDRESS && mnl_attr_get_payload_len(a) == 6) {
			memcpy(l.mac, mnl_attr_get_payload(a), 6);
			have_mac = true;
		} else if (mnl_attr_get_type(a) == IFLA_MASTER && mnl_attr_get_payload_len(a) == 4)
			l.master = mnl_attr_get_u32(a);
	}
	if (!have_mac)
		return 0;
	l.id = rs->kp->user_id++;
	idx = (uint32_t)ifi->ifi_index;
	if (bpf_map_update_elem(rs->kp->fd_links, &idx, &l, BPF_NOEXIST) == 0) {
		if (grow((void **)&rs->links, (void **)&rs->link_ids, &rs->alinks, rs->nlinks,
		    sizeof(*rs->links)) == -1)
			return rs->err = -1;
		rs->links[rs->nlinks] = idx;
		rs->link_ids[rs->nlinks++] = l.id;
	} else if (errno != EEXIST && errno != E2BIG)	/* full: never answered there */
		return rs->err = -1;
	return 0;
}

static int
rs_addr(const struct nlmsghdr *nlh, void *arg)
{
	struct resync *rs = arg;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	uint32_t local = 0, address = 0;
	bool have_l = false, have_a = false;
	struct kp_ifa_key k;
	uint64_t id;

	if (nlh->nlmsg_type != RTM_NEWADDR || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa) ||
	    ifa->ifa_family != AF_INET || ifa->ifa_prefixlen > 32)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_payload_len(a) != 4)
			continue;
		if (mnl_attr_get_type(a) == IFA_LOCAL) {
			memcpy(&local, mnl_attr_get_payload(a), 4);
			have_l = true;
		} else if (mnl_attr_get_type(a) == IFA_ADDRESS) {
			memcpy(&address, mnl_attr_get_payload(a), 4);
			have_a = true;
		}
	}
	if (!have_l && !have_a)
		return 0;
	if (!have_l)
		local = address;
	if (!have_a)
		address = local;
	ifa_key(&k, (int)ifa->ifa_index, local, address, ifa->ifa_prefixlen);
	id = rs->kp->user_id++;
	if (bpf_map_update_elem(rs->kp->fd_alive, &k, &id, BPF_NOEXIST) == 0) {
		if (grow((void **)&rs->addrs, (void **)&rs->addr_ids, &rs->aaddrs, rs->naddrs,
		    sizeof(*rs->addrs)) == -1)
			return rs->err = -1;
		rs->addrs[rs->naddrs] = k;
		rs->addr_ids[rs->naddrs++] = id;
	} else if (errno != EEXIST && errno != E2BIG)	/* full: never confirmed */
		return rs->err = -1;
	return 0;
}

static int
read_watch(struct kp *kp, struct kp_watch *w)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(kp->fd_watch, &zero, w);
}

static int
read_conf(struct kp *kp, struct kp_conf *c)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(kp->fd_conf, &zero, c);
}

static int
write_conf(struct kp *kp, const struct kp_conf *c)
{
	uint32_t zero = 0;

	return bpf_map_update_elem(kp->fd_conf, &zero, c, BPF_ANY);
}

/* Delete every key of a hash map (collected first: deleting while walking
 * restarts the walk). */
static int
wipe(int fd, size_t keysz)
{
	char *keys = NULL, *k, *nk;
	size_t n = 0, a = 0, i;

	for (k = NULL;; k = keys + (n - 1) * keysz) {
		if (n == a) {
			a = a ? a * 2 : 256;
			if ((nk = realloc(keys, a * keysz)) == NULL) {
				free(keys);
				return -1;
			}
			keys = nk;
			k = n > 0 ? keys + (n - 1) * keysz : NULL;
		}
		if (bpf_map_get_next_key(fd, k, keys + n * keysz) != 0)
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * keysz);
	free(keys);
	return 0;
}

/*
 * Fill kp_links and kp_alive with what the kernel holds now.  The watcher
 * runs meanwhile and wins every race but one: a dump read before a delete
 * and written after it would bring the deleted entry back.  The watcher
 * counts every revoking event before it acts, so when the count moved
 * while we wrote, what we wrote is taken back (the watcher's own entries
 * stay) and it is done again.  An entry missing is safe (not answered
 * here, the capture path answers); one too many is what must not be.
 */
static int
resync(struct kp *kp, bool full)
{
	struct kp_watch w0, w1;
	struct kp_conf cf;
	struct ifinfomsg ifi;
	struct ifaddrmsg ifa;
	struct resync rs;
	uint64_t v;
	size_t i;
	int tries;

	for (tries = 0; tries < RESYNC_TRIES; tries++) {
		memset(&rs, 0, sizeof(rs));
		rs.kp = kp;
		if (read_watch(kp, &w0) == -1 || read_conf(kp, &cf) == -1)
			return -1;
		if (full || w0.bad_gen != cf.ok_gen) {
			/* something was missed: start from nothing */
			if (wipe(kp->fd_links, sizeof(uint32_t)) == -1 ||
			    wipe(kp->fd_alive, sizeof(struct kp_ifa_key)) == -1)
				return -1;
		}
		memset(&ifi, 0, sizeof(ifi));
		ifi.ifi_family = AF_UNSPEC;
		memset(&ifa, 0, sizeof(ifa));
		ifa.ifa_family = AF_INET;
		if (nl_dump(RTM_GETLINK, &ifi, sizeof(ifi), rs_link, &rs) == -1 ||
		    nl_dump(RTM_GETADDR, &ifa, sizeof(ifa), rs_addr, &rs) == -1 || rs.err == -1 ||
		    read_watch(kp, &w1) == -1) {
			free(rs.links);
			free(rs.link_ids);
			free(rs.addrs);
			free(rs.addr_ids);
			return -1;
		}
		if (w1.revokes == w0.revokes) {
			if (cf.ok_gen != w0.bad_gen) {
				cf.ok_gen = w0.bad_gen;
				if (write_conf(kp, &cf) == -1)
					return -1;
			}
			free(rs.links);
			free(rs.link_ids);
			free(rs.addrs);
			free(rs.addr_ids);
			return 0;
		}
		/* take back what we wrote: it may include a deleted entry */
		for (i = 0; i < rs.nlinks; i++) {
			struct kp_link l;

			if (bpf_map_lookup_elem(kp->fd_links, &rs.links[i], &l) == 0 &&
			    l.id == rs.link_ids[i])
				bpf_map_delete_elem(kp->fd_links, &rs.links[i]);
		}
		for (i = 0; i < rs.naddrs; i++)
			if (bpf_map_lookup_elem(kp->fd_alive, &rs.addrs[i], &v) == 0 &&
			    v == rs.addr_ids[i])
				bpf_map_delete_elem(kp->fd_alive, &rs.addrs[i]);
		free(rs.links);
		free(rs.link_ids);
		free(rs.addrs);
		free(rs.addr_ids);
	}
	errno = EAGAIN;
	return -1;
}

bool
kp_needs_resync(struct kp *kp)
{
	struct kp_watch w;
	struct kp_conf c;

	return read_watch(kp, &w) == 0 && read_conf(kp, &c) == 0 && w.bad_gen != c.ok_gen;
}

int
kp_resync(struct kp *kp)
{
	return resync(kp, true);
}

/* ------------------------------------------------------------ sockets */

/* The watcher: an rtnetlink socket on the link and IPv4 address groups,
 * the filter attached before it joins them, nothing ever queued. */
static int
watch_open(struct kp *kp)
{
	struct sockaddr_nl sa;
	int fd, pfd = bpf_program__fd(kp->skel->progs.arpownd_nlwatch);

	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &pfd, sizeof(pfd)) == -1)
		goto fail;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* The liveness socket: UDP, bound with IP_FREEBIND to a random 127/8
 * address; the program answers only while a lookup finds it, so a killed
 * daemon (whose watcher died with it) stops the answers at once. */
static int
live_open(struct kp *kp, struct kp_conf *cf)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	uint8_t r[3];
	int fd, one = 1;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		return -1;
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)(r[0] | 0x80) << 16 |
	    (uint32_t)r[1] << 8 | (uint32_t)(r[2] | 1));
	if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) == -1) {
		close(fd);
		return -1;
	}
	cf->live_addr = sin.sin_addr.s_addr;
	cf->live_port = sin.sin_port;
	cf->flags |= KP_CF_LIVENESS;
	(void)kp;
	return fd;
}

/* ---------------------------------------------------------------- open */

static int
on_event(void *ctx, void *data, size_t len)
{
	struct kp *kp = ctx;
	struct kp_event ev;

	if (len < sizeof(ev))
		return 0;
	memcpy(&ev, data, sizeof(ev));
	if (kp->fn != NULL)
		kp->fn(&ev, kp->fnarg);
	kp->nconsumed++;
	return 0;
}

static const char *
kernel_release(void)
{
	static struct utsname u;

	return uname(&u) == 0 ? u.release : "?";
}

/* The counters of ifindex, at zero (kept when they are there). */
static int
counters_make(struct kp *kp, int ifindex)
{
	struct kp_cnt_key k;
	int i;

	memset(kp->pcpu, 0, (size_t)kp->ncpu * sizeof(*kp->pcpu));
	for (i = 0; i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		if (bpf_map_update_elem(kp->fd_counters, &k, kp->pcpu, BPF_NOEXIST) == -1 &&
		    errno != EEXIST)
			return -1;
	}
	return 0;
}

static void
counters_drop(struct kp *kp, int ifindex)
{
	struct kp_cnt_key k;
	int i;

	for (i = 0; i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		bpf_map_delete_elem(kp->fd_counters, &k);
	}
}

/* Is the running kernel at least major.minor? */
static bool
kernel_at_least(int major, int minor)
{
	int ma = 0, mi = 0;

	if (sscanf(kernel_release(), "%d.%d", &ma, &mi) != 2)
		return true;	/* unknown: do not blame its age */
	return ma > major || (ma == major && mi >= minor);
}

struct kp *
kp_open(unsigned max_addrs, unsigned max_links, char *why, size_t whylen)
{
	/* the verifier's log, written only when a load fails; large because
	 * kernels before 6.4 keep the head of a log that does not fit, and
	 * the complaint is at its end (untouched pages cost no memory) */
	static char klog[1 << 20];
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = klog,
	    .kernel_log_size = sizeof(klog), .kernel_log_level = 0);
	struct kp_conf cf;
	struct kp *kp;
	char tail[320];
	int r, e;

	libbpf_set_print(libbpf_log);
	g_loglen = 0;
	g_log[0] = klog[0] = '\0';
	if ((kp = calloc(1, sizeof(*kp))) == NULL) {
		setwhy(why, whylen, "out of memory");
		return NULL;
	}
	kp->watch_sock = kp->live_sock = -1;
	kp->user_id = USER_ID_BASE + 1;

	/* privileges, then features, asked before the load so that the
	 * reason is plain (libbpf's probes say "unsupported" for EPERM too) */
	if ((r = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL)) < 0) {
		e = errno;
		if (e == EPERM || e == EACCES)
			setwhy(why, whylen, "not permitted to use BPF (needs CAP_BPF and CAP_NET_ADMIN, "
			    "or root; the system call may also be filtered out)");
		else
			setwhy(why, whylen, "cannot create a BPF map: %s", strerror(e));
		goto fail;
	}
	close(r);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		setwhy(why, whylen, kernel_at_least(5, 8) ? "the kernel (%s) refused a BPF ring buffer" :
		    "kernel %s has no BPF ring buffer (needs Linux 5.8)", kernel_release());
		goto fail;
	}
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_loop, NULL) != 1) {
		setwhy(why, whylen, kernel_at_least(5, 17) ? "the kernel (%s) refused a TC program "
		    "calling bpf_loop (CAP_NET_ADMIN missing?)" :
		    "kernel %s has no bpf_loop (needs Linux 5.17)", kernel_release());
		goto fail;
	}
	if ((kp->skel = kp_bpf__open_opts(&oo)) == NULL) {
		setwhy(why, whylen, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (max_addrs == 0)
		max_addrs = KP_MAX_ALIVE;
	if (max_links == 0)
		max_links = KP_MAX_IFACES;
	if (max_addrs > (1u << 24) || max_links > (1u << 20)) {
		setwhy(why, whylen, "map sizes out of range (%u addresses, %u links)", max_addrs,
		    max_links);
		goto fail;
	}
	if (bpf_map__set_max_entries(kp->skel->maps.kp_alive, max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_answers, 2 * max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_ifaces, max_links) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_links, max_links) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_counters,
	    (max_links + 1) * KP_NCOUNTERS) != 0) {
		setwhy(why, whylen, "cannot size the maps");
		goto fail;
	}
	if ((r = kp_bpf__load(kp->skel)) != 0) {
		e = -r;
		log_tail(klog, tail, sizeof(tail));
		if (tail[0] != '\0')
			setwhy(why, whylen, "the kernel's verifier refused the program: %s", tail);
		else if (e == EPERM || e == EACCES)
			setwhy(why, whylen, "not permitted to load BPF programs (needs CAP_BPF and "
			    "CAP_NET_ADMIN): %s", strerror(e));
		else {
			log_tail(g_log, tail, sizeof(tail));
			setwhy(why, whylen, "the kernel refused the BPF object (%s)%s%s", strerror(e),
			    tail[0] ? ": " : "", tail);
		}
		goto fail;
	}
	kp->fd_ifaces = bpf_map__fd(kp->skel->maps.kp_ifaces);
	kp->fd_links = bpf_map__fd(kp->skel->maps.kp_links);
	kp->fd_alive = bpf_map__fd(kp->skel->maps.kp_alive);
	kp->fd_answers = bpf_map__fd(kp->skel->maps.kp_answers);
	kp->fd_senders = bpf_map__fd(kp->skel->maps.kp_senders);
	kp->fd_watch = bpf_map__fd(kp->skel->maps.kp_watch);
	kp->fd_conf = bpf_map__fd(kp->skel->maps.kp_conf);
	kp->fd_counters = bpf_map__fd(kp->skel->maps.kp_counters);
	if ((kp->ncpu = libbpf_num_possible_cpus()) <= 0 ||
	    (kp->pcpu = calloc((size_t)kp->ncpu, sizeof(*kp->pcpu))) == NULL) {
		setwhy(why, whylen, "cannot count the CPUs");
		goto fail;
	}
	if (counters_make(kp, 0) == -1) {
		setwhy(why, whylen, "cannot write the counters: %s", strerror(errno));
		goto fail;
	}
	memset(&cf, 0, sizeof(cf));
	if ((kp->live_sock = live_open(kp, &cf)) == -1) {
		setwhy(why, whylen, "cannot open the liveness socket (AF_INET UDP): %s", strerror(errno));
		goto fail;
	}
	if (write_conf(kp, &cf) == -1) {
		setwhy(why, whylen, "cannot write the configuration map: %s", strerror(errno));
		goto fail;
	}
	if ((kp->watch_sock = watch_open(kp)) == -1) {
		setwhy(why, whylen, "cannot start the netlink watcher: %s", strerror(errno));
		goto fail;
	}
	if (resync(kp, false) == -1) {
		setwhy(why, whylen, "cannot read the kernel's links and addresses: %s", strerror(errno));
		goto fail;
	}
	kp->rb = ring_buffer__new(bpf_map__fd(kp->skel->maps.kp_events), on_event, kp, NULL);
	if (kp->rb == NULL) {
		setwhy(why, whylen, "cannot map the event ring: %s", strerror(errno));
		goto fail;
	}
	return kp;
fail:
	kp_close(kp);
	return NULL;
}

static struct kp_att *
att_find(struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < kp->natt; i++)
		if (kp->att[i].ifindex == ifindex)
			return &kp->att[i];
	return NULL;
}

void
kp_close(struct kp *kp)
{
	if (kp == NULL)
		return;
	while (kp->natt > 0)
		kp_detach(kp, kp->att[kp->natt - 1].ifindex);
	free(kp->att);
	ring_buffer__free(kp->rb);
	if (kp->watch_sock != -1)
		close(kp->watch_sock);
	if (kp->live_sock != -1)
		close(kp->live_sock);
	kp_bpf__destroy(kp->skel);
	free(kp->pcpu);
	free(kp);
}

/* ------------------------------------------------------------- TC */

struct tcf {
	int		 ifindex;
	uint32_t	 parent;
	/* out */
	uint32_t	 handle, prio;
	bool		 ours, found;
	int		 nfilters;
	/* purge: delete ours as they come */
	uint32_t	 del_handle[16], del_prio[16];
	int		 ndel;
};

static int
tcf_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct tcf *f = arg;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *o;
	const char *kind = NULL, *name = NULL;

	if (nlh->nlmsg_type != RTM_NEWTFILTER || mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm) ||
	    tcm->tcm_ifindex != f->ifindex || tcm->tcm_handle == 0)
		return 0;
	f->nfilters++;
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) == TCA_KIND && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			kind = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == TCA_OPTIONS)
			mnl_attr_for_each_nested(o, a)
				if (mnl_attr_get_type(o) == TCA_BPF_NAME &&
				    mnl_attr_validate(o, MNL_TYPE_NUL_STRING) == 0)
					name = mnl_attr_get_str(o);
	}
	/* libbpf names it "arpownd_answer:[ID]" */
	if (kind == NULL || strcmp(kind, "bpf") != 0 || name == NULL ||
	    strncmp(name, KP_PROG_NAME ":", sizeof(KP_PROG_NAME)) != 0) {
		if (tcm->tcm_handle == KP_TC_HANDLE && TC_H_MAJ(tcm->tcm_info) >> 16 == KP_TC_PRIO)
			f->found = true;	/* someone else's, at our place */
		return 0;
	}
	if (f->ndel < (int)(sizeof(f->del_handle) / sizeof(f->del_handle[0]))) {
		f->del_handle[f->ndel] = tcm->tcm_handle;
		f->del_prio[f->ndel++] = TC_H_MAJ(tcm->tcm_info) >> 16;
	}
	f->ours = true;
	return 0;
}

/* The filters on ifindex's clsact ingress (or egress); 0 or -1. */
static int
tc_filters(int ifindex, uint32_t min, struct tcf *f)
{
	struct tcmsg tcm;

	memset(f, 0, sizeof(*f));
	f->ifindex = ifindex;
	f->parent = TC_H_MAKE(TC_H_CLSACT, min);
	memset(&tcm, 0, sizeof(tcm));
	tcm.tcm_family = AF_UNSPEC;
	tcm.tcm_ifindex = ifindex;
	tcm.tcm_parent = f->parent;
	return nl_dump(RTM_GETTFILTER, &tcm, sizeof(tcm), tcf_cb, f);
}

int
kp_attach(struct kp *kp, int ifindex, char *why, size_t whylen)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = KP_TC_HANDLE, .priority = KP_TC_PRIO,
	    .flags = BPF_TC_F_REPLACE);
	struct kp_att *at;
	struct tcf f;
	bool made = false;
	int r, i;

	if ((at = att_find(kp, ifindex)) != NULL)
		return 0;
	if (kp->natt == kp->aatt) {
		size_t na = kp->aatt ? kp->aatt * 2 : 16;
		struct kp_att *nv = realloc(kp->att, na * sizeof(*nv));

		if (nv == NULL) {
			setwhy(why, whylen, "out of memory");
			return -1;
		}
		kp->att = nv;
		kp->aatt = na;
	}
	r = bpf_tc_hook_create(&hook);
	if (r == 0)
		made = true;
	else if (r != -EEXIST) {
		setwhy(why, whylen, "cannot add the clsact qdisc: %s", strerror(-r));
		errno = -r;
		return -1;
	}
	if (tc_filters(ifindex, TC_H_MIN_INGRESS, &f) == -1) {
		setwhy(why, whylen, "cannot list the TC filters: %s", strerror(errno));
		return -1;
	}
	if (f.found) {
		setwhy(why, whylen, "another program holds TC handle 0x%x prio 0x%x", KP_TC_HANDLE,
		    KP_TC_PRIO);
		errno = EEXIST;
		return -1;
	}
	/* stale ones of ours elsewhere (another handle): gone first */
	for (i = 0; i < f.ndel; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = f.del_handle[i], .priority = f.del_prio[i]);

		if (f.del_handle[i] != KP_TC_HANDLE || f.del_prio[i] != KP_TC_PRIO)
			bpf_tc_detach(&hook, &d);
	}
	if (counters_make(kp, ifindex) == -1) {
		setwhy(why, whylen, "cannot make the counters: %s", strerror(errno));
		if (made)
			bpf_tc_hook_destroy(&hook);
		return -1;
	}
	opts.prog_fd = bpf_program__fd(kp->skel->progs.arpownd_answer);
	if ((r = bpf_tc_attach(&hook, &opts)) != 0) {
		setwhy(why, whylen, "cannot attach to TC ingress: %s", strerror(-r));
		if (made)
			bpf_tc_hook_destroy(&hook);
		errno = -r;
		return -1;
	}
	at = &kp->att[kp->natt++];
	at->ifindex = ifindex;
	at->made_qdisc = made;
	return 0;
}

int
kp_detach(struct kp *kp, int ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = KP_TC_HANDLE, .priority = KP_TC_PRIO);
	struct kp_att *at = att_find(kp, ifindex);
	struct tcf in, eg;
	uint32_t k = (uint32_t)ifindex;
	int r = 0;

	if (at == NULL)
		return 0;
	if (bpf_tc_detach(&hook, &opts) != 0 && if_indextoname((unsigned)ifindex, (char[IF_NAMESIZE]){ 0 }))
		r = -1;
	/* the qdisc we made, when nothing else came to use it */
	if (at->made_qdisc && tc_filters(ifindex, TC_H_MIN_INGRESS, &in) == 0 &&
	    tc_filters(ifindex, TC_H_MIN_EGRESS, &eg) == 0 && in.nfilters == 0 && eg.nfilters == 0) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	bpf_map_delete_elem(kp->fd_ifaces, &k);
	counters_drop(kp, ifindex);
	*at = kp->att[--kp->natt];
	return r;
}

struct purge {
	int	 n, err;
	int	*idx;
	size_t	 nidx, aidx;
};

static int
purge_link(const struct nlmsghdr *nlh, void *arg)
{
	struct purge *p = arg;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int *nv;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return 0;
	if (p->nidx == p->aidx) {
		p->aidx = p->aidx ? p->aidx * 2 : 64;
		if ((nv = realloc(p->idx, p->aidx * sizeof(*nv))) == NULL)
			return -1;
		p->idx = nv;
	}
	p->idx[p->nidx++] = ifi->ifi_index;
	return 0;
}

int
kp_purge(char *why, size_t whylen)
{
	struct purge p;
	struct ifinfomsg ifi;
	struct tcf f;
	size_t i;
	int k;

	libbpf_set_print(libbpf_log);
	memset(&p, 0, sizeof(p));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	if (nl_dump(RTM_GETLINK, &ifi, sizeof(ifi), purge_link, &p) == -1) {
		setwhy(why, whylen, "cannot list the interfaces: %s", strerror(errno));
		free(p.idx);
		return -1;
	}
	for (i = 0; i < p.nidx; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = p.idx[i], .attach_point = BPF_TC_INGRESS);

		if (tc_filters(p.idx[i], TC_H_MIN_INGRESS, &f) == -1)
			continue;	/* no clsact there, or it went */
		for (k = 0; k < f.ndel; k++) {
			DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = f.del_handle[k],
			    .priority = f.del_prio[k]);

			if (bpf_tc_detach(&hook, &d) == 0)
				p.n++;
			else {
				p.err = -1;
				setwhy(why, whylen, "cannot remove the filter from ifindex %d",
				    p.idx[i]);
			}
		}
	}
	free(p.idx);
	return p.err == -1 ? -1 : p.n;
}

/* ------------------------------------------------------------- grants */

int
kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags)
{
	struct kp_iface v;
	struct kp_link l;
	uint32_t k = (uint32_t)ifindex;

	memset(&v, 0, sizeof(v));
	memcpy(v.mac, mac, 6);
	v.mode = (uint8_t)mode;
	v.flags = (uint8_t)flags;
	/* the link instance the kernel has now, if it has the daemon's MAC
	 * and master: otherwise an event the daemon has not read yet changed
	 * them, and nothing is answered until it has */
	if (bpf_map_lookup_elem(kp->fd_links, &k, &l) == 0 && memcmp(l.mac, mac, 6) == 0 &&
	    l.master == (uint32_t)master)
		v.link_id = l.id;
	return bpf_map_update_elem(kp->fd_ifaces, &k, &v, BPF_ANY);
}

int
kp_del_iface(struct kp *kp, int ifindex)
{
	uint32_t k = (uint32_t)ifindex;

	if (bpf_map_delete_elem(kp->fd_ifaces, &k) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

/* The refs of a grant, each with the instance the kernel has now: a
 * missing entry gets id 0, which never confirms. */
static void
fill_refs(struct kp *kp, struct kp_answer *a, const struct kp_ifa *refs, size_t n, bool holders)
{
	struct kp_link l;
	size_t i;

	if (n > KP_NREF)
		n = KP_NREF;
	a->nref = (uint8_t)n;
	for (i = 0; i < n; i++) {
		struct kp_ref *r = &a->ref[i];
		uint32_t li = (uint32_t)refs[i].ifindex;

		ifa_key(&r->ifa, refs[i].ifindex, refs[i].local, refs[i].prefix, refs[i].plen);
		r->kind = refs[i].kind;
		if (bpf_map_lookup_elem(kp->fd_alive, &r->ifa, &r->id) == -1)
			r->id = 0;
		if (holders)
			r->link_id = bpf_map_lookup_elem(kp->fd_links, &li, &l) == 0 ? l.id : 0;
	}
}

int
kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	struct kp_answer a;

	memset(&a, 0, sizeof(a));
	fill_refs(kp, &a, refs, n, false);
	return bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY);
}

int
kp_set_published(struct kp *kp, int ifindex, uint32_t addr, const uint8_t mac[6])
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	struct kp_answer a;

	memset(&a, 0, sizeof(a));
	memcpy(a.mac, mac, 6);
	a.flags = KP_ANS_PUBLISHED;
	return bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY);
}

int
kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };

	if (bpf_map_delete_elem(kp->fd_answers, &k) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

int
kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{
	struct kp_ans_key k = { 0, addr };
	struct kp_answer a;
	struct kp_conf c;
	int e;

	memset(&a, 0, sizeof(a));
	a.flags = KP_ANS_LOCAL;
	fill_refs(kp, &a, holders, n, true);
	if (bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY) == 0)
		return 0;
	/* a sender using addr would not be known as one of ours: the program
	 * answers nothing more (kp_open sized the maps too small) */
	e = errno;
	if (read_conf(kp, &c) == 0) {
		c.flags |= KP_CF_FULL;
		write_conf(kp, &c);
	}
	errno = e;
	return -1;
}

int
kp_del_local(struct kp *kp, uint32_t addr)
{
	return kp_del_answer(kp, 0, addr);
}

/* ------------------------------------------------------------ senders */

static void
lpm_key(struct kp_lpm_key *k, int ifindex, uint32_t addr, unsigned len)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 32 + len;
	k->ifindex = htonl((uint32_t)ifindex);
	k->addr = htonl(addr);
}

int
kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{
	struct kp_lpm_key k, *prev = NULL, *old = NULL, *nk, want;
	struct kp_iface cur, hold;
	uint32_t key = (uint32_t)ifindex;
	bool have = bpf_map_lookup_elem(kp->fd_ifaces, &key, &cur) == 0, keep;
	size_t nold = 0, aold = 0, i, j;
	int rc = -1, e = 0;
	uint8_t bits;

	/* while the trie changes, nothing is answered on ifindex */
	if (have) {
		hold = cur;
		hold.mode = KP_MODE_NONE;
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &hold, BPF_ANY) == -1)
			return -1;
	}
	/* what ifindex has now */
	while (bpf_map_get_next_key(kp->fd_senders, prev, &k) == 0) {
		if (nold == aold) {
			aold = aold ? aold * 2 : 64;
			if ((nk = realloc(old, (aold + 1) * sizeof(*old))) == NULL)
				goto out;
			old = nk;
		}
		if (k.ifindex == htonl((uint32_t)ifindex))
			old[nold++] = k;
		old[aold] = k;		/* the walk's position, past the kept ones */
		prev = &old[aold];
	}
	for (i = 0; i < n; i++) {
		lpm_key(&want, ifindex, v[i].addr, v[i].len);
		bits = v[i].bits;
		if (v[i].len > 32 || bpf_map_update_elem(kp->fd_senders, &want, &bits, BPF_ANY) == -1)
			goto out;
	}
	for (i = 0; i < nold; i++) {
		for (j = 0, keep = false; j < n && !keep; j++) {
			lpm_key(&want, ifindex, v[j].addr, v[j].len);
			keep = memcmp(&old[i], &want, sizeof(want)) == 0;
		}
		if (!keep)
			bpf_map_delete_elem(kp->fd_senders, &old[i]);
	}
	rc = 0;
out:
	e = errno;
	if (have && rc == 0) {
		cur.flags = (uint8_t)((cur.flags & ~(KP_IF_SENDERS | KP_IF_ALLOWLIST)) |
		    (n > 0 || allowlist ? KP_IF_SENDERS : 0) | (allowlist ? KP_IF_ALLOWLIST : 0));
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &cur, BPF_ANY) == -1) {
			e = errno;
			rc = -1;
		}
	}
	free(old);
	errno = e;
	return rc;
}

int
kp_set_limits(struct kp *kp, long sender_rate, long total_rate, long learn_rate)
{
	struct kp_conf c;

	if (read_conf(kp, &c) == -1)
		return -1;
	c.sender_rate = sender_rate > 0 ? (uint64_t)sender_rate : 0;
	c.total_rate = total_rate > 0 ? (uint64_t)total_rate : 0;
	c.learn_rate = learn_rate > 0 ? (uint64_t)learn_rate : 0;
	return write_conf(kp, &c);
}

/* ----------------------------------------------------- counters, events */

int
kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS])
{
	struct kp_cnt_key k, *prev = NULL, next;
	int c, i;

	memset(out, 0, KP_NCOUNTERS * sizeof(out[0]));
	while (bpf_map_get_next_key(kp->fd_counters, prev, &next) == 0) {
		k = next;
		prev = &k;
		if ((ifindex != 0 && k.ifindex != (uint32_t)ifindex) || k.what >= KP_NCOUNTERS ||
		    bpf_map_lookup_elem(kp->fd_counters, &k, kp->pcpu) == -1)
			continue;
		for (c = 0; c < kp->ncpu; c++)
			out[k.what] += kp->pcpu[c];
	}
	/* every frame seen has one outcome */
	for (i = KP_C_ANSWERED; i <= KP_C_PASS_TRIM; i++)
		out[KP_C_RX] += out[i];
	return 0;
}

static const char *const counter_names[KP_NCOUNTERS] = {
	[KP_C_RX] = "received",
	[KP_C_ANSWERED] = "answered",
	[KP_C_LIMITED_SENDER] = "limited-sender",
	[KP_C_LIMITED_TOTAL] = "limited-total",
	[KP_C_PASS_INVALID] = "pass-invalid",
	[KP_C_PASS_REPLY] = "pass-reply",
	[KP_C_PASS_GRATUITOUS] = "pass-gratuitous",
	[KP_C_PASS_VLAN] = "pass-vlan",
	[KP_C_PASS_MODE] = "pass-mode",
	[KP_C_PASS_STALE] = "pass-stale",
	[KP_C_PASS_OURS] = "pass-ours",
	[KP_C_PASS_SENDER] = "pass-sender",
	[KP_C_PASS_PROBE] = "pass-probe",
	[KP_C_PASS_NO_ENTRY] = "pass-no-entry",
	[KP_C_PASS_UNCONFIRMED] = "pass-unconfirmed",
	[KP_C_PASS_NOT_SUBNET] = "pass-not-subnet",
	[KP_C_PASS_TRIM] = "pass-trim",
	[KP_C_RING_DROPS] = "ring-drops",
	[KP_C_EVENTS] = "events",
};

const char *
kp_counter_name(int i)
{
	return i >= 0 && i < KP_NCOUNTERS ? counter_names[i] : "?";
}

int
kp_events_fd(const struct kp *kp)
{
	return ring_buffer__epoll_fd(kp->rb);
}

int
kp_consume(struct kp *kp, kp_event_fn *fn, void *arg)
{
	int r;

	kp->fn = fn;
	kp->fnarg = arg;
	kp->nconsumed = 0;
	r = ring_buffer__consume(kp->rb);
	kp->fn = NULL;
	return r < 0 ? -1 : kp->nconsumed;
}

#else /* !HAVE_BPF */

#include <errno.h>
#include <stdio.h>

struct kp *
kp_open(unsigned max_addrs, unsigned max_links, char *why, size_t whylen)
{
	(void)max_addrs;
	(void)max_links;
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "built without BPF support (configure --enable-bpf)");
	errno = ENOSYS;
	return NULL;
}

void kp_close(struct kp *kp) { (void)kp; }
int kp_attach(struct kp *kp, int ifindex, char *why, size_t whylen)
{ (void)kp; (void)ifindex; (void)why; (void)whylen; errno = ENOSYS; return -1; }
int kp_detach(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; errno = ENOSYS; return -1; }
int kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags)
{ (void)kp; (void)ifindex; (void)mode; (void)mac; (void)master; (void)flags; errno = ENOSYS; return -1; }
int kp_del_iface(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; errno = ENOSYS; return -1; }
int kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{ (void)kp; (void)ifindex; (void)addr; (void)refs; (void)n; errno = ENOSYS; return -1; }
int kp_set_published(struct kp *kp, int ifindex, uint32_t addr, const uint8_t mac[6])
{ (void)kp; (void)ifindex; (void)addr; (void)mac; errno = ENOSYS; return -1; }
int kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{ (void)kp; (void)ifindex; (void)addr; errno = ENOSYS; return -1; }
int kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{ (void)kp; (void)addr; (void)holders; (void)n; errno = ENOSYS; return -1; }
int kp_del_local(struct kp *kp, uint32_t addr) { (void)kp; (void)addr; errno = ENOSYS; return -1; }
int kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{ (void)kp; (void)ifindex; (void)v; (void)n; (void)allowlist; errno = ENOSYS; return -1; }
int kp_set_limits(struct kp *kp, long sender_rate, long total_rate, long learn_rate)
{ (void)kp; (void)sender_rate; (void)total_rate; (void)learn_rate; errno = ENOSYS; return -1; }
int kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS])
{ (void)kp; (void)ifindex; (void)out; errno = ENOSYS; return -1; }
const char *kp_counter_name(int i) { (void)i; return "?"; }
int kp_events_fd(const struct kp *kp) { (void)kp; return -1; }
int kp_consume(struct kp *kp, kp_event_fn *fn, void *arg)
{ (void)kp; (void)fn; (void)arg; errno = ENOSYS; return -1; }
bool kp_needs_resync(struct kp *kp) { (void)kp; return false; }
int kp_resync(struct kp *kp) { (void)kp; errno = ENOSYS; return -1; }
int kp_purge(char *why, size_t whylen) { (void)why; (void)whylen; return 0; }

#endif
