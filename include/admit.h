/* admit.h — who gets a control connection when slots are short: a cap per
 * uid, slots only root may take, and the oldest idle connection of
 * another user given up for a newcomer; pure. */
#ifndef ARPOWND_ADMIT_H
#define ARPOWND_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ADM_ROOT_SLOTS	4	/* of the slots, kept for root */
#define ADM_PER_UID	4	/* connections of one other uid at a time */

/* What admission knows of one slot. */
struct adm_slot {
	bool	used;
	uid_t	uid;
	bool	idle;		/* connected, nothing asked, nothing owed */
	double	since;		/* last activity (accepted, answered) */
};

enum adm_verdict {
	ADM_TAKE,		/* the free slot *slot */
	ADM_EVICT,		/* close slot *slot (idle) first, then take it */
	ADM_REFUSE_UID,		/* this uid has ADM_PER_UID connections, none idle */
	ADM_REFUSE_BUSY,	/* every slot it may take is busy */
};

/* A peer of uid asks for one of the n slots of v. */
enum adm_verdict adm_decide(const struct adm_slot *v, size_t n, uid_t uid, size_t *slot);

#endif
