/* daemon.c — the wiring: start-up and stop order, the libev watchers, and
 * the dispatch of what they bring.  Netlink events update the table
 * (table.c) and go to the interface manager (iface.c, the only writer of
 * sysctls and of the state file); captured frames are checked (arp.c),
 * decided (policy.c), rate-limited (limit.c) and answered through
 * capture.c; conflicts are remembered in conflict.c. */
#include "config.h"

#include <net/if.h>
#include <net/if_arp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <stddef.h>
#include <errno.h>
#include <ev.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "arp.h"
#include "capture.h"
#include "conf.h"
#include "announce.h"
#include "conflict.h"
#include "ctl.h"
#include "daemon.h"
#include "iface.h"
#include "jsonw.h"
#include "limit.h"
#include "log.h"
#include "metrics.h"
#include "msgid.h"
#include "notify.h"
#include "policy.h"
#include "priv.h"
#include "publish.h"
#include "report.h"
#include "rtnl.h"
#include "statedir.h"
#include "statefile.h"
#include "stats.h"
#include "table.h"
#include "throttle.h"
#include "util.h"

#define CAP_BUDGET		512	/* frames per wakeup before looking at netlink */
#define SPIN_MAX		(CONF_BUSY_POLL_MAX * 1e-6)	/* never longer in one go */
#define LEARN_RATE		200	/* neighbour entries per second, at most */
#define CONFLICT_RECORDS	1024	/* remembered conflicting addresses */
#define SYSCTL_CHECK		3.0	/* seconds between checks for sysctl rewrites */
#define ANN_BURSTS		65536	/* announcement bursts pending, at most */
#define ANN_RUN_FRAMES		512	/* announcement frames per loop turn, at most */
#define NOTE_KEYS		4096	/* (sender, target) pairs remembered for logs */
#define NOTE_INTERVAL		10.0	/* seconds between two lines for one pair */
#define NOTE_LINES		20	/* such lines per interval, in all */

/* The kinds of throttled lines, each with its own memory. */
enum note_kind { NOTE_REFUSAL, NOTE_PROBE, NOTE_MONITOR, NOTE_KINDS };
#define LINK_READY		(IFF_UP | IFF_RUNNING)	/* frames can go out */

/*
 * Every catchable signal whose default action ends the process: HUP
 * reloads, USR1 dumps the state, the others stop it the clean way
 * (restore first).  Killed by one of them with the sysctls still at 8,
 * outside systemd nothing would restore them.  SIGPIPE (a log reader gone)
 * and SIGXFSZ are ignored: the write fails instead.
 */
static const int handled[] = {
	SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGQUIT, SIGUSR2, SIGALRM, SIGVTALRM,
	SIGPROF, SIGIO, SIGXCPU, SIGPWR,
};
#define NSIGNALS	(sizeof(handled) / sizeof(handled[0]))

/* The set of handled[]. */
static void
handled_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NSIGNALS; i++)
		sigaddset(set, handled[i]);
}

struct daemon {
	const struct daemon_opts *opts;
	struct ev_loop		*loop;
	struct conf		*conf;
	struct tbl		*tbl;
	struct rtnl		*rtnl;
	struct cap		*cap;
	struct sdir		*sd;		/* lock and saved originals */
	int			 nslock;	/* one instance per network namespace */
	struct ifm		*ifm;		/* interfaces and their sysctls */
	bool			 started;	/* initial dump done: manage on events */
	bool			 dumping;	/* no requests while a dump is read */
	bool			 need_resync;	/* a re-dump failed: try again */
	unsigned		 gen;		/* generation of the running dump */
	bool			 status_sent;	/* STATUS= as last sent */
	size_t			 status_ifaces, status_addrs;
	int			 exit_code;
	struct stats		 st;		/* counters, in all */
	struct cfl		*cfl;		/* conflicts seen */
	struct lim		 lim;		/* rate limits */
	struct ann		*ann;		/* announcements due */
	unsigned		 ann_budget;	/* frames left in this loop turn */
	struct pub		*pub;		/* published addresses */
	bool			 pub_dropped;	/* saved entries left out: save again */
	struct thr		*notes[NOTE_KINDS];	/* log lines of each kind */
	ev_io			 rtnl_w, cap_w;
	ev_signal		 sigw[NSIGNALS];	/* the signals of handled[] */
	ev_timer		 watchdog, check, ann_w, refresh_w;
	/* control socket, metrics */
	struct ctl		*ctl;
	double			 started_at;	/* READY, CLOCK_REALTIME */
	double			 conf_loaded;	/* the running configuration read */
	double			 reload_failed;	/* last refused reload, 0 = never */
	ev_timer		 metrics_w;	/* metrics_file every metrics_interval */
};

static conf_err_fn print_conf_err;
static void announce(struct daemon *d, int ifindex, uint32_t addr);
static void announce_stop(struct daemon *d, int ifindex, uint32_t addr);
static struct pub *pub_build(struct daemon *d, const struct conf *c, const struct pub *old);
static void announce_changed(struct daemon *d, const struct pub *p, const struct pub *old);
static void dump_state(struct daemon *d);
static void metrics_setup(struct daemon *d);
static void announce_entry(struct daemon *d, const struct pub_entry *e);

/* Every interface to what the configuration wants. */
static void
manage_all(struct daemon *d)
{
	(void)ifm_apply_all(d->ifm, d->conf);
}

/* The same for a configuration about to replace d->conf: the interfaces'
 * settings point into c from here on, d->conf may then be freed; -1 when
 * the originals could not be saved (and nothing was changed). */
static int
manage_all_with(struct daemon *d, const struct conf *c)
{
	return ifm_apply_all(d->ifm, c);
}

struct tally {
	size_t	ifaces, addrs;
};

static int
tally_cb(struct tbl_iface *ifp, void *arg)
{
	struct tally *t = arg;

	if (ifp->managed) {
		t->ifaces++;
		t->addrs += ifp->naddrs;
	}
	return 0;
}

/* STATUS= for systemctl status, sent when it changed: not a datagram
 * per netlink wake-up. */
static void
report_status(struct daemon *d)
{
	struct tally t = { 0, 0 };

	tbl_iface_each(d->tbl, tally_cb, &t);
	if (d->status_sent && t.ifaces == d->status_ifaces && t.addrs == d->status_addrs)
		return;
	d->status_sent = true;
	d->status_ifaces = t.ifaces;
	d->status_addrs = t.addrs;
	notify_send("STATUS=answering ARP on %zu interfaces for %zu addresses",
	    t.ifaces, t.addrs);
}

/* ---------------------------------------------------------------------
 * Netlink events
 */

static void
iface_gone(struct daemon *d, struct tbl_iface *ifp)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };

	if (ifp->managed)
		log_ctx(LOG_INFO, &lc, "%s: interface gone", ifp->name);
	ifm_gone(d->ifm, ifp->ifindex);
	announce_stop(d, ifp->ifindex, 0);
	tbl_iface_del(d->tbl, ifp->ifindex);
}

static void
on_link(struct daemon *d, const struct rtnl_msg *m)
{
	struct log_ctx lc = { MSGID_IFACE, m->name, 0, 0, NULL };
	struct tbl_iface *ifp = tbl_iface(d->tbl, m->ifindex);
	bool isnew = ifp == NULL, tell = false;
	char mac[18];

	if (m->kind == RTNL_DELLINK) {
		if (ifp != NULL)
			iface_gone(d, ifp);
		return;
	}
	if (ifp == NULL && (ifp = tbl_iface_add(d->tbl, m->ifindex)) == NULL) {
		log_warnx("%s: out of memory", m->name);
		return;
	}
	ifp->gen = d->gen;
	/* a rename: the record, keyed by ifindex, follows (ifm_apply) */
	if (strcmp(ifp->name, m->name) != 0) {
		if (d->started && !isnew)
			log_ctx(LOG_INFO, &lc, "%s: renamed to %s", ifp->name, m->name);
		memcpy(ifp->name, m->name, sizeof(ifp->name));
	}
	if (m->has_mac && memcmp(ifp->mac, m->mac, 6) != 0) {
		if (d->started && !isnew && ifp->managed) {
			log_ctx(LOG_INFO, &lc, "%s: MAC address now %s", m->name,
			    util_mac_str(m->mac, mac));
			tell = true;	/* the neighbours have the old one */
		}
		memcpy(ifp->mac, m->mac, 6);
	}
	if (d->started && !isnew && ifp->managed &&
	    ((ifp->flags ^ m->flags) & IFF_UP))
		log_ctx(LOG_INFO, &lc, "%s: link %s", m->name,
		    (m->flags & IFF_UP) ? "up" : "down");
	/* announced when frames can go out again: never while down */
	if (d->started && !isnew && (m->flags & LINK_READY) == LINK_READY &&
	    (ifp->flags & LINK_READY) != LINK_READY)
		tell = true;
	ifp->type = m->type;
	ifp->flags = m->flags;
	ifp->master = m->master;
	memcpy(ifp->kind, m->link_kind, sizeof(ifp->kind));
	memcpy(ifp->slave_kind, m->slave_kind, sizeof(ifp->slave_kind));
	/* Link messages queued before our RTM_SETLINK still show the old
	 * values; believe them again once the kernel echoed ours, or when a
	 * dump says what is (a down link sends no echo at all: else a value
	 * rewritten there would never be seen, nor healed). */
	if (m->has_conf) {
		if (d->dumping || (ifp->conf_pending && m->arp_ignore == ifp->arp_ignore &&
		    m->arp_announce == ifp->arp_announce))
			ifp->conf_pending = false;
		if (!ifp->conf_pending) {
			ifp->arp_ignore = m->arp_ignore;
			ifp->arp_announce = m->arp_announce;
		}
		ifp->conf_known = true;
	}
	/* during a dump the request socket is busy; resync manages after */
	if (d->started && !d->dumping)
		ifm_apply(d->ifm, d->conf, ifp);
	if (tell && ifp->managed)
		announce(d, ifp->ifindex, 0);
}

static void
on_addr(struct daemon *d, const struct rtnl_msg *m)
{
	struct tbl_iface *ifp = tbl_iface(d->tbl, m->ifindex);
	struct log_ctx lc = { MSGID_ADDR, NULL, m->addr, 0, NULL };
	int r;

	if (m->kind == RTNL_DELADDR) {
		if (ifp != NULL && tbl_addr_del(d->tbl, m->ifindex, m->addr, m->prefix,
		    m->plen) == 1) {
			lc.ifname = ifp->name;
			if (d->started)
				log_ctx(LOG_INFO, &lc, "%s: address %s/%u removed",
				    ifp->name, log_ip(m->addr), m->plen);
			if (!tbl_addr_on(d->tbl, m->ifindex, m->addr))
				announce_stop(d, m->ifindex, m->addr);
		}
		return;
	}
	/* the link message always comes first; be safe if it did not */
	if (ifp == NULL && (ifp = tbl_iface_add(d->tbl, m->ifindex)) == NULL)
		return;
	lc.ifname = ifp->name;
	if ((r = tbl_addr_add(d->tbl, m->ifindex, m->addr, m->prefix, m->plen)) == -1)
		log_ctx(LOG_WARNING, &lc, "%s: address %s: out of memory", ifp->name,
		    log_ip(m->addr));
	else if (r == 1 && d->started) {
		log_ctx(LOG_INFO, &lc, "%s: address %s/%u added", ifp->name,
		    log_ip(m->addr), m->plen);
		/* a moved address: the neighbours learn its new MAC now */
		if (ifp->managed)
			announce(d, ifp->ifindex, m->addr);
	}
}

static void
on_rtnl_msg(const struct rtnl_msg *m, void *arg)
{
	struct daemon *d = arg;

	if (m->kind == RTNL_NEWLINK || m->kind == RTNL_DELLINK)
		on_link(d, m);
	else
		on_addr(d, m);
}

static void
addr_lost(struct tbl_iface *ifp, const struct tbl_addr *e, void *arg)
{
	struct log_ctx lc = { MSGID_ADDR, ifp->name, e->addr, 0, NULL };

	(void)arg;
	log_ctx(LOG_INFO, &lc, "%s: address %s/%u removed (found in re-dump)",
	    ifp->name, log_ip(e->addr), e->plen);
}

struct stale {
	struct daemon	*d;
	int		*v;
	size_t		 n, cap;
};

static int
stale_cb(struct tbl_iface *ifp, void *arg)
{
	struct stale *s = arg;
	int *v;

	if (ifp->gen == s->d->gen)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		if ((v = realloc(s->v, s->cap * sizeof(*v))) == NULL)
			return 1;
		s->v = v;
	}
	s->v[s->n++] = ifp->ifindex;
	return 0;
}

/* Full re-dump into the live table: marks what is seen, sweeps the rest.
 * The table keeps serving meanwhile; only what vanished is removed. */
static int
resync(struct daemon *d)
{
	struct stale s = { d, NULL, 0, 0 };
	struct tbl_iface *ifp;
	size_t i;

	d->gen = tbl_gen_begin(d->tbl);
	d->dumping = true;
	if (rtnl_dump(d->rtnl, on_rtnl_msg, d) == -1) {
		d->dumping = false;
		d->need_resync = true;	/* the check timer tries again */
		log_warn("rtnetlink dump");
		return -1;
	}
	d->dumping = false;
	d->need_resync = false;
	tbl_addr_sweep(d->tbl, d->gen, addr_lost, d);
	tbl_iface_each(d->tbl, stale_cb, &s);
	for (i = 0; i < s.n; i++)
		if ((ifp = tbl_iface(d->tbl, s.v[i])) != NULL)
			iface_gone(d, ifp);
	free(s.v);
	d->st.resyncs++;
	return 0;
}

/*
 * Apply every netlink event queued so far.  Lost events (ENOBUFS) mean
 * the table may be wrong: re-dump, never guess, then read what queued up
 * meanwhile.
 */
static void
nl_sync(struct daemon *d)
{
	int r, n = 0;

	while ((r = rtnl_read(d->rtnl, on_rtnl_msg, d)) == 1) {
		log_warnx("rtnetlink: event queue overrun, re-reading every link "
		    "and address");
		/* not once the stop has given the interfaces back */
		if (resync(d) == 0 && d->started)
			manage_all(d);
		if (++n == 3)	/* the check timer retries (need_resync) */
			break;
	}
	if (r == -1)
		log_warn("rtnetlink read");
}

static void
rtnl_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	nl_sync(d);
	report_status(d);
}

/* ---------------------------------------------------------------------
 * ARP
 */

static bool
learn_allowed(struct daemon *d)
{
	return lim_take(&d->lim.learn, LEARN_RATE, ev_now(d->loop));
}

/* The counters of ifp (allocated on first use; NULL only on ENOMEM). */
static struct stats_if *
if_stats(struct tbl_iface *ifp)
{
	if (ifp != NULL && ifp->stats == NULL)
		ifp->stats = calloc(1, sizeof(*ifp->stats));
	return ifp != NULL ? ifp->stats : NULL;
}

/* Count into the daemon's total and, when known, the interface's. */
#define COUNT(d, s, field) do {					\
	struct stats_if *s_ = (s);				\
	(d)->st.all.field++;					\
	if (s_ != NULL)						\
		s_->field++;					\
} while (0)

/* Per sender and in total; fixed memory whatever the number of senders. */
static bool
rate_allowed(struct daemon *d, struct stats_if *is, uint32_t sip)
{
	ev_tstamp now = ev_now(d->loop);

	if (d->conf->sender_rate > 0 &&
	    !lim_sender(&d->lim, sip, d->conf->sender_rate, now)) {
		COUNT(d, is, limited_sender);
		return false;
	}
	if (d->conf->total_rate > 0 &&
	    !lim_take(&d->lim.total, d->conf->total_rate, now)) {
		COUNT(d, is, limited_total);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Announcements
 */

/* May ifp speak up now: managed and answering, announcements on, and its
 * link able to carry frames? */
static bool
can_announce(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_OFF && ifp->mode != POL_MONITOR &&
	    (ifp->flags & LINK_READY) == LINK_READY && ifp->announce;
}

/* Send the configured form(s) of an announcement of addr from ifp; false
 * when total_rate leaves no room now. */
static bool
send_announce(struct daemon *d, struct tbl_iface *ifp, uint32_t addr, const uint8_t *mac,
    bool defence)
{
	static const uint16_t ops[] = { ARPOP_REQUEST, ARPOP_REPLY };
	unsigned n = d->conf->announce_form == CONF_FORM_BOTH ? 2 : 1;
	uint8_t frame[ARP_FRAME_LEN];
	size_t i;

	/* a burst for 100,000 addresses goes out a few hundred frames per
	 * loop turn: the requests that come meanwhile are answered between
	 * (a defence, one at a time, is not held to it) */
	if (d->ann_budget < n && !defence)
		return false;
	/* announcements and replies share one budget, and half of its burst
	 * is kept for the replies: 100,000 addresses announced at start must
	 * not leave the requests of that second unanswered.  All forms or
	 * none, so that a retry never repeats half an announcement. */
	if (d->conf->total_rate > 0 &&
	    !lim_take_spare(&d->lim.total, d->conf->total_rate, n, ev_now(d->loop)))
		return false;
	for (i = 0; i < 2; i++) {
		if (!(d->conf->announce_form & (1 << i)))
			continue;
		cap_send(d->cap, ifp->ifindex, frame,
		    arp_build_announce(ops[i], mac, addr, frame));
		COUNT(d, if_stats(ifp), announcements);
		if (d->ann_budget > 0)
			d->ann_budget--;
	}
	return true;
}

/* One step of a burst (announce.h): one address, or all of ifp's. */
static enum ann_verdict
announce_step(void *arg, int ifindex, uint32_t addr, unsigned nth, size_t *cursor)
{
	struct daemon *d = arg;
	struct tbl_iface *ifp = tbl_iface(d->tbl, ifindex);
	const struct pub_entry *pe;
	const struct tbl_addr *e;
	uint32_t pa;

	/* down: dropped, the link coming up announces again */
	if (ifp == NULL || !can_announce(ifp))
		return ANN_CANCEL;
	if (addr != 0) {
		/* never an address not ours, or not published here */
		if (tbl_addr_on(d->tbl, ifindex, addr))
			pe = NULL;
		else if ((pe = pub_lookup(d->pub, addr, ifp->name)) == NULL ||
		    tbl_addr_owner(d->tbl, addr, NULL) != NULL)
			return ANN_CANCEL;
		return send_announce(d, ifp, addr, pe && pe->has_mac ? pe->mac : ifp->mac,
		    false) ? ANN_SENT : ANN_RETRY;
	}
	for (; *cursor < ifp->naddrs; (*cursor)++) {
		e = &ifp->addrs[*cursor];
		/* an address held with two prefixes is announced once */
		if (tbl_addr_head(d->tbl, ifp, e->addr) != *cursor)
			continue;
		if (!send_announce(d, ifp, e->addr, ifp->mac, false))
			return ANN_RETRY;
	}
	/* then what is published on it, past the owned ones */
	while (pub_nth_on(d->pub, ifp->name, *cursor - ifp->naddrs, &pa, &pe)) {
		if (tbl_addr_owner(d->tbl, pa, NULL) == NULL &&
		    !send_announce(d, ifp, pa, pe->has_mac ? pe->mac : ifp->mac, false))
			return ANN_RETRY;
		(*cursor)++;
	}
	(void)nth;
	return ANN_SENT;
}

/* Run what is due, send it, and arm the timer for the next step. */
static void
announce_run(struct daemon *d)
{
	double next, now = ev_now(d->loop);
	int failed;

	d->ann_budget = ANN_RUN_FRAMES;
	next = ann_run(d->ann, now, announce_step, d);
	if ((failed = cap_flush(d->cap)) > 0) {
		d->st.send_errors += (unsigned)failed;
		log_warn("capture: %d announcements not sent", failed);
	}
	ev_timer_stop(d->loop, &d->ann_w);
	if (next > 0) {
		ev_timer_set(&d->ann_w, next > now ? next - now : 0., 0.);
		ev_timer_start(d->loop, &d->ann_w);
	}
}

static void
ann_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	announce_run(w->data);
}

/* Run the schedule on the loop's next turn, not here: a start (or a
 * reload, a hotplug) that makes a thousand bursts due sends one turn's
 * budget of frames a turn, after READY=1, instead of every frame of them
 * before it (each run here had a budget of its own). */
static void
announce_soon(struct daemon *d)
{
	ev_timer_stop(d->loop, &d->ann_w);
	ev_timer_set(&d->ann_w, 0., 0.);
	ev_timer_start(d->loop, &d->ann_w);
}

/* Start a burst for addr on ifindex (0: all of its addresses); the first
 * frame goes out at once. */
static void
announce(struct daemon *d, int ifindex, uint32_t addr)
{
	if (d->loop == NULL)
		return;
	if (ann_start(d->ann, ifindex, addr, d->conf->announce_count,
	    d->conf->announce_interval, ev_now(d->loop)) == -1)
		log_warnx("announcements: %d bursts pending already; %s not announced",
		    ANN_BURSTS, addr ? log_ip(addr) : "an interface");
	announce_soon(d);
}

static void
announce_stop(struct daemon *d, int ifindex, uint32_t addr)
{
	ann_stop(d->ann, ifindex, addr);
}

/* The interface manager's word: an interface became managed, changed
 * mode, or was given back. */
static void
iface_event(void *arg, struct tbl_iface *ifp)
{
	struct daemon *d = arg;

	if (ifp->managed && ifp->mode != POL_MONITOR && ifp->mode != POL_OFF)
		announce(d, ifp->ifindex, 0);
	else
		announce_stop(d, ifp->ifindex, 0);
}

static int
refresh_iface_cb(struct tbl_iface *ifp, void *arg)
{
	struct daemon *d = arg;

	if (can_announce(ifp) &&
	    ann_start(d->ann, ifp->ifindex, 0, d->conf->announce_count,
	    d->conf->announce_interval, ev_now(d->loop)) == -1)
		return 1;
	return 0;
}

/* announce_refresh: every owned address again, for switches whose MAC
 * tables age out before the hosts' ARP caches do. */
static void
refresh_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	tbl_iface_each(d->tbl, refresh_iface_cb, d);
	announce_run(d);
}

static void
refresh_setup(struct daemon *d)
{
	ev_timer_stop(d->loop, &d->refresh_w);
	if (d->conf->announce_refresh > 0) {
		ev_timer_set(&d->refresh_w, d->conf->announce_refresh,
		    d->conf->announce_refresh);
		ev_timer_start(d->loop, &d->refresh_w);
	}
}

/* ---------------------------------------------------------------------
 * ARP
 */


/* Someone else's frame claims one of our addresses (RFC 5227 section 2.4:
 * a request, reply or announcement with our address as its sender and a
 * MAC not ours): counted and logged.  Defended, as the configuration says,
 * when the address is the arrival interface's (held or published there):
 * from there the announcement reaches the segment that heard the claim. */
static void
note_claim(struct daemon *d, const struct arp_req *req, struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_CONFLICT, in->name, req->sip, req->sip, req->sha };
	const struct pub_entry *pe = NULL;
	struct tbl_iface *holder = NULL;
	struct cfl_rec *r;
	char mac[18];
	bool log, here;

	if (!in->managed || req->sip == 0 || tbl_is_our_mac(d->tbl, req->sha))
		return;
	if (tbl_addr_on(d->tbl, in->ifindex, req->sip))
		here = true;
	else if ((holder = tbl_addr_owner(d->tbl, req->sip, NULL)) != NULL)
		here = false;	/* another interface's: maybe its segment too */
	else if ((pe = pub_lookup(d->pub, req->sip, in->name)) != NULL) {
		if (pe->has_mac && memcmp(pe->mac, req->sha, 6) == 0)
			return;	/* the entry's own MAC: ours */
		here = true;
	} else
		return;
	COUNT(d, if_stats(in), conflicts);
	/* at most once per address per interval, in bounded memory */
	log = cfl_note(d->cfl, req->sip, req->ifindex, req->sha, ev_now(d->loop), &r);
	if (log)
		log_ctx(LOG_WARNING, &lc, "%s: address conflict: %s is ours%s%s, but %s "
		    "claims it%s", in->name, log_ip(req->sip), holder ? ", on " : "",
		    holder ? holder->name : "", util_mac_str(req->sha, mac),
		    r != NULL && r->quiet > 0 ? " (more claims since the last report)" : "");
	if (!here || r == NULL || in->mode == POL_MONITOR || in->mode == POL_OFF ||
	    (in->flags & LINK_READY) != LINK_READY)
		return;
	switch (cfl_defend(r, in->defend, ev_now(d->loop))) {
	case CFL_DEFEND:
		if (send_announce(d, in, req->sip, pe != NULL && pe->has_mac ? pe->mac : in->mac,
		    true)) {
			COUNT(d, if_stats(in), defences);
			if (cfl_log_more(d->cfl, req->sip, CFL_LINE_DEFENDED,
			    ev_now(d->loop)))
				log_ctx(LOG_NOTICE, &lc, "%s: defended %s against %s with "
				    "an announcement", in->name, log_ip(req->sip),
				    util_mac_str(req->sha, mac));
		}
		break;
	case CFL_GIVE_UP:
		if (cfl_log_more(d->cfl, req->sip, CFL_LINE_GAVE_UP, ev_now(d->loop)))
			log_ctx(LOG_ERR, &lc, "%s: address conflict on %s persists after "
			    "its defence: %s keeps claiming it; not defending it again "
			    "until the claims stop for %.0f s (defend = once)", in->name,
			    log_ip(req->sip), util_mac_str(req->sha, mac), CFL_INTERVAL);
		break;
	case CFL_IGNORE:
		break;
	}
}

/* A line of this kind at most once per (a, b) per interval. */
static bool
note_allowed(struct daemon *d, enum note_kind kind, uint32_t a, uint32_t b)
{
	return thr_allow(d->notes[kind], (uint64_t)a << 32 | b, ev_now(d->loop), NULL);
}

/* The seed's firewall story, made visible: a request refused because the
 * target is another interface's and the sender is not on that interface's
 * networks (two NICs on one segment hear each other's requests all day:
 * not news), or because the sender is outside the subnets, is someone
 * asking from one network for what is on another. */
static void
note_refusal(struct daemon *d, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v)
{
	struct log_ctx lc = { MSGID_PROBE, res->in->name, req->tip, req->sip, req->sha };

	if ((v != POL_OTHER_IFACE && v != POL_NOT_SUBNET) || !log_enabled(LOG_INFO))
		return;
	/* a probe (sender 0.0.0.0) says nothing of where it comes from */
	if (v == POL_OTHER_IFACE && (req->sip == 0 ||
	    (res->owner != NULL && tbl_in_subnet(d->tbl, res->owner, req->sip))))
		return;
	if (!note_allowed(d, NOTE_REFUSAL, req->sip, req->tip))
		return;
	if (v == POL_OTHER_IFACE && res->owner != NULL)
		log_ctx(LOG_INFO, &lc, "%s: refused who-has %s from %s: owned by %s, "
		    "not by this interface", res->in->name, log_ip(req->tip),
		    log_ip(req->sip), res->owner->name);
	else
		log_ctx(LOG_INFO, &lc, "%s: refused who-has %s from %s: %s",
		    res->in->name, log_ip(req->tip), log_ip(req->sip), pol_verdict_str(v));
}

/* An RFC 5227 probe for one of our addresses: someone is about to take it. */
static void
note_probe(struct daemon *d, const struct arp_req *req, const struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_PROBE, in->name, req->tip, 0, req->sha };
	char mac[18];

	if (!note_allowed(d, NOTE_PROBE, 0, req->tip))
		return;
	log_ctx(LOG_NOTICE, &lc, "%s: %s probes for %s, which is ours: someone is "
	    "about to take this address", in->name, util_mac_str(req->sha, mac),
	    log_ip(req->tip));
}

/* monitor: the kernel answered; would arpownd (owner mode) have? */
static void
note_monitor(struct daemon *d, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v, struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_MONITOR, in->name, req->tip, req->sip, req->sha };

	if (v == POL_ANSWER || !pol_kernel_answers(d->tbl, req, in->arp_ignore))
		return;
	COUNT(d, if_stats(in), would_refuse[v]);
	if (!log_enabled(LOG_INFO) || !note_allowed(d, NOTE_MONITOR, req->sip, req->tip))
		return;
	log_ctx(LOG_INFO, &lc, "%s: the kernel answered who-has %s from %s; arpownd "
	    "(owner) would refuse: %s%s%s", in->name, log_ip(req->tip),
	    log_ip(req->sip), pol_verdict_str(v),
	    res->owner && res->owner != in ? ", owned by " : "",
	    res->owner && res->owner != in ? res->owner->name : "");
}

static void
answer(struct daemon *d, const struct arp_req *req, const struct pol_result *res,
    struct stats_if *is)
{
	uint8_t reply[ARP_FRAME_LEN];
	size_t len;

	if (!rate_allowed(d, is, req->sip))
		return;
	/* From the arrival interface with its MAC: in owner and subnet modes
	 * that is the owner; in system mode it is what the kernel's
	 * weak-host reply looks like. */
	len = arp_build_reply(req, res->mac, reply);
	cap_send(d->cap, req->ifindex, reply, len);
	COUNT(d, is, replies);
	if (log_enabled(LOG_DEBUG)) {
		struct log_ctx lc = { MSGID_ANSWER, res->in->name, req->tip, req->sip,
		    req->sha };

		log_ctx(LOG_DEBUG, &lc, "%s: answered who-has %s from %s", res->in->name,
		    log_ip(req->tip), log_ip(req->sip));
	}
	/* What the kernel's neigh_event_ns() does when it answers. */
	if (d->conf->learn && req->sip != 0 && tbl_in_subnet(d->tbl, res->in, req->sip) &&
	    learn_allowed(d)) {
		rtnl_learn(d->rtnl, req->ifindex, req->sip, req->sha);
		d->st.learned++;
	}
}

static void
on_frame(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg)
{
	struct daemon *d = arg;
	struct tbl_iface *in;
	struct pol_result res;
	struct arp_req req;
	struct stats_if *is;
	enum arp_reason why;
	enum pol_verdict v;

	/* A frame newer than the last netlink drain may follow an address
	 * delete the kernel has acknowledged since: read that first. */
	if (ts > rtnl_drained(d->rtnl))
		nl_sync(d);
	why = arp_check(pkt, caplen, &req);
	in = tbl_iface(d->tbl, arp_ifindex(pkt, caplen));
	is = if_stats(in);
	COUNT(d, is, received);
	if (why != ARP_OK) {
		COUNT(d, is, refused[why]);
		/* announcements and replies are not answered, but one that
		 * claims an address of ours is a conflict */
		if (in != NULL && (why == ARP_GRATUITOUS || why == ARP_NOT_REQUEST) &&
		    req.op != 0)
			note_claim(d, &req, in);
		return;
	}
	v = pol_decide(d->tbl, d->pub, &req, &res);
	COUNT(d, is, verdict[v]);
	if (in != NULL && in->managed && in->mode == POL_MONITOR) {
		note_monitor(d, &req, &res, v, in);
		if (v == POL_CONFLICT)
			note_claim(d, &req, in);
		return;
	}
	switch (v) {
	case POL_ANSWER:
		answer(d, &req, &res, is);
		if (req.sip == 0)
			note_probe(d, &req, res.in);
		return;
	case POL_CONFLICT:
		note_claim(d, &req, res.in);
		return;
	default:
		break;
	}
	if (res.in != NULL)
		note_refusal(d, &req, &res, v);
	if (log_enabled(LOG_DEBUG) && res.in != NULL) {
		struct log_ctx lc = { MSGID_REFUSED, res.in->name, req.tip, req.sip,
		    req.sha };

		log_ctx(LOG_DEBUG, &lc, "%s: not answering who-has %s from %s: %s%s%s",
		    res.in->name, log_ip(req.tip), log_ip(req.sip), pol_verdict_str(v),
		    res.owner && res.owner != res.in ? ", owned by " : "",
		    res.owner && res.owner != res.in ? res.owner->name : "");
	}
}

static void
cap_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	ev_tstamp start = ev_time(), last = start, now;
	int n, failed;

	/*
	 * Waking a sleeping process costs tens of microseconds on an idle
	 * machine, the kernel's own reply none: so after a frame, keep polling
	 * for busy_poll_us before going back to sleep.  An idle host pays
	 * nothing; a busy one answers without a wake-up per request.  Bounded
	 * by SPIN_MAX so that signals and timers are never held up.
	 */
	for (;;) {
		/* Netlink first: every event queued before the frames of
		 * this batch is applied before any of them is decided. */
		nl_sync(d);
		if ((n = cap_dispatch(d->cap, CAP_BUDGET, on_frame, d)) == -1) {
			/* an interface vanishing mid-read is no reason to stop */
			d->st.capture_errors++;
			log_warnx("capture: read failed; carrying on");
		}
		if ((failed = cap_flush(d->cap)) > 0) {
			d->st.send_errors += (unsigned)failed;
			log_warn("capture: %d replies not sent", failed);
		}
		now = ev_time();
		if (n > 0)
			last = now;
		else if (now - last > (double)d->conf->busy_poll_us * 1e-6 ||
		    now - start > SPIN_MAX)
			break;
	}
}

/* ---------------------------------------------------------------------
 * Stop
 */

#define DRAIN_MAX	0.1	/* s: the stop drain, bounded under a flood */

struct silent {
	int	*v;
	size_t	 n, cap;
};

static int
silent_cb(struct tbl_iface *ifp, void *arg)
{
	struct silent *s = arg;
	int *v;

	if (!ifp->managed)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		if ((v = realloc(s->v, s->cap * sizeof(*v))) == NULL)
			return -1;
		s->v = v;
	}
	s->v[s->n++] = ifp->ifindex;
	return 0;
}

/*
 * Give every interface back to the kernel, then answer the requests the
 * capture still holds.  Those arrived while the kernel was silent (it
 * was until its sysctls were written back): nobody else will answer
 * them, and a client would wait a second before it asks again.  Frames
 * that came after the restore get two identical replies, the kernel's
 * and ours, as they did before arpownd started.
 *
 * The drain decides with the interfaces as they were while silent
 * (marked managed again, in the table only: their records are gone) and
 * with d->started false, so that no netlink event read on the way makes
 * an interface managed again or starts an announcement.
 */
static size_t
stop_restore(struct daemon *d)
{
	struct silent s = { NULL, 0, 0 };
	struct tbl_iface *ifp;
	ev_tstamp start;
	size_t left, i;
	int n;

	if (tbl_iface_each(d->tbl, silent_cb, &s) == -1)
		s.n = 0;	/* out of memory: restore all the same, no drain */
	left = ifm_restore_all(d->ifm);
	d->started = false;
	for (i = 0; i < s.n; i++)
		if ((ifp = tbl_iface(d->tbl, s.v[i])) != NULL)
			ifp->managed = true;
	start = ev_time();
	do {
		n = cap_dispatch(d->cap, CAP_BUDGET, on_frame, d);
		if (cap_flush(d->cap) > 0)
			d->st.send_errors++;
	} while (n > 0 && ev_time() - start < DRAIN_MAX);
	for (i = 0; i < s.n; i++)
		if ((ifp = tbl_iface(d->tbl, s.v[i])) != NULL &&
		    ifm_record(d->ifm, ifp->ifindex) == NULL)
			ifp->managed = false;
	free(s.v);
	return left;
}

/* ---------------------------------------------------------------------
 * Signals and timers
 */

static void
apply_qdisc_bypass(struct daemon *d)
{
	if (cap_set_qdisc_bypass(d->cap, d->conf->qdisc_bypass) == -1)
		log_warn("capture: cannot turn qdisc_bypass %s",
		    d->conf->qdisc_bypass ? "on" : "off");
}

/* Where a configuration's errors go: the log, and a control client's reply. */
struct conf_sink {
	FILE		*out;		/* NULL: the log alone */
	const char	*read_as;	/* the memfd's path, named in conf_load's messages */
	const char	*path;		/* the file it is a copy of */
};

static void
sink_err(void *arg, const char *msg)
{
	const struct conf_sink *k = arg;
	size_t n = strlen(k->read_as);

	/* the file's own name, not the copy's, in every message */
	if (k->read_as[0] != '\0' && strncmp(msg, k->read_as, n) == 0) {
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_RELOAD, NULL, 0, 0, NULL },
		    "%s%s", k->path, msg + n);
		if (k->out != NULL)
			fprintf(k->out, "%s%s\n", k->path, msg + n);
		return;
	}
	print_conf_err(NULL, msg);
	if (k->out != NULL)
		fprintf(k->out, "%s\n", msg);
}

/*
 * Read the configuration again (SIGHUP, or "reload" with out the reply's
 * body and fd, when not -1, a descriptor root passed for the file, which
 * may be one we cannot open); swap it in when it is good, else keep the
 * running one.  0, or EX_CONFIG with the errors logged (and on out).
 */
static int
reload(struct daemon *d, int fd, FILE *out)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };
	struct conf_sink k = { out, "", d->opts->conf_path };
	char copy[64], err[512];
	struct conf *nc = NULL;
	struct pub *np = NULL, *op;
	int m = -1;

	notify_send("RELOADING=1");
	log_ctx(LOG_NOTICE, &lc, "reloading %s%s", d->opts->conf_path,
	    fd != -1 ? " (passed by root)" : "");
	if (fd != -1) {
		/* iniparser reads a path: a copy of our own, reached through /proc */
		if ((m = ctl_passed_file(fd, d->opts->conf_path, err, sizeof(err))) == -1)
			sink_err(&k, err);
		else {
			snprintf(copy, sizeof(copy), "/proc/self/fd/%d", m);
			k.read_as = copy;
			if ((nc = conf_load(copy, sink_err, &k)) != NULL) {
				free(nc->path);
				if ((nc->path = strdup(d->opts->conf_path)) == NULL) {
					conf_free(nc);
					nc = NULL;
					sink_err(&k, "out of memory");
				}
			}
			close(m);
		}
	} else if (!d->opts->conf_explicit && access(d->opts->conf_path, F_OK) == -1 &&
	    errno == ENOENT)
		nc = conf_defaults();
	else
		nc = conf_load(d->opts->conf_path, sink_err, &k);
	if (nc != NULL && (np = pub_build(d, nc, d->pub)) == NULL) {
		conf_free(nc);
		nc = NULL;
		if (out != NULL)
			fprintf(out, "%s: its published addresses cannot be taken (why is "
			    "in the log)\n", d->opts->conf_path);
	}
	if (nc == NULL) {
		/* an admin's action: never rate-limited */
		log_ctx(LOG_ERR, &lc, "%s: not reloaded, the running "
		    "configuration stays", d->opts->conf_path);
		if (out != NULL)
			fprintf(out, "%s: not reloaded, the running configuration stays\n",
			    d->opts->conf_path);
		/* read at start as root, now as the user we dropped to */
		if (fd == -1 && access(d->opts->conf_path, R_OK) == -1 && errno == EACCES) {
			log_ctx(LOG_ERR, &lc, "%s: not readable by uid %u, which arpownd "
			    "runs as: make it readable by that user or group (chgrp "
			    "arpownd %s; chmod 0640 %s), or restart arpownd instead",
			    d->opts->conf_path, (unsigned)geteuid(), d->opts->conf_path,
			    d->opts->conf_path);
			if (out != NULL)
				fprintf(out, "%s: not readable by uid %u, which arpownd runs "
				    "as: run arpownctl reload as root (it passes the file), "
				    "or make it readable by that user or group\n",
				    d->opts->conf_path, (unsigned)geteuid());
		}
		d->reload_failed = ev_time();
	} else {
		bool same_user = strcmp(nc->user, d->conf->user) == 0;

		op = d->pub;
		d->pub = np;
		if (manage_all_with(d, nc) == -1)
			log_ctx(LOG_ERR, &lc, "%s: the sysctl originals could not be "
			    "saved: no interface changed its sysctls (see above)",
			    d->opts->conf_path);
		if (!same_user)
			log_ctx(LOG_NOTICE, &lc, "user = %s: takes effect at the next start "
			    "(running as %s)", nc->user, d->conf->user);
		conf_free(d->conf);
		d->conf = nc;
		d->conf_loaded = ev_time();
		log_setlevel(nc->log_level);
		apply_qdisc_bypass(d);
		refresh_setup(d);
		announce_changed(d, np, op);
		pub_free(op);
		metrics_setup(d);
		log_ctx(LOG_NOTICE, &lc, "reloaded %s", d->opts->conf_path);
	}
	report_status(d);
	notify_send("READY=1");
	return nc == NULL ? EX_CONFIG : 0;
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	switch (w->signum) {
	case SIGHUP:
		reload(d, -1, NULL);
		break;
	case SIGUSR1:
		dump_state(d);
		break;
	default:
		log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_STOP, NULL, 0, 0, NULL },
		    "stopping on signal %d", w->signum);
		ev_break(loop, EVBREAK_ALL);
	}
}

/* A write to /proc/sys sends no netlink event: look at the links' devconf
 * now and then, and put back an arp_ignore someone else changed. */
static void
check_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	if (d->need_resync) {
		if (resync(d) == 0)
			manage_all(d);
		return;
	}
	d->dumping = true;
	if (rtnl_dump_links(d->rtnl, on_rtnl_msg, d) == -1)
		log_warn("rtnetlink link dump");
	d->dumping = false;
	manage_all(d);
}

static void
watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	notify_send("WATCHDOG=1");
}

/* ---------------------------------------------------------------------
 * control socket: arpownctl's requests, the metrics file, SIGUSR1 (all
 * rendered by report.c and metrics.c from one view)
 */

static const struct state_orig *
view_orig(void *arg, int ifindex)
{
	return ifm_record(arg, ifindex);
}

static void
view_fill(struct daemon *d, struct rpt_view *v)
{
	memset(v, 0, sizeof(*v));
	v->version = PACKAGE_VERSION;
	v->pid = (long)getpid();
	v->now = ev_time();
	v->started = d->started_at;
	v->conf_path = d->conf->path;
	v->conf_loaded = v->reload_ok = d->conf_loaded;
	v->reload_failed = d->reload_failed;
	v->conf = d->conf;
	v->tbl = d->tbl;
	v->cfl = d->cfl;
	v->st = &d->st;
	v->capture_drops = d->cap != NULL ? cap_drops(d->cap) : 0;
	v->orig = view_orig;
	v->orig_arg = d->ifm;
	v->pub = d->pub;
	v->up = true;
}

static bool
announcing(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_MONITOR && ifp->mode != POL_OFF;
}

/* "announce ADDR|IFACE": a burst from the interface that owns the address
 * (or publishes it), or for every address of one interface; 0, or a
 * sysexits code with why on out. */
static int
ctl_announce(struct daemon *d, const struct ctlp_req *req, FILE *out)
{
	const struct pub_entry *e;
	struct tbl_iface *ifp;
	struct jw w;

	if (req->has_ifname) {
		if ((ifp = tbl_iface_byname(d->tbl, req->ifname)) == NULL || !announcing(ifp)) {
			fprintf(out, "%s: %s\n", req->ifname, ifp == NULL ? "no such interface" :
			    "not managed, or in monitor or off mode: arpownd does not "
			    "announce there");
			return EX_DATAERR;
		}
		announce(d, ifp->ifindex, 0);
	} else if ((ifp = tbl_addr_owner(d->tbl, req->addr, announcing)) != NULL &&
	    announcing(ifp)) {
		announce(d, ifp->ifindex, req->addr);
	} else if ((e = pub_find(d->pub, req->addr)) != NULL) {
		announce_entry(d, e);
		ifp = NULL;
	} else {
		fprintf(out, "%s: neither an address of an interface arpownd manages nor "
		    "published\n", log_ip(req->addr));
		return EX_DATAERR;
	}
	jw_init(&w, out);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_bool(&w, "announced", true);
	if (req->has_addr) {
		jw_str(&w, "address", log_ip(req->addr));
	} else
		jw_null(&w, "address");
	if (ifp != NULL)
		jw_strn(&w, "interface", ifp->name, strnlen(ifp->name, sizeof(ifp->name)));
	else
		jw_null(&w, "interface");	/* published: from each interface it names */
	jw_end(&w);
	return 0;
}

/* "publish ADDR[/LEN] IFACE" and "withdraw ADDR[/LEN]" (issue 9). */
static int
ctl_publish(struct daemon *d, const struct ctlp_req *req, FILE *out)
{
	char cidr[INET_ADDRSTRLEN + 4], err[320];
	struct jw w;
	int code;

	snprintf(cidr, sizeof(cidr), "%s/%u", log_ip(req->addr), req->plen);
	err[0] = '\0';
	code = req->cmd == CTLP_PUBLISH ? daemon_publish(d, cidr, req->ifname, err, sizeof(err)) :
	    daemon_withdraw(d, cidr, err, sizeof(err));
	if (code != 0) {
		fprintf(out, "%s\n", err);
		return code;
	}
	jw_init(&w, out);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_bool(&w, req->cmd == CTLP_PUBLISH ? "published" : "withdrawn", true);
	jw_str(&w, "address", cidr);
	if (req->cmd == CTLP_PUBLISH)
		jw_str(&w, "interface", req->ifname);
	jw_end(&w);
	return 0;
}

static int
ctl_request(void *arg, const struct ctlp_req *req, int fd, FILE *out, const char **type)
{
	struct daemon *d = arg;
	struct rpt_view v;
	struct jw w;
	int code;

	*type = "json";
	view_fill(d, &v);
	switch (req->cmd) {
	case CTLP_STATUS:
		rpt_status(&v, out);
		return 0;
	case CTLP_INTERFACES:
		rpt_interfaces(&v, out);
		return 0;
	case CTLP_COUNTERS:
		rpt_counters(&v, out);
		return 0;
	case CTLP_CONFLICTS:
		rpt_conflicts(&v, out);
		return 0;
	case CTLP_METRICS:
		*type = "text";
		met_render(&v, out);
		return 0;
	case CTLP_RELOAD:
		if ((code = reload(d, fd, out)) != 0)
			return code;
		jw_init(&w, out);
		jw_obj(&w, NULL, false);
		jw_int(&w, "schema", RPT_SCHEMA);
		jw_bool(&w, "reloaded", true);
		jw_str(&w, "config", d->conf->path);
		jw_bool(&w, "passed", fd != -1);
		jw_end(&w);
		return 0;
	case CTLP_ANNOUNCE:
		return ctl_announce(d, req, out);
	case CTLP_PUBLISH:
	case CTLP_WITHDRAW:
		return ctl_publish(d, req, out);
	case CTLP_PUBLISHED:
		rpt_published(&v, out);
		return 0;
	default:
		fprintf(out, "%s: not implemented\n", ctlp_cmd_str(req->cmd));
		return EX_SOFTWARE;
	}
}

/* The metrics for node_exporter's textfile collector; up false at stop. */
static void
metrics_write(struct daemon *d, bool up)
{
	struct rpt_view v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (d->conf->metrics_file == NULL)
		return;
	view_fill(d, &v);
	v.up = up;
	if ((f = open_memstream(&buf, &len)) == NULL) {
		log_warn("%s", d->conf->metrics_file);
		return;
	}
	met_render(&v, f);
	if (fclose(f) != 0 || met_write_file(d->conf->metrics_file, buf, len) == -1)
		log_warn("%s: cannot write the metrics", d->conf->metrics_file);
	free(buf);
}

static void
metrics_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	metrics_write(w->data, true);
}

/* (Re)arm the writer for the configuration in force, and write now. */
static void
metrics_setup(struct daemon *d)
{
	if (d->loop == NULL)
		return;
	ev_timer_stop(d->loop, &d->metrics_w);
	if (d->conf->metrics_file == NULL)
		return;
	ev_timer_init(&d->metrics_w, metrics_cb, (double)d->conf->metrics_interval,
	    (double)d->conf->metrics_interval);
	d->metrics_w.data = d;
	ev_timer_start(d->loop, &d->metrics_w);
	metrics_write(d, true);
}

/* SIGUSR1: what arpownctl status and counters say, a line of JSON each
 * (one record per line), prefixed with the document's name. */
static void
dump_state(struct daemon *d)
{
	static void (*const fns[])(const struct rpt_view *, FILE *) = {
		rpt_status, rpt_counters,
	};
	static const char *const names[] = { "status", "counters" };
	struct rpt_view v;
	char *buf, *line, *nl;
	size_t len, i;
	FILE *f;

	view_fill(d, &v);
	for (i = 0; i < 2; i++) {
		buf = NULL;
		len = 0;
		if ((f = open_memstream(&buf, &len)) == NULL) {
			log_warn("SIGUSR1");
			return;
		}
		fns[i](&v, f);
		if (fclose(f) != 0) {
			free(buf);
			log_warn("SIGUSR1");
			return;
		}
		for (line = buf; line < buf + len; line = nl + 1) {
			if ((nl = memchr(line, '\n', (size_t)(buf + len - line))) == NULL)
				nl = buf + len;
			log_info("%s: %.*s", names[i], (int)(nl - line), line);
		}
		free(buf);
	}
}

/* ---------------------------------------------------------------------
 * Start and stop
 */

static void
print_conf_err(void *arg, const char *msg)
{
	(void)arg;
	log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_RELOAD, NULL, 0, 0, NULL }, "%s", msg);
}

/* No published address may be on lo (LVS direct-routing VIPs are answered
 * by no one); lo's addresses are read here, the configuration can't. */
static int
published_on_lo(const struct conf *c, conf_err_fn *err)
{
	struct ifaddrs *ifa, *i;
	char msg[512], a[INET_ADDRSTRLEN];
	uint32_t addr;
	size_t k;
	int bad = 0;

	if (c->npubs == 0 || getifaddrs(&ifa) == -1)
		return 0;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_LOOPBACK))
			continue;
		memcpy(&addr, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
		for (k = 0; k < c->npubs; k++) {
			if (!rng_has(&c->pubs[k].set, addr))
				continue;
			inet_ntop(AF_INET, &addr, a, sizeof(a));
			snprintf(msg, sizeof(msg), "%s: [publish %s] addresses: %s is an "
			    "address of %s, which arpownd never answers for", c->path,
			    c->pubs[k].label, a, i->ifa_name);
			err(NULL, msg);
			bad = 1;
		}
	}
	freeifaddrs(ifa);
	return bad;
}

struct conf *
daemon_load_conf(const struct daemon_opts *o, conf_err_fn *err)
{
	struct conf *c;

	if (!o->conf_explicit && access(o->conf_path, F_OK) == -1 && errno == ENOENT)
		return conf_defaults();
	if ((c = conf_load(o->conf_path, err ? err : print_conf_err, NULL)) != NULL &&
	    published_on_lo(c, err ? err : print_conf_err)) {
		conf_free(c);
		return NULL;
	}
	return c;
}

/*
 * The published set: c's [publish] sections, then the runtime entries,
 * from old (a reload) or from the state directory (the start); NULL with
 * the reason logged (a runtime entry overlapping a new section).
 */
/* A saved runtime entry that the configuration now publishes itself: the
 * configuration wins (it is what -n approved), the entry is dropped and
 * the state saved again without it, rather than refusing to start. */
static void
pub_skip_saved(void *arg, const char *cidr, const char *ifname, const char *why)
{
	struct log_ctx lc = { MSGID_PUBLISH, ifname, 0, 0, NULL };
	struct daemon *d = arg;

	log_ctx(LOG_WARNING, &lc, "runtime-published %s on %s dropped: %s (the "
	    "configuration's section wins)", cidr, ifname, why);
	d->pub_dropped = true;
}

static struct pub *
pub_build(struct daemon *d, const struct conf *c, const struct pub *old)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };
	struct pub *p = pub_new();
	struct pub_entry e;
	char err[320], *lines = NULL;
	size_t k, len;

	if (p == NULL)
		goto nomem;
	for (k = 0; k < c->npubs; k++) {
		memset(&e, 0, sizeof(e));
		snprintf(e.label, sizeof(e.label), "%s", c->pubs[k].label);
		snprintf(e.ifglob, sizeof(e.ifglob), "%s", c->pubs[k].ifglob);
		memcpy(e.mac, c->pubs[k].mac, 6);
		e.has_mac = c->pubs[k].has_mac;
		if (rng_copy(&e.set, &c->pubs[k].set) == -1)
			goto nomem;
		if (pub_add(p, &e, err, sizeof(err)) == -1) {
			rng_clear(&e.set);
			log_ctx(LOG_ERR, &lc, "[publish %s]: %s", c->pubs[k].label, err);
			goto fail;
		}
	}
	if (old != NULL) {
		for (k = 0; k < pub_count(old); k++) {
			const struct pub_entry *o = pub_at(old, k);

			if (!o->runtime)
				continue;
			e = *o;
			if (rng_copy(&e.set, &o->set) == -1)
				goto nomem;
			if (pub_add(p, &e, err, sizeof(err)) == -1) {
				rng_clear(&e.set);
				log_ctx(LOG_ERR, &lc, "the runtime-published %s/%u (on %s) and "
				    "the new configuration: %s; withdraw it first",
				    log_ip(htonl(o->base)), o->plen, o->ifglob, err);
				goto fail;
			}
		}
	} else if (d->sd != NULL) {
		if (sdir_published_load(d->sd, &lines, &len, err, sizeof(err)) == -1) {
			log_ctx(LOG_ERR, &lc, "runtime-published addresses: %s", err);
			goto fail;
		}
		if (pub_parse_runtime(p, lines, len, pub_skip_saved, d, err,
		    sizeof(err)) == -1) {
			log_ctx(LOG_ERR, &lc, "runtime-published addresses, as saved: %s", err);
			goto fail;
		}
		free(lines);
		lines = NULL;
	}
	return p;
nomem:
	log_ctx(LOG_ERR, &lc, "published addresses: out of memory");
fail:
	free(lines);
	pub_free(p);
	return NULL;
}

struct ann_entry {
	struct daemon		*d;
	const struct pub_entry	*e;
};

static int
announce_entry_cb(struct tbl_iface *ifp, void *arg)
{
	struct ann_entry *a = arg;
	const struct rng *set = &a->e->set;
	struct daemon *d = a->d;
	uint32_t x;
	size_t k;

	if (!can_announce(ifp) || fnmatch(a->e->ifglob, ifp->name, 0) != 0)
		return 0;
	/* a few addresses: a burst each; many: the interface's whole burst */
	if (rng_count(set) > 256)
		return ann_start(d->ann, ifp->ifindex, 0, d->conf->announce_count,
		    d->conf->announce_interval, ev_now(d->loop)) == -1;
	for (k = 0; k < set->n; k++)
		for (x = set->v[k].lo; ; x++) {
			if (ann_start(d->ann, ifp->ifindex, htonl(x), d->conf->announce_count,
			    d->conf->announce_interval, ev_now(d->loop)) == -1)
				return 1;
			if (x == set->v[k].hi)
				break;
		}
	return 0;
}

/* Announce an entry from every interface it is published on. */
static void
announce_entry(struct daemon *d, const struct pub_entry *e)
{
	struct ann_entry a = { d, e };

	if (d->loop == NULL)
		return;
	if (tbl_iface_each(d->tbl, announce_entry_cb, &a) != 0)
		log_warnx("announcements: %d bursts pending already; not all of "
		    "[publish %s] announced", ANN_BURSTS, e->label);
	announce_soon(d);
}

static bool
same_entry(const struct pub_entry *a, const struct pub_entry *b)
{
	return strcmp(a->label, b->label) == 0 && strcmp(a->ifglob, b->ifglob) == 0 &&
	    a->has_mac == b->has_mac && memcmp(a->mac, b->mac, 6) == 0 &&
	    a->set.n == b->set.n &&
	    memcmp(a->set.v, b->set.v, a->set.n * sizeof(*a->set.v)) == 0;
}

/* Does any interface hold an address in set? */
struct held {
	const struct rng	*set;
	uint32_t		 addr;
	const char		*ifname;
};

static int
held_cb(struct tbl_iface *ifp, void *arg)
{
	struct held *h = arg;
	size_t i;

	for (i = 0; i < ifp->naddrs; i++)
		if (rng_has(h->set, ifp->addrs[i].addr)) {
			h->addr = ifp->addrs[i].addr;
			h->ifname = ifp->name;
			return 1;
		}
	return 0;
}

static int
save_published(struct daemon *d)
{
	char *lines;
	size_t len;
	int r;

	if ((lines = pub_format_runtime(d->pub, &len)) == NULL)
		return -1;
	r = sdir_published_save(d->sd, lines, len);
	free(lines);
	return r;
}

int
daemon_publish(struct daemon *d, const char *cidr, const char *ifname, char *err,
    size_t errlen)
{
	struct log_ctx lc = { MSGID_PUBLISH, ifname, 0, 0, NULL };
	struct pub_entry e;
	struct held h;
	const char *why;

	if (pub_runtime_entry(&e, cidr, ifname, &why) == -1) {
		snprintf(err, errlen, "%s: %s", cidr, why);
		return EX_USAGE;
	}
	/* an address an interface holds is never published (lo's included) */
	h.set = &e.set;
	if (tbl_iface_each(d->tbl, held_cb, &h) != 0) {
		snprintf(err, errlen, "%s: %s is an address of %s", cidr, log_ip(h.addr),
		    h.ifname);
		rng_clear(&e.set);
		return EX_DATAERR;
	}
	if (pub_add(d->pub, &e, err, errlen) == -1) {
		rng_clear(&e.set);
		return EX_DATAERR;
	}
	/* kept before it is answered: a restart keeps it until withdrawn */
	if (save_published(d) == -1) {
		snprintf(err, errlen, "%s: cannot save it in the state directory: %s", cidr,
		    strerror(errno));
		(void)pub_withdraw(d->pub, e.base, e.plen);
		return EX_IOERR;
	}
	lc.addr = htonl(e.base);
	log_ctx(LOG_NOTICE, &lc, "published %s/%u on %s", log_ip(htonl(e.base)), e.plen,
	    ifname);
	announce_entry(d, pub_find(d->pub, htonl(e.base)));
	return 0;
}

int
daemon_withdraw(struct daemon *d, const char *cidr, char *err, size_t errlen)
{
	struct log_ctx lc = { MSGID_PUBLISH, NULL, 0, 0, NULL };
	struct pub_entry e;
	const char *why;

	if (pub_runtime_entry(&e, cidr, "x", &why) == -1) {
		snprintf(err, errlen, "%s: %s", cidr, why);
		return EX_USAGE;
	}
	rng_clear(&e.set);
	/* gone from the set first: never answered once this returns */
	if (pub_withdraw(d->pub, e.base, e.plen) == 0) {
		snprintf(err, errlen, "%s: not published by arpownctl publish", cidr);
		return EX_DATAERR;
	}
	lc.addr = htonl(e.base);
	log_ctx(LOG_NOTICE, &lc, "withdrew %s/%u", log_ip(htonl(e.base)), e.plen);
	if (save_published(d) == -1) {
		snprintf(err, errlen, "%s: withdrawn, but the state directory still has "
		    "it (a restart would publish it again): %s", cidr, strerror(errno));
		return EX_IOERR;
	}
	return 0;
}

/* Announce the entries of p that old did not have as they are (a reload
 * adding or changing sections). */
static void
announce_changed(struct daemon *d, const struct pub *p, const struct pub *old)
{
	size_t k, j;

	for (k = 0; k < pub_count(p); k++) {
		for (j = 0; j < pub_count(old); j++)
			if (same_entry(pub_at(p, k), pub_at(old, j)))
				break;
		if (j == pub_count(old))
			announce_entry(d, pub_at(p, k));
	}
}

/* Warn about conf/all: the kernel applies max(all, dev), we never write it. */
static void
check_conf_all(void)
{
	static const char *const keys[] = { "arp_ignore", "arp_announce" };
	char path[64], buf[32];
	size_t i;
	FILE *f;
	long v;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/all/%s", keys[i]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (v = strtol(buf, NULL, 10)) > 0)
			log_warnx("net.ipv4.conf.all.%s is %ld: the kernel applies it to "
			    "every interface, including the ones arpownd does not "
			    "manage; arpownd leaves it alone", keys[i], v);
		fclose(f);
	}
}

/*
 * One arpownd per network namespace: two, with two state directories,
 * would both answer every request, and the second would record the
 * first's 8 as an original.  An abstract AF_UNIX name is the lock:
 * abstract names live in the network namespace, and go with the process.
 */
static int
netns_lock(void)
{
	struct sockaddr_un sun;
	static const char name[] = "arpownd";
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, sizeof(name) - 1);	/* sun_path[0] = 0 */
	if (bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof(name))) == -1) {
		int e = errno;

		close(fd);
		return errno = e, -1;
	}
	return fd;
}

static int
errno_exit(int e)
{
	return e == EPERM || e == EACCES ? EX_NOPERM : EX_OSERR;
}

static int
lo_cb(struct tbl_iface *ifp, void *arg)
{
	if (!(ifp->flags & IFF_LOOPBACK) || !ifp->conf_known || ifp->arp_ignore < 0)
		return 0;
	*(struct tbl_iface **)arg = ifp;
	return 1;
}

/*
 * Without CAP_NET_ADMIN every sysctl change fails, and a daemon that came
 * up anyway would look healthy while answering nothing: ask the kernel
 * once, by writing lo's arp_ignore with the value it has (no change),
 * before anything else; 0, or -1 with errno.
 */
static int
can_set_sysctls(struct daemon *d)
{
	struct tbl_iface *lo = NULL;

	tbl_iface_each(d->tbl, lo_cb, &lo);
	if (lo == NULL)
		return 0;	/* no lo in this namespace: the first change tells */
	if (rtnl_set_arp(d->rtnl, lo->ifindex, lo->arp_ignore, -1) == -1 &&
	    (errno == EPERM || errno == EACCES))
		return -1;
	return 0;
}

static void
loop_setup(struct daemon *d)
{
	sigset_t sigs;
	uint64_t wd;
	size_t i;

	d->loop = ev_default_loop(EVFLAG_AUTO);
	ev_io_init(&d->rtnl_w, rtnl_cb, rtnl_fd(d->rtnl), EV_READ);
	ev_io_init(&d->cap_w, cap_cb, cap_fd(d->cap), EV_READ);
	d->rtnl_w.data = d->cap_w.data = d;
	ev_io_start(d->loop, &d->rtnl_w);
	ev_io_start(d->loop, &d->cap_w);
	for (i = 0; i < NSIGNALS; i++) {
		ev_signal_init(&d->sigw[i], signal_cb, handled[i]);
		d->sigw[i].data = d;
		ev_signal_start(d->loop, &d->sigw[i]);
	}
	/* libev's handlers are in place: let the signals held since the start
	 * (and any that came meanwhile) reach them; the loop acts on them */
	handled_set(&sigs);
	sigprocmask(SIG_UNBLOCK, &sigs, NULL);
	ev_timer_init(&d->check, check_cb, SYSCTL_CHECK, SYSCTL_CHECK);
	d->check.data = d;
	ev_timer_start(d->loop, &d->check);
	ev_timer_init(&d->ann_w, ann_cb, 0., 0.);
	ev_timer_init(&d->refresh_w, refresh_cb, 0., 0.);
	d->ann_w.data = d->refresh_w.data = d;
	refresh_setup(d);
	ifm_on_event(d->ifm, iface_event, d);
	if ((wd = notify_watchdog_usec()) != 0) {
		ev_timer_init(&d->watchdog, watchdog_cb, 0., wd / 2e6);
		d->watchdog.data = d;
		ev_timer_again(d->loop, &d->watchdog);
	}

}

int
daemon_run(const struct daemon_opts *o)
{
	struct daemon dd, *d = &dd;
	struct state st;
	char err[512];
	sigset_t sigs;
	size_t ni, na, left;
	int i;

	/* Held until the loop's watchers take them (loop_setup): from here
	 * on a stop or a reload is never acted on half-way through start-up. */
	handled_set(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);

	memset(d, 0, sizeof(*d));
	memset(&st, 0, sizeof(st));
	d->nslock = -1;
	d->opts = o;
	d->exit_code = EX_OK;
	if ((d->conf = daemon_load_conf(o, NULL)) == NULL)
		return EX_CONFIG;
	d->conf_loaded = ev_time();
	log_init(d->conf->log_level, o->debug);

	if ((d->nslock = netns_lock()) == -1) {
		if (errno == EADDRINUSE)
			log_warnx("another arpownd runs in this network namespace; not "
			    "starting, nothing changed");
		else
			log_warn("the network namespace's lock");
		d->exit_code = EX_OSERR;
		goto out;
	}
	/* Opened while still root: the daemon keeps writing its records
	 * through these files, and nothing in the directory is ever
	 * writable by the user it becomes. */
	if ((d->sd = sdir_open(o->state_dir, SDIR_DAEMON, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK) {
			log_warnx("%s: not starting, nothing changed", err);
			d->exit_code = EX_OSERR;
		} else {
			log_warnx("%s", err);
			d->exit_code = errno_exit(errno);
		}
		goto out;
	}
	/* control socket: made as root, in the directory the user we become
	 * cannot write */
	if ((d->ctl = ctl_open(o->state_dir, err, sizeof(err))) == NULL) {
		log_warnx("%s; not starting, nothing changed", err);
		d->exit_code = errno_exit(errno);
		goto out;
	}
	if (sdir_load(d->sd, &st, err, sizeof(err)) == -1) {
		log_warnx("%s: unreadable saved originals, not starting: fix or "
		    "remove them (arpownd --restore uses them)", err);
		d->exit_code = EX_OSERR;
		goto out;
	}
	/* Root is needed no further: the capabilities stay (before any
	 * socket is opened, so none is held as root). */
	if (priv_drop(d->conf->user) == -1) {
		d->exit_code = EX_NOPERM;
		goto out;
	}
	if (st.n > 0)
		log_notice("%s: a previous run did not stop cleanly; keeping its "
		    "saved originals for %zu interfaces", o->state_dir, st.n);

	/* Order matters: know the links, then listen, then silence the
	 * kernel, then say READY.  Never a moment where nobody answers. */
	if ((d->tbl = tbl_new()) == NULL || (d->cfl = cfl_new(CONFLICT_RECORDS)) == NULL ||
	    (d->ann = ann_new(ANN_BURSTS)) == NULL ||
	    (d->notes[NOTE_REFUSAL] = thr_new(NOTE_KEYS, NOTE_INTERVAL, NOTE_LINES)) == NULL ||
	    (d->notes[NOTE_PROBE] = thr_new(NOTE_KEYS, NOTE_INTERVAL, NOTE_LINES)) == NULL ||
	    (d->notes[NOTE_MONITOR] = thr_new(NOTE_KEYS, NOTE_INTERVAL, NOTE_LINES)) == NULL ||
	    (d->rtnl = rtnl_open()) == NULL ||
	    (d->ifm = ifm_new(d->tbl, d->rtnl, d->sd, &st)) == NULL) {
		log_warn("rtnetlink");
		d->exit_code = errno_exit(errno);
		goto out;
	}
	d->gen = tbl_gen_begin(d->tbl);
	if (rtnl_dump(d->rtnl, on_rtnl_msg, d) == -1) {
		log_warn("rtnetlink dump");
		d->exit_code = errno_exit(errno);
		goto out;
	}
	if (can_set_sysctls(d) == -1) {
		log_warn("rtnetlink: cannot change interface settings (arpownd needs "
		    "CAP_NET_ADMIN); not starting, nothing changed");
		d->exit_code = errno_exit(errno);
		goto out;
	}
	if ((d->cap = cap_open(err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		d->exit_code = strstr(err, "ermission") ? EX_NOPERM : EX_OSERR;
		goto out;
	}
	apply_qdisc_bypass(d);
	check_conf_all();
	/* a previous run's records: links gone, renamed while we were down;
	 * manage_all below restores those this configuration leaves alone */
	ifm_adopt(d->ifm);
	if ((d->pub = pub_build(d, d->conf, NULL)) == NULL) {
		/* what a previous run left at 8 goes back: never deaf */
		if (ifm_restore_all(d->ifm) != 0)
			log_warnx("some interfaces could not be restored; run arpownd --restore");
		d->exit_code = EX_CONFIG;
		goto out;
	}
	if (d->pub_dropped && save_published(d) == -1)
		log_warn("%s: saving the runtime-published addresses", o->state_dir);
	/* The watchers before the first sysctl changes: a signal that came
	 * during start-up is handled by the loop, once every interface is
	 * in a known state (SIGTERM: all restored), never by default action
	 * half-way through. */
	loop_setup(d);
	ctl_start(d->ctl, d->loop, ctl_request, d);	/* control socket */
	d->started = true;
	manage_all(d);

	tbl_count(d->tbl, &ni, &na);
	log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
	    "arpownd %s started: %zu links, %zu IPv4 addresses known", PACKAGE_VERSION,
	    ni, na);
	report_status(d);
	d->started_at = ev_time();
	metrics_setup(d);				/* control socket */
	notify_send("READY=1");

	ev_run(d->loop, 0);

	/* Held again: a second SIGTERM must not cut the restore short, nor
	 * kill us by default action once libev's handlers are gone. */
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	notify_send("STOPPING=1");
	ctl_close(d->ctl);				/* control socket */
	d->ctl = NULL;
	/* restore first, then answer what the capture holds, then close it:
	 * never deaf; every record, managed or not, whose interface exists */
	left = stop_restore(d);
	if (left == 0)
		log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_STOP, NULL, 0, 0, NULL },
		    "stopped; every sysctl restored");
	else {
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_STOP, NULL, 0, 0, NULL },
		    "stopped; %zu interfaces could not be restored (each named above), "
		    "run arpownd --restore", left);
		d->exit_code = EX_OSERR;
	}
	metrics_write(d, false);			/* control socket */
out:
	ctl_close(d->ctl);				/* control socket */
	if (d->loop != NULL)
		ev_loop_destroy(d->loop);
	cap_close(d->cap);
	ifm_free(d->ifm);
	rtnl_close(d->rtnl);
	tbl_free(d->tbl);
	cfl_free(d->cfl);
	ann_free(d->ann);
	pub_free(d->pub);
	for (i = 0; i < NOTE_KINDS; i++)
		thr_free(d->notes[i]);
	conf_free(d->conf);
	state_clear(&st);
	sdir_close(d->sd);
	if (d->nslock != -1)
		close(d->nslock);
	return d->exit_code;
}

/* net.ipv4.conf.NAME.arp_ignore, or -1 when it cannot be read. */
static int
current_ignore(const char *name)
{
	char path[96], buf[16];
	int v = -1;
	FILE *f;

	if (snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/arp_ignore", name) >=
	    (int)sizeof(path) || strchr(name, '/') != NULL)
		return -1;
	if ((f = fopen(path, "re")) != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL)
			v = (int)strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

int
daemon_withdraw_saved(const char *state_dir, const char *cidr)
{
	char err[512], *lines = NULL;
	struct sdir *sd;
	struct pub *p = NULL;
	struct pub_entry e;
	const char *why;
	size_t len;
	int code = EX_OK;

	if (pub_runtime_entry(&e, cidr, "x", &why) == -1) {
		log_warnx("%s: %s", cidr, why);
		return EX_USAGE;
	}
	rng_clear(&e.set);
	/* the lock: never behind a running daemon's back */
	if ((sd = sdir_open(state_dir, SDIR_RESTORE, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK) {
			log_warnx("%s: arpownd is running; use arpownctl withdraw", err);
			return EX_TEMPFAIL;
		}
		log_warnx("%s", err);
		return errno_exit(errno);
	}
	if (sdir_published_load(sd, &lines, &len, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		code = EX_DATAERR;
		goto out;
	}
	if ((p = pub_new()) == NULL ||
	    pub_parse_runtime(p, lines, len, NULL, NULL, err, sizeof(err)) == -1) {
		log_warnx("%s: runtime-published addresses: %s", state_dir,
		    p == NULL ? "out of memory" : err);
		code = p == NULL ? EX_OSERR : EX_DATAERR;
		goto out;
	}
	if (pub_withdraw(p, e.base, e.plen) == 0) {
		log_warnx("%s: not published by arpownctl publish", cidr);
		code = EX_DATAERR;
		goto out;
	}
	free(lines);
	if ((lines = pub_format_runtime(p, &len)) == NULL ||
	    sdir_published_save(sd, lines, len) == -1) {
		log_warn("%s: saving the runtime-published addresses", state_dir);
		code = EX_IOERR;
		goto out;
	}
	log_info("withdrew %s/%u from %s: not published when arpownd starts",
	    log_ip(htonl(e.base)), e.plen, state_dir);
out:
	free(lines);
	pub_free(p);
	sdir_close(sd);
	return code;
}

int
daemon_restore(const char *state_dir)
{
	char err[512], now[IF_NAMESIZE];
	struct sdir *sd;
	struct state st = { 0 };
	struct rtnl *r = NULL;
	struct state_orig *o;
	int code = EX_OK, idx;
	size_t i = 0;

	if ((sd = sdir_open(state_dir, SDIR_RESTORE, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK)
			log_warnx("%s: arpownd is running; stop it instead", err);
		else
			log_warnx("%s", err);
		return errno == EWOULDBLOCK ? EX_OSERR : errno_exit(errno);
	}
	if (sdir_load(sd, &st, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		code = EX_OSERR;
		goto out;
	}
	if (st.n == 0)
		goto out;
	if ((r = rtnl_open()) == NULL) {
		log_warn("rtnetlink");
		code = errno_exit(errno);
		goto out;
	}
	while (i < st.n) {
		o = &st.v[i];
		/* never "restore" an 8 (what the version before 0.2 could save) */
		if (o->arp_ignore == IFM_ARP_IGNORE_NEVER)
			o->arp_ignore = ifm_original_ignore(o->name, o->arp_ignore);
		/* the ifindex is the interface; a v1 record has only a name */
		if (o->ifindex > 0)
			idx = if_indextoname((unsigned)o->ifindex, now) != NULL ? o->ifindex : 0;
		else if ((idx = (int)if_nametoindex(o->name)) != 0)
			memcpy(now, o->name, sizeof(now));
		if (idx == 0) {
			log_info("%s: gone, nothing to restore", o->name);
		} else if (strcmp(now, o->name) != 0 &&
		    current_ignore(now) != IFM_ARP_IGNORE_NEVER) {
			/* a rename keeps our 8; another link given the ifindex
			 * has its own value */
			log_info("%s: gone, nothing to restore (%s has its ifindex now)",
			    o->name, now);
		} else if (rtnl_set_arp(r, idx, o->arp_ignore, o->arp_announce) == -1 &&
		    errno != ENODEV) {
			log_warn("%s: cannot restore arp_ignore=%d arp_announce=%d",
			    now, o->arp_ignore, o->arp_announce);
			code = errno_exit(errno);
			i++;
			continue;
		} else if (strcmp(now, o->name) != 0)
			log_info("%s (was %s): restored arp_ignore=%d arp_announce=%d",
			    now, o->name, o->arp_ignore, o->arp_announce);
		else
			log_info("%s: restored arp_ignore=%d arp_announce=%d", now,
			    o->arp_ignore, o->arp_announce);
		state_del(&st, o);
	}
	/* what failed stays recorded for the next try */
	if (sdir_save(sd, &st) == -1) {
		log_warn("%s: cannot save what is left to restore", state_dir);
		code = EX_OSERR;
	}
out:
	rtnl_close(r);
	state_clear(&st);
	sdir_close(sd);
	return code;
}
