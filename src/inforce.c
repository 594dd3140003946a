/* inforce.c — the one holder of what is in force.  Features keep no copy
 * of the configuration or the published set: they read them here when
 * they need them, so a reload has nothing to push into each of them; the
 * few that must do work on a change (re-attach, re-pace, reopen a file,
 * announce what is new) subscribe, and are told in a fixed order, the
 * order the daemon subscribed them in (daemon.c says why that order).
 * One process, one view: module state, not a context passed around. */
#include "config.h"

#include <stddef.h>

#include "inforce.h"

static struct conf	*conf;
static struct pub	*pub;
static struct {
	inf_fn		*fn;
	void		*arg;
} subs[INF_SUBSCRIBERS];
static size_t		 nsubs;

void
inf_init(struct conf *c)
{
	conf = c;
}

void
inf_init_pub(struct pub *p)
{
	pub = p;
}

const struct conf *
inf_conf(void)
{
	return conf;
}

const struct pub *
inf_pub(void)
{
	return pub;
}

struct pub *
inf_pub_edit(void)
{
	return pub;
}

int
inf_subscribe(inf_fn *fn, void *arg)
{
	if (nsubs == INF_SUBSCRIBERS)
		return -1;
	subs[nsubs].fn = fn;
	subs[nsubs].arg = arg;
	nsubs++;
	return 0;
}

void
inf_swap(struct conf *c, struct pub *p)
{
	struct conf *oc = conf;
	struct pub *op = pub;
	size_t i;

	conf = c;
	pub = p;
	/* every subscriber may still look at the old ones (what changed):
	 * freed after the last */
	for (i = 0; i < nsubs; i++)
		subs[i].fn(subs[i].arg, oc, op);
	conf_free(oc);
	pub_free(op);
}

void
inf_free(void)
{
	pub_free(pub);
	conf_free(conf);
	pub = NULL;
	conf = NULL;
	nsubs = 0;
}
