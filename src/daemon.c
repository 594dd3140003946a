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
#include <signal.h>
#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "arp.h"
#include "capture.h"
#include "conf.h"
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
#include "report.h"
#include "rtnl.h"
#include "state.h"
#include "stats.h"
#include "table.h"

#define CAP_BUDGET		512	/* frames per wakeup before looking at netlink */
#define SPIN_MAX		(CONF_BUSY_POLL_MAX * 1e-6)	/* never longer in one go */
#define LEARN_RATE		200	/* neighbour entries per second, at most */
#define CONFLICT_RECORDS	1024	/* remembered conflicting addresses */
#define SYSCTL_CHECK		3.0	/* seconds between checks for sysctl rewrites */

struct daemon {
	const struct daemon_opts *opts;
	struct ev_loop		*loop;
	struct conf		*conf;
	struct tbl		*tbl;
	struct rtnl		*rtnl;
	struct cap		*cap;
	struct state_dir	*sd;		/* lock and saved originals */
	struct ifm		*ifm;		/* interfaces and their sysctls */
	bool			 started;	/* initial dump done: manage on events */
	bool			 dumping;	/* no requests while a dump is read */
	bool			 need_resync;	/* a re-dump failed: try again */
	unsigned		 gen;		/* generation of the running dump */
	int			 exit_code;
	struct stats		 st;		/* counters, in all */
	struct cfl		*cfl;		/* conflicts seen */
	struct lim		 lim;		/* rate limits */
	ev_io			 rtnl_w, cap_w;
	ev_signal		 sig_term, sig_int, sig_hup, sig_usr1;
	ev_timer		 watchdog, check;
	/* control socket, metrics */
	struct ctl		*ctl;
	ctl_announce_fn		*announce;	/* the announcer's; a stub until then */
	void			*announce_arg;
	double			 started_at;	/* READY, CLOCK_REALTIME */
	double			 conf_loaded;	/* the running configuration read */
	double			 reload_failed;	/* last refused reload, 0 = never */
	ev_timer		 metrics_w;	/* metrics_file every metrics_interval */
};

static conf_err_fn print_conf_err;
static void dump_state(struct daemon *d);
static void metrics_setup(struct daemon *d);

/* Every interface to what the configuration wants. */
static void
manage_all(struct daemon *d)
{
	ifm_apply_all(d->ifm, d->conf);
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

static void
report_status(struct daemon *d)
{
	struct tally t = { 0, 0 };

	tbl_iface_each(d->tbl, tally_cb, &t);
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
	tbl_iface_del(d->tbl, ifp->ifindex);
}

static void
on_link(struct daemon *d, const struct rtnl_msg *m)
{
	struct log_ctx lc = { MSGID_IFACE, m->name, 0, 0, NULL };
	struct tbl_iface *ifp = tbl_iface(d->tbl, m->ifindex);
	char mac[18];
	bool isnew = ifp == NULL;

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
		if (d->started && !isnew && ifp->managed)
			log_ctx(LOG_INFO, &lc, "%s: MAC address now %s", m->name,
			    arp_mac_str(m->mac, mac));
		memcpy(ifp->mac, m->mac, 6);
	}
	if (d->started && !isnew && ifp->managed &&
	    ((ifp->flags ^ m->flags) & IFF_UP))
		log_ctx(LOG_INFO, &lc, "%s: link %s", m->name,
		    (m->flags & IFF_UP) ? "up" : "down");
	ifp->type = m->type;
	ifp->flags = m->flags;
	/* Link messages queued before our RTM_SETLINK still show the old
	 * values; believe them again once the kernel echoed ours. */
	if (ifp->conf_pending && m->arp_ignore == ifp->arp_ignore &&
	    m->arp_announce == ifp->arp_announce)
		ifp->conf_pending = false;
	if (!ifp->conf_pending && m->arp_ignore >= 0)
		ifp->arp_ignore = m->arp_ignore;
	if (!ifp->conf_pending && m->arp_announce >= 0)
		ifp->arp_announce = m->arp_announce;
	/* during a dump the request socket is busy; resync manages after */
	if (d->started && !d->dumping)
		ifm_apply(d->ifm, d->conf, ifp);
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
	else if (r == 1 && d->started)
		log_ctx(LOG_INFO, &lc, "%s: address %s/%u added", ifp->name,
		    log_ip(m->addr), m->plen);
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
		if (resync(d) == 0)
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

static void
log_conflict(struct daemon *d, const struct arp_req *req, const struct pol_result *res)
{
	struct log_ctx lc = { MSGID_CONFLICT, res->in->name, req->sip, req->sip, req->sha };
	const struct cfl_rec *r;
	char mac[18];

	COUNT(d, if_stats(res->in), conflicts);
	/* at most once per address per interval, in bounded memory */
	if (!cfl_note(d->cfl, req->sip, req->ifindex, req->sha, ev_now(d->loop), &r))
		return;
	if (r->quiet > 0)
		log_ctx(LOG_WARNING, &lc, "%s: address conflict: %s is ours, but %s "
		    "claims it (%u more claims since the last report)", res->in->name,
		    log_ip(req->sip), arp_mac_str(req->sha, mac), r->quiet);
	else
		log_ctx(LOG_WARNING, &lc, "%s: address conflict: %s is ours, but %s "
		    "claims it", res->in->name, log_ip(req->sip),
		    arp_mac_str(req->sha, mac));
}

static void
on_frame(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg)
{
	struct daemon *d = arg;
	uint8_t reply[ARP_FRAME_LEN];
	struct pol_result res;
	struct arp_req req;
	struct stats_if *is;
	enum arp_reason why;
	enum pol_verdict v;
	size_t len;

	/* A frame newer than the last netlink drain may follow an address
	 * delete the kernel has acknowledged since: read that first. */
	if (ts > rtnl_drained(d->rtnl))
		nl_sync(d);
	why = arp_check(pkt, caplen, &req);
	is = if_stats(tbl_iface(d->tbl, arp_ifindex(pkt, caplen)));
	COUNT(d, is, received);
	if (why != ARP_OK) {
		COUNT(d, is, refused[why]);
		/* an announcement of one of our addresses by another host is
		 * the classic conflict (RFC 5227 section 2.4) */
		if (why == ARP_GRATUITOUS &&
		    pol_decide(d->tbl, &req, &res) == POL_CONFLICT)
			log_conflict(d, &req, &res);
		return;
	}
	v = pol_decide(d->tbl, &req, &res);
	COUNT(d, is, verdict[v]);
	if (v == POL_ANSWER && !rate_allowed(d, is, req.sip))
		return;
	if (v == POL_ANSWER) {
		/* From the arrival interface with its MAC: in owner and subnet
		 * modes that is the owner; in system mode it is what the
		 * kernel's weak-host reply looks like. */
		len = arp_build_reply(&req, res.in->mac, reply);
		cap_send(d->cap, req.ifindex, reply, len);
		COUNT(d, is, replies);
		if (log_enabled(LOG_DEBUG)) {
			struct log_ctx lc = { MSGID_ANSWER, res.in->name, req.tip,
			    req.sip, req.sha };

			log_ctx(LOG_DEBUG, &lc, "%s: answered who-has %s from %s",
			    res.in->name, log_ip(req.tip), log_ip(req.sip));
		}
		/* What the kernel's neigh_event_ns() does when it answers. */
		if (d->conf->learn && req.sip != 0 && tbl_in_subnet(res.in, req.sip) &&
		    learn_allowed(d)) {
			rtnl_learn(d->rtnl, req.ifindex, req.sip, req.sha);
			d->st.learned++;
		}
		return;
	}
	if (v == POL_CONFLICT) {
		log_conflict(d, &req, &res);
		return;
	}
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
		conf_free(d->conf);
		d->conf = nc;
		d->conf_loaded = ev_time();
		log_setlevel(nc->log_level);
		apply_qdisc_bypass(d);
		manage_all(d);
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
	v->up = true;
}

/* Until the announcer is wired in (issue 8's announcements). */
static int
announce_stub(void *arg, uint32_t addr, const char *ifname, char *err, size_t errlen)
{
	(void)arg;
	(void)addr;
	(void)ifname;
	snprintf(err, errlen, "announce: not implemented in this version");
	return EX_UNAVAILABLE;
}

static int
ctl_request(void *arg, const struct ctlp_req *req, int fd, FILE *out, const char **type)
{
	struct daemon *d = arg;
	struct rpt_view v;
	char err[256];
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
		err[0] = '\0';
		if ((code = d->announce(d->announce_arg, req->has_addr ? req->addr : 0,
		    req->has_ifname ? req->ifname : NULL, err, sizeof(err))) != 0) {
			fprintf(out, "%s\n", err);
			return code;
		}
		fprintf(out, "{\"schema\":%d,\"announced\":true}\n", RPT_SCHEMA);
		return 0;
	case CTLP_PUBLISH:
	case CTLP_WITHDRAW:
	case CTLP_PUBLISHED:
	default:
		/* parsed and validated already: issue 9 fills these in */
		fprintf(out, "%s: not implemented in this version\n",
		    ctlp_cmd_str(req->cmd));
		return EX_UNAVAILABLE;
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

struct conf *
daemon_load_conf(const struct daemon_opts *o, conf_err_fn *err)
{
	if (!o->conf_explicit && access(o->conf_path, F_OK) == -1 && errno == ENOENT)
		return conf_defaults();
	return conf_load(o->conf_path, err ? err : print_conf_err, NULL);
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

static int
errno_exit(int e)
{
	return e == EPERM || e == EACCES ? EX_NOPERM : EX_OSERR;
}

static int
lo_cb(struct tbl_iface *ifp, void *arg)
{
	if (!(ifp->flags & IFF_LOOPBACK) || ifp->arp_ignore < 0)
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

	d->loop = ev_default_loop(EVFLAG_AUTO);
	ev_io_init(&d->rtnl_w, rtnl_cb, rtnl_fd(d->rtnl), EV_READ);
	ev_io_init(&d->cap_w, cap_cb, cap_fd(d->cap), EV_READ);
	ev_signal_init(&d->sig_term, signal_cb, SIGTERM);
	ev_signal_init(&d->sig_int, signal_cb, SIGINT);
	ev_signal_init(&d->sig_hup, signal_cb, SIGHUP);
	ev_signal_init(&d->sig_usr1, signal_cb, SIGUSR1);
	d->rtnl_w.data = d->cap_w.data = d;
	d->sig_term.data = d->sig_int.data = d->sig_hup.data = d->sig_usr1.data = d;
	ev_io_start(d->loop, &d->rtnl_w);
	ev_io_start(d->loop, &d->cap_w);
	ev_signal_start(d->loop, &d->sig_term);
	ev_signal_start(d->loop, &d->sig_int);
	ev_signal_start(d->loop, &d->sig_hup);
	ev_signal_start(d->loop, &d->sig_usr1);
	/* libev's handlers are in place: let the signals held since the start
	 * (and any that came meanwhile) reach them; the loop acts on them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &sigs, NULL);
	ev_timer_init(&d->check, check_cb, SYSCTL_CHECK, SYSCTL_CHECK);
	d->check.data = d;
	ev_timer_start(d->loop, &d->check);
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

	/* Held until the loop's watchers take them (loop_setup): from here
	 * on a stop or a reload is never acted on half-way through start-up. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	memset(d, 0, sizeof(*d));
	memset(&st, 0, sizeof(st));
	d->opts = o;
	d->exit_code = EX_OK;
	if ((d->conf = daemon_load_conf(o, NULL)) == NULL)
		return EX_CONFIG;
	d->conf_loaded = ev_time();
	log_init(d->conf->log_level, o->debug);

	/* Opened while still root: the daemon keeps writing its records
	 * through these files, and nothing in the directory is ever
	 * writable by the user it becomes. */
	if ((d->sd = state_open(o->state_dir, STATE_DAEMON, err, sizeof(err))) == NULL) {
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
	d->announce = announce_stub;
	if (state_load(d->sd, &st, err, sizeof(err)) == -1) {
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

	notify_send("STOPPING=1");
	ctl_close(d->ctl);				/* control socket */
	d->ctl = NULL;
	/* restore first, then close the capture: never deaf; every record,
	 * managed or not, whose interface exists */
	if ((left = ifm_restore_all(d->ifm)) == 0)
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
	conf_free(d->conf);
	state_clear(&st);
	state_close(d->sd);
	return d->exit_code;
}

int
daemon_restore(const char *state_dir)
{
	char err[512], now[IF_NAMESIZE];
	struct state_dir *sd;
	struct state st = { 0 };
	struct rtnl *r = NULL;
	struct state_orig *o;
	int code = EX_OK, idx;
	size_t i = 0;

	if ((sd = state_open(state_dir, STATE_RESTORE, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK)
			log_warnx("%s: arpownd is running; stop it instead", err);
		else
			log_warnx("%s", err);
		return errno == EWOULDBLOCK ? EX_OSERR : errno_exit(errno);
	}
	if (state_load(sd, &st, err, sizeof(err)) == -1) {
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
		/* the ifindex is the interface; a v1 record has only a name */
		if (o->ifindex > 0)
			idx = if_indextoname((unsigned)o->ifindex, now) != NULL ? o->ifindex : 0;
		else if ((idx = (int)if_nametoindex(o->name)) != 0)
			memcpy(now, o->name, sizeof(now));
		if (idx == 0) {
			log_info("%s: gone, nothing to restore", o->name);
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
	if (state_save(sd, &st) == -1) {
		log_warn("%s: cannot save what is left to restore", state_dir);
		code = EX_OSERR;
	}
out:
	rtnl_close(r);
	state_clear(&st);
	state_close(sd);
	return code;
}
