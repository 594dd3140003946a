/* kanint.h — what the kernel answer path's daemon side shares among its
 * files: kanswer.c (open, start, the changes in), kanattach.c (which
 * interfaces the program sits on), kanfeed.c (their grants written),
 * kanfold.c (the counters folded) and kanev.c (the events read).
 * Nothing else includes it: the rest of arpownd sees kanswer.h. */
#ifndef ARPOWND_KANINT_H
#define ARPOWND_KANINT_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "kanpub.h"
#include "kanswer.h"
#include "kpath.h"
#include "util.h"

struct kanq;
struct kanroom;

/* One interface the program is (or was meant to be) on. */
struct kan_if {
	int		ifindex;
	bool		attached;
	bool		said;		/* its failure to attach was logged */
	bool		known, usable;	/* a holder of its addresses, last seen */
	uint64_t	last[KP_NCOUNTERS];	/* counters already folded */
};

struct kan {
	struct kp		*kp;
	struct kan_deps		 d;
	const struct conf	*conf;
	const struct pub	*pub;
	bool			 started;
	ev_io			 ev_w;
	struct kan_if		*ifs;
	size_t			 nifs, aifs;
	struct kanpub		 pg;		/* published CIDRs written: kanpub.c */
	struct kanq		*q;		/* feeds deferred: kanq.c */
	struct kanroom		*room;		/* what the maps have no room for */
	bool			 resync_said;
	bool			 bulk;		/* feed writes settings only: all_again */
	bool			 feed_grants;	/* iface() writes an attached one's grants */
	ev_timer		 resync_w;	/* the kernel's state read again, soon */
};

/* kanswer.c: ifindex's entry (made when make and missing), or NULL */
struct kan_if *kan_slot(struct kan *k, int ifindex, bool make);
/* kanswer.c: after a change is written: a resync soon if due, kanroom asked */
void kan_settle(struct kan *k);

/* kanattach.c: does the program answer on ifp (managed, answering, not capture, Ethernet)? */
bool kan_wants(const struct kan *k, const struct tbl_iface *ifp);
/* kanattach.c: ifp attached or detached as it wants, an attached one's settings fed */
void kan_ifapply(struct kan *k, struct tbl_iface *ifp);
/* kanattach.c: every filter that is due, attached in one batch; 0 or -1 */
int kan_attach_due(struct kan *k);

/* kanfeed.c: ifp's settings and senders written, and (grants) its grants */
void kan_feed(struct kan *k, struct tbl_iface *ifp, bool grants);
/* kanfeed.c: the published ranges written where the program is (kanpub.c) */
void kan_pub_sync(struct kan *k);
/* kanfeed.c: what kpath.c could not confirm handed to the retry (kanq.c) */
void kan_recheck(struct kan *k, bool retry);
/* kanfeed.c: every interface again, then what is published */
void kan_refeed(struct kan *k);
/* kanfeed.c: everything written anew (a start, a resync, room again) */
void kan_all_again(struct kan *k);
/* kanfeed.c: kanq.c's feed (one attached interface, or all: -1) and its end */
void kan_q_feed(void *arg, int ifindex);
void kan_q_done(void *arg, bool retry);
/* kanfeed.c: kanroom.c's retry (all: every grant, the mirror read again) */
void kan_room_again(void *arg, bool all);

/* kanfold.c: what the program counted on s's interface since the last fold, into the stats */
void kan_fold_one(struct kan *k, struct kan_if *s);

/* kanev.c: the program's events read (learning, probes) */
void kan_events_cb(struct ev_loop *loop, ev_io *w, int revents);

#endif
