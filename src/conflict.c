/* conflict.c — the memory of conflicts: who claims which of our addresses,
 * since when, and what was done about it.  A flood of claims costs no
 * memory: records live in a fixed open-addressing table and are handed to
 * another address only once older than the interval; the log lines go
 * through a throttle (throttle.c).  The defence follows RFC 5227 section
 * 2.4 and n-acd's three policies: never; once (one announcement, and a
 * claim that persists within DEFEND_INTERVAL of it is given up: reported,
 * not fought); always (one announcement per DEFEND_INTERVAL, for ever). */
#include "config.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "conflict.h"
#include "policy.h"
#include "throttle.h"

#define CFL_PROBES	8	/* slots looked at for one address */

struct cfl {
	struct cfl_rec	*v;
	size_t		 cap;		/* a power of two */
	struct thr	*log;
};

struct cfl *
cfl_new(size_t max)
{
	struct cfl *c;
	size_t cap = 16;

	while (cap < max)
		cap *= 2;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if ((c->v = calloc(cap, sizeof(*c->v))) == NULL ||
	    (c->log = thr_new(cap, CFL_INTERVAL, CFL_LINES)) == NULL) {
		cfl_free(c);
		return NULL;
	}
	c->cap = cap;
	return c;
}

void
cfl_free(struct cfl *c)
{
	if (c == NULL)
		return;
	thr_free(c->log);
	free(c->v);
	free(c);
}

/* The record for addr, or a free or expired slot for it, or NULL. */
static struct cfl_rec *
find(struct cfl *c, uint32_t addr, double now)
{
	uint32_t mixed = ntohl(addr) * 2654435761u;	/* Fibonacci hashing */
	size_t h = (size_t)mixed & (c->cap - 1), i;
	struct cfl_rec *r, *spare = NULL, *oldest = NULL;

	for (i = 0; i < CFL_PROBES; i++) {
		r = &c->v[(h + i) & (c->cap - 1)];
		if (r->addr == addr)
			return r;
		if (r->addr == 0 && spare == NULL)
			spare = r;
		if (r->addr != 0 && now - r->last >= CFL_INTERVAL &&
		    (oldest == NULL || r->last < oldest->last))
			oldest = r;
	}
	return spare != NULL ? spare : oldest;
}

bool
cfl_note(struct cfl *c, uint32_t addr, int ifindex, const uint8_t mac[static 6],
    double now, struct cfl_rec **recp)
{
	struct cfl_rec *r = find(c, addr, now);
	unsigned quiet;
	bool log;

	log = thr_allow(c->log, addr, now, &quiet);
	if (recp != NULL)
		*recp = r;
	if (r == NULL)
		return log;
	if (r->addr != addr) {
		memset(r, 0, sizeof(*r));
		r->addr = addr;
		r->first = now;
	}
	r->ifindex = ifindex;
	memcpy(r->mac, mac, 6);
	r->prev = r->count > 0 ? r->last : 0;
	r->last = now;
	r->count++;
	if (log)
		r->quiet = quiet;
	return log;
}

bool
cfl_log_more(struct cfl *c, uint32_t addr, enum cfl_line what, double now)
{
	/* a key of its own per address and kind, beside the claim's (addr) */
	return thr_allow(c->log, (uint64_t)what << 32 | addr, now, NULL);
}

enum cfl_action
cfl_defend(struct cfl_rec *r, int policy, double now)
{
	bool recent = r->defended != 0 && now - r->defended < CFL_INTERVAL;

	switch (policy) {
	case 1:		/* once */
		/* quiet for an interval: a new conflict, defended anew */
		if (r->given_up && (r->prev == 0 || now - r->prev >= CFL_INTERVAL))
			r->given_up = false;
		if (r->given_up)
			return CFL_IGNORE;
		if (recent) {
			r->given_up = true;
			return CFL_GIVE_UP;
		}
		break;
	case 2:		/* always */
		if (recent)
			return CFL_IGNORE;
		break;
	default:	/* never */
		return CFL_IGNORE;
	}
	r->defended = now;
	return CFL_DEFEND;
}

unsigned long long
cfl_suppressed(const struct cfl *c)
{
	return thr_suppressed(c->log);
}

void
cfl_each(const struct cfl *c, void (*fn)(const struct cfl_rec *, void *), void *arg)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		if (c->v[i].addr != 0)
			fn(&c->v[i], arg);
}

/*
 * Someone else's frame claims one of our addresses (RFC 5227 section 2.4:
 * a request, reply or announcement with our address as its sender and a
 * MAC not ours).  Defended, as the interface's policy says, only when the
 * address is the arrival interface's (held or published there): from
 * there the announcement reaches the segment that heard the claim; and
 * never from an interface that does not answer, or whose link is down.
 */
void
cfl_judge(struct cfl *c, const struct tbl *t, const struct pub *p,
    const struct arp_req *req, const struct tbl_iface *in, double now,
    struct cfl_judgement *j)
{
	const struct pub_entry *pe = NULL;
	struct cfl_rec *r;
	bool here;

	memset(j, 0, sizeof(*j));
	j->action = CFL_IGNORE;
	if (!in->managed || req->sip == 0 || tbl_is_our_mac(t, req->sha))
		return;
	if (tbl_addr_on(t, in->ifindex, req->sip))
		here = true;
	else if ((j->holder = tbl_addr_owner(t, req->sip, NULL)) != NULL)
		here = false;	/* another interface's: maybe its segment too */
	else if (p != NULL && (pe = pub_lookup(p, req->sip, in->name)) != NULL) {
		if (pe->has_mac && memcmp(pe->mac, req->sha, 6) == 0)
			return;	/* the entry's own MAC: ours */
		here = true;
	} else
		return;
	j->claim = true;
	/* at most once per address per interval, in bounded memory */
	j->log = cfl_note(c, req->sip, req->ifindex, req->sha, now, &r);
	j->more = r != NULL && r->quiet > 0;
	if (!here || r == NULL || in->mode == POL_MONITOR || in->mode == POL_OFF ||
	    (in->flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING))
		return;
	j->action = cfl_defend(r, in->defend, now);
	j->mac = pe != NULL && pe->has_mac ? pe->mac : in->mac;
}
