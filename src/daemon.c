/* daemon.c — the wiring: the order of start-up, the libev watchers, and
 * the contexts of the features they call.  Start: the configuration, the
 * state directory and the control socket while root, then the links, the
 * capture (those steps in daemonstart.c), the originals saved, the
 * sysctls set, READY; the stop (daemonstop.c) undoes it in reverse, the sysctls first, never deaf.
 * Each job lives in its module: sync.c (netlink), answer.c (frames),
 * announcer.c, iface.c (sysctls), pubops.c, reload.c, commands.c,
 * kanswer.c (the kernel path), status.c (STATUS=), nslock.c; what is in
 * force, inforce.c, which a reload swaps and whose subscribers it tells
 * in the order subscribe() writes. */
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
#include "conflict.h"
#include "ctl.h"
#include "daemon.h"
#include "daemonint.h"
#include "daemonstop.h"
#include "fdclose.h"
#include "handover.h"
#include "iface.h"
#include "inforce.h"
#include "kanswer.h"
#include "log.h"
#include "msgid.h"
#include "notes.h"
#include "notify.h"
#include "phases.h"
#include "pubops.h"
#include "reload.h"
#include "report.h"
#include "rpf.h"
#include "rtnl.h"
#include "statedir.h"
#include "statefile.h"
#include "status.h"
#include "sync.h"
#include "table.h"
#include "textfile.h"

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
_Static_assert(NSIGNALS == DMN_NSIGNALS, "daemonint.h: DMN_NSIGNALS is handled[]'s length");

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

	sst_report(d->tbl, inf_pub(), d->forced.to_answer, &d->status, &d->status_sent);
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
	v->conf_path = inf_conf()->path;
	v->conf_loaded = d->conf_loaded;
	if (d->rld != NULL)
		rld_times(d->rld, &v->conf_loaded, &failed);
	v->reload_ok = v->conf_loaded;
	v->reload_failed = failed;
	v->conf = inf_conf();
	v->tbl = d->tbl;
	v->cfl = d->cfl;
	v->st = &d->st;
	v->capture_drops = d->cap != NULL ? cap_drops(d->cap) : 0;
	v->orig = view_orig;
	v->orig_arg = d->ifm;
	v->pub = inf_pub();
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

/* (ans_deps.sync) */
static void
sync_now(void *arg)
{
	syn_read(arg);
}

/* Who a reload tells after the swap (inforce.h), in the order of its
 * effects, the order a reload has always had. */
static int
subscribe(struct daemon *d)
{
	const struct { inf_fn *fn; void *arg; } order[] = {
		{ kan_set_pub, d->kan },	/* a range withdrawn: out of it first */
		{ rld_apply, d->rld },		/* every interface to its settings */
		{ anr_reconf, d->anr },		/* the refresh timer */
		{ tf_reconf, d->tf },		/* the metrics file */
		{ kan_reconf, d->kan },		/* fed what the interfaces say now */
		{ rld_settle, d->rld },		/* the log level, qdisc_bypass */
		{ anr_changed, d->anr },	/* bursts for the new entries */
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (inf_subscribe(order[i].fn, order[i].arg) == -1)
			return -1;
	return 0;
}

/* The features that need the loop, and the watchers; 0, or -1 (ENOMEM). */
static int
loop_setup(struct daemon *d)
{
	struct ans_deps sd = { d->tbl, d->cap, d->rtnl, d->anr, d->notes, d->cfl, &d->lim,
	    &d->st, sync_now, d->syn, d->rpf };
	struct rld_deps rd;
	struct cmd_deps cd;
	sigset_t sigs;
	uint64_t wd;
	size_t i;

	if ((d->ans = ans_new(&sd)) == NULL ||
	    (d->tf = tf_new(d->loop, view_fill, d)) == NULL)
		return -1;
	rd = (struct rld_deps){ { d->opts->conf_path, d->opts->conf_explicit, d->opts->monitor,
	    d->forced },
	    d->ifm, d->pop, d->cap, d->kan, report_status, d, d->bpf_at_start };
	if ((d->rld = rld_new(&rd, d->conf_loaded)) == NULL || subscribe(d) == -1)
		return -1;
	cd = (struct cmd_deps){ d->tbl, d->anr, d->pop, d->rld, view_fill, d, report_status, d };
	if ((d->cmd = cmd_new(&cd)) == NULL)
		return -1;
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
	inf_free();
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
	struct conf *conf;
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
	if ((conf = rld_load_conf(&src, NULL)) == NULL)
		return EX_CONFIG;
	inf_init(conf);
	d->conf_loaded = ev_time();
	phs_mark(&d->ph, "configuration read", d->conf_loaded);
	log_init(conf->log_level, o->debug);
	rld_lint_log(conf);
	if (o->monitor)
		log_notice("%s: every interface the configuration manages is only "
		    "watched, whatever mode it sets; the kernel answers, no sysctl is "
		    "changed.  To answer: %s", d->forced.by, d->forced.to_answer);

	/* Order matters: know the links, then listen, then silence the
	 * kernel, then say READY.  Never a moment where nobody answers. */
	if ((d->exit_code = dmn_start_root(d, &st)) != EX_OK ||
	    (d->exit_code = dmn_start_net(d, &st)) != EX_OK)
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
	dmn_prev_announced(d);
	syn_started(d->syn, d->anr);
	(void)syn_manage_all(d->syn);
	anr_started(d->anr);
	phs_mark(&d->ph, "sysctls written", ev_time());
	/* the gap's requests first: they have waited longest, and need the
	 * interfaces managed, not the kernel path */
	dmn_handover(d);
	phs_mark(&d->ph, "kept requests answered", ev_time());
	kd = (struct kan_deps){ d->loop, d->tbl, d->rtnl, d->notes, &d->st };
	kan_start(d->kan, &kd, inf_conf(), inf_pub());
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
	tf_start(d->tf);
	notify_send("READY=1");
	phs_mark(&d->ph, "READY", ev_time());
	log_info("start: %s", phs_format(&d->ph, phases, sizeof(phases)));

	ev_run(d->loop, 0);

stop:
	/* Held again: a second SIGTERM must not cut the restore short, nor
	 * kill us by default action once libev's handlers are gone. */
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	stop = (struct dstop_deps){ d->loop, &d->ph, inf_pub(), d->ifm, d->syn, d->ans,
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
