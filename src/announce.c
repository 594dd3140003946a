/* announce.c — the gratuitous-ARP schedule.  A burst is a few frames an
 * interval apart (Linux peers ignore a second gratuitous ARP inside the
 * neighbour table's 1 s locktime, hence 1.1 s by default); the steps keep
 * to the schedule (the next is due an interval after the last was due, not
 * after it was sent) so that the spacing on the wire is what the
 * configuration says.
 *
 * Two kinds of burst, two lists.  A single address (one that moved: added,
 * published, asked for) is urgent: its steps go first, whenever due.  A
 * whole interface (its link came up, a start, a refresh) stands for all its
 * addresses, so that an interface with 100,000 of them costs one entry; the
 * sender walks them with a cursor, one address a call, and the interfaces
 * due take turns (round robin), so that with a frame budget for the whole
 * host none of 1,000 interfaces waits for another's 100 addresses.
 *
 * Two classes of single.  What a non-root control peer asked for
 * ("announce ADDR" by a member of arpownd-admin) goes after everything
 * else that is single: what moved, root's requests (keepalived's publish
 * on a failover), so that a peer asking for 2,000 addresses does not put
 * root's moved VIP a second or more behind them (the host's
 * announce_rate is shared by all).  And it is bounded per peer uid:
 * ANN_PEER_PENDING of its bursts pending at once, ANN_PEERS such peers,
 * past which its asking is refused (it is told); root's and the daemon's
 * singles keep ANN_SINGLES of room whatever the peers do.
 *
 * Bounded: at most max bursts; at most ANN_SINGLES single ones of root's
 * and the daemon's, past which a single address becomes its interface's
 * whole burst.  A hash of
 * (ifindex, address) finds a burst in O(1): a reload that publishes 65,536
 * addresses made two quadratic scans here once and held the loop for
 * seconds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "announce.h"

struct burst {
	struct ann_step	s;
	unsigned	count;
	double		interval;
	double		due;
	unsigned	peer;		/* single: 0 root's or the daemon's; else
					 * asked by the peer at peers[peer - 1] */
	/* whole: the addresses of ifindex whose own burst (they moved) sent
	 * its first step while this one's first was under way; sorted */
	uint32_t	*said;
	size_t		 nsaid, asaid;
};

/* One list of bursts: the singles or the wholes. */
struct list {
	struct burst	*v;
	size_t		 n;
};

/* A non-root peer with single bursts pending. */
struct peer {
	uint32_t	uid;
	unsigned	n;		/* its bursts pending; 0: a free entry */
};

struct ann {
	struct list	 one, all;	/* single addresses; whole interfaces */
	size_t		 max;
	size_t		 cap_one;	/* room in one.v */
	size_t		 npeer;		/* singles in one that peers asked for */
	struct peer	 peers[ANN_PEERS];
	size_t		 rr;		/* the whole burst whose turn is next */
	int32_t		*idx;		/* hash: 0 empty, i + 1 in one, -(i + 1) in all */
	size_t		 mask;
};

static size_t
slot_of(const struct ann *a, int ifindex, uint32_t addr)
{
	uint64_t h = ((uint64_t)(uint32_t)ifindex << 32 | addr) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & a->mask;
}

static struct burst *
at(const struct ann *a, int32_t code)
{
	return code > 0 ? &a->one.v[code - 1] : &a->all.v[-code - 1];
}

/* The hash slot holding (ifindex, addr), or the empty one where it would go. */
static size_t
find_slot(const struct ann *a, int ifindex, uint32_t addr)
{
	size_t i = slot_of(a, ifindex, addr);
	const struct burst *b;

	while (a->idx[i] != 0) {
		b = at(a, a->idx[i]);
		if (b->s.ifindex == ifindex && b->s.addr == addr)
			break;
		i = (i + 1) & a->mask;
	}
	return i;
}

static struct burst *
find(const struct ann *a, int ifindex, uint32_t addr)
{
	size_t i = find_slot(a, ifindex, addr);

	return a->idx[i] != 0 ? at(a, a->idx[i]) : NULL;
}

/* Take slot i out of the hash, shifting the probes behind it back. */
static void
unhash(struct ann *a, size_t i)
{
	size_t j = i, home;
	const struct burst *b;

	for (;;) {
		a->idx[i] = 0;
		for (;;) {
			j = (j + 1) & a->mask;
			if (a->idx[j] == 0)
				return;
			b = at(a, a->idx[j]);
			home = slot_of(a, b->s.ifindex, b->s.addr);
			/* stays when its home lies cyclically in (i, j] */
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		a->idx[i] = a->idx[j];
		i = j;
	}
}

static void
said_clear(struct burst *b)
{
	free(b->said);
	b->said = NULL;
	b->nsaid = b->asaid = 0;
}

/* Binary search of b's said list: addr's place, *found when there. */
static size_t
said_at(const struct burst *b, uint32_t addr, bool *found)
{
	size_t lo = 0, hi = b->nsaid, mid;

	*found = false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->said[mid] == addr) {
			*found = true;
			return mid;
		}
		if (b->said[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* addr was announced by its own burst: the whole one's first step need
 * not, and at stop it counts as said.  Out of memory it is announced
 * twice, nothing worse. */
static void
said_add(struct burst *w, uint32_t addr)
{
	uint32_t *v;
	bool found;
	size_t i = said_at(w, addr, &found);

	if (found)
		return;
	if (w->nsaid == w->asaid) {
		w->asaid = w->asaid ? w->asaid * 2 : 16;
		if ((v = realloc(w->said, w->asaid * sizeof(*v))) == NULL) {
			w->asaid = w->nsaid;
			return;
		}
		w->said = v;
	}
	memmove(&w->said[i + 1], &w->said[i], (w->nsaid - i) * sizeof(*w->said));
	w->said[i] = addr;
	w->nsaid++;
}

struct ann *
ann_new(size_t max)
{
	struct ann *a;
	size_t cap = 16;

	while (cap < 2 * max)
		cap *= 2;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->cap_one = ANN_SINGLES + ANN_PEERS * ANN_PEER_PENDING;
	if (a->cap_one > max)
		a->cap_one = max;
	a->one.v = calloc(a->cap_one, sizeof(*a->one.v));
	a->all.v = calloc(max, sizeof(*a->all.v));
	a->idx = calloc(cap, sizeof(*a->idx));
	if (a->one.v == NULL || a->all.v == NULL || a->idx == NULL) {
		ann_free(a);
		return NULL;
	}
	a->max = max;
	a->mask = cap - 1;
	return a;
}

void
ann_free(struct ann *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; a->all.v != NULL && i < a->all.n; i++)
		said_clear(&a->all.v[i]);
	free(a->one.v);
	free(a->all.v);
	free(a->idx);
	free(a);
}

/* Drop the burst at i of list l (the last one moves into its place). */
static void
drop(struct ann *a, struct list *l, size_t i)
{
	int32_t sign = l == &a->one ? 1 : -1;
	struct burst *b = &l->v[i];

	said_clear(b);
	if (b->peer != 0) {
		a->peers[b->peer - 1].n--;
		a->npeer--;
	}
	unhash(a, find_slot(a, b->s.ifindex, b->s.addr));
	if (i != --l->n) {
		l->v[i] = l->v[l->n];
		a->idx[find_slot(a, l->v[i].s.ifindex, l->v[i].s.addr)] = sign * (int32_t)(i + 1);
	}
}

void
ann_stop(struct ann *a, int ifindex, uint32_t addr)
{
	struct burst *b;
	size_t i = 0;

	if (addr != 0) {
		if ((b = find(a, ifindex, addr)) != NULL)
			drop(a, &a->one, (size_t)(b - a->one.v));
		return;
	}
	while (i < a->one.n) {
		if (a->one.v[i].s.ifindex == ifindex)
			drop(a, &a->one, i);
		else
			i++;
	}
	if ((b = find(a, ifindex, 0)) != NULL)
		drop(a, &a->all, (size_t)(b - a->all.v));
}

/* (Re)start b from its first step at now. */
static void
restart(struct burst *b, unsigned count, double interval, unsigned flags, double now)
{
	said_clear(b);		/* (a whole one) from the start again: all of it */
	b->s.nth = 0;
	b->s.flags = flags;
	b->s.cursor = 0;
	b->count = count;
	b->interval = interval;
	b->due = now;
}

/* A new burst for (ifindex, addr) at the end of l, or NULL when full. */
static struct burst *
add(struct ann *a, struct list *l, int ifindex, uint32_t addr)
{
	struct burst *b;

	if (a->one.n + a->all.n >= a->max || (l == &a->one && l->n >= a->cap_one) ||
	    l->v == NULL)
		return NULL;
	b = &l->v[l->n++];
	memset(b, 0, sizeof(*b));
	b->s.ifindex = ifindex;
	b->s.addr = addr;
	a->idx[find_slot(a, ifindex, addr)] = (l == &a->one ? 1 : -1) * (int32_t)l->n;
	return b;
}

int
ann_start(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    unsigned flags, double now)
{
	struct list *l;
	struct burst *b;

	if (count == 0)
		return 0;
	if (addr != 0 && a->one.n - a->npeer >= ANN_SINGLES && find(a, ifindex, addr) == NULL)
		addr = 0;
	l = addr != 0 ? &a->one : &a->all;
	if ((b = find(a, ifindex, addr)) == NULL && (b = add(a, l, ifindex, addr)) == NULL)
		return -1;
	if (b->peer != 0) {
		/* asked by a peer, and now moved (or asked by root): root's */
		a->peers[b->peer - 1].n--;
		a->npeer--;
		b->peer = 0;
	}
	restart(b, count, interval, flags, now);
	return 0;
}

/* The entry of peer uid, a free one for it, or NULL when ANN_PEERS others
 * have bursts pending. */
static struct peer *
peer_of(struct ann *a, uint32_t uid)
{
	struct peer *free_one = NULL;
	size_t i;

	for (i = 0; i < ANN_PEERS; i++) {
		if (a->peers[i].n > 0 && a->peers[i].uid == uid)
			return &a->peers[i];
		if (a->peers[i].n == 0 && free_one == NULL)
			free_one = &a->peers[i];
	}
	if (free_one != NULL)
		free_one->uid = uid;
	return free_one;
}

size_t
ann_room(struct ann *a, uint32_t uid)
{
	struct peer *p = peer_of(a, uid);

	return p == NULL ? 0 : ANN_PEER_PENDING - p->n;
}

int
ann_ask(struct ann *a, int ifindex, uint32_t addr, unsigned count, double interval,
    uint32_t uid, double now)
{
	struct burst *b;
	struct peer *p;

	if (count == 0 || addr == 0)
		return 0;
	if ((b = find(a, ifindex, addr)) != NULL) {
		/* root's or the daemon's: going out already, ahead */
		if (b->peer == 0)
			return 0;
		restart(b, count, interval, 0, now);
		return 0;
	}
	if ((p = peer_of(a, uid)) == NULL || p->n >= ANN_PEER_PENDING)
		return -2;
	if ((b = add(a, &a->one, ifindex, addr)) == NULL)
		return -1;
	p->n++;
	a->npeer++;
	b->peer = (unsigned)(p - a->peers) + 1;
	restart(b, count, interval, 0, now);
	return 0;
}

/* Account for a step done: the next one due, or the burst dropped (true). */
static bool
stepped(struct burst *b, double now)
{
	said_clear(b);
	b->s.cursor = 0;
	if (++b->s.nth == b->count)
		return true;
	b->s.flags &= ~ANN_F_START;	/* the previous run's word is for the first step */
	b->due += b->interval;
	/* far behind (the loop or the budget held it up): no catch-up burst */
	if (b->due < now)
		b->due = now + b->interval;
	return false;
}

/* The singles due of one class (peers': asked by non-root peers; else
 * root's and the daemon's): each whole, in the order they are in.  false
 * when the budget ran out. */
static bool
run_singles(struct ann *a, double now, ann_fn *fn, void *arg, bool peers)
{
	struct burst *b, *w;
	size_t i = 0;

	if (peers && a->npeer == 0)
		return true;
	while (i < a->one.n) {
		b = &a->one.v[i];
		if (b->due > now || (b->peer != 0) != peers) {
			i++;
			continue;
		}
		switch (fn(arg, &b->s)) {
		case ANN_SENT:
		case ANN_MORE:
			if (b->s.nth == 0 && (w = find(a, b->s.ifindex, 0)) != NULL &&
			    w->s.nth == 0)
				said_add(w, b->s.addr);
			if (stepped(b, now)) {
				drop(a, &a->one, i);
				continue;
			}
			break;
		case ANN_RETRY:
			return false;
		case ANN_CANCEL:
			drop(a, &a->one, i);
			continue;
		}
		i++;
	}
	return true;
}

/* The whole interfaces due, an address each in turn, from where the last
 * run stopped, until every step due is done or the budget runs out. */
static void
run_wholes(struct ann *a, double now, ann_fn *fn, void *arg)
{
	size_t idle = 0, i;
	struct burst *b;

	/* idle: bursts in a row that had nothing to send; a whole round of
	 * them ends the run */
	while (a->all.n > 0 && idle < a->all.n) {
		i = a->rr % a->all.n;
		b = &a->all.v[i];
		if (b->due > now) {
			a->rr = i + 1;
			idle++;
			continue;
		}
		switch (fn(arg, &b->s)) {
		case ANN_MORE:
			a->rr = i + 1;
			idle = 0;
			break;
		case ANN_SENT:
			idle = 0;
			if (stepped(b, now))
				drop(a, &a->all, i);	/* the last moved to i: its turn */
			else
				a->rr = i + 1;
			break;
		case ANN_RETRY:
			a->rr = i;	/* its turn again first */
			return;
		case ANN_CANCEL:
			idle = 0;
			drop(a, &a->all, i);
			break;
		}
	}
}

static double
earliest(const struct list *l, double next)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (next == 0 || l->v[i].due < next)
			next = l->v[i].due;
	return next;
}

double
ann_run(struct ann *a, double now, ann_fn *fn, void *arg)
{
	double next;

	/* root's and the daemon's singles, then the peers', then the
	 * interfaces: the peers' are bounded (ANN_PEERS × ANN_PEER_PENDING),
	 * so they hold a walk up by a few hundred frames at most */
	if (run_singles(a, now, fn, arg, false) && run_singles(a, now, fn, arg, true))
		run_wholes(a, now, fn, arg);
	next = earliest(&a->all, earliest(&a->one, 0));
	/* something due is still waiting for the budget */
	if (next != 0 && next <= now)
		next = now + ANN_RETRY_DELAY;
	return next;
}

size_t
ann_pending(const struct ann *a)
{
	return a->one.n + a->all.n;
}

bool
ann_has(const struct ann *a, int ifindex, uint32_t addr)
{
	return find(a, ifindex, addr) != NULL;
}

const struct ann_step *
ann_first(const struct ann *a, int ifindex, uint32_t addr)
{
	const struct burst *b = find(a, ifindex, addr);

	return b != NULL && b->s.nth == 0 ? &b->s : NULL;
}

bool
ann_said(const struct ann *a, int ifindex, uint32_t addr)
{
	const struct burst *w = find(a, ifindex, 0);
	bool found = false;

	if (w != NULL && w->s.nth == 0)
		(void)said_at(w, addr, &found);
	return found;
}
