/* limit.c — token buckets.  A flood from a million spoofed senders must not
 * cost a million buckets: senders hash into a fixed table and share a
 * bucket on a collision.  Sharing, never resetting: a slot handed to the
 * newest sender with a full bucket would let two alternating senders that
 * collide be answered without limit. */
#include "config.h"

#include <arpa/inet.h>

#include "limit.h"

static double
burst_of(long rate)
{
	double b = (double)rate / 10.0;

	return b < 10 ? 10 : b;
}


static bool
take(struct lim_bucket *b, long rate, unsigned n, double keep, double now)
{
	double burst = burst_of(rate);

	if (b->last == 0)
		b->tokens = burst;
	else if (now > b->last)
		b->tokens += (now - b->last) * (double)rate;
	if (b->tokens > burst)
		b->tokens = burst;
	/*
	 * Requests are charged when they arrived (answer.c): a little out of
	 * order across CPUs, or behind an announcement charged at the loop's
	 * time.  Such a time refills nothing and does not move the bucket
	 * back, or the same interval would be credited twice; a clock stepped
	 * back further than that re-bases, refilling nothing.
	 */
	if (b->last == 0 || now > b->last || now < b->last - LIM_REORDER)
		b->last = now;
	if (b->tokens < n + keep)
		return false;
	b->tokens -= n;
	return true;
}

bool
lim_take_n(struct lim_bucket *b, long rate, unsigned n, double now)
{
	return take(b, rate, n, 0, now);
}

bool
lim_take_spare(struct lim_bucket *b, long rate, unsigned n, double now)
{
	return take(b, rate, n, burst_of(rate) / 2, now);
}

bool
lim_take(struct lim_bucket *b, long rate, double now)
{
	return take(b, rate, 1, 0, now);
}

unsigned
lim_sender_slot(uint32_t ip)
{
	/* Fibonacci hashing: the top 12 bits of the product */
	return (ntohl(ip) * 2654435761u) >> 20;
}

bool
lim_sender(struct lim *l, uint32_t ip, long rate, double now)
{
	return lim_take(&l->senders[lim_sender_slot(ip)], rate, now);
}
