/* kpmirror.c — the kernel's own links and IPv4 address entries, mirrored
 * into kp_links and kp_alive, which the program confirms every answer
 * against: the dump at open and after a lost notification (resync), and
 * the two sockets that keep the mirror honest while the daemon cannot:
 * the netlink watcher (a socket filter that revokes entries in the
 * kernel, synchronously, as the notifications are sent) and the liveness
 * socket (gone with the process, and the answers with it). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "answer.skel.h"
#include "kpint.h"
#include "rtnl.h"

#ifndef SO_ATTACH_BPF
#define SO_ATTACH_BPF		50
#endif

#define RESYNC_TRIES	8

struct resync {
	struct kp		*kp;
	struct kpb		 pend;		/* address entries to write, batched */
	uint32_t		*links;		/* keys we inserted, and their ids */
	uint64_t		*link_ids;
	size_t			 nlinks, alinks;
	struct kp_ifa_key	*addrs;
	uint64_t		*addr_ids;
	size_t			 naddrs, aaddrs;
	uint64_t		 full;		/* entries kp_alive had no room for */
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
	struct rtnl_msg m;
	struct kp_link l;
	uint32_t idx;

	/* as the watcher: up and doing ARP, with a MAC; read as the table
	 * reads it (rtnl_parse), so the two cannot differ on a message */
	if (rtnl_parse(nlh, &m) == -1 || m.kind != RTNL_NEWLINK || !(m.flags & IFF_UP) ||
	    (m.flags & IFF_NOARP) || !m.has_mac)
		return 0;
	memset(&l, 0, sizeof(l));
	memcpy(l.mac, m.mac, 6);
	l.master = (uint32_t)m.master;
	l.id = rs->kp->user_id++;
	idx = (uint32_t)m.ifindex;
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

/* An address entry written (the watcher's own, already there, stays) or
 * refused for want of room (never confirmed: passed up, reported). */
static void
rs_written(void *arg, uint64_t id, const void *key, int rc, int e)
{
	struct resync *rs = arg;

	if (rc == 0) {
		if (grow((void **)&rs->addrs, (void **)&rs->addr_ids, &rs->aaddrs, rs->naddrs,
		    sizeof(*rs->addrs)) == -1) {
			rs->err = -1;
			return;
		}
		memcpy(&rs->addrs[rs->naddrs], key, sizeof(*rs->addrs));
		rs->addr_ids[rs->naddrs++] = id;
	} else if (e == E2BIG)
		rs->full++;
	else if (e != EEXIST)
		rs->err = -1;
}

static int
rs_addr(const struct nlmsghdr *nlh, void *arg)
{
	struct resync *rs = arg;
	struct kp_ifa_key k;
	struct rtnl_msg m;
	uint64_t id;

	if (rtnl_parse(nlh, &m) == -1 || m.kind != RTNL_NEWADDR)
		return 0;
	kp_ifa_key(&k, m.ifindex, m.addr, m.prefix, m.plen);
	id = rs->kp->user_id++;
	/* written with the dump's others, a syscall for thousands */
	if (kpb_put(&rs->pend, &k, &id, id, rs_written, rs) == -1 && rs->err == -1)
		return -1;
	return 0;
}

int
kpm_read_watch(struct kp *kp, struct kp_watch *w)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(kp->fd_watch, &zero, w) == 0 ? 0 : -1;
}

int
kpm_read_conf(struct kp *kp, struct kp_conf *c)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(kp->fd_conf, &zero, c) == 0 ? 0 : -1;
}

int
kpm_write_conf(struct kp *kp, const struct kp_conf *c)
{
	uint32_t zero = 0;

	return bpf_map_update_elem(kp->fd_conf, &zero, c, BPF_ANY) == 0 ? 0 : -1;
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

/* ------------------------------------------------------ the ids written */

static size_t
ids_slot(const struct kp_ifa_key *k, size_t cap)
{
	uint64_t h = ((uint64_t)k->ifindex << 32 | k->local) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)k->net << 8 | k->plen) * 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ h >> 29) & (cap - 1);
}

void
kpm_ids_clear(struct kp *kp)
{
	free(kp->ids.k);
	free(kp->ids.id);
	memset(&kp->ids, 0, sizeof(kp->ids));
	free(kp->link_ids);
	kp->link_ids = NULL;
	kp->nlink_ids = 0;
}

/* What a resync wrote, for kp_batch's grants: looked up here, not in the
 * map.  Out of memory they are simply not kept (the map is asked). */
static void
ids_keep(struct kp *kp, const struct resync *rs)
{
	size_t cap = 16, i, j;
	uint32_t mx = 0;

	kpm_ids_clear(kp);
	if (!kp->keep_ids)
		return;
	while (cap < 2 * rs->naddrs + 2)
		cap *= 2;
	kp->ids.k = calloc(cap, sizeof(*kp->ids.k));
	kp->ids.id = calloc(cap, sizeof(*kp->ids.id));
	if (kp->ids.k == NULL || kp->ids.id == NULL) {
		kpm_ids_clear(kp);
		return;
	}
	kp->ids.cap = cap;
	for (i = 0; i < rs->naddrs; i++) {
		for (j = ids_slot(&rs->addrs[i], cap); kp->ids.id[j] != 0; j = (j + 1) & (cap - 1))
			;
		kp->ids.k[j] = rs->addrs[i];
		kp->ids.id[j] = rs->addr_ids[i];
		kp->ids.n++;
	}
	for (i = 0; i < rs->nlinks; i++)
		if (rs->links[i] > mx)
			mx = rs->links[i];
	if (rs->nlinks > 0 && mx < (1u << 22) &&
	    (kp->link_ids = calloc((size_t)mx + 1, sizeof(*kp->link_ids))) != NULL) {
		kp->nlink_ids = (size_t)mx + 1;
		for (i = 0; i < rs->nlinks; i++)
			kp->link_ids[rs->links[i]] = rs->link_ids[i];
	}
}

bool
kpm_id(const struct kp *kp, const struct kp_ifa_key *k, uint64_t *id)
{
	size_t j;

	if (kp->ids.cap == 0)
		return false;
	for (j = ids_slot(k, kp->ids.cap); kp->ids.id[j] != 0; j = (j + 1) & (kp->ids.cap - 1))
		if (memcmp(&kp->ids.k[j], k, sizeof(*k)) == 0) {
			*id = kp->ids.id[j];
			return true;
		}
	return false;
}

bool
kpm_link_id(const struct kp *kp, uint32_t ifindex, uint64_t *id)
{
	if (ifindex >= kp->nlink_ids || kp->link_ids[ifindex] == 0)
		return false;
	*id = kp->link_ids[ifindex];
	return true;
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
int
kpm_resync(struct kp *kp, bool full)
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
		/* BPF_ANY, not BPF_NOEXIST (a batch takes no NOEXIST): an
		 * entry the watcher wrote meanwhile is overwritten with the
		 * dump's id.  Safe: that entry exists (the dump saw it); and
		 * if it was deleted and added again after the dump read it,
		 * the delete moved the revocation count, and what we wrote is
		 * taken back below (an entry missing is safe) */
		if (kpb_init(&rs.pend, kp->fd_alive, sizeof(struct kp_ifa_key), sizeof(uint64_t),
		    BPF_ANY, 4096) == -1)
			return -1;
		if (kpm_read_watch(kp, &w0) == -1 || kpm_read_conf(kp, &cf) == -1)
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
		if (kpn_dump(RTM_GETLINK, &ifi, sizeof(ifi), rs_link, &rs) == -1 ||
		    kpn_dump(RTM_GETADDR, &ifa, sizeof(ifa), rs_addr, &rs) == -1 ||
		    (kpb_flush(&rs.pend, rs_written, &rs), rs.err == -1) ||
		    kpm_read_watch(kp, &w1) == -1) {
			kpb_free(&rs.pend);
			free(rs.links);
			free(rs.link_ids);
			free(rs.addrs);
			free(rs.addr_ids);
			return -1;
		}
		kpb_free(&rs.pend);
		if (w1.revokes == w0.revokes) {
			kp->mirror_short = rs.full;
			kp->alive_seen = w0.alive_full;
			if (cf.ok_gen != w0.bad_gen) {
				cf.ok_gen = w0.bad_gen;
				if (kpm_write_conf(kp, &cf) == -1)
					return -1;
			}
			ids_keep(kp, &rs);
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

/* Counting replies of a dump. */
static int
count_cb(const struct nlmsghdr *nlh, void *arg)
{
	if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_NEWLINK)
		(*(unsigned *)arg)++;
	return 0;
}

int
kp_count(unsigned *addrs, unsigned *links)
{
	struct ifinfomsg ifi;
	struct ifaddrmsg ifa;

	/* IPv4 entries alone (getifaddrs reads every IPv6 one too) */
	*addrs = *links = 0;
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	memset(&ifa, 0, sizeof(ifa));
	ifa.ifa_family = AF_INET;
	if (kpn_dump(RTM_GETADDR, &ifa, sizeof(ifa), count_cb, addrs) == -1 ||
	    kpn_dump(RTM_GETLINK, &ifi, sizeof(ifi), count_cb, links) == -1)
		return -1;
	return 0;
}

int
kp_watch_stats(struct kp *kp, struct kp_watch *out)
{
	return kpm_read_watch(kp, out);
}

void
kp_dump(struct kp *kp, FILE *f)
{
	struct kp_ifa_key k, *pk = NULL;
	struct kp_ans_key ak, *pak = NULL;
	struct kp_answer a;
	char l[INET_ADDRSTRLEN], n[INET_ADDRSTRLEN];
	uint32_t lk, *pl;
	uint64_t id;
	int i;

	while (bpf_map_get_next_key(kp->fd_alive, pk, &k) == 0) {
		pk = &k;
		if (bpf_map_lookup_elem(kp->fd_alive, &k, &id) == 0)
			fprintf(f, "alive ifindex=%u local=%s net=%s/%u pad=%02x%02x%02x id=%llu\n",
			    k.ifindex, inet_ntop(AF_INET, &k.local, l, sizeof(l)),
			    inet_ntop(AF_INET, &k.net, n, sizeof(n)), k.plen, k.pad[0], k.pad[1],
			    k.pad[2], (unsigned long long)id);
	}
	while (bpf_map_get_next_key(kp->fd_answers, pak, &ak) == 0) {
		pak = &ak;
		if (bpf_map_lookup_elem(kp->fd_answers, &ak, &a) != 0)
			continue;
		fprintf(f, "grant ifindex=%u addr=%s flags=%#x", ak.ifindex,
		    inet_ntop(AF_INET, &ak.addr, l, sizeof(l)), a.flags);
		for (i = 0; i < a.nref && i < KP_NREF; i++)
			fprintf(f, " ref=%u:%s/%u:%llu", a.ref[i].ifa.ifindex,
			    inet_ntop(AF_INET, &a.ref[i].ifa.local, n, sizeof(n)), a.ref[i].ifa.plen,
			    (unsigned long long)a.ref[i].id);
		fputc('\n', f);
	}
	for (pl = NULL; bpf_map_get_next_key(kp->fd_locals, pl, &lk) == 0; pl = &lk) {
		if (bpf_map_lookup_elem(kp->fd_locals, &lk, &a) != 0)
			continue;
		fprintf(f, "local addr=%s", inet_ntop(AF_INET, &lk, l, sizeof(l)));
		for (i = 0; i < a.nref && i < KP_NREF; i++)
			fprintf(f, " ref=%u:%s/%u:%llu", a.ref[i].ifa.ifindex,
			    inet_ntop(AF_INET, &a.ref[i].ifa.local, n, sizeof(n)), a.ref[i].ifa.plen,
			    (unsigned long long)a.ref[i].id);
		fputc('\n', f);
	}
}

bool
kp_needs_resync(struct kp *kp)
{
	struct kp_watch w;
	struct kp_conf c;

	return kpm_read_watch(kp, &w) == 0 && kpm_read_conf(kp, &c) == 0 && w.bad_gen != c.ok_gen;
}

int
kp_resync(struct kp *kp)
{
	return kpm_resync(kp, true);
}

int
kp_remirror(struct kp *kp)
{
	return kpm_resync(kp, false);
}

/* ------------------------------------------------------------ sockets */

/* The watcher: an rtnetlink socket on the link and IPv4 address groups,
 * the filter attached before it joins them, nothing ever queued. */
int
kpm_watch_open(struct kp *kp)
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
int
kpm_live_open(struct kp *kp, struct kp_conf *cf)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	uint8_t r[3];
	uint32_t mark;
	int fd, one = 1;

	if (getrandom(r, sizeof(r), 0) != sizeof(r) ||
	    getrandom(&mark, sizeof(mark), 0) != sizeof(mark))
		return -1;
	mark |= 1;	/* 0 is every unmarked socket's */
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)(r[0] | 0x80) << 16 |
	    (uint32_t)r[1] << 8 | (uint32_t)(r[2] | 1));
	if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl) == -1) {
		close(fd);
		return -1;
	}
	cf->live_addr = sin.sin_addr.s_addr;
	cf->live_port = sin.sin_port;
	cf->live_mark = mark;
	cf->flags |= KP_CF_LIVENESS;
	(void)kp;
	return fd;
}
