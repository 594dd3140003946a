/* kproom.c — what the kernel answer path's full maps refused: the grants,
 * markers, published ranges and interfaces a write could not place, kept
 * until written or no longer wanted (the capture path answers them
 * meanwhile), the "a marker did not fit" flag that stops every answer,
 * and what kp_room reports of it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kpint.h"

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

bool
kp_keys_find(const struct kp_keys *s, uint64_t k, size_t *at)
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
int
kp_keys_add(struct kp_keys *s, uint64_t k)
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
	if (kp_keys_find(s, k, &i))
		return 0;
	s->v[i] = k;
	s->n++;
	return 1;
}

/* k out of s; true when it was there.  Deleted by shifting back the
 * keys after it that probed past its slot (no tombstones). */
bool
kp_keys_del(struct kp_keys *s, uint64_t k)
{
	size_t i, j, h, mask = s->cap - 1;

	if (!kp_keys_find(s, k, &i))
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

uint64_t
kp_grant_key(int ifindex, uint32_t addr)
{
	return (uint64_t)(uint32_t)ifindex << 32 | addr;
}

/* The "a marker did not fit" flag, set or cleared in kp_conf. */
void
kp_set_full(struct kp *kp, bool on)
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
void
kp_note_write(struct kp *kp, struct kp_keys *s, uint64_t k, int rc, int e, bool marker)
{
	if (rc == 0 || e != E2BIG) {
		if (kp_keys_del(s, k) && marker && --kp->unheld_locals == 0)
			kp_set_full(kp, false);
		return;
	}
	if (kp_keys_add(s, k) == 1 && marker)
		kp->unheld_locals++;
}

/* Key k no longer wanted in a map (deleted, or never to be written). */
void
kp_note_gone(struct kp *kp, struct kp_keys *s, uint64_t k, bool deleted, bool marker)
{
	if (deleted)
		kp->room = true;
	if (kp_keys_del(s, k) && marker && --kp->unheld_locals == 0)
		kp_set_full(kp, false);
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

	return !kp_keys_find(&kp->unheld_ifs, (uint64_t)(uint32_t)ifindex, &at);
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
