/* announcer.h — gratuitous ARP on the wire: bursts started by what
 * happens (an address added, a link up, a publish, a reload, a refresh),
 * run from one timer through the schedule (announce.h), paced by the
 * host's announce_rate, a per-turn frame budget and total_rate, sent from
 * the owning interface. */
#ifndef ARPOWND_ANNOUNCER_H
#define ARPOWND_ANNOUNCER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "publish.h"
#include "table.h"

#define ANR_BURSTS	65536	/* announcement bursts pending, at most */
#define ANR_RUN_FRAMES	512	/* announcement frames per loop turn, at most */

struct anr;
struct cap;
struct ev_loop;
struct lim;
struct stats;

/* What the announcer works with; all outlive it. */
struct anr_deps {
	struct ev_loop	*loop;
	struct tbl	*tbl;
	struct cap	*cap;		/* frames out */
	struct lim	*lim;		/* total_rate's bucket, shared with the replies */
	struct stats	*st;
};

/* An announcer with no burst pending, by what is in force (inforce.h); NULL on ENOMEM. */
struct anr *anr_new(const struct anr_deps *d);
void anr_free(struct anr *a);
/* (inf_fn) A new configuration in force: the refresh timer as it says. */
void anr_reconf(void *arg, const struct conf *oc, const struct pub *op);
/* Does ifp speak up: managed, answering (not monitor or off), announce on?
 * (A link that is down is skipped when a frame is due.) */
bool anr_speaks(const struct tbl_iface *ifp);
/* A burst for addr on ifindex, or for all its addresses when addr is 0. */
void anr_start(struct anr *a, int ifindex, uint32_t addr);
/* Drop the burst for addr on ifindex (0: all of its). */
void anr_stop(struct anr *a, int ifindex, uint32_t addr);
/* Bursts for an entry of the published set, from each interface it names. */
void anr_entry(struct anr *a, const struct pub_entry *e);
/* (inf_fn) Bursts for the entries of the published set in force that
 * old did not have as they are. */
void anr_changed(void *arg, const struct conf *oc, const struct pub *old);
/* The interface manager's word (ifm_event_fn): ifp became managed,
 * changed mode, or was given back.  During the start each address once
 * (what the previous run announced as it is, not at all); later in full. */
void anr_ifm_event(void *arg, struct tbl_iface *ifp);
/* anr_request's answers */
#define ANR_ASKED	0	/* queued (or pending already) */
#define ANR_NONE	(-1)	/* no interface speaks for the address */
#define ANR_BUSY	(-2)	/* the peer has ANN_PEER_PENDING bursts pending */

/* "announce ADDR" from peer uid: a burst from the interface that speaks
 * for addr (owns or publishes it); a non-root peer's goes after root's
 * and the daemon's, ANN_PEER_PENDING of them at once (announce.h).
 * *ifname: the owner, or NULL for a published address (each interface it
 * names). */
int anr_request(struct anr *a, uint32_t addr, uid_t uid, const char **ifname);
/* One announcement of addr from ifp with mac, now, in defence of the
 * address (not held to the turn's budget); false when total_rate refused. */
bool anr_defend(struct anr *a, struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac);
/* Run what is due now (the timer does; also for tests). */
void anr_run(struct anr *a);
/* What the previous run announced (its anr_record): a start leaves out
 * what it says, where interface name, MAC and address are the same. */
void anr_prev(struct anr *a, const char *lines, size_t len);
/* The start is over: an interface managed from now on is announced in full. */
void anr_started(struct anr *a);
/* Bursts pending. */
size_t anr_pending(const struct anr *a);
/* What this run announced, as lines for the next start (malloc'd, *len
 * long), or NULL on ENOMEM. */
char *anr_record(struct anr *a, size_t *len);

#endif
