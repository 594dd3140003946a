/* daemonstart.c — the daemon's start up to its loop: the lock, the state
 * directory, the control socket and the kernel path while root, then the
 * links, the capture, the features made in the order each needs the
 * others, the published set; and the requests a previous run kept for
 * this one.  daemon.c orders these steps, sets the sysctls and runs the
 * loop; the kernel answers everything until then. */
#include "config.h"

#include <errno.h>
#include <ev.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "announcer.h"
#include "answer.h"
#include "capture.h"
#include "conf.h"
#include "conflict.h"
#include "ctl.h"
#include "daemon.h"
#include "daemonint.h"
#include "iface.h"
#include "inforce.h"
#include "kanswer.h"
#include "log.h"
#include "msgid.h"
#include "notes.h"
#include "nslock.h"
#include "priv.h"
#include "pubops.h"
#include "reload.h"
#include "rpf.h"
#include "rtnl.h"
#include "statedir.h"
#include "statefile.h"
#include "sync.h"
#include "table.h"
#include "util.h"

#define CONFLICT_RECORDS	1024	/* remembered conflicting addresses */

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
	(void)p;	/* the set in force, changed in place */
	kan_set_pub(((struct daemon *)arg)->kan, NULL, NULL);
}

/* Steps 1-3: the configuration, the lock, the state directory and the
 * control socket while root, the saved originals; then root is dropped. */
int
dmn_start_root(struct daemon *d, struct state *st)
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
	if ((d->sd = sdir_open_as(o->state_dir, SDIR_DAEMON, priv_target(inf_conf()->user), err,
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
	d->kan = kan_open(inf_conf(), &fatal, err, sizeof(err));
	if (fatal) {
		/* asked for what this service cannot do: a configuration
		 * error, which the unit does not retry (78) */
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
		    "%s; not starting, nothing changed", err);
		return EX_CONFIG;
	}
	/* Root is needed no further: the capabilities stay (before any
	 * socket is opened, so none is held as root). */
	if (priv_drop(inf_conf()->user) == -1 || priv_keep_net() == -1)
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
int
dmn_start_net(struct daemon *d, struct state *st)
{
	struct syn_deps sd;
	struct anr_deps ad;
	struct pub *pub;
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
	sd = (struct syn_deps){ d->tbl, d->rtnl, d->ifm, &d->st, table_changed, d };
	if ((d->syn = syn_new(&sd)) == NULL) {
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
	/* the announcer sends through the capture; runtime publishing
	 * announces through it: each made once what it uses is there */
	d->loop = ev_default_loop(EVFLAG_AUTO);
	ad = (struct anr_deps){ d->loop, d->tbl, d->cap, &d->lim, &d->st };
	if ((d->anr = anr_new(&ad)) == NULL ||
	    (d->pop = pop_new(&(struct pop_deps){ d->tbl, d->sd, d->anr, published_changed,
	    d })) == NULL) {
		log_warn("start-up");
		return util_exit_code(errno);
	}
	rld_capture(d->cap, inf_conf());
	ifm_warn_conf_all();
	/* a previous run's records: links gone, renamed while we were down;
	 * syn_manage_all restores those this configuration leaves alone */
	ifm_adopt(d->ifm);
	if ((pub = pop_build(d->pop, inf_conf(), NULL)) == NULL) {
		/* what a previous run left at 8 goes back: never deaf */
		if (ifm_restore_all(d->ifm, false) != 0)
			log_warnx("some interfaces could not be restored; run arpownd --restore");
		return EX_CONFIG;
	}
	inf_init_pub(pub);
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

void
dmn_handover(struct daemon *d)
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
void
dmn_prev_announced(struct daemon *d)
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
