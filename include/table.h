/* table.h — which interface owns which IPv4 address; pure, no I/O. */
#ifndef ARPOWND_TABLE_H
#define ARPOWND_TABLE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tbl;

struct tbl_addr {
	uint32_t	addr;		/* network byte order */
	uint8_t		plen;
	unsigned	gen;		/* resync generation last seen */
};

/* One link as rtnetlink last described it, and how arpownd treats it. */
struct tbl_iface {
	int		ifindex;
	char		name[IF_NAMESIZE];
	uint8_t		mac[6];
	uint16_t	type;		/* ARPHRD_* */
	unsigned	flags;		/* IFF_* */
	int		arp_ignore;	/* from IFLA_INET_CONF, -1 unknown */
	int		arp_announce;
	/* set by the interface manager, read by the policy */
	bool		managed;
	int		mode;		/* enum pol_mode */
	bool		conf_pending;	/* sysctls set, kernel's echo not seen yet */
	/* addresses, for subnet checks and dumps */
	struct tbl_addr	*addrs;
	size_t		naddrs, aaddrs;
	unsigned	gen;		/* resync generation last seen */
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
/* Call fn for every interface; stops early when fn returns nonzero. */
int tbl_iface_each(const struct tbl *t, int (*fn)(struct tbl_iface *, void *), void *arg);
/* Number of interfaces and of addresses in the table. */
void tbl_count(const struct tbl *t, size_t *nifaces, size_t *naddrs);

/* Record addr/plen on ifindex (interface must exist); 1 added, 0 known, -1 ENOMEM. */
int tbl_addr_add(struct tbl *t, int ifindex, uint32_t addr, uint8_t plen);
/* Remove addr from ifindex; 1 when it was there. */
int tbl_addr_del(struct tbl *t, int ifindex, uint32_t addr);
/* Is addr assigned to ifindex?  O(1). */
bool tbl_addr_on(const struct tbl *t, int ifindex, uint32_t addr);
/* Some interface that holds addr, preferring one for which pred is true; NULL if none. */
struct tbl_iface *tbl_addr_owner(const struct tbl *t, uint32_t addr,
    bool (*pred)(const struct tbl_iface *));
/* Is ip inside one of the subnets configured on ifp? */
bool tbl_in_subnet(const struct tbl_iface *ifp, uint32_t ip);
/* Is mac the hardware address of any interface in the table? */
bool tbl_is_our_mac(const struct tbl *t, const uint8_t mac[static 6]);

/* Resync: start a generation, mark entries seen, then sweep the unseen. */
unsigned tbl_gen_begin(struct tbl *t);
/* Mark addr on ifindex as seen in the current generation. */
void tbl_addr_seen(struct tbl *t, int ifindex, uint32_t addr);
/* Remove every address not seen in generation gen; fn is told of each. */
void tbl_addr_sweep(struct tbl *t, unsigned gen,
    void (*fn)(struct tbl_iface *, uint32_t addr, void *), void *arg);

#endif
