/* conflict.c — the memory of conflicts.  A flood of claims must cost
 * neither memory nor log lines: records live in a fixed open-addressing
 * table, a record is only given to another address once it is older than
 * the log interval (else two addresses sharing a slot would reset each
 * other and both be logged every time), and a global budget caps the
 * lines per interval however many addresses are claimed. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "conflict.h"

#define CFL_PROBES	8	/* slots looked at for one address */

struct cfl {
	struct cfl_rec		*v;
	size_t			 cap;		/* a power of two */
	double			 window;	/* start of the global budget's interval */
	unsigned		 lines;		/* logged in that interval */
	unsigned long long	 suppressed;
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
	if ((c->v = calloc(cap, sizeof(*c->v))) == NULL) {
		free(c);
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
    double now, const struct cfl_rec **recp)
{
	struct cfl_rec *r = find(c, addr, now);
	bool log;

	if (recp != NULL)
		*recp = r;
	if (r == NULL) {
		/* every slot near it holds a conflict younger than the
		 * interval: count it, remember nothing, say nothing */
		c->suppressed++;
		return false;
	}
	if (r->addr != addr) {
		memset(r, 0, sizeof(*r));
		r->addr = addr;
		r->first = now;
	}
	r->ifindex = ifindex;
	memcpy(r->mac, mac, 6);
	r->last = now;
	r->count++;
	if (now - c->window >= CFL_INTERVAL) {
		c->window = now;
		c->lines = 0;
	}
	log = (r->logged == 0 || now - r->logged >= CFL_INTERVAL) && c->lines < CFL_LINES;
	if (!log) {
		r->suppressed++;
		c->suppressed++;
		return false;
	}
	r->logged = now;
	r->quiet = r->suppressed;
	r->suppressed = 0;
	c->lines++;
	return true;
}

unsigned long long
cfl_suppressed(const struct cfl *c)
{
	return c->suppressed;
}

void
cfl_each(const struct cfl *c, void (*fn)(const struct cfl_rec *, void *), void *arg)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		if (c->v[i].addr != 0)
			fn(&c->v[i], arg);
}
