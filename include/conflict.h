/* conflict.h — foreign claims on our addresses (RFC 5227 section 2.4): a
 * bounded record per address, whether to log a claim, whether to defend
 * the address; pure. */
#ifndef ARPOWND_CONFLICT_H
#define ARPOWND_CONFLICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arp.h"
#include "publish.h"
#include "table.h"

#define CFL_INTERVAL	10.0	/* seconds: DEFEND_INTERVAL, and between two logs */
#define CFL_LINES	20	/* conflict lines per interval, all addresses */

/* What is known of one address's conflict. */
struct cfl_rec {
	uint32_t	addr;		/* ours, network order; 0 = free slot */
	int		ifindex;	/* where the claim was seen */
	uint8_t		mac[6];		/* the claimant's, last seen */
	double		first, last;	/* seen */
	double		prev;		/* the claim before the last, 0 = none */
	unsigned long long count;	/* claims seen */
	double		defended;	/* last defence, 0 = never */
	bool		given_up;	/* defend = once: it persisted */
	unsigned	quiet;		/* at the last line: claims not logged before it */
};

/* What to do about a claim, by the defence policy. */
enum cfl_action {
	CFL_IGNORE,	/* log only (or nothing) */
	CFL_DEFEND,	/* send one announcement from the owning interface */
	CFL_GIVE_UP,	/* defend = once, and the claim persisted: say so, once */
};

struct cfl;

/* A tracker of at most max records; NULL on ENOMEM. */
struct cfl *cfl_new(size_t max);
void cfl_free(struct cfl *c);
/* Record a claim on addr by mac at now; true when it is to be logged (at
 * most once per address per CFL_INTERVAL, CFL_LINES per interval in all).
 * *rec is set to the record, NULL when the table was full of records
 * younger than the interval (a record is never evicted before that). */
bool cfl_note(struct cfl *c, uint32_t addr, int ifindex, const uint8_t mac[static 6],
    double now, struct cfl_rec **rec);
/* Further lines about a conflict: its defence, or that the defence failed. */
enum cfl_line { CFL_LINE_DEFENDED = 1, CFL_LINE_GAVE_UP = 2 };
/* May such a line about addr be logged at now?  Once per address and kind
 * per interval, and within the claims' lines' CFL_LINES per interval in
 * all: a storm of claims on many addresses logs that many lines, whatever
 * they say. */
bool cfl_log_more(struct cfl *c, uint32_t addr, enum cfl_line what, double now);
/* The defence policy (enum conf_defend: 0 never, 1 once, 2 always) applied
 * to the claim just noted in r, at now; a defence is recorded as sent. */
enum cfl_action cfl_defend(struct cfl_rec *r, int policy, double now);
/* What a frame claiming one of our addresses calls for. */
struct cfl_judgement {
	bool			 claim;		/* a foreign claim on an address of ours */
	bool			 log;		/* report it now (throttled) */
	bool			 more;		/* claims went unreported since the last line */
	const struct tbl_iface	*holder;	/* another interface holds it, or NULL */
	enum cfl_action		 action;	/* the defence policy's word */
	const uint8_t		*mac;		/* CFL_DEFEND: announce with this MAC */
};

/* Judge req, a request, reply or announcement that arrived on in, at now:
 * does it claim an address of ours (held by in or another interface, or
 * published on in) from a MAC not ours?  Records the claim and applies
 * in's defence policy where the address is in's and in answers; pure. */
void cfl_judge(struct cfl *c, const struct tbl *t, const struct pub *p,
    const struct arp_req *req, const struct tbl_iface *in, double now,
    struct cfl_judgement *j);
/* Claims not logged because of the limits, all addresses. */
unsigned long long cfl_suppressed(const struct cfl *c);
/* Call fn for every record held, in no particular order. */
void cfl_each(const struct cfl *c, void (*fn)(const struct cfl_rec *, void *), void *arg);

#endif
