/* kanint.h — what the kernel answer path's daemon side shares among its
 * files: kanswer.c (open, start, the changes in, everything fed again),
 * kanattach.c (which interfaces the program sits on), kanfeed.c (their
 * settings and grants written), kanfold.c (the counters folded), kanev.c
 * (the events read), kanifs.c (the record of each interface) and kanxdp.c
 * (which hook: XDP or TC).  The calls run one way: kanswer -> kanattach ->
 * kanxdp, kanfeed, kanfold -> kanifs.
 * Nothing else includes it: the rest of arpownd sees kanswer.h. */
#ifndef ARPOWND_KANINT_H
#define ARPOWND_KANINT_H

#include <ev.h>
#include <stddef.h>
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
	int		xdp;		/* attached at XDP in this KP_XDP_* mode; 0: at TC */
	bool		said;		/* its failure to attach was logged */
	uint32_t	other_id;	/* another's XDP program named in other */
	char		other[64];	/* its name (kp_xdp_other), while at TC for it */
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
	char			 refused[256];	/* answer_path = xdp another XDP program
						 * holds: the first, said (kan_refused) */
	bool			 bulk;		/* feed writes settings only: all_again */
	bool			 feed_grants;	/* iface() writes an attached one's grants */
	ev_timer		 resync_w;	/* the kernel's state read again, soon */
};

/* kanifs.c: ifindex's entry (made when make and missing), or NULL */
struct kan_if *kan_slot(struct kan *k, int ifindex, bool make);

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

#define KANX_TC		-1	/* TC: the reason in why */
#define KANX_ANY	0	/* XDP, native where the driver has it, else generic */
/* kanxdp.c: XDP in mode KP_XDP_* (>0), KANX_ANY, or KANX_TC with why
 * filled, for ifp as its answer_path, kind, master, upper devices and
 * (filters) another's TC filters say; the XDP attach may still fail
 * (another program there: kp_xdp_attach's why).  Without filters it asks
 * no query of its own: the links' snapshot (kp_uppers) is all it reads */
int kanx_choose(const struct tbl *t, const struct tbl_iface *ifp, bool filters, char *why,
    size_t len);
/* kanxdp.c: s off the hook it is on (its counters folded first) */
void kan_unhook(struct kan *k, struct kan_if *s);
/* kanxdp.c: ifp on at XDP in mode (KANX_ANY or KP_XDP_*): true when it
 * is; else the reason in ifp->kpath_why, said once, and TC is next */
bool kan_hook_xdp(struct kan *k, struct tbl_iface *ifp, struct kan_if *s, int mode);

/* kanfold.c: what the program counted on s's interface since the last fold, into the stats */
void kan_fold_one(struct kan *k, struct kan_if *s);

/* kanev.c: the program's events read and acted on (learning, probes) */
void kan_events(struct kan *k);

#endif
