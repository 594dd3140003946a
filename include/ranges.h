/* ranges.h — sets of IPv4 addresses kept as sorted ranges, so that a
 * million addresses given as a few CIDRs cost a few bytes; pure. */
#ifndef ARPOWND_RANGES_H
#define ARPOWND_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [lo, hi], host byte order. */
struct rng_span {
	uint32_t	lo, hi;
};

/* Sorted, disjoint, not adjacent (merged) once rng_finish has run. */
struct rng {
	struct rng_span	*v;
	size_t		 n, alloc;
	struct rng_span	*ex;		/* excludes, until rng_finish */
	size_t		 nex, aex;
};

/* Add one item of a list: ADDR, ADDR/LEN, ADDR-ADDR, or any of them
 * after '!' (an exclude); 0, or -1 with the reason in *why. */
int rng_add_item(struct rng *r, const char *item, const char **why);
/* Add [lo, hi] (host order); 0 or -1 on ENOMEM. */
int rng_add(struct rng *r, uint32_t lo, uint32_t hi);
/* Sort, merge and take the excludes out; 0 or -1 on ENOMEM. */
int rng_finish(struct rng *r);
/* Is addr (network order) in the set?  O(log n). */
bool rng_has(const struct rng *r, uint32_t addr);
/* The index of the span holding h (host order) among n sorted, disjoint
 * spans, each the first member of an element stride bytes long (so that
 * an index can carry more beside each span); n when none holds it. */
size_t rng_span_find(const void *spans, size_t n, size_t stride, uint32_t h);
/* The first martian address (host order) the set holds, through *at:
 * never ours to answer or announce (rules.h's rule_martian). */
bool rng_martian(const struct rng *r, uint32_t *at);
/* The first address (host order) both sets hold, through *at; false if none. */
bool rng_overlap(const struct rng *a, const struct rng *b, uint32_t *at);
/* Addresses in the set (up to 2^32). */
uint64_t rng_count(const struct rng *r);
/* Make dst a copy of the finished set src; 0 or -1 on ENOMEM. */
int rng_copy(struct rng *dst, const struct rng *src);
/* Free the spans (the struct itself is the caller's). */
void rng_clear(struct rng *r);

#endif
