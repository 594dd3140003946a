/* kpgrant.c — the daemon's writes into the kernel answer path's maps: an
 * interface's settings, the grants of its addresses (each naming the
 * kernel entries it rests on, with the instance the mirror holds now),
 * published addresses, the host's own, the sender sets and the limits;
 * and what could not be confirmed yet, for the daemon to write again. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kpint.h"

/* ------------------------------------------------------------- grants */

/* ifindex has a grant or a setting the mirror cannot confirm yet. */
static void
unconfirmed(struct kp *kp, int ifindex)
{
	util_ifset_add(&kp->unconf, ifindex);
}

void
kp_take_unconfirmed(struct kp *kp, struct util_ifset *out)
{
	*out = kp->unconf;
	memset(&kp->unconf, 0, sizeof(kp->unconf));
}

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
	    l.master == (uint32_t)master && l.id != 0)
		v.link_id = l.id;
	else
		unconfirmed(kp, ifindex);
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

		kp_ifa_key(&r->ifa, refs[i].ifindex, refs[i].local, refs[i].prefix, refs[i].plen);
		r->kind = refs[i].kind;
		/* 0 is no instance (the watcher's ids start at 1, ours at
		 * USER_ID_BASE + 1); on 6.1 a lookup racing the watcher's
		 * insert was seen to return it */
		if (bpf_map_lookup_elem(kp->fd_alive, &r->ifa, &r->id) == -1 || r->id == 0) {
			r->id = 0;
			unconfirmed(kp, refs[i].ifindex);
		}
		if (holders) {
			r->link_id = bpf_map_lookup_elem(kp->fd_links, &li, &l) == 0 ? l.id : 0;
			if (r->link_id == 0)
				unconfirmed(kp, refs[i].ifindex);
		}
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
	if (kpm_read_conf(kp, &c) == 0) {
		c.flags |= KP_CF_FULL;
		kpm_write_conf(kp, &c);
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

	if (kpm_read_conf(kp, &c) == -1)
		return -1;
	c.sender_rate = sender_rate > 0 ? (uint64_t)sender_rate : 0;
	c.total_rate = total_rate > 0 ? (uint64_t)total_rate : 0;
	c.learn_rate = learn_rate > 0 ? (uint64_t)learn_rate : 0;
	return kpm_write_conf(kp, &c);
}
