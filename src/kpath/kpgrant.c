/* kpgrant.c — the daemon's grants in the kernel answer path's maps: an
 * interface's settings, the grants of its addresses (each naming the
 * kernel entries it rests on, with the instance the mirror holds now),
 * published ranges and the host's own addresses; what could not be
 * confirmed yet, for the daemon to write again.  What a full map refused
 * is kproom.c's; the sender sets and the limits, kpsender.c's. */
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
	struct kp_snd *sh;
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
	/* as last written: left alone (a reload of 1,000 interfaces that
	 * changed one) */
	if ((sh = kp_snd_of(kp, ifindex, true)) != NULL && sh->have &&
	    memcmp(&sh->iface, &v, sizeof(v)) == 0)
		return 0;
	/* libbpf returns -errno: 0 or -1 here, as the header says */
	if (bpf_map_update_elem(kp->fd_ifaces, &k, &v, BPF_ANY) != 0) {
		if (sh != NULL)
			sh->have = false;
		return -1;
	}
	if (sh != NULL) {
		sh->iface = v;
		sh->have = true;
	}
	return 0;
}

int
kp_del_iface(struct kp *kp, int ifindex)
{
	uint32_t k = (uint32_t)ifindex;
	struct kp_snd *sh;

	kp_keys_del(&kp->unheld_ifs, (uint64_t)k);
	if ((sh = kp_snd_of(kp, ifindex, false)) != NULL)
		sh->have = false;
	if (bpf_map_delete_elem(kp->fd_ifaces, &k) != 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* The refs of a grant, each with the instance the kernel has now: a
 * missing entry gets id 0, which never confirms. */
static void
fill_refs(struct kp *kp, struct kp_answer *a, const struct kp_ifa *refs, size_t n, bool holders)
{
	struct kp_link l;
	uint64_t id;
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
		 * insert was seen to return it.  In a batch, the id the
		 * resync just wrote: one the watcher replaced meanwhile never
		 * confirms (passed up), and the event that replaced it, read
		 * after the batch, writes the grant again */
		if (kp->batching && kpm_id(kp, &r->ifa, &id))
			r->id = id;
		else if (bpf_map_lookup_elem(kp->fd_alive, &r->ifa, &r->id) != 0)
			r->id = 0;
		if (r->id == 0)
			unconfirmed(kp, refs[i].ifindex);
		if (holders) {
			if (kp->batching && kpm_link_id(kp, li, &id))
				r->link_id = id;
			else
				r->link_id = bpf_map_lookup_elem(kp->fd_links, &li, &l) == 0 ?
				    l.id : 0;
			if (r->link_id == 0)
				unconfirmed(kp, refs[i].ifindex);
		}
	}
}

/* A batched grant written or refused (kpbatch.c): kept as kp_set_answer's. */
static void
answer_done(void *arg, uint64_t tag, const void *key, int rc, int e)
{
	(void)key;
	kp_note_write(arg, &((struct kp *)arg)->unheld, tag, rc, e, false);
}

/* A batched marker: one that does not fit stops every answer. */
static void
local_done(void *arg, uint64_t tag, const void *key, int rc, int e)
{
	struct kp *kp = arg;

	(void)key;
	if (rc == -1)
		kp_set_full(kp, true);
	kp_note_write(kp, &kp->unheld, tag, rc, rc == -1 ? (e == E2BIG || e == ENOMEM ? E2BIG : e) :
	    0, true);
}

int
kp_batch(struct kp *kp, bool on)
{
	int rc = 0;

	if (on && !kp->batching) {
		if (kpb_init(&kp->b_answers, kp->fd_answers, sizeof(struct kp_ans_key),
		    sizeof(struct kp_answer), BPF_ANY, KP_BATCH) == -1 ||
		    kpb_init(&kp->b_locals, kp->fd_locals, sizeof(uint32_t),
		    sizeof(struct kp_answer), BPF_ANY, KP_BATCH) == -1) {
			kpb_free(&kp->b_answers);
			return -1;	/* one by one, then */
		}
		kp->batching = true;
		return 0;
	}
	if (!on && kp->batching) {
		/* the markers first: a sender using one of ours is known as
		 * such before anything is answered */
		if (kpb_flush(&kp->b_locals, local_done, kp) == -1)
			rc = -1;
		if (kpb_flush(&kp->b_answers, answer_done, kp) == -1)
			rc = -1;
		kpb_free(&kp->b_locals);
		kpb_free(&kp->b_answers);
		kp->batching = false;
		kpm_ids_clear(kp);
	}
	return rc;
}

int
kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	struct kp_answer a;
	int rc, e;

	if (ifindex == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	fill_refs(kp, &a, refs, n, false);
	if (kp->batching)
		return kpb_put(&kp->b_answers, &k, &a, kp_grant_key(ifindex, addr), answer_done, kp) ==
		    -1 && errno == ENOMEM ? -1 : 0;
	rc = bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY) == 0 ? 0 : -1;
	e = errno;
	kp_note_write(kp, &kp->unheld, kp_grant_key(ifindex, addr), rc, e, false);
	errno = e;
	return rc;
}

int
kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	int rc;

	/* (0, addr) is a marker's key in the unheld set, not a grant's */
	if (ifindex == 0)
		return 0;
	if (kp->batching)
		(void)kpb_flush(&kp->b_answers, answer_done, kp);	/* its put first */
	rc = bpf_map_delete_elem(kp->fd_answers, &k) == 0 ? 0 : -1;

	if (rc == -1 && errno != ENOENT)
		return -1;
	kp_note_gone(kp, &kp->unheld, kp_grant_key(ifindex, addr), rc == 0, false);
	return 0;
}

/* The key of a published CIDR in the unheld set: (ifindex, len, addr). */
static uint64_t
pub_key(int ifindex, uint32_t addr, uint8_t len)
{
	return (uint64_t)(uint32_t)ifindex << 40 | (uint64_t)len << 32 | addr;
}

static void
pub_lpm(struct kp_lpm_key *k, int ifindex, uint32_t addr, uint8_t len)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 32u + len;
	k->ifindex = htonl((uint32_t)ifindex);
	k->addr = addr & rule_mask_n(len);
}

int
kp_set_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len, const uint8_t *mac)
{
	struct kp_lpm_key k;
	struct kp_pub v;
	int rc, e;

	if (len > 32) {
		errno = EINVAL;
		return -1;
	}
	pub_lpm(&k, ifindex, addr, len);
	memset(&v, 0, sizeof(v));
	if (mac != NULL) {
		memcpy(v.mac, mac, 6);
		v.flags = KP_PUB_MAC;
	}
	rc = bpf_map_update_elem(kp->fd_pub, &k, &v, BPF_ANY) == 0 ? 0 : -1;
	e = errno;
	kp_note_write(kp, &kp->unheld_pub, pub_key(ifindex, k.addr, len), rc, e, false);
	errno = e;
	return rc;
}

int
kp_del_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len)
{
	struct kp_lpm_key k;
	int rc;

	if (len > 32)
		return 0;
	pub_lpm(&k, ifindex, addr, len);
	rc = bpf_map_delete_elem(kp->fd_pub, &k) == 0 ? 0 : -1;
	if (rc == -1 && errno != ENOENT)
		return -1;
	kp_note_gone(kp, &kp->unheld_pub, pub_key(ifindex, k.addr, len), rc == 0, false);
	return 0;
}

int
kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{
	struct kp_answer a;
	int rc, e;

	memset(&a, 0, sizeof(a));
	a.flags = KP_ANS_LOCAL;
	fill_refs(kp, &a, holders, n, true);
	if (kp->batching)
		return kpb_put(&kp->b_locals, &addr, &a, kp_grant_key(0, addr), local_done, kp) ==
		    -1 && errno == ENOMEM ? -1 : 0;
	rc = bpf_map_update_elem(kp->fd_locals, &addr, &a, BPF_ANY) == 0 ? 0 : -1;
	e = errno;
	/* one that does not fit: a sender using addr would not be known as
	 * one of ours, so the program answers nothing until it does */
	if (rc == -1)
		kp_set_full(kp, true);
	kp_note_write(kp, &kp->unheld, kp_grant_key(0, addr), rc, rc == -1 ? E2BIG : 0, true);
	errno = e;
	return rc;
}

int
kp_del_local(struct kp *kp, uint32_t addr)
{
	int rc;

	if (kp->batching)
		(void)kpb_flush(&kp->b_locals, local_done, kp);	/* its put first */
	rc = bpf_map_delete_elem(kp->fd_locals, &addr) == 0 ? 0 : -1;

	if (rc == -1 && errno != ENOENT)
		return -1;
	kp_note_gone(kp, &kp->unheld, kp_grant_key(0, addr), rc == 0, true);
	return 0;
}
