/* pubops.h — publishing at run time: arpownctl publish and withdraw, kept
 * in the state directory so a restart answers the same; and the published
 * set a start or a reload builds from the configuration and those entries. */
#ifndef ARPOWND_PUBOPS_H
#define ARPOWND_PUBOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "publish.h"

struct anr;
struct pop;
struct sdir;
struct tbl;

/* What publishing works with; all outlive it. */
struct pop_deps {
	struct tbl		*tbl;
	struct sdir	*sd;	/* where runtime entries are kept */
	struct anr		*anr;	/* NULL: nothing announced (tests) */
	/* told after each publish or withdraw, before it returns (the
	 * kernel answer path's grants); NULL for none */
	void			(*changed)(void *arg, const struct pub *p);
	void			*changed_arg;
};

/* Publishing into the set in force (inforce.h: its one writer); NULL on ENOMEM. */
struct pop *pop_new(const struct pop_deps *d);
void pop_free(struct pop *o);
/* The set c makes with the runtime entries of old (a reload) or, when old
 * is NULL, those saved in the state directory (a start: a saved entry the
 * configuration now publishes itself is dropped, logged, and the state
 * saved again without it); NULL with the reason logged. */
struct pub *pop_build(struct pop *o, const struct conf *c, const struct pub *old);
/* "publish": addr/plen (network order, as ctlproto parsed it) on ifname,
 * literally an interface arpownd answers on; wider than a /16 only with
 * force; never an address an interface holds, nor a subnet's broadcast
 * address.  Kept before it is answered, then announced (PUB_ANNOUNCE_MAX
 * addresses at most); 0, or a sysexits code with why in err. */
int pop_publish(struct pop *o, uint32_t addr, uint8_t plen, const char *ifname, bool force,
    char *err, size_t errlen);
/* "withdraw": never answered once this returns; 0, or a sysexits code
 * with why in err: EX_DATAERR when nothing publishes addr, EX_NOINPUT when
 * addr/plen is inside another entry (still answered). */
int pop_withdraw(struct pop *o, uint32_t addr, uint8_t plen, char *err, size_t errlen);

#endif
