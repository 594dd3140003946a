/* limit.h — token buckets for replies and neighbour learning; pure. */
#ifndef ARPOWND_LIMIT_H
#define ARPOWND_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define LIM_SENDER_SLOTS	4096	/* per-sender buckets, shared on collision */
#define LIM_REORDER		10.0	/* s: an earlier time than this is a clock step */

/* rate tokens a second; the burst is a tenth of a second's, at least 10 */
struct lim_bucket {
	double	tokens;
	double	last;	/* 0: never used, starts full */
};

struct lim {
	struct lim_bucket	total, learn;
	struct lim_bucket	senders[LIM_SENDER_SLOTS];
};

/* Take one token from b at rate per second at time now; false when empty. */
bool lim_take(struct lim_bucket *b, long rate, double now);
/* Take n tokens at once, or none; false when fewer are left. */
bool lim_take_n(struct lim_bucket *b, long rate, unsigned n, double now);
/* The same, but leave half the burst in the bucket: announcements share
 * total_rate with replies, and never starve them. */
bool lim_take_spare(struct lim_bucket *b, long rate, unsigned n, double now);
/* Take one from the bucket of sender ip (shared by the senders hashed to
 * it: fixed memory whatever their number); false when empty. */
bool lim_sender(struct lim *l, uint32_t ip, long rate, double now);
/* The slot sender ip shares (for tests). */
unsigned lim_sender_slot(uint32_t ip);

#endif
