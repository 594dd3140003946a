/* sync.h — the table kept equal to the kernel's: the first dump, events
 * read until none is queued, a re-dump when events were lost, and the
 * periodic look at the links' devconf that heals a rewritten sysctl.
 * What changed is logged, managed (iface.c) and announced (announcer.c). */
#ifndef ARPOWND_SYNC_H
#define ARPOWND_SYNC_H

#include <stdbool.h>

#include "conf.h"
#include "linksync.h"

struct anr;
struct ifm;
struct rtnl;
struct stats;
struct syn;
struct tbl;

/* What the sync works with; all outlive it. */
struct syn_deps {
	struct tbl	*tbl;
	struct rtnl	*rtnl;
	struct ifm	*ifm;
	struct stats	*st;
	/* told of each change, after the sync acted on it (the kernel
	 * answer path's grants); NULL for none */
	void		(*changed)(void *arg, const struct ls_change *c);
	void		*changed_arg;
};

/* A sync, managing interfaces as the configuration in force says
 * (inforce.h); NULL on ENOMEM. */
struct syn *syn_new(const struct syn_deps *d);
void syn_free(struct syn *s);
/* Read every link and address (start); 0, or -1 with errno. */
int syn_dump(struct syn *s);
/* From now on events manage interfaces and start announcements through
 * a (made after the first dump: it sends through the capture, live after
 * it); before, they only update the table. */
void syn_started(struct syn *s, struct anr *a);
/* The stop: events only update the table again (and still end the
 * bursts of what goes). */
void syn_stopping(struct syn *s);
/* Every interface to what the configuration in force wants (ifm_apply_all). */
int syn_manage_all(struct syn *s);
/* Apply every event queued so far; re-dump when some were lost. */
void syn_read(struct syn *s);
/* Look at the links' devconf now (a /proc/sys write sends no event) and
 * put back what someone changed; or retry a failed re-dump. */
void syn_check(struct syn *s);

#endif
