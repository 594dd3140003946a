/* linksync.h — rtnetlink's link and address messages applied to the
 * ownership table; pure: a parsed message in, the table updated, what
 * changed out, for the features to act on (log, manage, announce). */
#ifndef ARPOWND_LINKSYNC_H
#define ARPOWND_LINKSYNC_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtnlmsg.h"
#include "table.h"

#define LS_LINK_READY	(IFF_UP | IFF_RUNNING)	/* frames can go out */

/* What one message changed: a set of these bits. */
enum ls_what {
	LS_NEW		= 1 << 0,	/* a link seen for the first time */
	LS_RENAMED	= 1 << 1,	/* a known link took another name */
	LS_MAC		= 1 << 2,	/* a known link's MAC changed */
	LS_UPDOWN	= 1 << 3,	/* a known link's IFF_UP flipped */
	LS_READY	= 1 << 4,	/* a known link can carry frames again */
	LS_GONE		= 1 << 5,	/* a link deleted, and taken out of the table */
	LS_ADDR_ADDED	= 1 << 6,	/* an address entry the table did not hold */
	LS_ADDR_REMOVED	= 1 << 7,	/* an address entry taken out */
	LS_ADDR_LAST	= 1 << 8,	/* ... its interface holds that address no more */
	LS_NOMEM	= 1 << 9,	/* the message could not be recorded */
	LS_XDP		= 1 << 10,	/* a known link's XDP program came, went or changed */
};

/* One change and what it is about. */
struct ls_change {
	unsigned		 what;		/* enum ls_what bits; 0: nothing */
	struct tbl_iface	*ifp;		/* NULL after LS_GONE, or an unknown link */
	int			 ifindex;
	char			 oldname[IF_NAMESIZE];	/* LS_RENAMED: the name before;
							 * LS_GONE: the last name */
	bool			 was_managed;	/* LS_GONE: it was managed */
	uint32_t		 addr;		/* address changes: network order */
	uint32_t		 prefix;	/* the entry's IFA_ADDRESS (the peer on p-t-p) */
	uint8_t			 plen;
};

/* Apply m to t, marking what it shows with generation gen; dumping: m
 * comes from a dump, so its sysctl values are believed even while one
 * of ours is pending. */
void ls_apply(struct tbl *t, const struct rtnl_msg *m, unsigned gen, bool dumping,
    struct ls_change *c);
/* arp_ignore ign and arp_announce ann (-1: that one untouched) written
 * to ifp's sysctls: held in the table as the kernel's until its echo (a
 * link message carrying them) confirms them; the one writer, beside
 * ls_apply, of what the table says of the kernel's settings. */
void ls_conf_written(struct tbl_iface *ifp, int ign, int ann);
/* Told of each change a sweep makes. */
typedef void ls_fn(void *arg, const struct ls_change *c);
/* After a dump of generation gen: take out every address entry, then every
 * link, it did not show, each told to fn; 0, or -1 on ENOMEM (the links
 * are left for the next sweep). */
int ls_sweep(struct tbl *t, unsigned gen, ls_fn *fn, void *arg);

#endif
