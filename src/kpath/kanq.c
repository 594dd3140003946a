/* kanq.c — the kernel answer path's deferred feeds.  Two sets of
 * interfaces, each on a timer of its own:
 *  - dirty: a wide entry (a subnet, a peer) changed, and every grant of
 *    the interface may rest on it.  Fed once per KANQ_BATCH, not once per
 *    entry: an "ip -batch" of thousands of addresses would otherwise cost
 *    thousands of whole-interface feeds, a stall of seconds.
 *  - unconfirmed: a grant went in before the mirror held the kernel entry
 *    it rests on (the daemon read its netlink notification before the
 *    watcher, on another socket of the same broadcast, had run).  Safe
 *    as it stands (it never confirms: the capture path answers), fed
 *    again after a moment so that the program answers it.
 * Each a util_ifset: past its bound, every interface. */
#include "config.h"

#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "kanq.h"
#include "util.h"

struct kanq {
	struct ev_loop	*loop;
	kanq_feed_fn	*feed;
	kanq_done_fn	*done;
	void		*arg;
	ev_timer	 batch, retry;
	struct util_ifset dirty, unconf;
	unsigned	 tries;
};

/* Feed what s names, emptied first (a feed may name some again). */
static void
run(struct kanq *q, struct util_ifset *s)
{
	struct util_ifset now = *s;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (now.all)
		q->feed(q->arg, -1);
	else
		for (i = 0; i < now.n; i++)
			q->feed(q->arg, now.v[i]);
}

static void
batch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kanq *q = w->data;

	(void)loop;
	(void)revents;
	run(q, &q->dirty);
	q->done(q->arg, false);
}

static void
retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kanq *q = w->data;

	(void)loop;
	(void)revents;
	run(q, &q->unconf);
	q->done(q->arg, true);
}

struct kanq *
kanq_new(struct ev_loop *loop, kanq_feed_fn *feed, kanq_done_fn *done, void *arg)
{
	struct kanq *q;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->loop = loop;
	q->feed = feed;
	q->done = done;
	q->arg = arg;
	ev_timer_init(&q->batch, batch_cb, KANQ_BATCH, 0.);
	q->batch.data = q;
	ev_timer_init(&q->retry, retry_cb, KANQ_RETRY, 0.);
	q->retry.data = q;
	return q;
}

void
kanq_free(struct kanq *q)
{
	if (q == NULL)
		return;
	ev_timer_stop(q->loop, &q->batch);
	ev_timer_stop(q->loop, &q->retry);
	free(q);
}

void
kanq_dirty(struct kanq *q, int ifindex)
{
	util_ifset_add(&q->dirty, ifindex);
	if (!ev_is_active(&q->batch)) {
		ev_timer_set(&q->batch, KANQ_BATCH, 0.);
		ev_timer_start(q->loop, &q->batch);
	}
}

void
kanq_unconfirmed(struct kanq *q, const struct util_ifset *s, bool retry)
{
	util_ifset_merge(&q->unconf, s);
	if (util_ifset_empty(&q->unconf))
		return;
	if (!retry)
		q->tries = 0;
	else if (++q->tries >= KANQ_TRIES) {
		/* the entry really is not there (a link down, an address
		 * going): the next change that concerns it writes it again */
		memset(&q->unconf, 0, sizeof(q->unconf));
		return;
	}
	if (!ev_is_active(&q->retry)) {
		ev_timer_set(&q->retry, KANQ_RETRY * (double)(1u << q->tries), 0.);
		ev_timer_start(q->loop, &q->retry);
	}
}
