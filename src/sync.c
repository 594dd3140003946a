/* sync.c — rtnetlink to the table, and what follows from each change.
 * Events are read until none is queued (a request is never decided on a
 * table older than what the kernel acknowledged); lost events (ENOBUFS)
 * mean the table may be wrong: re-dump, never guess.  linksync.c changes
 * the table; here the change is logged, the interface managed or given
 * back (iface.c), its announcements started or dropped (announcer.c). */
#include "config.h"

#include <stdlib.h>

#include "announcer.h"
#include "iface.h"
#include "inforce.h"
#include "linksync.h"
#include "log.h"
#include "msgid.h"
#include "rtnl.h"
#include "stats.h"
#include "sync.h"
#include "util.h"

struct syn {
	struct syn_deps		 d;
	struct anr		*anr;		/* announcements: NULL until started */
	bool			 started;	/* events manage and announce */
	bool			 dumping;	/* a dump is read: the request socket is busy */
	bool			 need_resync;	/* a re-dump failed: try again */
	unsigned		 gen;		/* generation of the running dump */
};

struct syn *
syn_new(const struct syn_deps *d)
{
	struct syn *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->d = *d;
	return s;
}

void
syn_free(struct syn *s)
{
	free(s);
}

void
syn_started(struct syn *s, struct anr *a)
{
	s->anr = a;
	s->started = true;
}

void
syn_stopping(struct syn *s)
{
	s->started = false;
}

int
syn_manage_all(struct syn *s)
{
	return ifm_apply_all(s->d.ifm, inf_conf());
}

static void
announce(struct syn *s, int ifindex, uint32_t addr)
{
	if (s->anr != NULL)
		anr_start(s->anr, ifindex, addr);
}

static void
announce_stop(struct syn *s, int ifindex, uint32_t addr)
{
	if (s->anr != NULL)
		anr_stop(s->anr, ifindex, addr);
}

/* A link is gone, its sysctls with it: its record goes, and its bursts. */
static void
gone(struct syn *s, const struct ls_change *c)
{
	struct log_ctx lc = { MSGID_IFACE, c->oldname, 0, 0, NULL };

	if (c->was_managed)
		log_ctx(LOG_INFO, &lc, "%s: interface gone", c->oldname);
	ifm_gone(s->d.ifm, c->ifindex);
	announce_stop(s, c->ifindex, 0);
}

static void
on_link(struct syn *s, const struct ls_change *c)
{
	struct tbl_iface *ifp = c->ifp;
	struct log_ctx lc = { MSGID_IFACE, NULL, 0, 0, NULL };
	bool tell = false;
	char mac[18];

	if (c->what & LS_GONE) {
		gone(s, c);
		return;
	}
	if (ifp == NULL) {
		if (c->what & LS_NOMEM)
			log_warnx("ifindex %d: out of memory", c->ifindex);
		return;
	}
	lc.ifname = ifp->name;
	if (s->started && (c->what & LS_RENAMED))
		log_ctx(LOG_INFO, &lc, "%s: renamed to %s", c->oldname, ifp->name);
	if (s->started && (c->what & LS_MAC) && ifp->managed) {
		log_ctx(LOG_INFO, &lc, "%s: MAC address now %s", ifp->name,
		    util_mac_str(ifp->mac, mac));
		tell = true;	/* the neighbours have the old one */
	}
	if (s->started && (c->what & LS_UPDOWN) && ifp->managed)
		log_ctx(LOG_INFO, &lc, "%s: link %s", ifp->name,
		    (ifp->flags & IFF_UP) ? "up" : "down");
	/* announced when frames can go out again: never while down */
	if (s->started && (c->what & LS_READY))
		tell = true;
	/* during a dump the request socket is busy; the resync manages after */
	if (s->started && !s->dumping)
		ifm_apply(s->d.ifm, inf_conf(), ifp);
	if (tell && ifp->managed)
		announce(s, ifp->ifindex, 0);
}

static void
on_addr(struct syn *s, const struct ls_change *c)
{
	struct log_ctx lc = { MSGID_ADDR, NULL, c->addr, 0, NULL };
	struct tbl_iface *ifp = c->ifp;

	if (ifp == NULL)
		return;
	lc.ifname = ifp->name;
	if (c->what & LS_ADDR_REMOVED) {
		if (s->started)
			log_ctx(LOG_INFO, &lc, "%s: address %s/%u removed", ifp->name,
			    log_ip(c->addr), c->plen);
		if (c->what & LS_ADDR_LAST)
			announce_stop(s, c->ifindex, c->addr);
	} else if (c->what & LS_NOMEM) {
		log_ctx(LOG_WARNING, &lc, "%s: address %s: out of memory", ifp->name,
		    log_ip(c->addr));
	} else if ((c->what & LS_ADDR_ADDED) && s->started) {
		log_ctx(LOG_INFO, &lc, "%s: address %s/%u added", ifp->name,
		    log_ip(c->addr), c->plen);
		/* a moved address: the neighbours learn its new MAC now */
		if (ifp->managed)
			announce(s, ifp->ifindex, c->addr);
	}
}

static void
on_msg(const struct rtnl_msg *m, void *arg)
{
	struct syn *s = arg;
	struct ls_change c;

	ls_apply(s->d.tbl, m, s->gen, s->dumping, &c);
	if (m->kind == RTNL_NEWLINK || m->kind == RTNL_DELLINK)
		on_link(s, &c);
	else
		on_addr(s, &c);
	if (s->d.changed != NULL && c.what != 0)
		s->d.changed(s->d.changed_arg, &c);
}

/* What a re-dump found gone. */
static void
swept(void *arg, const struct ls_change *c)
{
	struct log_ctx lc = { MSGID_ADDR, NULL, c->addr, 0, NULL };
	struct syn *s = arg;

	if (c->what & LS_GONE)
		gone(s, c);
	else {
		lc.ifname = c->ifp->name;
		log_ctx(LOG_INFO, &lc, "%s: address %s/%u removed (found in re-dump)",
		    c->ifp->name, log_ip(c->addr), c->plen);
	}
	if (s->d.changed != NULL)
		s->d.changed(s->d.changed_arg, c);
}

int
syn_dump(struct syn *s)
{
	int r;

	s->gen = tbl_gen_begin(s->d.tbl);
	s->dumping = true;
	r = rtnl_dump(s->d.rtnl, on_msg, s);
	s->dumping = false;
	return r;
}

/* Full re-dump into the live table: marks what is seen, sweeps the rest.
 * The table keeps serving meanwhile; only what vanished is removed. */
static int
resync(struct syn *s)
{
	if (syn_dump(s) == -1) {
		s->need_resync = true;	/* the check timer tries again */
		log_warn("rtnetlink dump");
		return -1;
	}
	s->need_resync = false;
	(void)ls_sweep(s->d.tbl, s->gen, swept, s);
	s->d.st->resyncs++;
	return 0;
}

void
syn_read(struct syn *s)
{
	int r, n = 0;

	while ((r = rtnl_read(s->d.rtnl, on_msg, s)) == 1) {
		log_warnx("rtnetlink: event queue overrun, re-reading every link "
		    "and address");
		/* not once the stop has given the interfaces back */
		if (resync(s) == 0 && s->started)
			(void)syn_manage_all(s);
		if (++n == 3)	/* the check timer retries (need_resync) */
			break;
	}
	if (r == -1)
		log_warn("rtnetlink read");
}

void
syn_check(struct syn *s)
{
	if (s->need_resync) {
		if (resync(s) == 0)
			(void)syn_manage_all(s);
		return;
	}
	s->dumping = true;
	if (rtnl_dump_links(s->d.rtnl, on_msg, s) == -1)
		log_warn("rtnetlink link dump");
	s->dumping = false;
	(void)syn_manage_all(s);
}
