/* rpf.h — the kernel's reverse-path checks of an ARP request's sender
 * (rp_filter, arp_filter), asked of the kernel's own routing and cached. */
#ifndef ARPOWND_RPF_H
#define ARPOWND_RPF_H

#include <stdbool.h>
#include <stdint.h>

#include "table.h"

#define RPF_LOOKUP_RATE	20000	/* route lookups a second, at most (a burst of a tenth) */
#define RPF_IFACE_RATE	5000	/* of those, for the requests of any one interface */

enum rpf_verdict {
	RPF_OK = 0,		/* the kernel would answer (or checks nothing here) */
	RPF_RP_FILTER,		/* rp_filter: no route back to the sender (through it) */
	RPF_ARP_FILTER,		/* arp_filter: the route to the sender leaves elsewhere */
	RPF_UNCHECKED,		/* could not ask (RPF_LOOKUP_RATE spent, a netlink error) */
};

struct rpf;
/* Told of an interface whose rp_check flipped. */
typedef void rpf_fn(void *arg, struct tbl_iface *ifp);

/* Open the sockets (route lookups; route, rule and netconf events) for
 * the interfaces of t; fn (may be NULL) told of rp_check changes; NULL with errno. */
struct rpf *rpf_new(struct tbl *t, rpf_fn *fn, void *arg);
void rpf_free(struct rpf *r);
/* Is either check on anywhere (else nothing is cached, nor asked)? */
bool rpf_active(const struct rpf *r);
/* The event socket's fd, for the event loop. */
int rpf_fd(const struct rpf *r);
/* Read the queued route, rule and netconf events: the cached verdicts go. */
void rpf_read(struct rpf *r);
/* Read net.ipv4.conf.all's rp_filter and arp_filter again, set every
 * interface's rp_check, and forget the cache (the periodic check: a
 * sysctl write of arp_filter sends no event). */
void rpf_refresh(struct rpf *r);
/* A link or address changed: forget the cache, set ifp's rp_check (NULL: every interface's). */
void rpf_changed(struct rpf *r, struct tbl_iface *ifp);
/* What the kernel does with a request from sip (not 0.0.0.0) for tip
 * arriving on in: ask its routing as arp_process() does, with dst as the
 * route's destination (tip itself when it is the host's; for a published
 * address, an address of the host); now: seconds, for the lookup budget. */
enum rpf_verdict rpf_check(struct rpf *r, const struct tbl_iface *in, uint32_t sip,
    uint32_t tip, uint32_t dst, double now);
/* Route lookups made, and verdicts answered from the cache, so far. */
void rpf_counts(const struct rpf *r, unsigned long long *lookups, unsigned long long *cached);

#endif
