/* kpfeed.c — the table's view turned into kernel answer path grants.
 * kpf_refs and kpf_holders are pure (unit-tested); the others write
 * through kpath.c. */
#include "config.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <string.h>

#include "kpfeed.h"
#include "policy.h"

#define CHAIN_END	UINT32_MAX	/* table.c's TBL_NIL: ends a chain of next */

static uint32_t
mask_of(uint8_t plen)
{
	return plen == 0 ? 0 : htonl(0xffffffffu << (32 - plen));
}

/* The kernel's inet_ifa_match(), as table.c's entry_holds. */
static bool
holds(const struct tbl_addr *e, uint32_t ip)
{
	return ((ip ^ e->prefix) & mask_of(e->plen)) == 0;
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
static bool
usable(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_OFF && (ifp->flags & IFF_UP);
}

size_t
kpf_holders(const struct tbl *t, uint32_t addr, struct kp_ifa *out, size_t max)
{
	const struct tbl_iface *h = tbl_addr_owner(t, addr, usable);
	size_t head, n = 0;
	uint32_t j;

	if (h == NULL || !usable(h) || (head = tbl_addr_head(t, h, addr)) == SIZE_MAX)
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

int
kpf_iface(struct kp *kp, const struct tbl *t, const struct tbl_iface *ifp, unsigned flags,
    const struct rng *ours)
{
	size_t i;
	int rc = 0;

	flags &= KP_IF_LEARN | KP_IF_PROBE_EVENTS;
	if (ifp->allow_probes)
		flags |= KP_IF_PROBES;
	if (kp_set_iface(kp, ifp->ifindex, kpf_mode(ifp), ifp->mac, flags) == -1 ||
	    kp_set_senders(kp, ifp->ifindex, ifp->allow, ifp->deny, ours) == -1)
		rc = -1;
	for (i = 0; i < ifp->naddrs; i++)
		/* each address once: at its chain's head */
		if (tbl_addr_head(t, ifp, ifp->addrs[i].addr) == i &&
		    kpf_addr(kp, t, ifp->ifindex, ifp->addrs[i].addr) == -1)
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
