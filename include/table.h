/* table.h — which interface owns which IPv4 address; pure, no I/O. */
#ifndef ARPOWND_TABLE_H
#define ARPOWND_TABLE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranges.h"

struct tbl;
struct stats_if;

/*
 * One IPv4 address entry as the kernel keeps it (struct in_ifaddr): the
 * kernel may hold one address several times on an interface, with other
 * prefixes (10.0.0.1/24 and 10.0.0.1/16) or other peers; the address is
 * ours while any of its entries is there.  Network byte order.
 */
struct tbl_addr {
	uint32_t	addr;		/* IFA_LOCAL: the address answered for */
	uint32_t	prefix;		/* IFA_ADDRESS: the subnet's (the peer on p-t-p) */
	uint8_t		plen;
	unsigned	gen;		/* resync generation last seen */
	uint32_t	next;		/* internal: next entry with the same addr */
};

/* One link as rtnetlink last described it, and how arpownd treats it. */
struct tbl_iface {
	int		ifindex;
	char		name[IF_NAMESIZE];
	uint8_t		mac[6];
	uint16_t	type;		/* ARPHRD_* */
	unsigned	flags;		/* IFF_* */
	bool		conf_known;	/* IFLA_INET_CONF seen: the two below hold */
	int		arp_ignore;	/* from IFLA_INET_CONF: any int */
	int		arp_announce;
	int		rp_filter;	/* net.ipv4.conf.IF.rp_filter, as IFLA_INET_CONF says */
	int		arp_filter;	/* net.ipv4.conf.IF.arp_filter, likewise */
	bool		rp_check;	/* the kernel checks a sender's route here: rp_filter
					 * or arp_filter in force (max/or with all: rpf.c) */
	int		master;		/* the bridge, bond, vrf it is a port of; 0 none */
	char		kind[16];	/* "bridge", "vlan", "macvlan"...; "" plain */
	char		slave_kind[16];	/* the master's kind, as told for the port */
	uint32_t	xdp_id;		/* the XDP program on it (anyone's); 0 none */
	/* set by the interface manager, read by the policy */
	bool		managed;
	int		mode;		/* enum pol_mode */
	const struct rng *allow;	/* senders answered (NULL: all); the conf's */
	const struct rng *deny;		/* senders never answered (NULL: none) */
	bool		allow_probes;	/* answer RFC 5227 probes (sender 0.0.0.0) */
	int		answer_path;	/* enum conf_path */
	bool		kpath;		/* the kernel answer path is on it now */
	int		kpath_xdp;	/* ...at XDP, in this KP_XDP_* mode; 0: at TC */
	char		kpath_why[128];	/* why not at XDP (answer_path auto or xdp) */
	bool		announce;	/* speak up: gratuitous ARP */
	int		defend;		/* enum conf_defend */
	bool		conf_pending;	/* sysctls set, kernel's echo not seen yet */
	/* address entries, for subnet checks and dumps */
	struct tbl_addr	*addrs;		/* subnets and peers first, then /32s */
	size_t		naddrs, aaddrs;
	size_t		nwide;		/* entries before the /32s that hold only themselves */
	unsigned	gen;		/* resync generation last seen */
	struct stats_if	*stats;		/* the daemon's counters, freed with it */
};

/* Create an empty table; NULL on allocation failure. */
struct tbl *tbl_new(void);
/* Free the table and everything in it. */
void tbl_free(struct tbl *t);

/* The interface with this ifindex, or NULL. */
struct tbl_iface *tbl_iface(const struct tbl *t, int ifindex);
/* Insert or find the interface with this ifindex; NULL on ENOMEM. */
struct tbl_iface *tbl_iface_add(struct tbl *t, int ifindex);
/* Forget an interface and all its addresses. */
void tbl_iface_del(struct tbl *t, int ifindex);
/* The interface's counters, made on first use (the one place that makes
 * them; freed with it); NULL for a NULL ifp or on ENOMEM. */
struct stats_if *tbl_iface_stats(struct tbl_iface *ifp);
/* The interface called name, or NULL; O(interfaces). */
struct tbl_iface *tbl_iface_byname(const struct tbl *t, const char *name);
/* Call fn for every interface; stops early when fn returns nonzero. */
int tbl_iface_each(const struct tbl *t, int (*fn)(struct tbl_iface *, void *), void *arg);
/* Number of interfaces and of address entries in the table. */
void tbl_count(const struct tbl *t, size_t *nifaces, size_t *naddrs);
/* The longest probe from a home slot to its key, over both hashes: what a
 * lookup costs at worst (for tests, and a bench that wants to know). */
size_t tbl_probe_max(const struct tbl *t);

/* Record the entry addr, prefix/plen on ifindex (which must exist); 1 added,
 * 0 known (marked seen), -1 on ENOMEM or a bad plen.  Entries are equal, as
 * in the kernel, when addr and plen are and the prefixes share the subnet. */
int tbl_addr_add(struct tbl *t, int ifindex, uint32_t addr, uint32_t prefix, uint8_t plen);
/* Remove that entry from ifindex; 1 when it was there. */
int tbl_addr_del(struct tbl *t, int ifindex, uint32_t addr, uint32_t prefix, uint8_t plen);
/* Is addr assigned to ifindex (by any entry)?  O(1). */
bool tbl_addr_on(const struct tbl *t, int ifindex, uint32_t addr);
/* Some interface that holds addr, preferring one for which pred is true; NULL if none. */
struct tbl_iface *tbl_addr_owner(const struct tbl *t, uint32_t addr,
    bool (*pred)(const struct tbl_iface *));
/* The index in ifp->addrs of addr's most recent entry (one per address,
 * whatever its prefixes), or SIZE_MAX when ifp does not hold addr. */
size_t tbl_addr_head(const struct tbl *t, const struct tbl_iface *ifp, uint32_t addr);
/* Is ip inside one of the subnets configured on ifp? */
bool tbl_in_subnet(const struct tbl *t, const struct tbl_iface *ifp, uint32_t ip);
/* Does one entry's subnet on ifp hold both a and b?  The kernel's test for
 * arp_ignore 1 (b = a) and 2 (a = target, b = sender): inet_confirm_addr().
 * O(1) but for the interface's subnets and peers, never its /32s. */
bool tbl_covers(const struct tbl *t, const struct tbl_iface *ifp, uint32_t a, uint32_t b);
/* Is mac the hardware address of any interface in the table? */
bool tbl_is_our_mac(const struct tbl *t, const uint8_t mac[static 6]);

/* Resync: start a generation; tbl_addr_add marks what the dump shows. */
unsigned tbl_gen_begin(struct tbl *t);
/* Remove every entry not seen in generation gen; fn is told of each. */
void tbl_addr_sweep(struct tbl *t, unsigned gen,
    void (*fn)(struct tbl_iface *, const struct tbl_addr *, void *), void *arg);

#endif
