/* kanfold.c — the kernel answer path's counters brought into the
 * daemon's: what the program answered or limited on each interface it
 * sits on, since the last fold, added to the stats the capture path
 * keeps (the requests it passes up, the capture counts itself). */
#include "config.h"

#include <string.h>

#include "kanint.h"
#include "policy.h"
#include "stats.h"
#include "table.h"

/* What the program counted on s's interface since the last fold (now:
 * its counters as they are). */
static void
fold_with(struct kan *k, struct kan_if *s, const uint64_t now[KP_NCOUNTERS])
{
	struct tbl_iface *ifp = tbl_iface(k->d.tbl, s->ifindex);
	uint64_t a, ls, lt;
	struct stats_if *is;

	a = now[KP_C_ANSWERED] - s->last[KP_C_ANSWERED];
	ls = now[KP_C_LIMITED_SENDER] - s->last[KP_C_LIMITED_SENDER];
	lt = now[KP_C_LIMITED_TOTAL] - s->last[KP_C_LIMITED_TOTAL];
	memcpy(s->last, now, sizeof(s->last));
	is = tbl_iface_stats(ifp);
	/* answered or limited there: requests decided for an answer, which
	 * the capture never saw (what is passed up, it counts itself) */
	k->d.st->all.received += a + ls + lt;
	k->d.st->all.verdict[POL_ANSWER] += a + ls + lt;
	k->d.st->all.replies += a;
	k->d.st->all.limited_sender += ls;
	k->d.st->all.limited_total += lt;
	if (is == NULL)
		return;
	is->received += a + ls + lt;
	is->verdict[POL_ANSWER] += a + ls + lt;
	is->replies += a;
	is->limited_sender += ls;
	is->limited_total += lt;
}

void
kan_fold_one(struct kan *k, struct kan_if *s)
{
	uint64_t now[KP_NCOUNTERS];

	if (kp_counters(k->kp, s->ifindex, now) == 0)
		fold_with(k, s, now);
}

static void
fold_cb(void *arg, int ifindex, const uint64_t c[KP_NCOUNTERS])
{
	struct kan_if *s = kan_slot(arg, ifindex, false);

	if (s != NULL && s->attached)
		fold_with(arg, s, c);
}

void
kan_fold(struct kan *k)
{
	size_t i;

	if (k == NULL || !k->started)
		return;
	/* every interface's at once; one by one only if that fails */
	if (kp_counters_all(k->kp, fold_cb, k) == 0)
		return;
	for (i = 0; i < k->nifs; i++)
		if (k->ifs[i].attached)
			kan_fold_one(k, &k->ifs[i]);
}
