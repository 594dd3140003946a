/* kanfeed.c — the kernel answer path's grant feeding: each attached
 * interface's settings, senders and grants written into the maps
 * (kpfeed.c turns the table into them), the published ranges, what
 * could not be confirmed handed to the retry (kanq.c), and everything
 * written anew at a start, a resync or when room comes back. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kanint.h"
#include "kanq.h"
#include "kpfeed.h"
#include "log.h"
#include "msgid.h"
#include "publish.h"
#include "ranges.h"
#include "table.h"

/* ------------------------------------------------------------ published */

/* kanpub.c's question: is the program on ifindex? */
static bool
on_iface(void *arg, int ifindex)
{
	struct kan_if *s = kan_slot(arg, ifindex, false);

	return s != NULL && s->attached;
}

void
kan_pub_sync(struct kan *k)
{
	kanpub_sync(&k->pg, k->kp, k->d.tbl, k->pub, on_iface, k);
}

/* What is published on ifp, as one set: a sender there claims ours. */
static int
ours_on(const struct kan *k, const struct tbl_iface *ifp, struct rng *r)
{
	const struct pub_entry *e;
	size_t i, j;

	memset(r, 0, sizeof(*r));
	for (i = 0; k->pub != NULL && i < pub_count(k->pub); i++) {
		e = pub_at(k->pub, i);
		if (!pub_entry_on(e, ifp->name))
			continue;
		for (j = 0; j < e->set.n; j++)
			if (rng_add(r, e->set.v[j].lo, e->set.v[j].hi) == -1)
				return -1;
	}
	return rng_finish(r);
}

/* Write ifp's settings and senders, and (grants) the grants of its
 * addresses. */
void
kan_feed(struct kan *k, struct tbl_iface *ifp, bool grants)
{
	unsigned flags = KP_IF_PROBES | KP_IF_PROBE_EVENTS;
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	struct rng ours;

	if (k->conf->learn)
		flags |= KP_IF_LEARN;
	/* what did not fit for want of room is kanroom's to say and retry */
	if ((ours_on(k, ifp, &ours) == -1 ||
	    (!grants ? kpf_settings(k->kp, ifp, flags, ours.n > 0 ? &ours : NULL) :
	    kpf_iface(k->kp, k->d.tbl, ifp, flags, ours.n > 0 ? &ours : NULL)) == -1) &&
	    errno != E2BIG)
		log_ctx(LOG_WARNING, &lc, "%s: the kernel answer path could not take all of "
		    "its settings; the capture path answers what it does not", ifp->name);
	rng_clear(&ours);
}

/* Hand what kpath.c could not confirm while writing to the retry. */
void
kan_recheck(struct kan *k, bool retry)
{
	struct util_ifset s;

	kp_take_unconfirmed(k->kp, &s);
	if (k->q != NULL)
		kanq_unconfirmed(k->q, &s, retry);
}
