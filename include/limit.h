/* limit.h — token buckets for replies and neighbour learning; pure but
 * for the key lim_init draws. */
#ifndef ARPOWND_LIMIT_H
#define ARPOWND_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "siphash.h"

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
	/* the sender slots' key: drawn at start, so that no sender can be
	 * chosen to share another's slot (lim_init); a sender is its address
	 * and its MAC, so that one host using another's address (or sending
	 * probes, all from 0.0.0.0) does not spend that host's bucket */
	struct sip_key		key;
};

/* Take one token from b at rate per second at time now; false when empty. */
bool lim_take(struct lim_bucket *b, long rate, double now);
/* Take n tokens at once, or none; false when fewer are left. */
bool lim_take_n(struct lim_bucket *b, long rate, unsigned n, double now);
/* The same, but leave half the burst in the bucket: announcements share
 * total_rate with replies, and never starve them. */
bool lim_take_spare(struct lim_bucket *b, long rate, unsigned n, double now);
/* Take n tokens at once, or none, from a bucket that lets through at
 * most rate in any one second (the announcements' announce_rate). */
bool lim_pace(struct lim_bucket *b, long rate, unsigned n, double now);
/* Every bucket full, the sender slots keyed with a key drawn now; 0, or
 * -1 with errno when the kernel gives no random bytes. */
int lim_init(struct lim *l);
/* Take one from the bucket of the sender (ip, mac) (shared by the senders
 * hashed to it: fixed memory whatever their number); false when empty. */
bool lim_sender(struct lim *l, uint32_t ip, const uint8_t mac[6], long rate, double now);
/* The slot the sender (ip in network order, its MAC) shares under l's key. */
unsigned lim_sender_slot(const struct lim *l, uint32_t ip, const uint8_t mac[6]);

#endif
