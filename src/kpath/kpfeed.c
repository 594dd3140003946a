/* kpfeed.c — the table's view turned into kernel answer path grants.
 * kpf_refs, kpf_holders, kpf_mode, kpf_wide and kpf_senders are pure
 * (tests/unit/test_kpfeed.c); the others write through kpath.h. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "kpfeed.h"
#include "policy.h"
#include "publish.h"
#include "rules.h"

#define CHAIN_END	UINT32_MAX	/* table.c's TBL_NIL: ends a chain of next */

/* The kernel's inet_ifa_match(), as table.c's entry_holds. */
static bool
holds(const struct tbl_addr *e, uint32_t ip)
{
	return rule_in_prefix_n(ip, e->prefix, e->plen);
}

static void
put(struct kp_ifa *o, int ifindex, const struct tbl_addr *e, uint8_t kind)
{
	o->ifindex = ifindex;
	o->local = e->addr;
	o->prefix = e->prefix;
	o->plen = e->plen;
	o->kind = kind;
}

bool
kpf_wide(uint32_t addr, uint32_t prefix, uint8_t plen)
{
	return !(plen == 32 && prefix == addr);
}

size_t
kpf_refs(const struct tbl *t, const struct tbl_iface *ifp, uint32_t addr,
    struct kp_ifa *out, size_t max)
{
	size_t head = tbl_addr_head(t, ifp, addr), n = 0, i;
	uint32_t j;
	int pass;

	if (head == SIZE_MAX)
		return 0;
	/* addr's entries: those holding addr first (alone they confirm both
	 * "on this interface" and "in one of its subnets"), then the others */
	for (pass = 0; pass < 2; pass++)
		for (j = (uint32_t)head; j != CHAIN_END && n < max; j = ifp->addrs[j].next) {
			const struct tbl_addr *e = &ifp->addrs[j];
			bool h = holds(e, addr);

			if (h != (pass == 0))
				continue;
			put(&out[n++], ifp->ifindex, e, h ? KP_REF_OWN | KP_REF_COVER : KP_REF_OWN);
		}
	/* the other entries whose subnet holds addr (subnets, peers) */
	for (i = 0; i < ifp->nwide && n < max; i++) {
		const struct tbl_addr *e = &ifp->addrs[i];

		if (e->addr != addr && holds(e, addr))
			put(&out[n++], ifp->ifindex, e, KP_REF_COVER);
	}
	return n;
}

/* policy.c's usable(): may a holder of the target be answered for? */
bool
kpf_usable(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_OFF && (ifp->flags & IFF_UP);
}

size_t
kpf_holders(const struct tbl *t, uint32_t addr, struct kp_ifa *out, size_t max)
{
	const struct tbl_iface *h = tbl_addr_owner(t, addr, kpf_usable);
	size_t head, n = 0;
	uint32_t j;

	if (h == NULL || !kpf_usable(h) || (head = tbl_addr_head(t, h, addr)) == SIZE_MAX)
		return 0;
	for (j = (uint32_t)head; j != CHAIN_END && n < max; j = h->addrs[j].next)
		put(&out[n++], h->ifindex, &h->addrs[j], KP_REF_OWN);
	return n;
}

int
kpf_mode(const struct tbl_iface *ifp)
{
	if (!ifp->managed || !(ifp->flags & IFF_UP))
		return KP_MODE_NONE;
	switch (ifp->mode) {
	case POL_OWNER:
		return KP_MODE_OWNER;
	case POL_SUBNET:
		return KP_MODE_SUBNET;
	case POL_SYSTEM:
		return KP_MODE_SYSTEM;
	default:
		return KP_MODE_NONE;	/* off, monitor: the capture path's */
	}
}

int
kpf_addr(struct kp *kp, const struct tbl *t, int ifindex, uint32_t addr)
{
	struct kp_ifa refs[KP_NREF];
	const struct tbl_iface *ifp = tbl_iface(t, ifindex);
	size_t n;
	int rc = 0;

	if (ifp != NULL && ifp->managed && tbl_addr_on(t, ifindex, addr)) {
		n = kpf_refs(t, ifp, addr, refs, KP_NREF);
		if (kp_set_answer(kp, ifindex, addr, refs, n) == -1)
			rc = -1;
	} else if (kp_del_answer(kp, ifindex, addr) == -1)
		rc = -1;
	if (tbl_addr_owner(t, addr, NULL) != NULL) {
		n = kpf_holders(t, addr, refs, KP_NREF);
		if (kp_set_local(kp, addr, refs, n) == -1)
			rc = -1;
	} else if (kp_del_local(kp, addr) == -1)
		rc = -1;
	return rc;
}

static bool
in_set(const struct rng *r, uint32_t h)
{
	return r != NULL && rng_span_find(r->v, r->n, sizeof(r->v[0]), h) != r->n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* [lo, hi] (host order) as the fewest CIDRs, counted in *n, written while
 * there is room. */
static void
cidrs(uint64_t lo, uint64_t hi, uint8_t bits, struct kp_cidr *out, size_t max, size_t *n)
{
	while (lo <= hi) {
		uint64_t size = lo == 0 ? (1ull << 32) : (lo & -lo);
		uint8_t len = 0;

		while (lo + size - 1 > hi)
			size >>= 1;
		while ((1ull << (32 - len)) > size)
			len++;
		if (*n < max) {
			out[*n].addr = (uint32_t)lo;
			out[*n].len = len;
			out[*n].bits = bits;
		}
		(*n)++;
		lo += size;
	}
}

int
kpf_subnets(const struct tbl_iface *ifp, struct rng *out)
{
	size_t i;
	uint32_t lo;

	memset(out, 0, sizeof(*out));
	/* the wide entries (subnets, peers) come first: tbl_in_subnet's */
	for (i = 0; i < ifp->nwide; i++) {
		lo = ntohl(ifp->addrs[i].prefix) & rule_mask(ifp->addrs[i].plen);
		if (rng_add(out, lo, rule_bcast(lo, ifp->addrs[i].plen)) == -1) {
			rng_clear(out);
			return -1;
		}
	}
	return rng_finish(out);
}

/* [lo, hi] (host order) as the fewest CIDRs, counted in *n, written
 * while there is room (published ranges). */
static void
pub_cidrs(uint64_t lo, uint64_t hi, const struct kpf_pub *proto, struct kpf_pub *out, size_t max,
    size_t *n)
{
	struct kp_cidr c[64];
	size_t k = 0, i;

	/* at most 62 CIDRs make a range of 32-bit addresses */
	cidrs(lo, hi, 0, c, 64, &k);
	for (i = 0; i < k && i < 64; i++, (*n)++)
		if (*n < max) {
			out[*n] = *proto;
			out[*n].addr = htonl(c[i].addr);
			out[*n].len = c[i].len;
		}
}

size_t
kpf_pub(const struct pub *p, const struct tbl_iface *ifp, struct kpf_pub *out, size_t max)
{
	const struct pub_entry *e;
	struct kpf_pub proto;
	size_t i, j, n = 0;

	for (i = 0; p != NULL && i < pub_count(p); i++) {
		e = pub_at(p, i);
		if (!pub_entry_on(e, ifp->name))
			continue;
		memset(&proto, 0, sizeof(proto));
		proto.ifindex = ifp->ifindex;
		proto.has_mac = e->has_mac;
		if (e->has_mac)
			memcpy(proto.mac, e->mac, 6);
		for (j = 0; j < e->set.n; j++)
			pub_cidrs(e->set.v[j].lo, e->set.v[j].hi, &proto, out, max, &n);
	}
	return n;
}

size_t
kpf_senders(const struct rng *allow, const struct rng *deny, const struct rng *ours,
    const struct rng *subnets, struct kp_cidr *out, size_t max)
{
	const struct rng *sets[4] = { allow, deny, ours, subnets };
	uint64_t *b;
	size_t nb = 0, total = 0, n = 0, i, s;

	for (s = 0; s < 4; s++)
		if (sets[s] != NULL)
			total += sets[s]->n * 2;
	if (total == 0)
		return 0;
	if ((b = malloc(total * sizeof(*b))) == NULL)
		return SIZE_MAX;
	for (s = 0; s < 4; s++)
		for (i = 0; sets[s] != NULL && i < sets[s]->n; i++) {
			b[nb++] = sets[s]->v[i].lo;
			b[nb++] = (uint64_t)sets[s]->v[i].hi + 1;
		}
	qsort(b, nb, sizeof(*b), cmp_u64);
	/* between two boundaries, each set says the same everywhere */
	for (i = 0; i + 1 < nb; i++) {
		uint32_t h = (uint32_t)b[i];
		uint8_t bits;

		if (b[i] == b[i + 1])
			continue;
		bits = (uint8_t)((in_set(allow, h) ? KP_SND_ALLOW : 0) |
		    (in_set(deny, h) ? KP_SND_DENY : 0) | (in_set(ours, h) ? KP_SND_OURS : 0) |
		    (in_set(subnets, h) ? KP_SND_SUBNET : 0));
		if (bits != 0)
			cidrs(b[i], b[i + 1] - 1, bits, out, max, &n);
	}
	free(b);
	return n;
}

int
kpf_iface(struct kp *kp, const struct tbl *t, const struct tbl_iface *ifp, unsigned flags,
    const struct rng *ours)
{
	size_t i;
	int rc = kpf_settings(kp, ifp, flags, ours), e = errno;

	/* the grants whatever the settings did: with the interface at mode
	 * NONE they wait, ready for when its settings fit */
	for (i = 0; i < ifp->naddrs; i++)
		/* each address once: at its chain's head */
		if (tbl_addr_head(t, ifp, ifp->addrs[i].addr) == i &&
		    kpf_addr(kp, t, ifp->ifindex, ifp->addrs[i].addr) == -1 && rc == 0) {
			rc = -1;
			e = errno;
		}
	errno = e;
	return rc;
}

int
kpf_settings(struct kp *kp, const struct tbl_iface *ifp, unsigned flags,
    const struct rng *ours)
{
	struct kp_cidr *v = NULL;
	struct rng sub;
	size_t n = SIZE_MAX;
	int rc = 0, e;

	/* the senders first: the settings that follow point at them; the
	 * subnets tell the program whom to learn (tbl_in_subnet) */
	if (kpf_subnets(ifp, &sub) == 0)
		n = kpf_senders(ifp->allow, ifp->deny, ours, &sub, NULL, 0);
	if (n == SIZE_MAX || (n > 0 && (v = malloc(n * sizeof(*v))) == NULL) ||
	    kpf_senders(ifp->allow, ifp->deny, ours, &sub, v, n) != n ||
	    kp_set_senders(kp, ifp->ifindex, v, n, ifp->allow != NULL) == -1) {
		e = n == SIZE_MAX ? ENOMEM : errno;
		free(v);
		rng_clear(&sub);
		kp_set_iface(kp, ifp->ifindex, KP_MODE_NONE, ifp->mac, ifp->master, 0);
		errno = e;
		return -1;
	}
	free(v);
	rng_clear(&sub);
	/* probes: answered here when the caller asks (and logs them from
	 * KP_EV_PROBE) and allow_probes says so; else the capture path's */
	flags &= KP_IF_LEARN | KP_IF_PROBE_EVENTS | KP_IF_PROBES;
	if (!ifp->allow_probes)
		flags &= ~(unsigned)KP_IF_PROBES;
	if (n > 0 || ifp->allow != NULL)
		flags |= KP_IF_SENDERS;
	if (ifp->allow != NULL)
		flags |= KP_IF_ALLOWLIST;
	if (ifp->rp_check)
		flags |= KP_IF_RPCHECK;
	if (kp_set_iface(kp, ifp->ifindex, kpf_mode(ifp), ifp->mac, ifp->master, flags) == -1)
		rc = -1;
	return rc;
}

struct all_arg {
	struct kp		*kp;
	const struct tbl	*t;
	int			 rc;
};

static int
all_cb(struct tbl_iface *ifp, void *arg)
{
	struct all_arg *a = arg;
	size_t i;

	for (i = 0; i < ifp->naddrs; i++)
		if (tbl_addr_head(a->t, ifp, ifp->addrs[i].addr) == i &&
		    kpf_addr(a->kp, a->t, ifp->ifindex, ifp->addrs[i].addr) == -1)
			a->rc = -1;
	return 0;
}

int
kpf_all(struct kp *kp, const struct tbl *t)
{
	struct all_arg a = { kp, t, 0 };

	tbl_iface_each(t, all_cb, &a);
	return a.rc;
}
