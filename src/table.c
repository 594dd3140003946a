/* table.c — the ownership table: interfaces by ifindex, addresses by
 * (address, ifindex), both in open-addressing hashes so that a lookup on
 * the reply path costs the same with one address or a hundred thousand. */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "stats.h"
#include "table.h"
#include "util.h"

/* An address slot: one per (address, ifindex), heading the chain of that
 * interface's entries for the address (usually one); ifindex 0 marks it
 * empty (ifindexes start at 1). */
struct slot {
	uint32_t	addr;
	int		ifindex;
	uint32_t	idx;		/* first entry in the interface's addrs[] */
};

#define TBL_NIL		UINT32_MAX	/* ends a chain */

struct tbl {
	struct tbl_iface	**ifs;		/* NULL = empty */
	size_t			  ifcap, nifs;	/* ifcap a power of two */
	struct slot		 *slots;
	size_t			  cap, n;	/* cap a power of two; n slots in use */
	size_t			  nent;		/* address entries, all interfaces */
	unsigned		  gen;
};

/* Home slots; cap is a power of two, so only the low bits count.  Keys
 * are in network byte order: a subnet's hosts differ in the top byte of
 * the word, and a hash that leaves them there (a plain multiply) sent a
 * /24's addresses to one home slot and every lookup down a 254-long
 * probe.  An address's entries on several links share one home, so that
 * tbl_addr_owner finds them all in one cluster. */
static size_t
if_hash(int ifindex, size_t cap)
{
	return (size_t)util_mix32((uint32_t)ifindex) & (cap - 1);
}

static size_t
slot_hash(uint32_t addr, size_t cap)
{
	return (size_t)util_mix32(addr) & (cap - 1);
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
			free(t->ifs[i]->stats);
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
	size_t i = if_hash(ifindex, t->ifcap);

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
	size_t i = slot_hash(addr, t->cap);

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
		k = slot_hash(t->slots[j].addr, t->cap);
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
		k = if_hash(t->ifs[j]->ifindex, t->ifcap);
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
	for (a = 0; a < ifp->naddrs; a++) {
		size_t k = slot_find(t, ifp->addrs[a].addr, ifindex);

		if (t->slots[k].ifindex != 0)	/* an address's other entries */
			slot_del(t, k);
	}
	t->nent -= ifp->naddrs;
	if_del_slot(t, i);
	free(ifp->addrs);
	free(ifp->stats);
	free(ifp);
}

struct stats_if *
tbl_iface_stats(struct tbl_iface *ifp)
{
	if (ifp != NULL && ifp->stats == NULL)
		ifp->stats = calloc(1, sizeof(*ifp->stats));
	return ifp != NULL ? ifp->stats : NULL;
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
	*naddrs = t->nent;
}

size_t
tbl_probe_max(const struct tbl *t)
{
	size_t i, d, max = 0;

	for (i = 0; i < t->cap; i++) {
		if (t->slots[i].ifindex == 0)
			continue;
		d = (i - slot_hash(t->slots[i].addr, t->cap)) & (t->cap - 1);
		if (d > max)
			max = d;
	}
	for (i = 0; i < t->ifcap; i++) {
		if (t->ifs[i] == NULL)
			continue;
		d = (i - if_hash(t->ifs[i]->ifindex, t->ifcap)) & (t->ifcap - 1);
		if (d > max)
			max = d;
	}
	return max;
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

/* The kernel's inet_ifa_match(): is ip inside the entry's subnet? */
static bool
entry_holds(const struct tbl_addr *e, uint32_t ip)
{
	return rule_in_prefix_n(ip, e->prefix, e->plen);
}

/* The identity the kernel refuses to hold twice (inet_insert_ifa). */
static bool
entry_same(const struct tbl_addr *e, uint32_t prefix, uint8_t plen)
{
	return e->plen == plen && entry_holds(e, prefix);
}

/*
 * An entry that holds nothing but its own address (a /32 whose subnet is
 * itself): most of a host's VIPs.  The others ("wide": subnets, peers)
 * are kept first in addrs[], [0, nwide), so that the subnet test scans
 * them only: a request costs the same with 50,000 VIPs on the interface.
 */
static bool
narrow(uint32_t addr, uint32_t prefix, uint8_t plen)
{
	return plen == 32 && prefix == addr;
}

static void entry_moved(struct tbl *t, struct tbl_iface *ifp, uint32_t from, uint32_t to);

/* Move entry from to position to (free), fixing whatever pointed at it. */
static void
move_entry(struct tbl *t, struct tbl_iface *ifp, uint32_t from, uint32_t to)
{
	if (from == to)
		return;
	entry_moved(t, ifp, from, to);
	ifp->addrs[to] = ifp->addrs[from];
}

int
tbl_addr_add(struct tbl *t, int ifindex, uint32_t addr, uint32_t prefix, uint8_t plen)
{
	struct tbl_iface *ifp;
	struct tbl_addr *na;
	uint32_t j;
	size_t i;

	if (plen > 32 || (ifp = tbl_iface(t, ifindex)) == NULL)
		return -1;
	i = slot_find(t, addr, ifindex);
	if (t->slots[i].ifindex != 0) {
		for (j = t->slots[i].idx; j != TBL_NIL; j = ifp->addrs[j].next)
			if (entry_same(&ifp->addrs[j], prefix, plen)) {
				ifp->addrs[j].prefix = prefix;
				ifp->addrs[j].gen = t->gen;
				return 0;
			}
	}
	if (ifp->naddrs == ifp->aaddrs) {
		size_t n = ifp->aaddrs ? ifp->aaddrs * 2 : 4;

		if (n >= TBL_NIL || (na = realloc(ifp->addrs, n * sizeof(*na))) == NULL)
			return -1;
		ifp->addrs = na;
		ifp->aaddrs = n;
	}
	if (t->slots[i].ifindex == 0) {
		if ((t->n + 1) * 2 > t->cap) {
			if (slot_grow(t) == -1)
				return -1;
			i = slot_find(t, addr, ifindex);
		}
		t->slots[i].addr = addr;
		t->slots[i].ifindex = ifindex;
		t->slots[i].idx = TBL_NIL;
		t->n++;
	}
	/* a wide entry goes to the end of the wide ones, the first narrow
	 * one (if any) making room by moving to the end */
	j = (uint32_t)ifp->naddrs;
	if (!narrow(addr, prefix, plen)) {
		move_entry(t, ifp, (uint32_t)ifp->nwide, j);
		j = (uint32_t)ifp->nwide++;
		i = slot_find(t, addr, ifindex);	/* unchanged: no slot moved */
	}
	na = &ifp->addrs[j];
	na->addr = addr;
	na->prefix = prefix;
	na->plen = plen;
	na->gen = t->gen;
	na->next = t->slots[i].idx;
	t->slots[i].idx = j;
	ifp->naddrs++;
	t->nent++;
	return 1;
}

/* Point whatever points at entry from (its slot or a chain link) at to. */
static void
entry_moved(struct tbl *t, struct tbl_iface *ifp, uint32_t from, uint32_t to)
{
	struct slot *sl = &t->slots[slot_find(t, ifp->addrs[from].addr, ifp->ifindex)];
	uint32_t j;

	if (sl->idx == from) {
		sl->idx = to;
		return;
	}
	for (j = sl->idx; j != TBL_NIL; j = ifp->addrs[j].next)
		if (ifp->addrs[j].next == from) {
			ifp->addrs[j].next = to;
			return;
		}
}

int
tbl_addr_del(struct tbl *t, int ifindex, uint32_t addr, uint32_t prefix, uint8_t plen)
{
	struct tbl_iface *ifp;
	uint32_t j, prev = TBL_NIL, last;
	size_t i;

	if ((ifp = tbl_iface(t, ifindex)) == NULL)
		return 0;
	i = slot_find(t, addr, ifindex);
	if (t->slots[i].ifindex == 0)
		return 0;
	for (j = t->slots[i].idx; j != TBL_NIL; prev = j, j = ifp->addrs[j].next)
		if (entry_same(&ifp->addrs[j], prefix, plen))
			break;
	if (j == TBL_NIL)
		return 0;
	/* unlink it; the address stays owned while its chain is not empty */
	if (prev == TBL_NIL)
		t->slots[i].idx = ifp->addrs[j].next;
	else
		ifp->addrs[prev].next = ifp->addrs[j].next;
	if (t->slots[i].idx == TBL_NIL)
		slot_del(t, i);
	/* keep addrs[] dense and its wide entries first: the last wide one
	 * fills a wide hole, the last entry the hole that leaves */
	last = (uint32_t)ifp->naddrs - 1;
	if (j < ifp->nwide) {
		move_entry(t, ifp, (uint32_t)ifp->nwide - 1, j);
		j = (uint32_t)--ifp->nwide;
	}
	move_entry(t, ifp, last, j);
	ifp->naddrs--;
	t->nent--;
	return 1;
}

size_t
tbl_addr_head(const struct tbl *t, const struct tbl_iface *ifp, uint32_t addr)
{
	const struct slot *sl = &t->slots[slot_find(t, addr, ifp->ifindex)];

	return sl->ifindex != 0 ? sl->idx : SIZE_MAX;
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
	size_t i = slot_hash(addr, t->cap);

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
tbl_in_subnet(const struct tbl *t, const struct tbl_iface *ifp, uint32_t ip)
{
	return tbl_covers(t, ifp, ip, ip);
}

bool
tbl_covers(const struct tbl *t, const struct tbl_iface *ifp, uint32_t a, uint32_t b)
{
	const struct slot *sl;
	uint32_t j;
	size_t i;

	/* a narrow entry holds its own address, and nothing else */
	if (a == b) {
		sl = &t->slots[slot_find(t, a, ifp->ifindex)];
		for (j = sl->ifindex != 0 ? sl->idx : TBL_NIL; j != TBL_NIL;
		    j = ifp->addrs[j].next)
			if (entry_holds(&ifp->addrs[j], a))
				return true;
	}
	for (i = 0; i < ifp->nwide; i++)
		if (entry_holds(&ifp->addrs[i], a) && entry_holds(&ifp->addrs[i], b))
			return true;
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

struct sweep_arg {
	struct tbl	*t;
	unsigned	 gen;
	void		(*fn)(struct tbl_iface *, const struct tbl_addr *, void *);
	void		*arg;
};

static int
sweep_iface(struct tbl_iface *ifp, void *arg)
{
	struct sweep_arg *s = arg;
	struct tbl_addr e;
	size_t i = 0;

	/* deleting moves the last entry into i: look at i again */
	while (i < ifp->naddrs) {
		if (ifp->addrs[i].gen == s->gen) {
			i++;
			continue;
		}
		e = ifp->addrs[i];
		tbl_addr_del(s->t, ifp->ifindex, e.addr, e.prefix, e.plen);
		if (s->fn != NULL)
			s->fn(ifp, &e, s->arg);
	}
	return 0;
}

void
tbl_addr_sweep(struct tbl *t, unsigned gen,
    void (*fn)(struct tbl_iface *, const struct tbl_addr *, void *), void *arg)
{
	struct sweep_arg s = { t, gen, fn, arg };

	tbl_iface_each(t, sweep_iface, &s);
}

struct byname {
	const char		*name;
	struct tbl_iface	*found;
};

static int
byname_cb(struct tbl_iface *ifp, void *arg)
{
	struct byname *b = arg;

	if (strcmp(ifp->name, b->name) != 0)
		return 0;
	b->found = ifp;
	return 1;
}

struct tbl_iface *
tbl_iface_byname(const struct tbl *t, const char *name)
{
	struct byname b = { name, NULL };

	tbl_iface_each(t, byname_cb, &b);
	return b.found;
}
