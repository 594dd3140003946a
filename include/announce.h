/* announce.h — the gratuitous-ARP schedule: which announcement is due
 * when, in which order.  Pure: events in (start, stop), due steps out
 * through a callback that sends or not, and the next deadline for the one
 * timer.  Single addresses (one that moved) go before whole interfaces,
 * those a non-root peer asked for after root's and the daemon's, and
 * whole interfaces take turns, an address each. */
#ifndef ARPOWND_ANNOUNCE_H
#define ARPOWND_ANNOUNCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ANN_RETRY_DELAY	0.01	/* seconds, after the send was refused */
#define ANN_SINGLES	4096	/* single-address bursts pending before the next
				 * one becomes its interface's whole burst */
#define ANN_PEER_PENDING 16	/* single bursts one non-root peer asked for,
				 * pending at once */
#define ANN_PEERS	16	/* non-root peers with bursts pending at once */

/* ann_start's flags, handed back in each step */
#define ANN_F_START	0x01	/* the daemon's start: what the previous run
				 * announced as it still is may be skipped */

/* What the sender made of a due step. */
enum ann_verdict {
	ANN_SENT,	/* the step is done: the next one an interval later */
	ANN_MORE,	/* whole interface: one address sent, more in this step */
	ANN_RETRY,	/* not now (no budget): the same step again shortly */
	ANN_CANCEL,	/* never (gone, not ours any more): drop the burst */
};

/* One due step of a burst, as the sender sees it. */
struct ann_step {
	int		ifindex;
	uint32_t	addr;		/* network order; 0: every address of ifindex */
	unsigned	nth;		/* the step, 0-based */
	unsigned	flags;		/* ANN_F_* */
	size_t		cursor;		/* addr 0: where this step is (0 at its
					 * start); the sender moves it on */
};

/* Send a step: for a single address all of it; for a whole interface the
 * address at s->cursor only (moving the cursor), ANN_MORE while more are
 * left and ANN_SENT once none is. */
typedef enum ann_verdict ann_fn(void *arg, struct ann_step *s);

struct ann;

/* An empty schedule of at most max bursts; NULL on ENOMEM. */
struct ann *ann_new(size_t max);
void ann_free(struct ann *a);
/* (Re)start a burst of count steps, interval apart, the first at now; addr
 * 0 stands for every address of ifindex.  With ANN_SINGLES single ones
 * pending, a single address starts its interface's whole burst instead.
 * 0, or -1 when full (the burst is dropped). */
int ann_start(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    unsigned flags, double now);
/* A burst for addr on ifindex that non-root peer uid asked for: it goes
 * after root's and the daemon's singles.  0 (also when one of theirs for
 * addr is pending: it goes out anyway); -1 when full; -2 when uid has
 * ANN_PEER_PENDING pending already, or ANN_PEERS other peers have some. */
int ann_ask(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    uint32_t uid, double now);
/* How many more bursts peer uid may ask for now. */
size_t ann_room(struct ann *a, uint32_t uid);
/* Drop the burst for addr on ifindex; addr 0 drops all of ifindex's. */
void ann_stop(struct ann *a, int ifindex, uint32_t addr);
/* Run every step due at now through fn; the next deadline, 0 when none. */
double ann_run(struct ann *a, double now, ann_fn *fn, void *arg);
/* Bursts pending. */
size_t ann_pending(const struct ann *a);
/* Is a burst for addr (0: the whole one) on ifindex pending, at any step? */
bool ann_has(const struct ann *a, int ifindex, uint32_t addr);
/* The burst for addr (0: the whole one) on ifindex while its first step
 * is not done, or NULL. */
const struct ann_step *ann_first(const struct ann *a, int ifindex, uint32_t addr);
/* While ifindex's whole burst makes its first step: was addr announced by
 * a burst of its own meanwhile (so that step need not, and it counts as
 * said)? */
bool ann_said(const struct ann *a, int ifindex, uint32_t addr);

#endif
