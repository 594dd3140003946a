/* kanq.h — the kernel answer path's deferred feeds: interfaces whose
 * grants are to be written again, soon, on a timer of their own. */
#ifndef ARPOWND_KANQ_H
#define ARPOWND_KANQ_H

#include <stdbool.h>
#include <stddef.h>

struct ev_loop;
struct kanq;
struct util_ifset;

/* Write ifindex's grants again (-1: every interface's). */
typedef void kanq_feed_fn(void *arg, int ifindex);
/* A round is over: retry says it was a retry round (the caller collects
 * what is still unconfirmed and hands it back). */
typedef void kanq_done_fn(void *arg, bool retry);

struct kanq *kanq_new(struct ev_loop *loop, kanq_feed_fn *feed, kanq_done_fn *done, void *arg);
/* Stop the timers and free; NULL is fine. */
void kanq_free(struct kanq *q);
/* ifindex's wide entries (a subnet, a peer) changed: its grants are fed
 * within KANQ_BATCH, once for all the changes that came meanwhile. */
void kanq_dirty(struct kanq *q, int ifindex);
/* The grants of the interfaces s names could not be confirmed: fed again
 * after KANQ_RETRY, doubling, KANQ_TRIES times at most.  retry: they come
 * from a retry round's own writes (a try more); anything else starts the
 * count afresh. */
void kanq_unconfirmed(struct kanq *q, const struct util_ifset *s, bool retry);

#define KANQ_BATCH	0.010	/* s: a wide entry's changes gathered */
#define KANQ_RETRY	0.002	/* s: the watcher has run by then, nearly always */
#define KANQ_TRIES	8	/* doubling: about half a second in all */

#endif
