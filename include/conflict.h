/* conflict.h — foreign claims on our addresses: a bounded record per
 * address, and whether to log this one; pure. */
#ifndef ARPOWND_CONFLICT_H
#define ARPOWND_CONFLICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFL_INTERVAL	10.0	/* seconds between two logs for one address */
#define CFL_LINES	20	/* conflict lines per interval, all addresses */

/* What is known of one address's conflict. */
struct cfl_rec {
	uint32_t	addr;		/* ours, network order; 0 = free slot */
	int		ifindex;	/* where the claim was seen */
	uint8_t		mac[6];		/* the claimant's, last seen */
	double		first, last;	/* seen */
	double		logged;		/* last logged, 0 = never */
	unsigned long long count;	/* claims seen */
	unsigned	suppressed;	/* not logged since the last line */
	unsigned	quiet;		/* at the last line: suppressed before it */
};

struct cfl;

/* A tracker of at most max records; NULL on ENOMEM. */
struct cfl *cfl_new(size_t max);
void cfl_free(struct cfl *c);
/* Record a claim on addr by mac at now; true when it is to be logged (at
 * most once per address per CFL_INTERVAL, CFL_LINES per interval in all;
 * a record younger than the interval is never evicted).  *rec, when not
 * NULL, is set to the record (NULL when the table was full of young ones). */
bool cfl_note(struct cfl *c, uint32_t addr, int ifindex, const uint8_t mac[static 6],
    double now, const struct cfl_rec **rec);
/* Claims not logged because of the limits, all addresses. */
unsigned long long cfl_suppressed(const struct cfl *c);
/* Call fn for every record held, in no particular order. */
void cfl_each(const struct cfl *c, void (*fn)(const struct cfl_rec *, void *), void *arg);

#endif
