/* admit.c — admission to the control socket.  A member of the arpownd
 * group is trusted to ask, not to hold every slot: one uid holds at most
 * ADM_PER_UID connections (its own oldest idle one makes room for its
 * next), other users together at most the slots less ADM_ROOT_SLOTS, and
 * a newcomer who finds no slot takes the one of the oldest idle
 * connection of another user.  Root (keepalived's notify, the unit's
 * reload) always gets in while any slot is idle or free.  Busy
 * connections (a request being answered, a reply being read) are never
 * taken: they are bounded in time by the idle timer already. */
#include "config.h"

#include "admit.h"

/* The oldest idle slot, of uid when only_uid, else of anyone but root; n if none. */
static size_t
oldest_idle(const struct adm_slot *v, size_t n, bool only_uid, uid_t uid)
{
	size_t i, best = n;

	for (i = 0; i < n; i++) {
		if (!v[i].used || !v[i].idle)
			continue;
		if (only_uid ? v[i].uid != uid : v[i].uid == 0)
			continue;
		if (best == n || v[i].since < v[best].since)
			best = i;
	}
	return best;
}

enum adm_verdict
adm_decide(const struct adm_slot *v, size_t n, uid_t uid, size_t *slot)
{
	size_t i, others = 0, mine = 0, free_slot = n;

	for (i = 0; i < n; i++) {
		if (!v[i].used) {
			if (free_slot == n)
				free_slot = i;
			continue;
		}
		if (v[i].uid != 0)
			others++;
		if (v[i].uid == uid)
			mine++;
	}
	if (uid != 0 && mine >= ADM_PER_UID) {
		/* its own oldest idle connection makes room, nobody else's */
		if ((*slot = oldest_idle(v, n, true, uid)) < n)
			return ADM_EVICT;
		return ADM_REFUSE_UID;
	}
	if (free_slot < n && (uid == 0 || others + ADM_ROOT_SLOTS < n)) {
		*slot = free_slot;
		return ADM_TAKE;
	}
	if ((*slot = oldest_idle(v, n, false, uid)) < n)
		return ADM_EVICT;
	return ADM_REFUSE_BUSY;
}
