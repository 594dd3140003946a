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
#include <net/if_arp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "arp.h"
#include "kanpub.h"
#include "kanq.h"
#include "kanroom.h"
#include "kanswer.h"
#include "kanxdp.h"
#include "kpath.h"
#include "kpfeed.h"
#include "log.h"
#include "msgid.h"
#include "notes.h"
#include "policy.h"
#include "report.h"
#include "priv.h"
#include "rtnl.h"
#include "stats.h"
#include "util.h"

#define KAN_MIN_ADDRS	16384	/* map sizes at least; twice the namespace's */
#define KAN_MIN_LINKS	1024
#define KAN_RESYNC_DELAY 0.02	/* s: a burst of unreadable notifications, one read */
#define KAN_RESYNC_CHECK 1.0	/* s: looked at anyway (a notification the daemon
				 * saw no change in, a read that failed) */

/* One interface the program is (or was meant to be) on. */
struct kan_if {
	int		ifindex;
	bool		attached;
	int		xdp;		/* attached at XDP in this KP_XDP_* mode; 0: at TC */
	bool		said;		/* its failure to attach was logged */
	bool		known, usable;	/* a holder of its addresses, last seen */
	uint64_t	last[KP_NCOUNTERS];	/* counters already folded */
};

struct kan {
	struct kp		*kp;
	struct kan_deps		 d;
	const struct conf	*conf;
	const struct pub	*pub;
	bool			 started;
	ev_io			 ev_w;
	struct kan_if		*ifs;
	size_t			 nifs, aifs;
	struct kanpub		 pg;		/* published CIDRs written: kanpub.c */
	struct kanq		*q;		/* feeds deferred: kanq.c */
	struct kanroom		*room;		/* what the maps have no room for */
	bool			 resync_said;
	char			 refused[256];	/* answer_path = xdp another XDP program
						 * holds: the first, said (kan_refused) */
	bool			 bulk;		/* feed writes settings only: all_again */
	bool			 feed_grants;	/* iface() writes an attached one's grants */
	ev_timer		 resync_w;	/* the kernel's state read again, soon */
};

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

bool
kan_wanted(const struct conf *c)
{
	size_t i;

	if (asks(c->set.answer_path))
		return true;
	for (i = 0; i < c->nsections; i++)
		if (asks(c->sections[i].set.answer_path))
			return true;
	return false;
}

bool
kan_required(const struct conf *c)
{
	size_t i;

	if (requires(c->set.answer_path))
		return true;
	for (i = 0; i < c->nsections; i++)
		if (requires(c->sections[i].set.answer_path))
			return true;
	return false;
}

/* Does c ask for XDP anywhere (auto or xdp)? */
static bool
wants_xdp(const struct conf *c)
{
	size_t i;

	if (c->set.answer_path == CONF_PATH_AUTO || c->set.answer_path == CONF_PATH_XDP)
		return true;
	for (i = 0; i < c->nsections; i++)
		if (c->sections[i].set.answer_path == CONF_PATH_AUTO ||
		    c->sections[i].set.answer_path == CONF_PATH_XDP)
			return true;
	return false;
}

/* The path c requires, for a message: kernel where any asks for it. */
static const char *
required_name(const struct conf *c)
{
	size_t i;

	if (c->set.answer_path == CONF_PATH_KERNEL)
		return "kernel";
	for (i = 0; i < c->nsections; i++)
		if (c->sections[i].set.answer_path == CONF_PATH_KERNEL)
			return "kernel";
	return "xdp";
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
				    "configuration", required_name(c));
			else
				snprintf(err, errlen, "%s: answer_path = %s: the kernel "
				    "answer path cannot load: %s", c->path != NULL ? c->path :
				    "configuration", required_name(c), why);
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
	if (wants_xdp(c))
		kp_xdp_names();
	return k;
}

/* ------------------------------------------------------------- counters */

static struct kan_if *
slot(struct kan *k, int ifindex, bool make)
{
	struct kan_if *v;
	size_t i;

	for (i = 0; i < k->nifs; i++)
		if (k->ifs[i].ifindex == ifindex)
			return &k->ifs[i];
	if (!make)
		return NULL;
	if (k->nifs == k->aifs) {
		k->aifs = k->aifs ? 2 * k->aifs : 16;
		if ((v = realloc(k->ifs, k->aifs * sizeof(*v))) == NULL)
			return NULL;
		k->ifs = v;
	}
	memset(&k->ifs[k->nifs], 0, sizeof(k->ifs[0]));
	k->ifs[k->nifs].ifindex = ifindex;
	return &k->ifs[k->nifs++];
}

/* What the program counted on s's interface since the last fold (now:
 * its counters as they are). */
static void
fold_with(struct kan *k, struct kan_if *s, const uint64_t now[KP_NCOUNTERS])
{
	struct tbl_iface *ifp = tbl_iface(k->d.tbl, s->ifindex);
	uint64_t a, ls, lt;
	struct stats_if *is = NULL;

	a = now[KP_C_ANSWERED] - s->last[KP_C_ANSWERED];
	ls = now[KP_C_LIMITED_SENDER] - s->last[KP_C_LIMITED_SENDER];
	lt = now[KP_C_LIMITED_TOTAL] - s->last[KP_C_LIMITED_TOTAL];
	memcpy(s->last, now, sizeof(s->last));
	if (ifp != NULL && (is = ifp->stats) == NULL)
		is = ifp->stats = calloc(1, sizeof(*ifp->stats));
	/* answered or limited there: requests decided for an answer, which
	 * the capture never saw (what is passed up, it counts itself) */
	k->d.st->all.received += a + ls + lt;
	k->d.st->all.verdict[POL_ANSWER] += a + ls + lt;
	k->d.st->all.replies += a;
	k->d.st->all.limited_sender += ls;
	k->d.st->all.limited_total += lt;
	if (is == NULL)
		return;
	is->received += a + ls + lt;
	is->verdict[POL_ANSWER] += a + ls + lt;
	is->replies += a;
	is->limited_sender += ls;
	is->limited_total += lt;
}

static void
fold_one(struct kan *k, struct kan_if *s)
{
	uint64_t now[KP_NCOUNTERS];

	if (kp_counters(k->kp, s->ifindex, now) == 0)
		fold_with(k, s, now);
}

static void
fold_cb(void *arg, int ifindex, const uint64_t c[KP_NCOUNTERS])
{
	struct kan_if *s = slot(arg, ifindex, false);

	if (s != NULL && s->attached)
		fold_with(arg, s, c);
}

void
kan_fold(struct kan *k)
{
	size_t i;

	if (k == NULL || !k->started)
		return;
	/* every interface's at once; one by one only if that fails */
	if (kp_counters_all(k->kp, fold_cb, k) == 0)
		return;
	for (i = 0; i < k->nifs; i++)
		if (k->ifs[i].attached)
			fold_one(k, &k->ifs[i]);
}

/* ------------------------------------------------------------ published */

/* kanpub.c's question: is the program on ifindex? */
static bool
on_iface(void *arg, int ifindex)
{
	struct kan_if *s = slot(arg, ifindex, false);

	return s != NULL && s->attached;
}

static void
pub_sync(struct kan *k)
{
	kanpub_sync(&k->pg, k->kp, k->d.tbl, k->pub, on_iface, k);
}

/* ----------------------------------------------------------- interfaces */

/* Does the program answer on ifp: managed, answering, not capture,
 * Ethernet?  log_level = debug in the configuration asks for a line per
 * answer: the capture path answers all (the program answers without a
 * word).  -d, to watch the daemon, keeps it: its answers have no line. */
static bool
wants(const struct kan *k, const struct tbl_iface *ifp)
{
	return ifp->managed && pol_answers(ifp->mode) && ifp->type == ARPHRD_ETHER &&
	    ifp->answer_path != CONF_PATH_CAPTURE && k->conf->log_level < LOG_DEBUG;
}

/* What is published on ifp, as one set: a sender there claims ours. */
static int
ours_on(const struct kan *k, const struct tbl_iface *ifp, struct rng *r)
{
	const struct pub_entry *e;
	size_t i, j;

	memset(r, 0, sizeof(*r));
	for (i = 0; k->pub != NULL && i < pub_count(k->pub); i++) {
		e = pub_at(k->pub, i);
		if (!pub_entry_on(e, ifp->name))
			continue;
		for (j = 0; j < e->set.n; j++)
			if (rng_add(r, e->set.v[j].lo, e->set.v[j].hi) == -1)
				return -1;
	}
	return rng_finish(r);
}

/* Write ifp's settings and senders, and (grants) the grants of its
 * addresses. */
static void
feed(struct kan *k, struct tbl_iface *ifp, bool grants)
{
	unsigned flags = KP_IF_PROBES | KP_IF_PROBE_EVENTS;
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	struct rng ours;

	if (k->conf->learn)
		flags |= KP_IF_LEARN;
	/* what did not fit for want of room is kanroom's to say and retry */
	if ((ours_on(k, ifp, &ours) == -1 ||
	    (!grants ? kpf_settings(k->kp, ifp, flags, ours.n > 0 ? &ours : NULL) :
	    kpf_iface(k->kp, k->d.tbl, ifp, flags, ours.n > 0 ? &ours : NULL)) == -1) &&
	    errno != E2BIG)
		log_ctx(LOG_WARNING, &lc, "%s: the kernel answer path could not take all of "
		    "its settings; the capture path answers what it does not", ifp->name);
	rng_clear(&ours);
}

/* Off the hook it is on (its counters folded first). */
static void
unhook(struct kan *k, struct kan_if *s)
{
	fold_one(k, s);
	(void)kp_del_iface(k->kp, s->ifindex);
	if (s->xdp != 0)
		(void)kp_xdp_detach(k->kp, s->ifindex);
	else
		(void)kp_detach(k->kp, s->ifindex);
	s->attached = false;
	s->xdp = 0;
}

/* On at XDP in mode (KANX_ANY or KP_XDP_*): true when it is; else the
 * reason into ifp->kpath_why, said once (an error with answer_path = xdp:
 * another XDP program there is never replaced), and TC is next. */
static bool
hook_xdp(struct kan *k, struct tbl_iface *ifp, struct kan_if *s, int mode)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	char why[128];
	int got = 0;

	if (kp_xdp_attach(k->kp, ifp->ifindex, mode, &got, why, sizeof(why)) == -1) {
		/* asked for by name and held by another program: a
		 * configuration this host cannot honour (at the start: no
		 * start, kan_refused) */
		if (ifp->answer_path == CONF_PATH_XDP && (errno == EEXIST || errno == EBUSY) &&
		    k->refused[0] == '\0')
			snprintf(k->refused, sizeof(k->refused), "%s: answer_path = xdp: %s",
			    ifp->name, why);
		snprintf(ifp->kpath_why, sizeof(ifp->kpath_why), "%s", why);
		if (!s->said)
			log_ctx(ifp->answer_path == CONF_PATH_XDP ? LOG_ERR : LOG_NOTICE, &lc,
			    "%s: %s%s; the kernel path answers there at TC", ifp->name,
			    ifp->answer_path == CONF_PATH_XDP ? "answer_path = xdp cannot be "
			    "honoured: " : "not answered at XDP: ", why);
		return false;
	}
	s->xdp = got;
	log_ctx(LOG_INFO, &lc, "%s: answered by the kernel path at XDP (%s mode); its "
	    "answers and the requests they answer are not seen by tcpdump: see arpownctl "
	    "counters", ifp->name, got == KP_XDP_NATIVE ? "native" : "generic");
	return true;
}

static void
iface(struct kan *k, struct tbl_iface *ifp)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	struct kan_if *s = slot(k, ifp->ifindex, true);
	bool want = wants(k, ifp), u, fresh = false;
	char why[256];
	size_t j;
	int others = 0, hook = KANX_TC;

	ifp->kpath = false;
	if (s == NULL)
		return;
	/* the hook it should be on: XDP where that answers what TC would */
	if (want)
		hook = kanx_choose(k->d.tbl, ifp, ifp->kpath_why, sizeof(ifp->kpath_why));
	/* at TC because another's XDP program holds the hook: there it
	 * stays while that program is there (no detach and failed attach
	 * at every event); once it is gone, to XDP */
	if (want && hook != KANX_TC && s->attached && s->xdp == 0 &&
	    kp_xdp_other(ifp->ifindex, why, sizeof(why)) > 0) {
		snprintf(ifp->kpath_why, sizeof(ifp->kpath_why), "another XDP program is on it: %.64s",
		    why);
		hook = KANX_TC;
	}
	/* on the other hook than it should be (a reload changed its path, it
	 * became a port, a VLAN came on it): off, then on the right one */
	if (want && s->attached && (hook == KANX_TC) != (s->xdp == 0)) {
		unhook(k, s);
		log_ctx(LOG_INFO, &lc, "%s: the kernel path moves to %s", ifp->name,
		    hook == KANX_TC ? "TC" : "XDP");
	}
	if (want && !s->attached && hook != KANX_TC && hook_xdp(k, ifp, s, hook)) {
		s->attached = true;
		s->said = false;
		fresh = true;
		(void)kp_counters(k->kp, ifp->ifindex, s->last);
	}
	if (want && !s->attached) {
		if (kp_attach(k->kp, ifp->ifindex, &others, why, sizeof(why)) == -1) {
			if (!s->said)
				log_ctx(requires(ifp->answer_path) ? LOG_ERR : LOG_NOTICE,
				    &lc, "%s: the kernel answer path cannot attach (%s); the "
				    "capture path answers there", ifp->name, why);
			s->said = true;
			return;
		}
		s->attached = true;
		s->said = hook != KANX_TC;	/* the XDP reason said once */
		fresh = true;
		(void)kp_counters(k->kp, ifp->ifindex, s->last);
		log_ctx(LOG_INFO, &lc, "%s: answered by the kernel path%s%s%s", ifp->name,
		    ifp->answer_path != CONF_PATH_KERNEL ? " at TC (" : "",
		    ifp->answer_path != CONF_PATH_KERNEL ? ifp->kpath_why : "",
		    ifp->answer_path != CONF_PATH_KERNEL ? ")" : "");
		/* they see every frame first: one that ends the chain for ARP
		 * (TC_ACT_OK) leaves the requests to the capture path */
		if (others > 0)
			log_ctx(LOG_INFO, &lc, "%s: %d other TC ingress filter%s run%s before the "
			    "kernel answer path (it is last, at pref %u)", ifp->name, others,
			    others == 1 ? "" : "s", others == 1 ? "s" : "", KP_TC_PRIO);
	} else if (!want && s->attached) {
		unhook(k, s);
		log_ctx(LOG_INFO, &lc, "%s: no longer answered by the kernel path", ifp->name);
	}
	ifp->kpath_xdp = s->attached ? s->xdp : 0;
	/* its grants too when it is new here, or when asked (an interface's
	 * own event); all_again writes them all after, a change of the
	 * configuration or the published set leaves them as they are */
	if (s->attached)
		feed(k, ifp, !k->bulk && (fresh || k->feed_grants));
	/* answered there: attached, and its settings in the maps */
	ifp->kpath = s->attached && kp_iface_held(k->kp, ifp->ifindex);
	/* Its addresses' host-wide entries name it as a holder while it is
	 * usable: when that changes (a reload turned it off or unmanaged
	 * it), an interface in system mode elsewhere must stop, or start,
	 * answering for them on its behalf; kpf_addr writes them anew.
	 * Attached or not: the capture path may answer on it. */
	u = kpf_usable(ifp);
	if (s->known && u != s->usable)
		for (j = 0; j < ifp->naddrs; j++)
			(void)kpf_addr(k->kp, k->d.tbl, ifp->ifindex, ifp->addrs[j].addr);
	s->known = true;
	s->usable = u;
}

/* Hand what kpath.c could not confirm while writing to the retry. */
static void
recheck(struct kan *k, bool retry)
{
	struct util_ifset s;

	kp_take_unconfirmed(k->kp, &s);
	if (k->q != NULL)
		kanq_unconfirmed(k->q, &s, retry);
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
			feed(k, ifp, true);
}

static void
q_done(void *arg, bool retry)
{
	struct kan *k = arg;

	if (!retry)
		pub_sync(k);
	recheck(k, retry);
	settle(k);
}

static int
iface_cb(struct tbl_iface *ifp, void *arg)
{
	iface(arg, ifp);
	return 0;
}

/* Every interface again, then what is published. */
static void
refeed(struct kan *k)
{
	tbl_iface_each(k->d.tbl, iface_cb, k);
	pub_sync(k);
	recheck(k, false);
}

/* Everything written anew (a start, a resync, room again): each
 * interface's settings, then every grant and marker once, many to a
 * syscall (at 1,000 interfaces and 100,000 addresses, one write each,
 * twice over, took 15 s of the start). */
struct wanted {
	struct kan	*k;
	int		*v;
	size_t		 n, a;
};

static int
wanted_cb(struct tbl_iface *ifp, void *arg)
{
	struct wanted *w = arg;
	struct kan_if *s = slot(w->k, ifp->ifindex, false);
	int *nv;

	char why[96];

	if (!wants(w->k, ifp) || (s != NULL && s->attached) ||
	    kanx_choose(w->k->d.tbl, ifp, why, sizeof(why)) != KANX_TC)
		return 0;
	if (w->n == w->a) {
		w->a = w->a ? w->a * 2 : 64;
		if ((nv = realloc(w->v, w->a * sizeof(*nv))) == NULL)
			return -1;
		w->v = nv;
	}
	w->v[w->n++] = ifp->ifindex;
	return 0;
}

static void
all_again(struct kan *k)
{
	struct wanted w = { k, NULL, 0, 0 };
	char why[256];

	/* every filter that is due, in one batch: iface() finds them there
	 * (one that failed, it tries again alone and says why) */
	if (tbl_iface_each(k->d.tbl, wanted_cb, &w) == 0 && w.n > 0)
		(void)kp_attach_many(k->kp, w.v, w.n, why, sizeof(why));
	free(w.v);
	(void)kp_batch(k->kp, true);
	k->bulk = true;
	tbl_iface_each(k->d.tbl, iface_cb, k);
	k->bulk = false;
	(void)kpf_all(k->kp, k->d.tbl);		/* what does not fit: kanroom says */
	(void)kp_batch(k->kp, false);
	pub_sync(k);
	recheck(k, false);
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
			iface(k, ifp);
	pub_sync(k);
	recheck(k, false);
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
	iface(k, ifp);
	pub_sync(k);
	recheck(k, false);
	settle(k);
}

void
kan_set_pub(struct kan *k, const struct pub *p)
{
	if (k == NULL)
		return;
	k->pub = p;
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
kan_reconf(struct kan *k, const struct conf *c)
{
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
		hook = kanx_choose(k->d.tbl, ifp, why, sizeof(why));
		if ((hook == KANX_TC) != (k->ifs[i].xdp == 0))
			iface(k, ifp);
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
		if ((s = slot(k, c->ifindex, false)) != NULL)
			*s = k->ifs[--k->nifs];
		(void)kp_forget(k->kp, c->ifindex);
		kanpub_forget(&k->pg, k->kp, c->ifindex);
		pub_sync(k);
		settle(k);
		return;
	}
	if (c->ifp == NULL)
		return;
	if (c->what & (LS_ADDR_ADDED | LS_ADDR_REMOVED)) {
		/* a subnet or a peer: the grants of the interface's other
		 * addresses depend on it too */
		s = slot(k, c->ifindex, false);
		if (kpf_wide(c->addr, c->prefix, c->plen) && s != NULL && s->attached) {
			/* the address itself at once (the watcher confirms or
			 * revokes it in the kernel meanwhile); its neighbours'
			 * grants with the batch */
			(void)kpf_addr(k->kp, k->d.tbl, c->ifindex, c->addr);
			if (k->q != NULL)
				kanq_dirty(k->q, c->ifindex);
			else
				feed(k, c->ifp, true);
		} else
			(void)kpf_addr(k->kp, k->d.tbl, c->ifindex, c->addr);
		pub_sync(k);
		recheck(k, false);
		settle(k);
		return;
	}
	if (c->what & (LS_NEW | LS_RENAMED | LS_MAC | LS_UPDOWN | LS_READY))
		kan_iface(k, c->ifp);
}

/* --------------------------------------------------------------- events */

static void
event(const struct kp_event *ev, void *arg)
{
	struct kan *k = arg;
	struct tbl_iface *in = tbl_iface(k->d.tbl, (int)ev->ifindex);
	struct arp_req req;

	switch (ev->type) {
	case KP_EV_LEARN:
		/* what the kernel's neigh_event_ns() does when it answers;
		 * the program holds it to the learning rate */
		/* the sender in a subnet of the arrival interface, as the
		 * capture path asks (answer.c): the program's flag says so
		 * from its own copy, the table has the last word */
		if (k->conf->learn && (ev->flags & KP_EVF_IN_SUBNET) && ev->sip != 0 &&
		    in != NULL && tbl_in_subnet(k->d.tbl, in, ev->sip)) {
			rtnl_learn(k->d.rtnl, (int)ev->ifindex, ev->sip, ev->sha);
			k->d.st->learned++;
		}
		break;
	case KP_EV_PROBE:
		if (in == NULL)
			break;
		memset(&req, 0, sizeof(req));
		req.ifindex = (int)ev->ifindex;
		req.tip = ev->tip;
		memcpy(req.sha, ev->sha, 6);
		note_probe(k->d.notes, &req, in, ev_now(k->d.loop));
		break;
	default:
		break;
	}
}

static void
events_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kan *k = w->data;

	(void)loop;
	(void)revents;
	if (kp_consume(k->kp, event, k) == -1)
		log_warn("kernel answer path: events");
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
