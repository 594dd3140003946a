/* inforce.h — what is in force: the configuration and the published set,
 * one read-only view every feature reads when it needs a value (as
 * chrony's CNF_Get*), swapped whole by a reload (as rad's main_conf),
 * after which the features that must act on a change are told, in the
 * order they subscribed; the old ones are freed only after the last. */
#ifndef ARPOWND_INFORCE_H
#define ARPOWND_INFORCE_H

#include "conf.h"
#include "publish.h"

#define INF_SUBSCRIBERS	16	/* features told of a swap, at most */

/* A feature told of a swap: the new ones are in force (inf_conf,
 * inf_pub), oc and op the old ones, still valid until every subscriber ran. */
typedef void inf_fn(void *arg, const struct conf *oc, const struct pub *op);

/* The configuration read at start: in force, owned from now on. */
void inf_init(struct conf *c);
/* The published set built at start: in force, owned from now on. */
void inf_init_pub(struct pub *p);
/* The configuration in force (NULL before inf_init). */
const struct conf *inf_conf(void);
/* The published set in force (NULL before inf_init_pub). */
const struct pub *inf_pub(void);
/* The same, to change in place: for its one writer, runtime publishing (pubops.c). */
struct pub *inf_pub_edit(void);
/* Tell fn(arg) of each swap, after those subscribed before; 0, or -1 when full. */
int inf_subscribe(inf_fn *fn, void *arg);
/* Put c and p in force, tell every subscriber in order, then free the old ones. */
void inf_swap(struct conf *c, struct pub *p);
/* Free what is in force and forget the subscribers (the end of a run, a test). */
void inf_free(void);

#endif
