/* table.c — the ownership table: interfaces by ifindex, addresses by
 * (address, ifindex), both in open-addressing hashes so that a lookup on
 * the reply path costs the same with one address or a hundred thousand. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* An address slot; ifindex 0 marks it empty (ifindexes start at 1). */
struct slot {
	uint32_t	addr;
	int		ifindex;
	uint32_t	idx;		/* position in the interface's addrs[] */
};

struct tbl {
	struct tbl_iface	**ifs;		/* NULL = empty */
	size_t			  ifcap, nifs;	/* ifcap a power of two */
	struct slot		 *slots;
	size_t			  cap, n;	/* cap a power of two */
	unsigned		  gen;
};

static size_t
hash32(uint32_t x, size_t cap)
{
	/* Fibonacci hashing; cap is a power of two. */
	return (size_t)((x * 2654435761u) ^ (x >> 16)) & (cap - 1);
}

struct tbl *
tbl_new(void)
{
	struct tbl *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->ifcap = 16;
	t->cap = 64;
	/* an array of pointers: sizeof a pointer is meant */
	t->ifs = calloc(t->ifcap, sizeof(*t->ifs));	/* NOLINT(bugprone-sizeof-expression) */
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (t->ifs == NULL || t->slots == NULL) {
		tbl_free(t);
		return NULL;
	}
	return t;
}

void
tbl_free(struct tbl *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; t->ifs != NULL && i < t->ifcap; i++) {
		if (t->ifs[i] != NULL) {
			free(t->ifs[i]->addrs);
			free(t->ifs[i]);
		}
	}
	free(t->ifs);
	free(t->slots);
	free(t);
}

static size_t
if_find(const struct tbl *t, int ifindex)
{
	size_t i = hash32((uint32_t)ifindex, t->ifcap);

	while (t->ifs[i] != NULL && t->ifs[i]->ifindex != ifindex)
		i = (i + 1) & (t->ifcap - 1);
	return i;
}

struct tbl_iface *
tbl_iface(const struct tbl *t, int ifindex)
{
	return t->ifs[if_find(t, ifindex)];
}

static int
if_grow(struct tbl *t)
{
	struct tbl_iface **old = t->ifs;
	size_t i, oldcap = t->ifcap;

	if ((t->ifs = calloc(oldcap * 2, sizeof(*t->ifs))) == NULL) {	/* NOLINT(bugprone-sizeof-expression) */
		t->ifs = old;
		return -1;
	}
	t->ifcap = oldcap * 2;
	for (i = 0; i < oldcap; i++)
		if (old[i] != NULL)
			t->ifs[if_find(t, old[i]->ifindex)] = old[i];
	free(old);
	return 0;
}

struct tbl_iface *
tbl_iface_add(struct tbl *t, int ifindex)
{
	struct tbl_iface *ifp;
	size_t i;

	if (ifindex <= 0)
		return NULL;
	if ((ifp = tbl_iface(t, ifindex)) != NULL)
		return ifp;
	if ((t->nifs + 1) * 2 > t->ifcap && if_grow(t) == -1)
		return NULL;
	if ((ifp = calloc(1, sizeof(*ifp))) == NULL)
		return NULL;
	ifp->ifindex = ifindex;
	ifp->arp_ignore = ifp->arp_announce = -1;
	ifp->mode = -1;
	ifp->gen = t->gen;
	i = if_find(t, ifindex);
	t->ifs[i] = ifp;
	t->nifs++;
	return ifp;
}

static size_t
slot_find(const struct tbl *t, uint32_t addr, int ifindex)
{
	size_t i = hash32(addr, t->cap);

	while (t->slots[i].ifindex != 0 &&
	    (t->slots[i].addr != addr || t->slots[i].ifindex != ifindex))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Linear-probing deletion without tombstones: shift the rest of the
 * cluster back so that lookups can keep stopping at the first hole. */
static void
slot_del(struct tbl *t, size_t i)
{
	size_t j = i, k;

	for (;;) {
		j = (j + 1) & (t->cap - 1);
		if (t->slots[j].ifindex == 0)
			break;
		k = hash32(t->slots[j].addr, t->cap);
		/* leave j where it is if its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].ifindex = 0;
	t->n--;
}

static void
if_del_slot(struct tbl *t, size_t i)
{
	size_t j = i, k;

	for (;;) {
		j = (j + 1) & (t->ifcap - 1);
		if (t->ifs[j] == NULL)
			break;
		k = hash32((uint32_t)t->ifs[j]->ifindex, t->ifcap);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->ifs[i] = t->ifs[j];
		i = j;
	}
	t->ifs[i] = NULL;
	t->nifs--;
}

void
tbl_iface_del(struct tbl *t, int ifindex)
{
	size_t i = if_find(t, ifindex), a;
	struct tbl_iface *ifp = t->ifs[i];

	if (ifp == NULL)
		return;
	for (a = 0; a < ifp->naddrs; a++)
		slot_del(t, slot_find(t, ifp->addrs[a].addr, ifindex));
	if_del_slot(t, i);
	free(ifp->addrs);
	free(ifp);
}

int
tbl_iface_each(const struct tbl *t, int (*fn)(struct tbl_iface *, void *), void *arg)
{
	size_t i;
	int r;

	for (i = 0; i < t->ifcap; i++)
		if (t->ifs[i] != NULL && (r = fn(t->ifs[i], arg)) != 0)
			return r;
	return 0;
}

void
tbl_count(const struct tbl *t, size_t *nifaces, size_t *naddrs)
{
	*nifaces = t->nifs;
	*naddrs = t->n;
}

static int
slot_grow(struct tbl *t)
{
	struct slot *old = t->slots;
	size_t i, oldcap = t->cap;

	if ((t->slots = calloc(oldcap * 2, sizeof(*t->slots))) == NULL) {
		t->slots = old;
		return -1;
	}
	t->cap = oldcap * 2;
	for (i = 0; i < oldcap; i++)
		if (old[i].ifindex != 0)
			t->slots[slot_find(t, old[i].addr, old[i].ifindex)] = old[i];
	free(old);
	return 0;
}

int
tbl_addr_add(struct tbl *t, int ifindex, uint32_t addr, uint8_t plen)
{
	struct tbl_iface *ifp;
	struct tbl_addr *na;
	size_t i;

	if ((ifp = tbl_iface(t, ifindex)) == NULL)
		return -1;
	i = slot_find(t, addr, ifindex);
	if (t->slots[i].ifindex != 0) {
		na = &ifp->addrs[t->slots[i].idx];
		na->plen = plen;
		na->gen = t->gen;
		return 0;
	}
	if (ifp->naddrs == ifp->aaddrs) {
		size_t n = ifp->aaddrs ? ifp->aaddrs * 2 : 4;

		if ((na = realloc(ifp->addrs, n * sizeof(*na))) == NULL)
			return -1;
		ifp->addrs = na;
		ifp->aaddrs = n;
	}
	if ((t->n + 1) * 2 > t->cap) {
		if (slot_grow(t) == -1)
			return -1;
		i = slot_find(t, addr, ifindex);
	}
	t->slots[i].addr = addr;
	t->slots[i].ifindex = ifindex;
	t->slots[i].idx = (uint32_t)ifp->naddrs;
	t->n++;
	na = &ifp->addrs[ifp->naddrs++];
	na->addr = addr;
	na->plen = plen;
	na->gen = t->gen;
	return 1;
}

int
tbl_addr_del(struct tbl *t, int ifindex, uint32_t addr)
{
	struct tbl_iface *ifp;
	size_t i, idx, last;

	if ((ifp = tbl_iface(t, ifindex)) == NULL)
		return 0;
	i = slot_find(t, addr, ifindex);
	if (t->slots[i].ifindex == 0)
		return 0;
	idx = t->slots[i].idx;
	slot_del(t, i);
	/* keep addrs[] dense: move the last entry into the hole */
	last = ifp->naddrs - 1;
	if (idx != last) {
		ifp->addrs[idx] = ifp->addrs[last];
		t->slots[slot_find(t, ifp->addrs[idx].addr, ifindex)].idx =
		    (uint32_t)idx;
	}
	ifp->naddrs--;
	return 1;
}

bool
tbl_addr_on(const struct tbl *t, int ifindex, uint32_t addr)
{
	return t->slots[slot_find(t, addr, ifindex)].ifindex != 0;
}

struct tbl_iface *
tbl_addr_owner(const struct tbl *t, uint32_t addr,
    bool (*pred)(const struct tbl_iface *))
{
	struct tbl_iface *first = NULL, *ifp;
	size_t i = hash32(addr, t->cap);

	for (; t->slots[i].ifindex != 0; i = (i + 1) & (t->cap - 1)) {
		if (t->slots[i].addr != addr)
			continue;
		ifp = tbl_iface(t, t->slots[i].ifindex);
		if (pred == NULL || pred(ifp))
			return ifp;
		if (first == NULL)
			first = ifp;
	}
	return first;
}

bool
tbl_in_subnet(const struct tbl_iface *ifp, uint32_t ip)
{
	uint32_t h = ntohl(ip), mask;
	size_t i;

	for (i = 0; i < ifp->naddrs; i++) {
		if (ifp->addrs[i].plen == 0)
			return true;
		mask = ifp->addrs[i].plen >= 32 ? 0xffffffffu :
		    ~(0xffffffffu >> ifp->addrs[i].plen);
		if (((ntohl(ifp->addrs[i].addr) ^ h) & mask) == 0)
			return true;
	}
	return false;
}

struct mac_arg {
	const uint8_t	*mac;
};

static int
mac_cmp(struct tbl_iface *ifp, void *arg)
{
	return memcmp(ifp->mac, ((struct mac_arg *)arg)->mac, 6) == 0;
}

bool
tbl_is_our_mac(const struct tbl *t, const uint8_t mac[static 6])
{
	struct mac_arg a = { mac };

	return tbl_iface_each(t, mac_cmp, &a) != 0;
}

unsigned
tbl_gen_begin(struct tbl *t)
{
	return ++t->gen;
}

void
tbl_addr_seen(struct tbl *t, int ifindex, uint32_t addr)
{
	size_t i = slot_find(t, addr, ifindex);
	struct tbl_iface *ifp;

	if (t->slots[i].ifindex != 0 && (ifp = tbl_iface(t, ifindex)) != NULL)
		ifp->addrs[t->slots[i].idx].gen = t->gen;
}

struct sweep_arg {
	struct tbl	*t;
	unsigned	 gen;
	void		(*fn)(struct tbl_iface *, uint32_t, void *);
	void		*arg;
};

static int
sweep_iface(struct tbl_iface *ifp, void *arg)
{
	struct sweep_arg *s = arg;
	size_t i = 0;
	uint32_t addr;

	/* deleting moves the last entry into i: look at i again */
	while (i < ifp->naddrs) {
		if (ifp->addrs[i].gen == s->gen) {
			i++;
			continue;
		}
		addr = ifp->addrs[i].addr;
		tbl_addr_del(s->t, ifp->ifindex, addr);
		if (s->fn != NULL)
			s->fn(ifp, addr, s->arg);
	}
	return 0;
}

void
tbl_addr_sweep(struct tbl *t, unsigned gen,
    void (*fn)(struct tbl_iface *, uint32_t addr, void *), void *arg)
{
	struct sweep_arg s = { t, gen, fn, arg };

	tbl_iface_each(t, sweep_iface, &s);
}
