/* kpfeed.h — from the daemon's table to the kernel answer path's grants:
 * what each grant depends on, and which grants a change rewrites.  The
 * policy's rules (pol_decide) turned into map entries; kpgrant.c writes them. */
#ifndef ARPOWND_KPFEED_H
#define ARPOWND_KPFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kpath.h"
#include "table.h"

/* The entries of ifp a grant of addr depends on, at most max: those that
 * are addr's and hold it, then addr's other ones, then the subnets that
 * hold it; how many (pure). */
size_t kpf_refs(const struct tbl *t, const struct tbl_iface *ifp, uint32_t addr,
    struct kp_ifa *out, size_t max);
/* May a holder of an address on ifp be answered for (policy.c's usable())? */
bool kpf_usable(const struct tbl_iface *ifp);
/* addr's entries on a usable interface holding it (system mode), at most max; how many (pure). */
size_t kpf_holders(const struct tbl *t, uint32_t addr, struct kp_ifa *out, size_t max);
/* The program's mode for ifp: KP_MODE_NONE unless managed, up and answering (pure). */
int kpf_mode(const struct tbl_iface *ifp);
/* Does a change of the entry (addr, prefix/plen) touch other addresses'
 * grants (a subnet, a peer: not a /32 of its own)? (pure) */
bool kpf_wide(uint32_t addr, uint32_t prefix, uint8_t plen);
/* ifp's subnets and peers (its wide entries: what tbl_in_subnet asks)
 * as one finished set (host order) into out; 0 or -1 on ENOMEM (pure). */
int kpf_subnets(const struct tbl_iface *ifp, struct rng *out);
/* allow_senders, deny_senders, what is published and the interface's
 * subnets (each NULL for none, finished sets) cut wherever one of them
 * changes, as disjoint CIDRs with what a sender there is (KP_SND_*;
 * pieces in none left out), at most max into out; how many there are,
 * SIZE_MAX on ENOMEM (pure). */
size_t kpf_senders(const struct rng *allow, const struct rng *deny, const struct rng *ours,
    const struct rng *subnets, struct kp_cidr *out, size_t max);
/* One published CIDR on an interface, as the program holds it. */
struct kpf_pub {
	int		ifindex;
	uint32_t	addr;		/* the CIDR's first address, network order */
	uint8_t		len;
	bool		has_mac;	/* answered with mac; else the link's own */
	uint8_t		mac[6];
};
struct pub;
/* The CIDRs p publishes on ifp (its entries on ifp's name), at most max
 * into out; how many there are (pure). */
size_t kpf_pub(const struct pub *p, const struct tbl_iface *ifp, struct kpf_pub *out, size_t max);
/* ifp's sender sets (ours: what is published there, or NULL), then its
 * settings (flags: KP_IF_LEARN, KP_IF_PROBES (answer probes here, if
 * allow_probes), KP_IF_PROBE_EVENTS; the rest from ifp); 0 or -1 (then
 * nothing is answered on ifp; errno E2BIG: no room, until it fits). */
int kpf_settings(struct kp *kp, const struct tbl_iface *ifp, unsigned flags,
    const struct rng *ours);
/* kpf_settings, and the grants of all ifp's addresses; 0 or -1. */
int kpf_iface(struct kp *kp, const struct tbl *t, const struct tbl_iface *ifp, unsigned flags,
    const struct rng *ours);
/* Rewrite the grants of addr: (ifindex, addr) and (0, addr); 0 or -1. */
int kpf_addr(struct kp *kp, const struct tbl *t, int ifindex, uint32_t addr);
/* Write the grants of every address of every interface (after kp_open or
 * kp_resync); 0 or -1. */
int kpf_all(struct kp *kp, const struct tbl *t);

#endif
