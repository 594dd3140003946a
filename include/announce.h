/* announce.h — the gratuitous-ARP schedule: which announcement is due
 * when.  Pure: events in (start, stop), due steps out through a callback
 * that sends or not, and the next deadline for the one timer. */
#ifndef ARPOWND_ANNOUNCE_H
#define ARPOWND_ANNOUNCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ANN_RETRY_DELAY	0.01	/* seconds, after the send was refused */
#define ANN_FEW		128	/* single-address bursts pending before the next
				 * one becomes its interface's whole burst */

/* What the sender made of a due step. */
enum ann_verdict {
	ANN_SENT,	/* done: the next frame of the burst an interval later */
	ANN_RETRY,	/* not now (rate limit): the same step again shortly */
	ANN_CANCEL,	/* never (gone, not ours any more): drop the burst */
};

/* Send step nth (0-based) of the burst for addr on ifindex; addr 0 stands
 * for all of ifindex's addresses, *cursor (0 at each step's start) says
 * how many of them this step already sent, for the sender to carry on. */
typedef enum ann_verdict ann_fn(void *arg, int ifindex, uint32_t addr, unsigned nth,
    size_t *cursor);

struct ann;

/* An empty schedule of at most max bursts; NULL on ENOMEM. */
struct ann *ann_new(size_t max);
void ann_free(struct ann *a);
/* (Re)start a burst of count steps, interval apart, the first at now; one
 * for addr 0 covers every address of ifindex, and absorbs the bursts of
 * single ones.  With ANN_FEW bursts pending, a single address starts its
 * interface's whole burst instead: the pending list stays short, so that
 * starting and running bursts stay cheap however many addresses a reload
 * or a publish brings (at the price of announcing the interface's other
 * addresses again).  0, or -1 when full (the burst is dropped). */
int ann_start(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    double now);
/* Drop the burst for addr on ifindex; addr 0 drops all of ifindex's. */
void ann_stop(struct ann *a, int ifindex, uint32_t addr);
/* Run every step due at now through fn; the next deadline, 0 when none. */
double ann_run(struct ann *a, double now, ann_fn *fn, void *arg);
/* Bursts pending. */
size_t ann_pending(const struct ann *a);

#endif
