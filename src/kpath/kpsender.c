/* kpsender.c — who may ask the kernel answer path, and how often: each
 * interface's sender set (allow or deny lists, published and in-subnet
 * bits) in the kp_senders trie, written as the difference from what it
 * holds, and the rate limits in the configuration map. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kpint.h"

static void
lpm_key(struct kp_lpm_key *k, int ifindex, uint32_t addr, unsigned len)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 32 + len;
	k->ifindex = htonl((uint32_t)ifindex);
	k->addr = htonl(addr);
}

/* The copy of ifindex's sender keys (made empty when make and missing). */
struct kp_snd *
kp_snd_of(struct kp *kp, int ifindex, bool make)
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

	if ((sh = kp_snd_of(kp, ifindex, true)) == NULL ||
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
	if (n == sh->n && !kp_keys_find(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex, &i)) {
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
		kp_keys_del(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex);
	else
		(void)kp_keys_add(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex);
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
