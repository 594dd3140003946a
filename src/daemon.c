/* daemon.c — the wiring: the order of start-up, the libev watchers, and
 * the contexts of the features they call.  Start: the configuration, the
 * state directory and the control socket while root, then the links, the
 * capture, the originals saved, the sysctls set, READY; the stop
 * (daemonstop.c) undoes it in reverse, the sysctls first, never deaf.
 * Each job lives in its module: sync.c (netlink), answer.c (frames),
 * announcer.c, iface.c (sysctls), pubops.c, reload.c, commands.c,
 * kanswer.c (the kernel path), status.c (STATUS=), nslock.c. */
#include "config.h"

#include <errno.h>
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "announcer.h"
#include "answer.h"
#include "capture.h"
#include "commands.h"
#include "conf.h"
#include "conflict.h"
#include "ctl.h"
#include "daemon.h"
#include "daemonstop.h"
#include "fdclose.h"
#include "handover.h"
#include "kanswer.h"
#include "iface.h"
#include "limit.h"
#include "log.h"
#include "msgid.h"
#include "notes.h"
#include "notify.h"
#include "nslock.h"
#include "phases.h"
#include "policy.h"
#include "priv.h"
#include "pubops.h"
#include "reload.h"
#include "report.h"
#include "rpf.h"
#include "rtnl.h"
#include "statedir.h"
#include "statefile.h"
#include "status.h"
#include "stats.h"
#include "sync.h"
#include "table.h"
#include "textfile.h"
#include "util.h"

#define CONFLICT_RECORDS	1024	/* remembered conflicting addresses */
#define SYSCTL_CHECK		3.0	/* seconds between checks for sysctl rewrites */

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

struct daemon {
	const struct daemon_opts *opts;
	struct ev_loop		*loop;
	/* what is in force; reload.c replaces both */
	struct conf		*conf;
	struct pub		*pub;
	/* state, shared by the features */
	struct tbl		*tbl;
	struct stats		 st;		/* counters, in all */
	struct lim		 lim;		/* rate limits */
	struct cfl		*cfl;		/* conflicts seen */
	/* edges */
	struct rtnl		*rtnl;
	struct rpf		*rpf;		/* rp_filter, arp_filter: the kernel's routing */
	struct cap		*cap;
	struct sdir	*sd;		/* lock and saved originals */
	struct ctl		*ctl;
	int			 nslock;	/* one instance per network namespace */
	int			 handover;	/* a previous run's gap (handover.h), or -1 */
	enum ho_kind		 handover_kind;	/* what it holds */
	uint64_t		 cap_live;	/* the capture went live, CLOCK_REALTIME ns */
	/* features */
	struct ifm		*ifm;		/* interfaces and their sysctls */
	struct syn		*syn;		/* netlink to the table */
	struct notes		*notes;
	struct anr		*anr;		/* announcements */
	struct ans		*ans;		/* the frame path */
	struct pop		*pop;		/* runtime publish */
	struct tf		*tf;		/* metrics file */
	struct kan		*kan;		/* the kernel answer path, or NULL */
	struct rld		*rld;
	struct cmd		*cmd;
	/* STATUS= as last sent */
	bool			 status_sent;
	struct sst		 status;
	struct sst_forced	 forced;	/* what --monitor came from, how to answer */
	bool			 bpf_at_start;	/* CAP_BPF held at start: the kernel path could load */
	double			 started_at;	/* READY, CLOCK_REALTIME */
	double			 conf_loaded;	/* the configuration read at start */
	int			 exit_code;
	struct phs		 ph;		/* the steps of the start, then the stop */
	ev_io			 rtnl_w, cap_w, rpf_w;
	ev_signal		 sigw[NSIGNALS];	/* the signals of handled[] */
	ev_timer		 watchdog, check;
};

/* The set of handled[]. */
static void
handled_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NSIGNALS; i++)
		sigaddset(set, handled[i]);
}

static void
report_status(void *arg)
{
	struct daemon *d = arg;

	sst_report(d->tbl, d->pub, d->forced.to_answer, &d->status, &d->status_sent);
}

static const struct state_orig *
view_orig(void *arg, int ifindex)
{
	return ifm_record(arg, ifindex);
}

/* What the reports and the metrics render. */
static void
view_fill(void *arg, struct rpt_view *v)
{
	struct daemon *d = arg;
	double failed = 0;

	kan_fold(d->kan);	/* what the kernel path answered, counted */
	memset(v, 0, sizeof(*v));
	kan_view(d->kan, &v->kpath);
	v->version = PACKAGE_VERSION;
	v->pid = (long)getpid();
	v->now = ev_time();
	v->started = d->started_at;
	v->conf_path = d->conf->path;
	v->conf_loaded = d->conf_loaded;
	if (d->rld != NULL)
		rld_times(d->rld, &v->conf_loaded, &failed);
	v->reload_ok = v->conf_loaded;
	v->reload_failed = failed;
	v->conf = d->conf;
	v->tbl = d->tbl;
	v->cfl = d->cfl;
	v->st = &d->st;
	v->capture_drops = d->cap != NULL ? cap_drops(d->cap) : 0;
	v->orig = view_orig;
	v->orig_arg = d->ifm;
	v->pub = d->pub;
	v->announce_pending = d->anr != NULL ? anr_pending(d->anr) : 0;
	v->forced = d->forced;
	v->up = true;
}

/* ---------------------------------------------------------------------
 * Watchers
 */

static void
rtnl_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	syn_read(d->syn);
	report_status(d);
}

static void
rpf_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	rpf_read(((struct daemon *)w->data)->rpf);
}

static void
cap_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	ans_run(d->ans, ev_now(loop));
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	switch (w->signum) {
	case SIGHUP:
		rld_reload(d->rld, -1, NULL, NULL);
		break;
	case SIGUSR1:
		cmd_dump(d->cmd);
		break;
	default:
		phs_begin(&d->ph, ev_time());
		log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_STOP, NULL, 0, 0, NULL },
		    "stopping on signal %d", w->signum);
		ev_break(loop, EVBREAK_ALL);
	}
}

static void
check_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	syn_check(d->syn);
	rpf_refresh(d->rpf);	/* arp_filter's writes send no event */
}

static void
watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	notify_send("WATCHDOG=1");
}

/* The interface manager's word (managed, mode, given back): to the
 * announcer and the kernel answer path. */
static void
iface_event(void *arg, struct tbl_iface *ifp)
{
	struct daemon *d = arg;

	anr_ifm_event(d->anr, ifp);
	kan_iface(d->kan, ifp);
}

/* (syn_deps.changed) */
static void
table_changed(void *arg, const struct ls_change *c)
{
	struct daemon *d = arg;

	/* routes come and go with links and addresses: the checks again */
	if (d->rpf != NULL)
		rpf_changed(d->rpf, (c->what & LS_GONE) ? NULL : c->ifp);
	kan_change(d->kan, c);
}

/* (rpf_fn) rp_filter or arp_filter turned on or off on ifp: the kernel
 * path passes its requests up, or no longer */
static void
rp_changed(void *arg, struct tbl_iface *ifp)
{
	kan_iface(((struct daemon *)arg)->kan, ifp);
}

/* (pop_deps.changed) */
static void
published_changed(void *arg, const struct pub *p)
{
	kan_set_pub(((struct daemon *)arg)->kan, p);
}

/* (ans_deps.sync) */
static void
sync_now(void *arg)
{
	syn_read(arg);
}

/* The features that need the loop, and the watchers; 0, or -1 (ENOMEM). */
static int
loop_setup(struct daemon *d)
{
	struct anr_deps ad = { NULL, d->tbl, d->cap, &d->lim, &d->st };
	struct ans_deps sd = { d->tbl, d->cap, d->rtnl, NULL, d->notes, d->cfl, &d->lim,
	    &d->st, sync_now, d->syn, d->rpf };
	struct rld_deps rd;
	struct cmd_deps cd;
	sigset_t sigs;
	uint64_t wd;
	size_t i;

	d->loop = ev_default_loop(EVFLAG_AUTO);
	ad.loop = d->loop;
	if ((d->anr = anr_new(&ad, d->conf, d->pub)) == NULL)
		return -1;
	sd.anr = d->anr;
	if ((d->ans = ans_new(&sd, d->conf, d->pub)) == NULL ||
	    (d->tf = tf_new(d->loop, view_fill, d)) == NULL)
		return -1;
	rd = (struct rld_deps){ { d->opts->conf_path, d->opts->conf_explicit, d->opts->monitor,
	    d->forced },
	    &d->conf, &d->pub,
	    d->ifm, d->syn, d->ans, d->anr, d->pop, d->cap, d->tf, d->kan, report_status, d,
	    d->bpf_at_start };
	if ((d->rld = rld_new(&rd, d->conf_loaded)) == NULL)
		return -1;
	cd = (struct cmd_deps){ d->tbl, d->anr, d->pop, d->rld, view_fill, d, report_status, d };
	if ((d->cmd = cmd_new(&cd)) == NULL)
		return -1;
	syn_set_anr(d->syn, d->anr);
	pop_set_anr(d->pop, d->anr);
	ifm_on_event(d->ifm, iface_event, d);

	ev_io_init(&d->rtnl_w, rtnl_cb, rtnl_fd(d->rtnl), EV_READ);
	ev_io_init(&d->cap_w, cap_cb, cap_fd(d->cap), EV_READ);
	ev_io_init(&d->rpf_w, rpf_cb, rpf_fd(d->rpf), EV_READ);
	d->rtnl_w.data = d->cap_w.data = d->rpf_w.data = d;
	ev_io_start(d->loop, &d->rtnl_w);
	ev_io_start(d->loop, &d->cap_w);
	ev_io_start(d->loop, &d->rpf_w);
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
	if ((wd = notify_watchdog_usec()) != 0) {
		ev_timer_init(&d->watchdog, watchdog_cb, 0., wd / 2e6);
		d->watchdog.data = d;
		ev_timer_again(d->loop, &d->watchdog);
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Start
 */

/* Steps 1-3: the configuration, the lock, the state directory and the
 * control socket while root, the saved originals; then root is dropped. */
static int
start_root(struct daemon *d, struct state *st)
{
	const struct daemon_opts *o = d->opts;
	struct nsl_who holder, squat;
	size_t i, crashed = 0;
	char err[1024], pid[24];
	bool fatal;

	if ((d->nslock = nsl_take(&holder, &squat)) == -1) {
		if (errno == EADDRINUSE && holder.found)
			log_warnx("another arpownd runs in this network namespace (%s held "
			    "by pid %s, uid %ld); not starting, nothing changed", holder.name,
			    nsl_pid(&holder, pid, sizeof(pid)), holder.uid);
		else if (errno == EADDRINUSE)
			log_warnx("another arpownd runs in this network namespace (its lock "
			    "@arpownd is held, by whom the kernel does not say); not "
			    "starting, nothing changed");
		else
			log_warn("the network namespace's lock");
		return EX_OSERR;
	}
	if (squat.found)
		log_warnx("the network namespace's lock name %s is held by uid %ld (pid "
		    "%s), not root: no arpownd, a local user's squat; locked under "
		    "another name", squat.name, squat.uid, nsl_pid(&squat, pid,
		    sizeof(pid)));
	/* No other arpownd runs in this namespace now: an arpownd filter on
	 * a TC hook here is a killed run's (it answers nothing, its liveness
	 * socket died with it); it goes, on either answer path, and nothing
	 * else with it. */
	(void)kan_purge();
	/* Opened while still root: the daemon keeps writing its records
	 * through these files, and nothing in the directory is ever
	 * writable by the user it becomes. */
	if ((d->sd = sdir_open_as(o->state_dir, SDIR_DAEMON, priv_target(d->conf->user), err,
	    sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK) {
			log_warnx("%s: not starting, nothing changed", err);
			return EX_OSERR;
		}
		log_warnx("%s", err);
		return util_exit_code(errno);
	}
	/* control socket: made as root, in the directory the user we become
	 * cannot write */
	if ((d->ctl = ctl_open(o->state_dir, err, sizeof(err))) == NULL) {
		log_warnx("%s; not starting, nothing changed", err);
		return util_exit_code(errno);
	}
	if (sdir_load(d->sd, st, err, sizeof(err)) == -1) {
		log_warnx("%s: unreadable saved originals, not starting: fix or "
		    "remove them (arpownd --restore uses them)", err);
		return EX_OSERR;
	}
	/* The kernel answer path loads with CAP_BPF, which goes after; a
	 * reload asking for it later is told whether a restart would do */
	d->bpf_at_start = priv_has_bpf();
	d->kan = kan_open(d->conf, &fatal, err, sizeof(err));
	if (fatal) {
		/* asked for what this service cannot do: a configuration
		 * error, which the unit does not retry (78) */
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
		    "%s; not starting, nothing changed", err);
		return EX_CONFIG;
	}
	/* Root is needed no further: the capabilities stay (before any
	 * socket is opened, so none is held as root). */
	if (priv_drop(d->conf->user) == -1 || priv_keep_net() == -1)
		return EX_NOPERM;
	/* A stop in strict mode leaves them (each names what it left); a
	 * record that names nothing was to be given back by a stop that
	 * never came: a crash, or a kill without --restore */
	for (i = 0; i < st->n; i++)
		crashed += st->v[i].leave == STATE_NONE;
	if (crashed > 0)
		log_notice("%s: a previous run did not stop cleanly; keeping its "
		    "saved originals for %zu interfaces", o->state_dir, st->n);
	else if (st->n > 0)
		log_info("%s: keeping the originals a previous run saved for %zu "
		    "interfaces", o->state_dir, st->n);
	return EX_OK;
}

/* Steps 4-7: know the links, then listen, then the published set; the
 * kernel still answers everything. */
static int
start_net(struct daemon *d, struct state *st)
{
	struct syn_deps sd;
	struct pop_deps pd;
	char err[512];

	/* the sender slots' key, new at each start */
	if (lim_init(&d->lim) == -1) {
		log_warn("getrandom: the rate limits' key");
		return util_exit_code(errno);
	}
	if ((d->tbl = tbl_new()) == NULL || (d->cfl = cfl_new(CONFLICT_RECORDS)) == NULL ||
	    (d->notes = note_new(d->tbl)) == NULL || (d->rtnl = rtnl_open()) == NULL ||
	    (d->ifm = ifm_new(d->tbl, d->rtnl, d->sd, st)) == NULL) {
		log_warn("rtnetlink");
		return util_exit_code(errno);
	}
	sd = (struct syn_deps){ d->tbl, d->rtnl, d->ifm, NULL, &d->st, table_changed, d };
	pd = (struct pop_deps){ d->tbl, d->sd, NULL, published_changed, d };
	if ((d->syn = syn_new(&sd, d->conf)) == NULL || (d->pop = pop_new(&pd, NULL)) == NULL) {
		log_warn("start-up");
		return util_exit_code(errno);
	}
	if (syn_dump(d->syn) == -1) {
		log_warn("rtnetlink dump");
		return util_exit_code(errno);
	}
	/* the interfaces' rp_filter and arp_filter are known now */
	if ((d->rpf = rpf_new(d->tbl, rp_changed, d)) == NULL) {
		log_warn("rtnetlink: route lookups");
		return util_exit_code(errno);
	}
	phs_mark(&d->ph, "links known", ev_time());
	if (ifm_can_set(d->ifm) == -1) {
		log_warn("rtnetlink: cannot change interface settings (arpownd needs "
		    "CAP_NET_ADMIN); not starting, nothing changed");
		return util_exit_code(errno);
	}
	if ((d->cap = cap_open(err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return strstr(err, "ermission") ? EX_NOPERM : EX_OSERR;
	}
	d->cap_live = (uint64_t)(ev_time() * 1e9);
	phs_mark(&d->ph, "capture live", ev_time());
	rld_capture(d->cap, d->conf);
	ifm_warn_conf_all();
	/* a previous run's records: links gone, renamed while we were down;
	 * syn_manage_all restores those this configuration leaves alone */
	ifm_adopt(d->ifm);
	if ((d->pub = pop_build(d->pop, d->conf, NULL)) == NULL) {
		/* what a previous run left at 8 goes back: never deaf */
		if (ifm_restore_all(d->ifm, false) != 0)
			log_warnx("some interfaces could not be restored; run arpownd --restore");
		return EX_CONFIG;
	}
	pop_set_pub(d->pop, d->pub);
	phs_mark(&d->ph, "published set", ev_time());
	return EX_OK;
}

/* What came for a published address while a previous run restarted into
 * this one: answered now, before READY, charged when it came. */
static bool
handover_frame(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg)
{
	struct daemon *d = arg;

	return ans_handover(d->ans, pkt, caplen, ts, ev_now(d->loop),
	    d->handover_kind == HO_ALL);
}

static void
handover(struct daemon *d)
{
	struct ho_tally t = { 0 };	/* ho_drain sets it; cppcheck cannot see through */

	if (d->handover == -1)
		return;
	ho_drain(d->handover, d->handover_kind, d->cap_live, handover_frame, d, &t);
	ans_flush(d->ans);
	ho_release(d->handover, d->handover_kind);
	d->handover = -1;
	d->st.handover_answered += t.answered;
	d->st.handover_dropped += t.drops;
	/* the kernel's count of what it could not keep, as it is: those
	 * requests were lost, and their senders ask again */
	log_at(LOG_HERE, 0, t.drops > 0 ? LOG_WARNING : LOG_INFO, NULL, "handover: %u requests %s "
	    "kept while arpownd restarted, %u answered now; %u "
	    "dropped by the kernel (the kept queue was full)%s; %u after the capture "
	    "went live (answered by it), %u older than %.0f s (given up by their "
	    "senders)", t.handed, d->handover_kind == HO_ALL ? "(every one: a takeover)" :
	    "for published addresses", t.answered, t.drops,
	    t.stats ? "" : " (the kernel's count could not be read)", t.late, t.old,
	    HO_MAX_AGE);
}

/* What the previous run announced, for the start's bursts to leave out. */
static void
prev_announced(struct daemon *d)
{
	char err[512], *lines;
	size_t len;

	if (sdir_announced_load(d->sd, &lines, &len, err, sizeof(err)) == -1) {
		log_warnx("%s: announcing every address once", err);
		return;
	}
	/* A record is for the one start after the stop that wrote it: gone
	 * once read, so that this run, if it crashes, leaves none (the next
	 * start announces everything once) rather than this one, which says
	 * nothing of what moved while this run ran and after it died.  Kept
	 * only if it is gone. */
	if (len > 0 && sdir_announced_save(d->sd, "", 0) == -1) {
		log_warn("state directory: cannot clear what the last run announced; "
		    "announcing every address once");
		free(lines);
		return;
	}
	anr_prev(d->anr, lines, len);
	free(lines);
}

/* Everything, in the reverse of its making. */
static void
finish(struct daemon *d, struct state *st)
{
	ctl_close(d->ctl);
	fdc_stop();
	cmd_free(d->cmd);
	rld_free(d->rld);
	tf_free(d->tf);
	ans_free(d->ans);
	anr_free(d->anr);
	if (d->loop != NULL)
		ev_loop_destroy(d->loop);
	kan_close(d->kan);
	cap_close(d->cap);
	phs_mark(&d->ph, "capture closed", ev_time());
	ho_release(d->handover, d->handover_kind);
	pop_free(d->pop);
	syn_free(d->syn);
	ifm_free(d->ifm);
	rpf_free(d->rpf);
	rtnl_close(d->rtnl);
	note_free(d->notes);
	cfl_free(d->cfl);
	tbl_free(d->tbl);
	pub_free(d->pub);
	conf_free(d->conf);
	state_clear(st);
	sdir_close(d->sd);
	if (d->nslock != -1)
		close(d->nslock);
}

int
daemon_run(const struct daemon_opts *o)
{
	struct daemon dd, *d = &dd;
	struct rld_source src;
	struct dstop_deps stop;
	struct kan_deps kd;
	struct state st;
	char phases[512], refused[300];
	sigset_t sigs;
	size_t ni, na;

	/* Held until the loop's watchers take them (loop_setup): from here
	 * on a stop or a reload is never acted on half-way through start-up. */
	handled_set(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);

	memset(d, 0, sizeof(*d));
	memset(&st, 0, sizeof(st));
	d->nslock = -1;
	phs_begin(&d->ph, ev_time());
	d->handover = ho_take(&d->handover_kind);
	d->opts = o;
	sst_forced(o->monitor, getenv("ARPOWND_OPTIONS"), &d->forced);
	src = (struct rld_source){ o->conf_path, o->conf_explicit, o->monitor, d->forced };
	if ((d->conf = rld_load_conf(&src, NULL)) == NULL)
		return EX_CONFIG;
	d->conf_loaded = ev_time();
	phs_mark(&d->ph, "configuration read", d->conf_loaded);
	log_init(d->conf->log_level, o->debug);
	rld_lint_log(d->conf);
	if (o->monitor)
		log_notice("%s: every interface the configuration manages is only "
		    "watched, whatever mode it sets; the kernel answers, no sysctl is "
		    "changed.  To answer: %s", d->forced.by, d->forced.to_answer);

	/* Order matters: know the links, then listen, then silence the
	 * kernel, then say READY.  Never a moment where nobody answers. */
	if ((d->exit_code = start_root(d, &st)) != EX_OK ||
	    (d->exit_code = start_net(d, &st)) != EX_OK)
		goto out;
	/* The watchers before the first sysctl changes: a signal that came
	 * during start-up is handled by the loop, once every interface is
	 * in a known state (SIGTERM: all restored), never by default action
	 * half-way through. */
	if (loop_setup(d) == -1) {
		log_warn("start-up");
		if (ifm_restore_all(d->ifm, false) != 0)
			log_warnx("some interfaces could not be restored; run arpownd --restore");
		d->exit_code = EX_OSERR;
		goto out;
	}
	/* a peer's files are closed on a thread of their own, never the loop's */
	if (fdc_start() == -1)
		log_warn("control: no thread to close what peers pass; closing it on the "
		    "loop");
	ctl_start(d->ctl, d->loop, cmd_handle, d->cmd);
	prev_announced(d);
	syn_started(d->syn, true);
	(void)syn_manage_all(d->syn);
	anr_started(d->anr);
	phs_mark(&d->ph, "sysctls written", ev_time());
	/* the gap's requests first: they have waited longest, and need the
	 * interfaces managed, not the kernel path */
	handover(d);
	phs_mark(&d->ph, "kept requests answered", ev_time());
	kd = (struct kan_deps){ d->loop, d->tbl, d->rtnl, d->notes, &d->st };
	kan_start(d->kan, &kd, d->conf, d->pub);
	phs_mark(&d->ph, "kernel path", ev_time());
	if (kan_refused(d->kan, refused, sizeof(refused))) {
		/* answer_path = xdp where another's XDP program is: a
		 * configuration this host cannot honour (78, not retried);
		 * no READY, and a stop's clean-up gives everything back */
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
		    "%s; not starting (answer_path = auto answers there at TC)", refused);
		d->exit_code = EX_CONFIG;
		goto stop;
	}

	tbl_count(d->tbl, &ni, &na);
	report_status(d);
	log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
	    "arpownd %s started: answering on %zu of %zu links, for %zu of the %zu "
	    "IPv4 addresses%s", PACKAGE_VERSION, d->status.answering, ni,
	    d->status.addrs, na, d->status.monitor > 0 ? "; some in monitor mode" : "");
	d->started_at = ev_time();
	tf_reconf(d->tf, d->conf);
	notify_send("READY=1");
	phs_mark(&d->ph, "READY", ev_time());
	log_info("start: %s", phs_format(&d->ph, phases, sizeof(phases)));

	ev_run(d->loop, 0);

stop:
	/* Held again: a second SIGTERM must not cut the restore short, nor
	 * kill us by default action once libev's handlers are gone. */
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	stop = (struct dstop_deps){ d->loop, &d->ph, d->pub, d->tbl, d->ifm, d->syn, d->ans,
	    d->anr, d->sd, d->tf };
	if (dstop_run(&stop, &d->ctl, &d->kan) > 0)
		d->exit_code = EX_OSERR;
	phs_mark(&d->ph, "stopped", ev_time());
out:
	finish(d, &st);
	if (d->ph.n > 0 && d->started_at > 0) {
		phs_mark(&d->ph, "torn down", ev_time());
		log_info("stop: %s", phs_format(&d->ph, phases, sizeof(phases)));
	}
	return d->exit_code;
}
