/* announce.c — the gratuitous-ARP schedule.  A burst is a few frames an
 * interval apart (Linux peers ignore a second gratuitous ARP inside the
 * neighbour table's 1 s locktime, hence 1.1 s by default); the steps keep
 * to the schedule (the next is due an interval after the last was due, not
 * after it was sent) so that the spacing on the wire is what the
 * configuration says.  A burst for a whole interface stands for all its
 * addresses, so that bringing up an interface with 100,000 addresses costs
 * one entry; the sender walks them with a cursor.  Bounded: at most max
 * bursts, a linear array kept short: past ANN_FEW pending, a single
 * address's burst becomes its interface's (a reload adding 65,536
 * published addresses made 65,536 bursts and two quadratic scans, and
 * held the loop for seconds). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "announce.h"

struct burst {
	int		ifindex;
	uint32_t	addr;		/* 0: every address of ifindex */
	unsigned	sent;		/* steps done */
	unsigned	count;
	double		interval;
	double		due;
	size_t		cursor;		/* addr 0: addresses sent in this step */
};

struct ann {
	struct burst	*v;
	size_t		 n, max;
};

struct ann *
ann_new(size_t max)
{
	struct ann *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	if ((a->v = calloc(max, sizeof(*a->v))) == NULL) {
		free(a);
		return NULL;
	}
	a->max = max;
	return a;
}

void
ann_free(struct ann *a)
{
	if (a == NULL)
		return;
	free(a->v);
	free(a);
}

static void
drop(struct ann *a, size_t i)
{
	a->v[i] = a->v[--a->n];
}

void
ann_stop(struct ann *a, int ifindex, uint32_t addr)
{
	size_t i = 0;

	while (i < a->n) {
		if (a->v[i].ifindex == ifindex && (addr == 0 || a->v[i].addr == addr))
			drop(a, i);
		else
			i++;
	}
}

int
ann_start(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    double now)
{
	struct burst *b = NULL;
	size_t i;

	if (count == 0)
		return 0;
	if (addr != 0 && a->n >= ANN_FEW)
		addr = 0;
	for (i = 0; i < a->n; i++) {
		if (a->v[i].ifindex != ifindex)
			continue;
		/* a whole-interface burst already covers this address */
		if (addr != 0 && a->v[i].addr == 0 && a->v[i].sent == 0)
			return 0;
		if (a->v[i].addr == addr) {
			b = &a->v[i];
			break;
		}
	}
	if (addr == 0)
		ann_stop(a, ifindex, 0);	/* the single ones are in it now */
	if (b == NULL || addr == 0) {
		if (a->n == a->max)
			return -1;
		b = &a->v[a->n++];
	}
	b->ifindex = ifindex;
	b->addr = addr;
	b->sent = 0;
	b->count = count;
	b->interval = interval;
	b->due = now;
	b->cursor = 0;
	return 0;
}

double
ann_run(struct ann *a, double now, ann_fn *fn, void *arg)
{
	double next = 0;
	struct burst *b;
	size_t i = 0;

	while (i < a->n) {
		b = &a->v[i];
		if (b->due <= now) {
			switch (fn(arg, b->ifindex, b->addr, b->sent, &b->cursor)) {
			case ANN_SENT:
				b->cursor = 0;
				if (++b->sent == b->count) {
					drop(a, i);
					continue;
				}
				b->due += b->interval;
				/* far behind (the loop was held up): no catch-up burst */
				if (b->due < now)
					b->due = now + b->interval;
				break;
			case ANN_RETRY:
				b->due = now + ANN_RETRY_DELAY;
				break;
			case ANN_CANCEL:
				drop(a, i);
				continue;
			}
		}
		if (next == 0 || b->due < next)
			next = b->due;
		i++;
	}
	return next;
}

size_t
ann_pending(const struct ann *a)
{
	return a->n;
}
