/* limit.c — token buckets.  A flood from a million spoofed senders must not
 * cost a million buckets: senders hash into a fixed table and share a
 * bucket on a collision.  Sharing, never resetting: a slot handed to the
 * newest sender with a full bucket would let two alternating senders that
 * collide be answered without limit.  Keyed (SipHash, a key drawn at each
 * start): with a public formula a sender chosen to share a client's slot
 * starves it at sender_rate, a tenth of what total_rate lets through.  A
 * sender is its address and its hardware address: by the address alone,
 * a host spending another's bucket needs only to name its address (and
 * every RFC 5227 probe is from 0.0.0.0: one host probing at sender_rate
 * left every other's probes unanswered, and a probe unanswered is an
 * address taken that is in use); naming its MAC as well takes its place
 * on the switch, an attack on the segment, not on arpownd. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/random.h>

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

bool
lim_pace(struct lim_bucket *b, long rate, unsigned n, double now)
{
	/* a bucket of B tokens refilled at rate - B a second lets through at
	 * most B + (rate - B) = rate in any one second, however the sends
	 * fall; B, a twentieth of a second's, keeps the steady pace at 95 %
	 * and lets a timer come 40 ms late without losing any of it */
	double burst = (double)rate / 20, fill;

	if (burst < 2 * n)
		burst = 2 * n;
	if (burst > (double)rate)
		burst = (double)rate;
	fill = (double)rate - burst;
	if (b->last == 0)
		b->tokens = burst;
	else if (now > b->last)
		b->tokens += (now - b->last) * fill;
	if (b->tokens > burst)
		b->tokens = burst;
	b->last = now;
	if (b->tokens < n)
		return false;
	b->tokens -= n;
	return true;
}

int
lim_init(struct lim *l)
{
	unsigned char k[16];

	memset(l, 0, sizeof(*l));
	if (getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k))
		return -1;
	l->key = sip_key_of(k);
	return 0;
}

unsigned
lim_sender_slot(const struct lim *l, uint32_t ip, const uint8_t mac[6])
{
	return (unsigned)(sip_hash_sender(&l->key, ntohl(ip), mac) & (LIM_SENDER_SLOTS - 1));
}

bool
lim_sender(struct lim *l, uint32_t ip, const uint8_t mac[6], long rate, double now)
{
	return lim_take(&l->senders[lim_sender_slot(l, ip, mac)], rate, now);
}
