/* answer.h — the frame path: a captured ARP frame checked, decided,
 * rate-limited and answered from the owning interface, counted, and its
 * requester learned; claims on our addresses judged and defended. */
#ifndef ARPOWND_ANSWER_H
#define ARPOWND_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "publish.h"

#define ANS_BUDGET	512	/* frames per batch before netlink is read again */
#define ANS_LEARN_RATE	200	/* neighbour entries per second, at most */
#define ANS_MAX_LATE	10.0	/* s: a frame stamped earlier is charged now */

struct ans;
struct anr;
struct cap;
struct cfl;
struct lim;
struct notes;
struct rpf;
struct rtnl;
struct stats;
struct tbl;

/* What the frame path works with; all outlive it. */
struct ans_deps {
	struct tbl	*tbl;
	struct cap	*cap;		/* frames in and out */
	struct rtnl	*rtnl;		/* learning; when it was last drained */
	struct anr	*anr;		/* defences */
	struct notes	*notes;
	struct cfl	*cfl;
	struct lim	*lim;
	struct stats	*st;
	/* read netlink until it would block: before a batch, and before a
	 * frame newer than the last drain (sync.c's syn_read) */
	void		(*sync)(void *arg);
	void		*sync_arg;
	struct rpf	*rpf;		/* the kernel's reverse-path checks; NULL: none */
};

/* A frame path, deciding by what is in force (inforce.h); NULL on ENOMEM. */
struct ans *ans_new(const struct ans_deps *d);
void ans_free(struct ans *a);
/* Answer what the capture holds, then keep polling busy_poll_us (the
 * capture fd's watcher); now: the loop's time, for the rate limits. */
void ans_run(struct ans *a, double now);
/* Answer what the capture still holds, for at most max seconds (the stop). */
void ans_drain(struct ans *a, double now, double max);
/* One frame left unanswered while arpownd restarted (handover.h), which
 * arrived at ts (CLOCK_REALTIME ns): answered when the address is
 * published, or owned and owned is true (the kernel, in its strict mode,
 * answered those unless the gap began with nobody answering); true when a
 * reply went out. */
bool ans_handover(struct ans *a, const uint8_t *pkt, size_t caplen, uint64_t ts,
    double now, bool owned);
/* Send the replies ans_handover queued (a batch, not a syscall each). */
void ans_flush(struct ans *a);
/* One frame of caplen bytes received at ts (CLOCK_REALTIME ns), read at
 * now (the loop's time, seconds); the limits are charged at ts; as cap_fn
 * does, for tests. */
void ans_frame(struct ans *a, const uint8_t *pkt, size_t caplen, uint64_t ts, double now);

#endif
