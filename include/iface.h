/* iface.h — the interface manager: which interfaces arpownd answers for,
 * and their sysctls.  The only code that writes a sysctl or the state
 * file: originals saved before any change, restored when given back. */
#ifndef ARPOWND_IFACE_H
#define ARPOWND_IFACE_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "ifaceval.h"
#include "rtnl.h"
#include "statedir.h"
#include "table.h"

struct ifm;

/* A manager of t's interfaces over r, keeping records in sd; it takes
 * over the records st (loaded from sd), leaving st empty; NULL on ENOMEM. */
struct ifm *ifm_new(struct tbl *t, struct rtnl *r, struct sdir *sd, struct state *st);
void ifm_free(struct ifm *m);
/* Told of ifp after it became managed, changed mode, or was given back
 * (ifp->managed, ifp->mode say which): announcements start or stop. */
typedef void ifm_event_fn(void *arg, struct tbl_iface *ifp);
/* Set the callback for those changes (one; NULL for none). */
void ifm_on_event(struct ifm *m, ifm_event_fn *fn, void *arg);
/* At start, after the first dump: match a previous run's records to the
 * links (by ifindex; by name for v1 records), drop those of links that
 * are gone, note renames; then ifm_apply_all does the rest. */
void ifm_adopt(struct ifm *m);
/* The mode c gives ifp, or -1 when it is not to be managed (not Ethernet,
 * lo, NOARP, a port of a bridge or bond, or left out by the globs). */
int ifm_mode(const struct ifm *m, const struct conf *c, const struct tbl_iface *ifp);
/* Bring one interface to what c wants (a link event, a heal). */
void ifm_apply(struct ifm *m, const struct conf *c, struct tbl_iface *ifp);
/* Bring every interface to what c wants: every original saved in one
 * write before anything changes (start, reload, re-dump); -1 when that
 * save failed and nothing was changed (the settings are c's all the same). */
int ifm_apply_all(struct ifm *m, const struct conf *c);
/* Before a reload puts c in force: the originals c will change, saved
 * in one write; -1 when they cannot be (nothing changed; refuse c). */
int ifm_prepare(struct ifm *m, const struct conf *c);
/* ifindex is gone (its sysctls with it): forget its record. */
void ifm_gone(struct ifm *m, int ifindex);
/* At stop: every recorded interface that exists left in the kernel's
 * strict mode its record names (its originals kept), or given back its
 * originals when originals is true or the record names none; the number
 * that could not be set, each one logged. */
size_t ifm_restore_all(struct ifm *m, bool originals);
/* The interfaces managed now (their ifindexes, *n of them; the caller
 * frees): what a stop gives back and then drains.  NULL on ENOMEM. */
int *ifm_managed_now(struct ifm *m, size_t *n);
/* The stop's drain: on, the interfaces of v marked managed again, in the
 * table only (their records are gone), so the capture's last requests
 * are decided as they were while silent; off, unmarked again where no
 * record is held. */
void ifm_drain_mark(struct ifm *m, const int *v, size_t n, bool on);
/* The record of ifindex, or NULL. */
const struct state_orig *ifm_record(struct ifm *m, int ifindex);
/* Can we change sysctls (CAP_NET_ADMIN)?  Asked by writing lo's value
 * back unchanged; 0, or -1 with errno. */
int ifm_can_set(struct ifm *m);
/* Records held (interfaces arpownd changed and has not given back). */
size_t ifm_nrecords(const struct ifm *m);

#endif
