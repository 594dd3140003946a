/* kanswer.c — the kernel answer path, wired into the daemon.  kpath.c
 * loads the eBPF program and writes its maps; kpfeed.c turns the table
 * into grants; this decides which interfaces the program sits on
 * (managed, answering, answer_path not capture, attached), writes their
 * grants whenever the table, the configuration or the published set
 * changes, before the change's caller returns (a withdraw is never
 * answered once it returned), and brings the program's events and
 * counters into the daemon's.  Whatever the program does not answer it
 * passes up unchanged: the capture path stays complete behind it. */
#include "config.h"

#include <net/if.h>
#include <errno.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "inforce.h"
#include "kanint.h"
#include "kanq.h"
#include "kanroom.h"
#include "kpfeed.h"
#include "log.h"
#include "msgid.h"
#include "priv.h"
#include "report.h"

#define KAN_MIN_ADDRS	16384	/* map sizes at least; twice the namespace's */
#define KAN_MIN_LINKS	1024
#define KAN_RESYNC_DELAY 0.02	/* s: a burst of unreadable notifications, one read */
#define KAN_RESYNC_CHECK 1.0	/* s: looked at anyway (a notification the daemon
				 * saw no change in, a read that failed) */

static void settle(struct kan *k);

static bool
asks(int path)
{
	return path == CONF_PATH_AUTO || path == CONF_PATH_KERNEL || path == CONF_PATH_XDP;
}

static bool
requires(int path)
{
	return path == CONF_PATH_KERNEL || path == CONF_PATH_XDP;
}

static bool
xdp_asked(int path)
{
	return path == CONF_PATH_AUTO || path == CONF_PATH_XDP;
}

static bool
kernel_named(int path)
{
	return path == CONF_PATH_KERNEL;
}

/* Does c's [global] or any of its sections set an answer_path that is? */
static bool
any_path(const struct conf *c, bool (*is)(int))
{
	size_t i;

	if (is(c->set.answer_path))
		return true;
	for (i = 0; i < c->nsections; i++)
		if (is(c->sections[i].set.answer_path))
			return true;
	return false;
}

bool
kan_wanted(const struct conf *c)
{
	return any_path(c, asks);
}

bool
kan_required(const struct conf *c)
{
	return any_path(c, requires);
}

const char *
kan_required_name(const struct conf *c)
{
	return any_path(c, kernel_named) ? "kernel" : "xdp";
}

struct kan *
kan_open(const struct conf *c, bool *fatal, char *err, size_t errlen)
{
	unsigned addrs = 0, links = 0;
	char why[256];
	struct kan *k;
	struct kp *kp;

	*fatal = false;
	if (!kan_wanted(c))
		return NULL;
	/* sized for what the namespace holds now, twice over */
	(void)kp_count(&addrs, &links);
	addrs = 2 * addrs > KAN_MIN_ADDRS ? 2 * addrs : KAN_MIN_ADDRS;
	links = 2 * links > KAN_MIN_LINKS ? 2 * links : KAN_MIN_LINKS;
	if ((kp = kp_open(addrs, links, why, sizeof(why))) == NULL) {
		/* without CAP_BPF (the unit without its drop-in) it never will:
		 * say what gives it */
		bool nocap = !priv_has_bpf();

		if (kan_required(c)) {
			*fatal = true;
			if (nocap)
				snprintf(err, errlen, "%s: answer_path = %s: this arpownd "
				    "has no CAP_BPF and cannot load the kernel answer path: "
				    "under systemd, " KAN_DROPIN_HINT "; or set answer_path = "
				    "auto or capture", c->path != NULL ? c->path :
				    "configuration", kan_required_name(c));
			else
				snprintf(err, errlen, "%s: answer_path = %s: the kernel "
				    "answer path cannot load: %s", c->path != NULL ? c->path :
				    "configuration", kan_required_name(c), why);
			return NULL;
		}
		log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_START, NULL, 0, 0, NULL },
		    "answer_path = auto: the kernel answer path did not load (%s)%s; the "
		    "capture path answers", why, nocap ? ": no CAP_BPF; under systemd, "
		    KAN_DROPIN_HINT : "");
		return NULL;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL) {
		kp_close(kp);
		return NULL;
	}
	k->kp = kp;
	k->feed_grants = true;
	/* another's XDP program is named by the line that says it stays:
	 * its name can be read only now, before the privilege drop */
	if (any_path(c, xdp_asked))
		kp_xdp_names();
	return k;
}

/* kanq.c's feed: one attached interface, or all (-1). */
static void
q_feed(void *arg, int ifindex)
{
	struct kan *k = arg;
	struct tbl_iface *ifp;
	size_t i;

	for (i = 0; i < k->nifs; i++)
		if ((ifindex == -1 || k->ifs[i].ifindex == ifindex) && k->ifs[i].attached &&
		    (ifp = tbl_iface(k->d.tbl, k->ifs[i].ifindex)) != NULL)
			kan_feed(k, ifp, true);
}

static void
q_done(void *arg, bool retry)
{
	struct kan *k = arg;

	if (!retry)
		kan_pub_sync(k);
	kan_recheck(k, retry);
	settle(k);
}

static int
iface_cb(struct tbl_iface *ifp, void *arg)
{
	kan_ifapply(arg, ifp);
	return 0;
}

/* Every interface again, then what is published. */
static void
refeed(struct kan *k)
{
	tbl_iface_each(k->d.tbl, iface_cb, k);
	kan_pub_sync(k);
	kan_recheck(k, false);
}

/* Everything written anew (a start, a resync, room again): each
 * interface's settings, then every grant and marker once, many to a
 * syscall (at 1,000 interfaces and 100,000 addresses, one write each,
 * twice over, took 15 s of the start). */
static void
all_again(struct kan *k)
{
	(void)kan_attach_due(k);
	(void)kp_batch(k->kp, true);
	k->bulk = true;
	tbl_iface_each(k->d.tbl, iface_cb, k);
	k->bulk = false;
	(void)kpf_all(k->kp, k->d.tbl);		/* what does not fit: kanroom says */
	(void)kp_batch(k->kp, false);
	kan_pub_sync(k);
	kan_recheck(k, false);
}

/* kanroom.c's retry: the interfaces whose settings did not fit and the
 * published ranges (all: every grant, after the mirror was read again). */
static void
room_again(void *arg, bool all)
{
	struct kan *k = arg;
	struct tbl_iface *ifp;
	size_t i;

	if (all) {
		all_again(k);
		return;
	}
	for (i = 0; i < k->nifs; i++)
		if (k->ifs[i].attached && !kp_iface_held(k->kp, k->ifs[i].ifindex) &&
		    (ifp = tbl_iface(k->d.tbl, k->ifs[i].ifindex)) != NULL)
			kan_ifapply(k, ifp);
	kan_pub_sync(k);
	kan_recheck(k, false);
}

/* The kernel's state read again, every grant written anew. */
static void
resync_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kan *k = w->data;

	(void)loop;
	(void)revents;
	if (!kp_needs_resync(k->kp))
		return;
	if (kp_resync(k->kp) == -1) {
		/* tried again at the next check */
		if (!k->resync_said)
			log_warnx("kernel answer path: cannot read the kernel's state again; "
			    "the capture path answers everything meanwhile");
		k->resync_said = true;
		return;
	}
	k->resync_said = false;
	all_again(k);
	kanroom_check(k->room);
}

/* After a change is written: the watcher met a notification it could not
 * read (answers stop until the kernel's state is read again and every
 * grant written anew: soon, once for a burst of them, since each read is
 * a dump of everything), and what the maps had no room for (kanroom). */
static void
settle(struct kan *k)
{
	if (kp_needs_resync(k->kp) &&
	    ev_timer_remaining(k->d.loop, &k->resync_w) > KAN_RESYNC_DELAY) {
		ev_timer_stop(k->d.loop, &k->resync_w);
		ev_timer_set(&k->resync_w, KAN_RESYNC_DELAY, KAN_RESYNC_CHECK);
		ev_timer_start(k->d.loop, &k->resync_w);
	}
	kanroom_check(k->room);
}

void
kan_iface(struct kan *k, struct tbl_iface *ifp)
{
	if (k == NULL || !k->started)
		return;
	kan_ifapply(k, ifp);
	kan_pub_sync(k);
	kan_recheck(k, false);
	settle(k);
}

void
kan_set_pub(void *arg, const struct conf *oc, const struct pub *op)
{
	struct kan *k = arg;

	(void)oc;
	(void)op;
	if (k == NULL)
		return;
	k->pub = inf_pub();
	/* the senders' "published here" bits change with the set; the
	 * grants do not (a publish cost every grant written again: at
	 * 100,000 addresses a second a publish) */
	if (k->started) {
		k->feed_grants = false;
		refeed(k);
		k->feed_grants = true;
		settle(k);
	}
}

void
kan_reconf(void *arg, const struct conf *oc, const struct pub *op)
{
	const struct conf *c = inf_conf();
	struct kan *k = arg;

	(void)oc;
	(void)op;
	if (k == NULL)
		return;
	k->conf = c;
	if (!k->started)
		return;
	(void)kp_set_limits(k->kp, c->sender_rate, c->total_rate, ANS_LEARN_RATE);
	/* modes, lists, paths: the settings; the grants are the table's
	 * (one newly attached gets its own) */
	k->feed_grants = false;
	refeed(k);
	k->feed_grants = true;
	settle(k);
}

/* Links came or went: an interface at XDP that now has an upper device
 * (a VLAN put on it) moves to TC, and back when it goes; only those whose
 * hook changes are written again. */
static void
xdp_again(struct kan *k, int except)
{
	struct tbl_iface *ifp;
	char why[128];
	size_t i;
	int hook;

	kp_uppers_forget();
	for (i = 0; i < k->nifs; i++) {
		if (k->ifs[i].ifindex == except || !k->ifs[i].attached ||
		    (ifp = tbl_iface(k->d.tbl, k->ifs[i].ifindex)) == NULL ||
		    (ifp->answer_path != CONF_PATH_AUTO && ifp->answer_path != CONF_PATH_XDP))
			continue;
		/* the links' part alone: a link event changes no TC filter,
		 * and asking each interface's filters at each event was two
		 * dumps per interface (an interface kept at TC by filters
		 * differs here, and kan_ifapply asks its filters again) */
		hook = kanx_choose(k->d.tbl, ifp, false, why, sizeof(why));
		if ((hook == KANX_TC) != (k->ifs[i].xdp == 0))
			kan_ifapply(k, ifp);
	}
}

void
kan_change(struct kan *k, const struct ls_change *c)
{
	struct kan_if *s;

	if (k == NULL || !k->started)
		return;
	if (c->what & (LS_NEW | LS_GONE))
		xdp_again(k, c->ifindex);
	if (c->what & LS_GONE) {
		/* its filter went with the device */
		if ((s = kan_slot(k, c->ifindex, false)) != NULL)
			*s = k->ifs[--k->nifs];
		(void)kp_forget(k->kp, c->ifindex);
		kanpub_forget(&k->pg, k->kp, c->ifindex);
		kan_pub_sync(k);
		settle(k);
		return;
	}
	if (c->ifp == NULL)
		return;
	if (c->what & (LS_ADDR_ADDED | LS_ADDR_REMOVED)) {
		/* a subnet or a peer: the grants of the interface's other
		 * addresses depend on it too */
		s = kan_slot(k, c->ifindex, false);
		if (kpf_wide(c->addr, c->prefix, c->plen) && s != NULL && s->attached) {
			/* the address itself at once (the watcher confirms or
			 * revokes it in the kernel meanwhile); its neighbours'
			 * grants with the batch */
			(void)kpf_addr(k->kp, k->d.tbl, c->ifindex, c->addr);
			if (k->q != NULL)
				kanq_dirty(k->q, c->ifindex);
			else
				kan_feed(k, c->ifp, true);
		} else
			(void)kpf_addr(k->kp, k->d.tbl, c->ifindex, c->addr);
		kan_pub_sync(k);
		kan_recheck(k, false);
		settle(k);
		return;
	}
	/* LS_XDP: another's XDP program went (arpownd moves there from
	 * TC), or came (what kept it at TC is named) */
	if (c->what & (LS_NEW | LS_RENAMED | LS_MAC | LS_UPDOWN | LS_READY | LS_XDP))
		kan_iface(k, c->ifp);
}

static void
events_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kan *k = w->data;

	(void)loop;
	(void)revents;
	kan_events(k);
	settle(k);
}

void
kan_start(struct kan *k, const struct kan_deps *d, const struct conf *c,
    const struct pub *p)
{
	if (k == NULL)
		return;
	k->d = *d;
	k->conf = c;
	k->pub = p;
	k->started = true;
	ev_timer_init(&k->resync_w, resync_cb, KAN_RESYNC_CHECK, KAN_RESYNC_CHECK);
	k->resync_w.data = k;
	ev_timer_start(d->loop, &k->resync_w);
	if ((k->q = kanq_new(d->loop, q_feed, q_done, k)) == NULL)
		log_warnx("kernel answer path: out of memory; changes are fed at once");
	if ((k->room = kanroom_new(d->loop, k->kp, d->tbl, room_again, k)) == NULL)
		log_warnx("kernel answer path: out of memory; what does not fit is not retried");
	(void)kp_set_limits(k->kp, c->sender_rate, c->total_rate, ANS_LEARN_RATE);
	all_again(k);
	settle(k);
	ev_io_init(&k->ev_w, events_cb, kp_events_fd(k->kp), EV_READ);
	k->ev_w.data = k;
	ev_io_start(k->d.loop, &k->ev_w);
}

bool
kan_refused(const struct kan *k, char *err, size_t errlen)
{
	if (k == NULL || k->refused[0] == '\0')
		return false;
	snprintf(err, errlen, "%s", k->refused);
	return true;
}

void
kan_close(struct kan *k)
{
	size_t i;

	if (k == NULL)
		return;
	if (k->started) {
		kan_fold(k);
		ev_io_stop(k->d.loop, &k->ev_w);
		ev_timer_stop(k->d.loop, &k->resync_w);
		for (i = 0; i < k->nifs; i++) {
			struct tbl_iface *ifp = tbl_iface(k->d.tbl, k->ifs[i].ifindex);

			if (ifp != NULL) {
				ifp->kpath = false;
				ifp->kpath_xdp = 0;
			}
		}
	}
	kanq_free(k->q);
	kanroom_free(k->room);
	kp_close(k->kp);	/* detaches from every interface */
	free(k->ifs);
	kanpub_free(&k->pg);
	free(k);
}

void
kan_view(struct kan *k, struct rpt_kpath *out)
{
	memset(out, 0, sizeof(*out));
	if (k != NULL && k->started)
		kanroom_view(k->room, out);
	else if (k != NULL)
		out->loaded = true;
}

int
kan_purge(void)
{
	char why[256];
	int n, x;

	if ((n = kp_purge(why, sizeof(why))) == -1) {
		log_warnx("kernel answer path: %s", why);
		n = 0;
	}
	if (n > 0)
		log_notice("removed %d kernel answer path filter%s a killed arpownd left (TC "
		    "ingress, named " KP_PROG_NAME "); other filters left as they were", n,
		    n == 1 ? "" : "s");
	/* at XDP a link goes with its process: only a netlink attach of
	 * arpownd_xdp (a tool's) can be left; that very program goes */
	if ((x = kp_xdp_purge(why, sizeof(why))) == -1)
		log_warnx("kernel answer path: %s", why);
	else if (x > 0)
		log_notice("removed arpownd_xdp from %d interface%s (XDP, attached by netlink); "
		    "other XDP programs left as they were", x, x == 1 ? "" : "s");
	return n + (x > 0 ? x : 0);
}
