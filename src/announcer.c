/* announcer.c — the announcement schedule's glue: what starts a burst,
 * the timer that runs it, the frame budget of a loop turn and total_rate
 * (shared with the replies, half of its burst kept for them), and the
 * frames themselves, only from an interface that owns or publishes the
 * address and never while its link is down. */
#include "config.h"

#include <net/if_arp.h>
#include <arpa/inet.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "announcer.h"
#include "arp.h"
#include "capture.h"
#include "limit.h"
#include "linksync.h"
#include "log.h"
#include "policy.h"
#include "stats.h"

struct anr {
	struct anr_deps		 d;
	const struct conf	*conf;
	const struct pub	*pub;
	struct ann		*ann;		/* bursts due */
	unsigned		 budget;	/* frames left in this loop turn */
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

/* The counters of ifp (allocated on first use; NULL only on ENOMEM). */
static struct stats_if *
if_stats(struct tbl_iface *ifp)
{
	if (ifp->stats == NULL)
		ifp->stats = calloc(1, sizeof(*ifp->stats));
	return ifp->stats;
}

/* Send the configured form(s) of an announcement of addr from ifp; false
 * when the turn's budget or total_rate leaves no room now. */
static bool
send_announce(struct anr *a, struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac,
    bool defence)
{
	static const uint16_t ops[] = { ARPOP_REQUEST, ARPOP_REPLY };
	unsigned n = a->conf->announce_form == CONF_FORM_BOTH ? 2 : 1;
	uint8_t frame[ARP_FRAME_LEN];
	struct stats_if *is;
	size_t i;

	/* a burst for 100,000 addresses goes out a few hundred frames per
	 * loop turn: the requests that come meanwhile are answered between
	 * (a defence, one at a time, is not held to it) */
	if (a->budget < n && !defence)
		return false;
	/* announcements and replies share one budget, and half of its burst
	 * is kept for the replies: 100,000 addresses announced at start must
	 * not leave the requests of that second unanswered.  All forms or
	 * none, so that a retry never repeats half an announcement. */
	if (a->conf->total_rate > 0 &&
	    !lim_take_spare(&a->d.lim->total, a->conf->total_rate, n, ev_now(a->d.loop)))
		return false;
	for (i = 0; i < 2; i++) {
		if (!(a->conf->announce_form & (1 << i)))
			continue;
		cap_send(a->d.cap, ifp->ifindex, frame,
		    arp_build_announce(ops[i], mac, addr, frame));
		a->d.st->all.announcements++;
		if ((is = if_stats(ifp)) != NULL)
			is->announcements++;
		if (a->budget > 0)
			a->budget--;
	}
	return true;
}

/* One step of a burst (announce.h): one address, or all of ifp's. */
static enum ann_verdict
step(void *arg, int ifindex, uint32_t addr, unsigned nth, size_t *cursor)
{
	struct anr *a = arg;
	struct tbl_iface *ifp = tbl_iface(a->d.tbl, ifindex);
	const struct pub_entry *pe;
	const struct tbl_addr *e;
	uint32_t pa;

	(void)nth;
	/* down: dropped, the link coming up announces again */
	if (ifp == NULL || !anr_speaks(ifp) || !link_ready(ifp))
		return ANN_CANCEL;
	if (addr != 0) {
		/* never an address not ours, or not published here */
		if (tbl_addr_on(a->d.tbl, ifindex, addr))
			pe = NULL;
		else if ((pe = pub_lookup(a->pub, addr, ifp->name)) == NULL ||
		    tbl_addr_owner(a->d.tbl, addr, NULL) != NULL)
			return ANN_CANCEL;
		return send_announce(a, ifp, addr, pe && pe->has_mac ? pe->mac : ifp->mac,
		    false) ? ANN_SENT : ANN_RETRY;
	}
	for (; *cursor < ifp->naddrs; (*cursor)++) {
		e = &ifp->addrs[*cursor];
		/* an address held with two prefixes is announced once */
		if (tbl_addr_head(a->d.tbl, ifp, e->addr) != *cursor)
			continue;
		if (!send_announce(a, ifp, e->addr, ifp->mac, false))
			return ANN_RETRY;
	}
	/* then what is published on it, past the owned ones */
	while (pub_nth_on(a->pub, ifp->name, *cursor - ifp->naddrs, &pa, &pe)) {
		if (tbl_addr_owner(a->d.tbl, pa, NULL) == NULL &&
		    !send_announce(a, ifp, pa, pe->has_mac ? pe->mac : ifp->mac, false))
			return ANN_RETRY;
		(*cursor)++;
	}
	return ANN_SENT;
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

/* ann_start with the configuration's count and interval, the first step now. */
static int
burst(struct anr *a, int ifindex, uint32_t addr)
{
	return ann_start(a->ann, ifindex, addr, a->conf->announce_count,
	    a->conf->announce_interval, ev_now(a->d.loop));
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

	if (anr_speaks(ifp))
		anr_start(a, ifp->ifindex, 0);
	else
		anr_stop(a, ifp->ifindex, 0);
}

struct entry_arg {
	struct anr		*a;
	const struct pub_entry	*e;
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
	struct entry_arg x = { a, e };

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
anr_changed(struct anr *a, const struct pub *p, const struct pub *old)
{
	size_t k, j;

	for (k = 0; k < pub_count(p); k++) {
		for (j = 0; j < pub_count(old); j++)
			if (same_entry(pub_at(p, k), pub_at(old, j)))
				break;
		if (j == pub_count(old))
			anr_entry(a, pub_at(p, k));
	}
}

bool
anr_request(struct anr *a, uint32_t addr, const char **ifname)
{
	const struct pub_entry *e;
	struct tbl_iface *ifp;

	if ((ifp = tbl_addr_owner(a->d.tbl, addr, anr_speaks)) != NULL && anr_speaks(ifp)) {
		*ifname = ifp->name;
		anr_start(a, ifp->ifindex, addr);
		return true;
	}
	if ((e = pub_find(a->pub, addr)) != NULL) {
		*ifname = NULL;
		anr_entry(a, e);
		return true;
	}
	return false;
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

	if (anr_speaks(ifp) && link_ready(ifp) && burst(a, ifp->ifindex, 0) == -1)
		return 1;
	return 0;
}

/* announce_refresh: every owned address again, for switches whose MAC
 * tables age out before the hosts' ARP caches do. */
static void
refresh_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct anr *a = w->data;

	(void)loop;
	(void)revents;
	tbl_iface_each(a->d.tbl, refresh_iface_cb, a);
	anr_run(a);
}

void
anr_reconf(struct anr *a, const struct conf *c)
{
	a->conf = c;
	ev_timer_stop(a->d.loop, &a->refresh_w);
	if (c->announce_refresh > 0) {
		ev_timer_set(&a->refresh_w, c->announce_refresh, c->announce_refresh);
		ev_timer_start(a->d.loop, &a->refresh_w);
	}
}

void
anr_set_pub(struct anr *a, const struct pub *p)
{
	a->pub = p;
}

struct anr *
anr_new(const struct anr_deps *d, const struct conf *c, const struct pub *p)
{
	struct anr *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	if ((a->ann = ann_new(ANR_BURSTS)) == NULL) {
		free(a);
		return NULL;
	}
	a->d = *d;
	a->pub = p;
	ev_timer_init(&a->run_w, run_cb, 0., 0.);
	ev_timer_init(&a->refresh_w, refresh_cb, 0., 0.);
	a->run_w.data = a->refresh_w.data = a;
	anr_reconf(a, c);
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
	free(a);
}
