/* throttle.c — log throttling.  A flood of events (conflicts, probes from
 * outside, refused requests) must cost neither memory nor the journal:
 * keys hash into a fixed open-addressing table, a slot goes to another key
 * only once its interval is over (else two colliding keys would reset each
 * other and both be logged every time), and a budget caps the lines of one
 * interval however many keys there are. */
#include "config.h"

#include <stdlib.h>

#include "throttle.h"

#define THR_PROBES	8	/* slots looked at for one key */

struct slot {
	uint64_t	key;
	double		last;		/* last logged; 0 = free */
	unsigned	quiet;		/* refused since */
};

struct thr {
	struct slot		*v;
	size_t			 cap;		/* a power of two */
	double			 interval;
	unsigned		 budget, lines;	/* per interval, and used */
	double			 window;	/* start of the budget's interval */
	unsigned long long	 suppressed;
};

struct thr *
thr_new(size_t max, double interval, unsigned cap)
{
	struct thr *t;
	size_t n = 16;

	while (n < max)
		n *= 2;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((t->v = calloc(n, sizeof(*t->v))) == NULL) {
		free(t);
		return NULL;
	}
	t->cap = n;
	t->interval = interval;
	t->budget = cap;
	return t;
}

void
thr_free(struct thr *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t);
}

static size_t
hash64(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;	/* murmur3's finaliser */
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

bool
thr_allow(struct thr *t, uint64_t key, double now, unsigned *quiet)
{
	size_t h = hash64(key, t->cap), i;
	struct slot *s, *found = NULL, *spare = NULL;

	if (quiet != NULL)
		*quiet = 0;
	for (i = 0; i < THR_PROBES; i++) {
		s = &t->v[(h + i) & (t->cap - 1)];
		if (s->last != 0 && s->key == key) {
			found = s;
			break;
		}
		if (spare == NULL && (s->last == 0 || now - s->last >= t->interval))
			spare = s;
	}
	if (now - t->window >= t->interval) {
		t->window = now;
		t->lines = 0;
	}
	if (found != NULL && now - found->last < t->interval) {
		found->quiet++;
		t->suppressed++;
		return false;
	}
	if (found == NULL && (found = spare) != NULL) {
		found->key = key;
		found->quiet = 0;
	}
	/* every slot near it is young, or the interval's budget is spent */
	if (found == NULL || t->lines >= t->budget) {
		t->suppressed++;
		return false;
	}
	if (quiet != NULL)
		*quiet = found->quiet;
	found->quiet = 0;
	found->last = now;
	t->lines++;
	return true;
}

unsigned long long
thr_suppressed(const struct thr *t)
{
	return t->suppressed;
}
