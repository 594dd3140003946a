/* kpgrant.c — the daemon's writes into the kernel answer path's maps: an
 * interface's settings, the grants of its addresses (each naming the
 * kernel entries it rests on, with the instance the mirror holds now),
 * published ranges, the host's own addresses, the sender sets and the
 * limits; what could not be confirmed yet, for the daemon to write again;
 * and what a full map refused, until it is written or no longer wanted
 * (kp_room: the capture path answers it meanwhile). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kpint.h"

/* -------------------------------------------------------------- unheld */

static size_t
key_slot(uint64_t k, size_t cap)
{
	/* splitmix64's finaliser: keys are (ifindex, address) pairs */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (size_t)k & (cap - 1);
}

static bool
keys_find(const struct kp_keys *s, uint64_t k, size_t *at)
{
	size_t i;

	*at = 0;
	if (s->cap == 0)
		return false;
	for (i = key_slot(k, s->cap); s->v[i] != 0; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == k) {
			*at = i;
			return true;
		}
	*at = i;
	return false;
}

/* k into s (open addressing, half full at most); -1 on ENOMEM. */
static int
keys_add(struct kp_keys *s, uint64_t k)
{
	size_t i, j, cap;
	uint64_t *nv;

	if ((s->n + 1) * 2 > s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		if ((nv = calloc(cap, sizeof(*nv))) == NULL)
			return -1;
		for (j = 0; j < s->cap; j++)
			if (s->v[j] != 0) {
				for (i = key_slot(s->v[j], cap); nv[i] != 0; i = (i + 1) & (cap - 1))
					;
				nv[i] = s->v[j];
			}
		free(s->v);
		s->v = nv;
		s->cap = cap;
	}
	if (keys_find(s, k, &i))
		return 0;
	s->v[i] = k;
	s->n++;
	return 1;
}

/* k out of s; true when it was there.  Deleted by shifting back the
 * keys after it that probed past its slot (no tombstones). */
static bool
keys_del(struct kp_keys *s, uint64_t k)
{
	size_t i, j, h, mask = s->cap - 1;

	if (!keys_find(s, k, &i))
		return false;
	s->v[i] = 0;
	s->n--;
	for (j = (i + 1) & mask; s->v[j] != 0; j = (j + 1) & mask) {
		h = key_slot(s->v[j], s->cap);
		/* stays where it is when its home lies cyclically in (i, j] */
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		s->v[i] = s->v[j];
		s->v[j] = 0;
		i = j;
	}
	return true;
}

static uint64_t
grant_key(int ifindex, uint32_t addr)
{
	return (uint64_t)(uint32_t)ifindex << 32 | addr;
}

/* The "a marker did not fit" flag, set or cleared in kp_conf. */
static void
set_full(struct kp *kp, bool on)
{
	struct kp_conf c;

	if (kpm_read_conf(kp, &c) == -1 || ((c.flags & KP_CF_FULL) != 0) == on)
		return;
	if (on)
		c.flags |= KP_CF_FULL;
	else
		c.flags &= ~(uint32_t)KP_CF_FULL;
	kpm_write_conf(kp, &c);
}

/* A write of key k to a map returned rc (errno e): what a full map
 * refuses is kept until written or withdrawn; a marker among them stops
 * every answer (a sender using that address would not be known as ours). */
static void
note_write(struct kp *kp, struct kp_keys *s, uint64_t k, int rc, int e, bool marker)
{
	if (rc == 0 || e != E2BIG) {
		if (keys_del(s, k) && marker && --kp->unheld_locals == 0)
			set_full(kp, false);
		return;
	}
	if (keys_add(s, k) == 1 && marker)
		kp->unheld_locals++;
}

/* Key k no longer wanted in a map (deleted, or never to be written). */
static void
note_gone(struct kp *kp, struct kp_keys *s, uint64_t k, bool deleted, bool marker)
{
	if (deleted)
		kp->room = true;
	if (keys_del(s, k) && marker && --kp->unheld_locals == 0)
		set_full(kp, false);
}

void
kp_room(struct kp *kp, struct kp_room *out)
{
	struct kp_watch w;
	struct kp_conf c;

	memset(out, 0, sizeof(*out));
	out->grants = kp->unheld.n;
	out->published = kp->unheld_pub.n;
	out->ifaces = kp->unheld_ifs.n;
	out->max_addrs = kp->max_addrs;
	out->map_bytes = kpm_map_bytes(kp);
	out->mirror = kp->mirror_short;
	if (kpm_read_watch(kp, &w) == 0 && w.alive_full > kp->alive_seen)
		out->mirror += w.alive_full - kp->alive_seen;
	out->stalled = kpm_read_conf(kp, &c) == 0 && (c.flags & KP_CF_FULL) != 0;
}

void
kp_room_example(struct kp *kp, int *ifindex, uint32_t *addr)
{
	size_t i;

	/* a marker first: the one that stops every answer */
	*ifindex = 0;
	*addr = 0;
	for (i = 0; i < kp->unheld.cap; i++)
		if (kp->unheld.v[i] != 0 && (*addr == 0 || (kp->unheld.v[i] >> 32) == 0)) {
			*ifindex = (int)(kp->unheld.v[i] >> 32);
			*addr = (uint32_t)kp->unheld.v[i];
			if (*ifindex == 0)
				break;
		}
}

bool
kp_iface_held(struct kp *kp, int ifindex)
{
	size_t at;

	return !keys_find(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex, &at);
}

bool
kp_take_room(struct kp *kp)
{
	bool r = kp->room;

	kp->room = false;
	return r;
}

size_t
kp_unheld(struct kp *kp, uint64_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < kp->unheld.cap && n < max; i++)
		if (kp->unheld.v[i] != 0)
			out[n++] = kp->unheld.v[i];
	return n;
}

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

static struct kp_snd *snd_of(struct kp *kp, int ifindex, bool make);

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
	if ((sh = snd_of(kp, ifindex, true)) != NULL && sh->have &&
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

	keys_del(&kp->unheld_ifs, (uint64_t)k);
	if ((sh = snd_of(kp, ifindex, false)) != NULL)
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
	note_write(arg, &((struct kp *)arg)->unheld, tag, rc, e, false);
}

/* A batched marker: one that does not fit stops every answer. */
static void
local_done(void *arg, uint64_t tag, const void *key, int rc, int e)
{
	struct kp *kp = arg;

	(void)key;
	if (rc == -1)
		set_full(kp, true);
	note_write(kp, &kp->unheld, tag, rc, rc == -1 ? (e == E2BIG || e == ENOMEM ? E2BIG : e) :
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
		return kpb_put(&kp->b_answers, &k, &a, grant_key(ifindex, addr), answer_done, kp) ==
		    -1 && errno == ENOMEM ? -1 : 0;
	rc = bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY) == 0 ? 0 : -1;
	e = errno;
	note_write(kp, &kp->unheld, grant_key(ifindex, addr), rc, e, false);
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
	note_gone(kp, &kp->unheld, grant_key(ifindex, addr), rc == 0, false);
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
	note_write(kp, &kp->unheld_pub, pub_key(ifindex, k.addr, len), rc, e, false);
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
	note_gone(kp, &kp->unheld_pub, pub_key(ifindex, k.addr, len), rc == 0, false);
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
		return kpb_put(&kp->b_locals, &addr, &a, grant_key(0, addr), local_done, kp) ==
		    -1 && errno == ENOMEM ? -1 : 0;
	rc = bpf_map_update_elem(kp->fd_locals, &addr, &a, BPF_ANY) == 0 ? 0 : -1;
	e = errno;
	/* one that does not fit: a sender using addr would not be known as
	 * one of ours, so the program answers nothing until it does */
	if (rc == -1)
		set_full(kp, true);
	note_write(kp, &kp->unheld, grant_key(0, addr), rc, rc == -1 ? E2BIG : 0, true);
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
	note_gone(kp, &kp->unheld, grant_key(0, addr), rc == 0, true);
	return 0;
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

/* The copy of ifindex's sender keys (made empty when make and missing). */
static struct kp_snd *
snd_of(struct kp *kp, int ifindex, bool make)
{
	struct kp_snd *nv;
	size_t i;

	for (i = 0; i < kp->nsnd; i++)
		if (kp->snd[i].ifindex == ifindex)
			return &kp->snd[i];
	if (!make)
		return NULL;
	if (kp->nsnd == kp->asnd) {
		kp->asnd = kp->asnd ? kp->asnd * 2 : 64;
		if ((nv = realloc(kp->snd, kp->asnd * sizeof(*nv))) == NULL) {
			kp->asnd = kp->nsnd;
			return NULL;
		}
		kp->snd = nv;
	}
	memset(&kp->snd[kp->nsnd], 0, sizeof(kp->snd[0]));
	kp->snd[kp->nsnd].ifindex = ifindex;
	return &kp->snd[kp->nsnd++];
}

static int
lpm_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct kp_lpm_key));
}

static bool
lpm_in(const struct kp_lpm_key *v, size_t n, const struct kp_lpm_key *k)
{
	return n > 0 && bsearch(k, v, n, sizeof(*v), lpm_cmp) != NULL;
}

/* Sort (key, bits) pairs by key. */
struct kb {
	struct kp_lpm_key	k;
	uint8_t			b;
};

static int
kb_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct kb *)a)->k, &((const struct kb *)b)->k,
	    sizeof(struct kp_lpm_key));
}

int
kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{
	struct kp_lpm_key *want = NULL, *keep = NULL;
	uint8_t *kbits = NULL;
	struct kb *w = NULL;
	struct kp_iface cur, hold;
	uint32_t key = (uint32_t)ifindex;
	bool have;
	struct kp_snd *sh;
	size_t nw = 0, nk = 0, i;
	int rc = -1, e = 0;

	if ((sh = snd_of(kp, ifindex, true)) == NULL ||
	    (n > 0 && (w = calloc(n, sizeof(*w))) == NULL)) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (v[i].len > 32) {
			free(w);
			errno = EINVAL;
			return -1;
		}
		lpm_key(&w[i].k, ifindex, v[i].addr, v[i].len);
		w[i].b = v[i].bits;
	}
	if (n > 1)
		qsort(w, n, sizeof(*w), kb_cmp);
	/* the same sets as the trie holds (a reload that changed another
	 * interface, a publish elsewhere): nothing to write, nothing held */
	if (n == sh->n && !keys_find(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex, &i)) {
		for (i = 0; i < n; i++)
			if (memcmp(&w[i].k, &sh->k[i], sizeof(w[i].k)) != 0 || w[i].b != sh->bits[i])
				break;
		if (i == n) {
			free(w);
			return 0;
		}
	}
	if ((n > 0 && (want = calloc(n, sizeof(*want))) == NULL) ||
	    (keep = calloc(sh->n + n + 1, sizeof(*keep))) == NULL ||
	    (kbits = calloc(sh->n + n + 1, 1)) == NULL) {
		free(w);
		free(want);
		free(keep);
		errno = ENOMEM;
		return -1;
	}
	have = bpf_map_lookup_elem(kp->fd_ifaces, &key, &cur) == 0;
	/* while the trie changes, nothing is answered on ifindex */
	if (have) {
		hold = cur;
		hold.mode = KP_MODE_NONE;
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &hold, BPF_ANY) != 0)
			goto out;
		sh->have = false;
	}
	/* the new keys, written before the old ones go (and an address in
	 * both never misses) */
	for (i = 0; i < n; i++) {
		if (bpf_map_update_elem(kp->fd_senders, &w[i].k, &w[i].b, BPF_ANY) != 0)
			goto out;
		want[nw] = w[i].k;
		kbits[nw++] = w[i].b;
	}
	for (i = 0; i < sh->n; i++)
		if (!lpm_in(want, nw, &sh->k[i]) &&
		    bpf_map_delete_elem(kp->fd_senders, &sh->k[i]) == 0)
			kp->room = true;
	rc = 0;
out:
	e = errno;
	/* what the trie holds now: the new keys; after a failure, the old
	 * ones too (not deleted), with their old bits */
	if (nw > 0)
		memcpy(keep, want, nw * sizeof(*keep));
	nk = nw;
	for (i = 0; rc != 0 && i < sh->n; i++)
		if (!lpm_in(want, nw, &sh->k[i])) {
			keep[nk] = sh->k[i];
			kbits[nk++] = sh->bits[i];
		}
	if (rc != 0 && nk > nw) {
		/* back in key order, bits with them */
		struct kb *t = calloc(nk, sizeof(*t));

		for (i = 0; t != NULL && i < nk; i++) {
			t[i].k = keep[i];
			t[i].b = kbits[i];
		}
		if (t != NULL) {
			qsort(t, nk, sizeof(*t), kb_cmp);
			for (i = 0; i < nk; i++) {
				keep[i] = t[i].k;
				kbits[i] = t[i].b;
			}
			free(t);
		} else
			nk = 0;	/* unknown: the next set writes all, deletes what it can */
	}
	free(sh->k);
	free(sh->bits);
	sh->k = keep;
	sh->bits = kbits;
	sh->n = nk;
	free(want);
	free(w);
	/* a trie too full for these sets: the interface passes everything up
	 * (kpf_iface) until they fit */
	if (rc == 0 || e != E2BIG)
		keys_del(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex);
	else
		(void)keys_add(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex);
	if (have && rc == 0) {
		cur.flags = (uint8_t)((cur.flags & ~(KP_IF_SENDERS | KP_IF_ALLOWLIST)) |
		    (n > 0 || allowlist ? KP_IF_SENDERS : 0) | (allowlist ? KP_IF_ALLOWLIST : 0));
		sh->have = false;	/* kp_set_iface writes it again */
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &cur, BPF_ANY) != 0) {
			e = errno;
			rc = -1;
		}
	}
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
