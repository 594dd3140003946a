/* announcer.c — the announcement schedule's glue: what starts a burst,
 * the timer that runs it, the host's frame budget (announce_rate, every
 * interface together, so that neither a start with 100,000 addresses nor
 * a thousand publishes floods the segment), total_rate (shared with the
 * replies, half of its burst kept for them), and the frames themselves,
 * only from an interface that owns or publishes the address and never
 * while its link is down.  At stop it says what it announced (annrec.h);
 * the next start leaves out what nothing moved since. */
#include "config.h"

#include <net/if_arp.h>
#include <arpa/inet.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "announcer.h"
#include "annrec.h"
#include "arp.h"
#include "capture.h"
#include "inforce.h"
#include "limit.h"
#include "linksync.h"
#include "log.h"
#include "policy.h"
#include "stats.h"

struct anr {
	struct anr_deps		 d;
	struct ann		*ann;		/* bursts due */
	unsigned		 budget;	/* frames left in this loop turn */
	struct lim_bucket	 pace;		/* announce_rate */
	bool			 starting;	/* before anr_started: bursts are the start's */
	struct annrec		*prev;		/* what the previous run announced */
	ev_timer		 run_w, refresh_w;
};

bool
anr_speaks(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_OFF && ifp->mode != POL_MONITOR &&
	    ifp->announce;
}

static bool
link_ready(const struct tbl_iface *ifp)
{
	return (ifp->flags & LS_LINK_READY) == LS_LINK_READY;
}

/* Send the configured form(s) of an announcement of addr from ifp; false
 * when the turn's budget, announce_rate or total_rate leaves no room now. */
static bool
send_announce(struct anr *a, struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac,
    bool defence)
{
	static const uint16_t ops[] = { ARPOP_REQUEST, ARPOP_REPLY };
	const struct conf *c = inf_conf();
	unsigned n = c->announce_form == CONF_FORM_BOTH ? 2 : 1;
	uint8_t frame[ARP_FRAME_LEN];
	double now = ev_now(a->d.loop);
	struct stats_if *is;
	size_t i;

	/* a burst for 100,000 addresses goes out a few hundred frames per
	 * loop turn at most: the requests that come meanwhile are answered
	 * between (a defence, one at a time, is not held to it) */
	if (a->budget < n && !defence)
		return false;
	/* the host's budget, a defence's too: every frame is a broadcast
	 * each neighbour must take, whoever asked for it */
	if (c->announce_rate > 0 && !lim_pace(&a->pace, c->announce_rate, n, now)) {
		if (defence)
			a->d.st->announce_dropped++;
		return false;
	}
	/* announcements and replies share one budget, and half of its burst
	 * is kept for the replies: 100,000 addresses announced at start must
	 * not leave the requests of that second unanswered.  All forms or
	 * none, so that a retry never repeats half an announcement. */
	if (c->total_rate > 0 &&
	    !lim_take_spare(&a->d.lim->total, c->total_rate, n, now)) {
		if (c->announce_rate > 0)
			a->pace.tokens += n;	/* not sent: not spent */
		return false;
	}
	for (i = 0; i < 2; i++) {
		if (!(c->announce_form & (1 << i)))
			continue;
		cap_send(a->d.cap, ifp->ifindex, frame,
		    arp_build_announce(ops[i], mac, addr, frame));
		a->d.st->all.announcements++;
		if ((is = tbl_iface_stats(ifp)) != NULL)
			is->announcements++;
		if (a->budget > 0)
			a->budget--;
	}
	return true;
}

/* Left out of a start's burst: announced by the previous run, from ifp
 * with mac, the MAC it would be announced with now. */
static bool
announced_before(struct anr *a, const struct ann_step *s, const struct tbl_iface *ifp,
    uint32_t addr, const uint8_t *mac)
{
	if (!(s->flags & ANN_F_START) || !annrec_has(a->prev, ifp->name, mac, addr))
		return false;
	a->d.st->announce_skipped++;
	return true;
}

/* The next address of a whole-interface step from s->cursor: its owned
 * addresses (each once, however many prefixes), then what is published on
 * it; false past the last.  *mac: the one to announce it with. */
static bool
next_of(struct anr *a, struct tbl_iface *ifp, struct ann_step *s, uint32_t *addr,
    const uint8_t **mac)
{
	const struct pub_entry *pe;
	const struct tbl_addr *e;
	uint32_t pa;

	for (; s->cursor < ifp->naddrs; s->cursor++) {
		e = &ifp->addrs[s->cursor];
		if (tbl_addr_head(a->d.tbl, ifp, e->addr) != s->cursor ||
		    (s->nth == 0 && ann_said(a->ann, ifp->ifindex, e->addr)) ||
		    announced_before(a, s, ifp, e->addr, ifp->mac))
			continue;
		*addr = e->addr;
		*mac = ifp->mac;
		return true;
	}
	while (pub_nth_on(inf_pub(), ifp->name, s->cursor - ifp->naddrs, &pa, &pe)) {
		*mac = pe->has_mac ? pe->mac : ifp->mac;
		if (tbl_addr_owner(a->d.tbl, pa, NULL) == NULL &&
		    !(s->nth == 0 && ann_said(a->ann, ifp->ifindex, pa)) &&
		    !announced_before(a, s, ifp, pa, *mac)) {
			*addr = pa;
			return true;
		}
		s->cursor++;
	}
	return false;
}

/* One step of a burst (announce.h): one address; or the next of ifp's. */
static enum ann_verdict
step(void *arg, struct ann_step *s)
{
	struct anr *a = arg;
	struct tbl_iface *ifp = tbl_iface(a->d.tbl, s->ifindex);
	const struct pub_entry *pe;
	const uint8_t *mac;
	uint32_t addr;

	/* down: dropped, the link coming up announces again */
	if (ifp == NULL || !anr_speaks(ifp) || !link_ready(ifp))
		return ANN_CANCEL;
	if (s->addr != 0) {
		/* never an address not ours, or not published here */
		if (tbl_addr_on(a->d.tbl, s->ifindex, s->addr))
			pe = NULL;
		else if ((pe = pub_lookup(inf_pub(), s->addr, ifp->name)) == NULL ||
		    tbl_addr_owner(a->d.tbl, s->addr, NULL) != NULL)
			return ANN_CANCEL;
		return send_announce(a, ifp, s->addr, pe && pe->has_mac ? pe->mac : ifp->mac,
		    false) ? ANN_SENT : ANN_RETRY;
	}
	if (!next_of(a, ifp, s, &addr, &mac))
		return ANN_SENT;
	if (!send_announce(a, ifp, addr, mac, false))
		return ANN_RETRY;
	s->cursor++;
	return ANN_MORE;
}

void
anr_run(struct anr *a)
{
	double next, now = ev_now(a->d.loop);
	int failed;

	a->budget = ANR_RUN_FRAMES;
	next = ann_run(a->ann, now, step, a);
	if ((failed = cap_flush(a->d.cap)) > 0) {
		a->d.st->send_errors += (unsigned)failed;
		log_warn("capture: %d announcements not sent", failed);
	}
	ev_timer_stop(a->d.loop, &a->run_w);
	if (next > 0) {
		ev_timer_set(&a->run_w, next > now ? next - now : 0., 0.);
		ev_timer_start(a->d.loop, &a->run_w);
	}
}

static void
run_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	anr_run(w->data);
}

/* Run the schedule on the loop's next turn, not here: a start (or a
 * reload, a hotplug) that makes a thousand bursts due sends one turn's
 * budget of frames a turn, after READY=1, instead of every frame of them
 * before it (each run here had a budget of its own). */
static void
soon(struct anr *a)
{
	ev_timer_stop(a->d.loop, &a->run_w);
	ev_timer_set(&a->run_w, 0., 0.);
	ev_timer_start(a->d.loop, &a->run_w);
}

/* A burst of count steps at the configuration's interval, the first now. */
static int
burst_of(struct anr *a, int ifindex, uint32_t addr, unsigned count, unsigned flags)
{
	if (ann_start(a->ann, ifindex, addr, count, inf_conf()->announce_interval, flags,
	    ev_now(a->d.loop)) == -1) {
		a->d.st->announce_dropped++;
		return -1;
	}
	a->d.st->announce_queued++;
	return 0;
}

/* What moved (an address added, published, a link up, asked for): the
 * configuration's count. */
static int
burst(struct anr *a, int ifindex, uint32_t addr)
{
	return burst_of(a, ifindex, addr, inf_conf()->announce_count, 0);
}

void
anr_start(struct anr *a, int ifindex, uint32_t addr)
{
	if (burst(a, ifindex, addr) == -1)
		log_warnx("announcements: %d bursts pending already; %s not announced",
		    ANR_BURSTS, addr ? log_ip(addr) : "an interface");
	soon(a);
}

void
anr_stop(struct anr *a, int ifindex, uint32_t addr)
{
	ann_stop(a->ann, ifindex, addr);
}

void
anr_ifm_event(void *arg, struct tbl_iface *ifp)
{
	struct anr *a = arg;

	if (!anr_speaks(ifp)) {
		anr_stop(a, ifp->ifindex, 0);
		return;
	}
	/* the daemon's start: each address once, what the previous run
	 * announced as it still is not at all (a restart moves nothing);
	 * 100,000 addresses are 2 frames each, not 6 */
	if (a->starting) {
		if (burst_of(a, ifp->ifindex, 0, 1, ANN_F_START) == -1)
			log_warnx("announcements: %d bursts pending already; %s not "
			    "announced", ANR_BURSTS, ifp->name);
		soon(a);
	} else
		anr_start(a, ifp->ifindex, 0);
}

/* A burst for addr on ifindex as peer uid asked (root: as moved). */
static int
asked(struct anr *a, int ifindex, uint32_t addr, uid_t uid)
{
	int r;

	if (uid == 0)
		return burst(a, ifindex, addr);
	r = ann_ask(a->ann, ifindex, addr, inf_conf()->announce_count,
	    inf_conf()->announce_interval, (uint32_t)uid, ev_now(a->d.loop));
	if (r == 0)
		a->d.st->announce_queued++;
	else if (r == -1)
		a->d.st->announce_dropped++;
	return r;
}

struct entry_arg {
	struct anr		*a;
	const struct pub_entry	*e;
	uint32_t		 only;	/* network order: this address alone; 0: all */
	uid_t			 uid;	/* only: who asked (0 root) */
	size_t			 n;	/* count_cb: the interfaces */
};

static int
entry_cb(struct tbl_iface *ifp, void *arg)
{
	struct entry_arg *x = arg;
	const struct rng *set = &x->e->set;
	uint32_t h;
	size_t k;

	if (!anr_speaks(ifp) || !link_ready(ifp) || !pub_entry_on(x->e, ifp->name))
		return 0;
	if (x->only != 0)
		return asked(x->a, ifp->ifindex, x->only, x->uid) != 0;
	for (k = 0; k < set->n; k++)
		for (h = set->v[k].lo; ; h++) {
			if (burst(x->a, ifp->ifindex, htonl(h)) == -1)
				return 1;
			if (h == set->v[k].hi)
				break;
		}
	return 0;
}

void
anr_entry(struct anr *a, const struct pub_entry *e)
{
	struct entry_arg x = { a, e, 0, 0, 0 };

	/* a large range is learned when asked for, never announced */
	if (!pub_announced(e))
		return;
	if (tbl_iface_each(a->d.tbl, entry_cb, &x) != 0)
		log_warnx("announcements: %d bursts pending already; not all of "
		    "[publish %s] announced", ANR_BURSTS, e->label);
	soon(a);
}

static bool
same_entry(const struct pub_entry *x, const struct pub_entry *y)
{
	return strcmp(x->label, y->label) == 0 && strcmp(x->ifglob, y->ifglob) == 0 &&
	    x->has_mac == y->has_mac && memcmp(x->mac, y->mac, 6) == 0 &&
	    x->set.n == y->set.n &&
	    memcmp(x->set.v, y->set.v, x->set.n * sizeof(*x->set.v)) == 0;
}

void
anr_changed(void *arg, const struct conf *oc, const struct pub *old)
{
	const struct pub *p = inf_pub();
	struct anr *a = arg;
	size_t k, j;

	(void)oc;
	for (k = 0; k < pub_count(p); k++) {
		for (j = 0; j < pub_count(old); j++)
			if (same_entry(pub_at(p, k), pub_at(old, j)))
				break;
		if (j == pub_count(old))
			anr_entry(a, pub_at(p, k));
	}
}

/* The interfaces an entry's address is announced from (anr_request). */
static int
count_cb(struct tbl_iface *ifp, void *arg)
{
	struct entry_arg *x = arg;

	if (anr_speaks(ifp) && link_ready(ifp) && pub_entry_on(x->e, ifp->name))
		x->n++;
	return 0;
}

int
anr_request(struct anr *a, uint32_t addr, uid_t uid, const char **ifname)
{
	const struct pub_entry *e;
	struct tbl_iface *ifp;
	int r = ANR_ASKED;

	if ((ifp = tbl_addr_owner(a->d.tbl, addr, anr_speaks)) != NULL && anr_speaks(ifp)) {
		*ifname = ifp->name;
		if ((r = asked(a, ifp->ifindex, addr, uid)) == -1)
			log_warnx("announcements: %d bursts pending already; %s not "
			    "announced", ANR_BURSTS, log_ip(addr));
		r = r == -2 ? ANR_BUSY : ANR_ASKED;
	} else if ((e = pub_find(inf_pub(), addr)) != NULL) {
		/* that address from each interface its entry names, not the
		 * entry's every address (a /24 on eth* is 256 on each); a
		 * peer's all or none */
		struct entry_arg x = { a, e, addr, uid, 0 };

		*ifname = NULL;
		if (uid != 0)
			tbl_iface_each(a->d.tbl, count_cb, &x);
		if (uid != 0 && x.n > ann_room(a->ann, (uint32_t)uid))
			r = ANR_BUSY;
		else if (tbl_iface_each(a->d.tbl, entry_cb, &x) != 0)
			log_warnx("announcements: %d bursts pending already; %s not "
			    "announced everywhere", ANR_BURSTS, log_ip(addr));
	} else
		return ANR_NONE;
	if (r == ANR_BUSY)
		a->d.st->announce_refused++;
	soon(a);
	return r;
}

bool
anr_defend(struct anr *a, struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac)
{
	return send_announce(a, ifp, addr, mac, true);
}

static int
refresh_iface_cb(struct tbl_iface *ifp, void *arg)
{
	struct anr *a = arg;

	/* a walk still under way announces every address already: starting
	 * it again from the first would leave those past where a refresh
	 * interval gets it silent for ever (and cut a burst of
	 * announce_count to one) */
	if (!anr_speaks(ifp) || !link_ready(ifp) || ann_has(a->ann, ifp->ifindex, 0))
		return 0;
	return burst_of(a, ifp->ifindex, 0, 1, 0) == -1;
}

/* announce_refresh: every owned address once again, for switches whose
 * MAC tables age out before the hosts' ARP caches do. */
static void
refresh_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct anr *a = w->data;

	(void)loop;
	(void)revents;
	tbl_iface_each(a->d.tbl, refresh_iface_cb, a);
	anr_run(a);
}

/* The refresh timer as the configuration in force says. */
static void
arm_refresh(struct anr *a)
{
	const struct conf *c = inf_conf();

	/* the same period: its count goes on, or reloads more often than it
	 * (configuration management, a storm) would put the refresh off for
	 * ever */
	if (c->announce_refresh > 0 && ev_is_active(&a->refresh_w) &&
	    a->refresh_w.repeat == (ev_tstamp)c->announce_refresh)
		return;
	ev_timer_stop(a->d.loop, &a->refresh_w);
	if (c->announce_refresh > 0) {
		ev_timer_set(&a->refresh_w, c->announce_refresh, c->announce_refresh);
		ev_timer_start(a->d.loop, &a->refresh_w);
	}
}

void
anr_reconf(void *arg, const struct conf *oc, const struct pub *op)
{
	(void)oc;
	(void)op;
	arm_refresh(arg);
}

struct anr *
anr_new(const struct anr_deps *d)
{
	struct anr *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	if ((a->ann = ann_new(ANR_BURSTS)) == NULL) {
		free(a);
		return NULL;
	}
	a->d = *d;
	a->starting = true;
	ev_timer_init(&a->run_w, run_cb, 0., 0.);
	ev_timer_init(&a->refresh_w, refresh_cb, 0., 0.);
	a->run_w.data = a->refresh_w.data = a;
	arm_refresh(a);
	return a;
}

void
anr_free(struct anr *a)
{
	if (a == NULL)
		return;
	ev_timer_stop(a->d.loop, &a->run_w);
	ev_timer_stop(a->d.loop, &a->refresh_w);
	ann_free(a->ann);
	annrec_free(a->prev);
	free(a);
}

void
anr_prev(struct anr *a, const char *lines, size_t len)
{
	size_t bad;

	annrec_free(a->prev);
	if ((a->prev = annrec_parse(lines, len, &bad)) == NULL)
		log_warnx("announcements: out of memory reading what the last run "
		    "announced; announcing everything once");
	else if (bad > 0)
		log_warnx("announcements: %zu lines of what the last run announced not "
		    "understood; those interfaces are announced once", bad);
}

void
anr_started(struct anr *a)
{
	a->starting = false;
}

size_t
anr_pending(const struct anr *a)
{
	return ann_pending(a->ann);
}

/* An address announced with a MAC not its interface's (a [publish]
 * section's mac =). */
struct said_other {
	uint8_t		mac[6];
	uint32_t	addr;		/* host order */
};

/* The addresses of ifp announced at least once, into growing arrays:
 * those with ifp's MAC, and the others with theirs. */
struct said {
	struct anr		*a;
	uint32_t		*v;
	size_t			 n, cap;
	struct said_other	*o;
	size_t			 no, ocap;
	char			*buf;
	size_t			 len, bcap;
};

static int
said_add(struct said *x, uint32_t addr)
{
	uint32_t *v;

	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		if ((v = realloc(x->v, x->cap * sizeof(*v))) == NULL)
			return -1;
		x->v = v;
	}
	x->v[x->n++] = ntohl(addr);
	return 0;
}

static int
said_add_mac(struct said *x, const struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac)
{
	struct said_other *o;

	if (memcmp(mac, ifp->mac, sizeof(x->o->mac)) == 0)
		return said_add(x, addr);
	if (x->no == x->ocap) {
		x->ocap = x->ocap ? x->ocap * 2 : 16;
		if ((o = realloc(x->o, x->ocap * sizeof(*o))) == NULL)
			return -1;
		x->o = o;
	}
	memcpy(x->o[x->no].mac, mac, sizeof(x->o->mac));
	x->o[x->no++].addr = ntohl(addr);
	return 0;
}

static int
cmp_other(const void *p, const void *q)
{
	const struct said_other *x = p, *y = q;
	int c = memcmp(x->mac, y->mac, sizeof(x->mac));

	return c != 0 ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The lines of the addresses ifp announced with other MACs, one a MAC. */
static int
said_others(struct said *x, const struct tbl_iface *ifp)
{
	size_t i = 0, j, k;

	if (x->no > 1)	/* x->o is NULL while there is none */
		qsort(x->o, x->no, sizeof(*x->o), cmp_other);
	while (i < x->no) {
		for (j = i; j < x->no && memcmp(x->o[j].mac, x->o[i].mac, 6) == 0; j++)
			;
		x->n = 0;
		for (k = i; k < j; k++)
			if (said_add(x, htonl(x->o[k].addr)) == -1)
				return -1;
		if (annrec_line(&x->buf, &x->len, &x->bcap, ifp->name, x->o[i].mac, x->v,
		    x->n) == -1)
			return -1;
		i = j;
	}
	return 0;
}

/* Was addr, at position pos of ifp's whole-interface walk, announced?
 * Not while a burst of its own waits for its first frame, nor while the
 * interface's walks before it; what a start left out stays announced. */
static bool
said_one(struct anr *a, struct tbl_iface *ifp, const struct ann_step *whole, size_t pos,
    uint32_t addr, const uint8_t *mac)
{
	if (ann_first(a->ann, ifp->ifindex, addr) != NULL)
		return false;
	if (whole == NULL || pos < whole->cursor || ann_said(a->ann, ifp->ifindex, addr))
		return true;
	return (whole->flags & ANN_F_START) && annrec_has(a->prev, ifp->name, mac, addr);
}

static int
said_cb(struct tbl_iface *ifp, void *arg)
{
	struct said *x = arg;
	struct anr *a = x->a;
	const struct ann_step *whole;
	const struct pub_entry *pe;
	const uint8_t *mac;
	uint32_t pa;
	size_t i;
	uint64_t k;

	if (!anr_speaks(ifp) || !link_ready(ifp))
		return 0;
	whole = ann_first(a->ann, ifp->ifindex, 0);
	x->n = x->no = 0;
	for (i = 0; i < ifp->naddrs; i++)
		if (tbl_addr_head(a->d.tbl, ifp, ifp->addrs[i].addr) == i &&
		    said_one(a, ifp, whole, i, ifp->addrs[i].addr, ifp->mac) &&
		    said_add(x, ifp->addrs[i].addr) == -1)
			return -1;
	for (k = 0; pub_nth_on(inf_pub(), ifp->name, k, &pa, &pe); k++) {
		mac = pe->has_mac ? pe->mac : ifp->mac;
		if (tbl_addr_owner(a->d.tbl, pa, NULL) == NULL &&
		    said_one(a, ifp, whole, ifp->naddrs + k, pa, mac) &&
		    said_add_mac(x, ifp, pa, mac) == -1)
			return -1;
	}
	if (annrec_line(&x->buf, &x->len, &x->bcap, ifp->name, ifp->mac, x->v, x->n) == -1)
		return -1;
	return said_others(x, ifp);
}

char *
anr_record(struct anr *a, size_t *len)
{
	struct said x = { a, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0 };
	int r;

	r = tbl_iface_each(a->d.tbl, said_cb, &x);
	free(x.v);
	free(x.o);
	if (r != 0) {
		free(x.buf);
		return NULL;
	}
	if (x.buf == NULL && (x.buf = strdup("")) == NULL)
		return NULL;
	*len = x.len;
	return x.buf;
}
