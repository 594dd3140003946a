/* iface.c — the interface manager.  Which interfaces arpownd answers for,
 * and their arp_ignore / arp_announce: set to what the configuration says
 * while managed, given back when not.  Records, keyed by ifindex, hold the
 * values found before arpownd changed them; a record is written to the
 * state directory before the change it protects, and dropped only once
 * the value is back (or the interface, and its sysctls with it, is gone).
 * Being deaf is the one failure that must never happen: an interface whose
 * value cannot be given back stays answered by arpownd. */
#include "config.h"

#include <net/if.h>
#include <net/if_arp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iface.h"
#include "linksync.h"
#include "log.h"
#include "msgid.h"
#include "policy.h"
#include "sysctl.h"

struct ifm {
	struct tbl		*t;
	struct rtnl		*r;
	struct sdir		*sd;
	struct state		 st;
	bool			 batch;	/* saves that only forget wait for the end */
	bool			 dirty;	/* such a save is owed */
	ifm_event_fn		*event;
	void			*event_arg;
};

/* What the configuration wants of one interface. */
struct want {
	int	mode;		/* enum pol_mode, -1: not managed */
	bool	sysctl;		/* arp_ignore = 8: arpownd answers, not the kernel */
	bool	ann;		/* set arp_announce */
	int	leave;		/* the arp_ignore a stop leaves, or STATE_NONE */
};

struct ifm *
ifm_new(struct tbl *t, struct rtnl *r, struct sdir *sd, struct state *st)
{
	struct ifm *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->t = t;
	m->r = r;
	m->sd = sd;
	m->st = *st;
	memset(st, 0, sizeof(*st));
	return m;
}

void
ifm_on_event(struct ifm *m, ifm_event_fn *fn, void *arg)
{
	m->event = fn;
	m->event_arg = arg;
}

void
ifm_free(struct ifm *m)
{
	if (m == NULL)
		return;
	state_clear(&m->st);
	free(m);
}

/* A port of an L2 master (a bridge, a bond, a team, an Open vSwitch):
 * its frames are the master's, and so is ARP; a VRF's are L3 interfaces. */
static bool
is_l2_port(const struct tbl *t, const struct tbl_iface *ifp)
{
	const struct tbl_iface *m;
	const char *kind = ifp->slave_kind;

	if (ifp->master == 0)
		return false;
	if (kind[0] == '\0' && (m = tbl_iface(t, ifp->master)) != NULL)
		kind = m->kind;
	return strcmp(kind, "vrf") != 0;
}

static bool
eligible(const struct tbl *t, const struct tbl_iface *ifp)
{
	/* Replies are built for Ethernet; lo and NOARP links never do ARP;
	 * the ports of a bridge or a bond leave it to their master. */
	return ifp->type == ARPHRD_ETHER && ifp->name[0] != '\0' &&
	    !(ifp->flags & (IFF_LOOPBACK | IFF_NOARP)) && !is_l2_port(t, ifp);
}

int
ifm_mode(const struct ifm *m, const struct conf *c, const struct tbl_iface *ifp)
{
	return eligible(m->t, ifp) ? conf_iface_mode(c, ifp->name) : -1;
}

static void
wants(const struct ifm *m, const struct conf *c, const struct tbl_iface *ifp,
    struct want *w)
{
	w->mode = ifm_mode(m, c, ifp);
	/* monitor: watched, but the kernel keeps answering, its sysctls
	 * untouched */
	w->sysctl = w->mode >= 0 && w->mode != POL_MONITOR;
	w->ann = w->sysctl && c->arp_announce != CONF_ANNOUNCE_KEEP;
	w->leave = w->sysctl ? ifm_leave_for(c, w->mode) : STATE_NONE;
}

static int
save(struct ifm *m)
{
	m->dirty = false;
	if (sdir_save(m->sd, &m->st) == -1) {
		log_warn("state directory: cannot save the sysctl originals");
		return -1;
	}
	return 0;
}

static void
save_later(struct ifm *m)
{
	if (m->batch)
		m->dirty = true;
	else
		(void)save(m);
}

/* A save failed: what is on disk is what a crash would leave, so that is
 * what holds; changes not saved are forgotten, and nothing is set. */
static void
back_to_disk(struct ifm *m)
{
	char err[256];

	state_clear(&m->st);
	if (sdir_load(m->sd, &m->st, err, sizeof(err)) == -1)
		log_warnx("state directory: %s", err);
}

/* The record follows the interface, whatever it is called now. */
static bool
follow_rename(struct ifm *m, const struct tbl_iface *ifp)
{
	struct state_orig *rec = state_find(&m->st, ifp->ifindex);
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	char old[IF_NAMESIZE];

	if (rec == NULL || strcmp(rec->name, ifp->name) == 0)
		return false;
	memcpy(old, rec->name, sizeof(old));
	if (state_add(&m->st, ifp->ifindex, ifp->name) == NULL)
		return false;
	log_ctx(LOG_INFO, &lc, "%s: renamed from %s; its saved originals follow it",
	    ifp->name, old);
	return true;
}

/* Step 1: in memory, the originals of the values about to change; true
 * when the records changed and must be saved before anything is set. */
static bool
record(struct ifm *m, struct tbl_iface *ifp, const struct want *w)
{
	struct state_orig *rec = state_find(&m->st, ifp->ifindex);
	bool dirty = follow_rename(m, ifp);

	if (!w->sysctl || !ifp->conf_known)
		return dirty;	/* nothing to set (step 2 says why) */
	if (rec == NULL && (rec = state_add(&m->st, ifp->ifindex, ifp->name)) == NULL)
		return dirty;
	if (rec->arp_ignore == STATE_NONE) {
		rec->arp_ignore = ifm_original_ignore(ifp->name, ifp->arp_ignore);
		dirty = true;
	}
	if (w->ann && rec->arp_announce == STATE_NONE) {
		rec->arp_announce = ifm_original_announce(ifp);
		dirty = true;
	}
	if (rec->leave != w->leave) {
		rec->leave = w->leave;
		dirty = true;
	}
	return dirty;
}

/* Step 2: set the values; 1 set, 0 nothing to set, -1 when it could not. */
static int
set(struct ifm *m, const struct conf *c, struct tbl_iface *ifp, const struct want *w)
{
	struct log_ctx lc = { MSGID_SYSCTL, ifp->name, 0, 0, NULL };
	struct state_orig *rec = state_find(&m->st, ifp->ifindex);
	int ign = -1, ann = -1;

	if (w->sysctl) {
		if (!ifp->conf_known) {
			log_ctx(LOG_WARNING, &lc, "%s: no IPv4 settings on this link, "
			    "not managing it", ifp->name);
			return -1;
		}
		if (rec == NULL || rec->arp_ignore == STATE_NONE)
			return -1;	/* no original on disk, no change */
		ign = IFM_ARP_IGNORE_NEVER;
	} else if (rec != NULL && rec->arp_ignore != STATE_NONE)
		ign = rec->arp_ignore;
	if (w->ann && rec != NULL && rec->arp_announce != STATE_NONE)
		ann = c->arp_announce;
	else if (!w->ann && rec != NULL && rec->arp_announce != STATE_NONE)
		ann = rec->arp_announce;
	if (ign == ifp->arp_ignore)
		ign = -1;
	if (ann == ifp->arp_announce)
		ann = -1;
	if (ign < 0 && ann < 0)
		return 0;
	if (rtnl_set_arp(m->r, ifp->ifindex, ign, ann) == -1) {
		if (errno == ENODEV)	/* gone meanwhile: DELLINK follows */
			return -1;
		/* -1: that one left as it is */
		log_ctx(LOG_WARNING, &lc, "%s: cannot set arp_ignore=%d "
		    "arp_announce=%d: %s", ifp->name, ign, ann, strerror(errno));
		return -1;
	}
	ls_conf_written(ifp, ign, ann);
	log_ctx(LOG_DEBUG, &lc, "%s: arp_ignore=%d arp_announce=%d", ifp->name,
	    ifp->arp_ignore, ifp->arp_announce);
	return 1;
}

/* Step 3: forget what has been given back. */
static void
forget(struct ifm *m, const struct tbl_iface *ifp, const struct want *w)
{
	struct state_orig *rec = state_find(&m->st, ifp->ifindex);
	bool dirty = false;

	if (rec == NULL)
		return;
	if (!w->sysctl && rec->arp_ignore != STATE_NONE) {
		rec->arp_ignore = STATE_NONE;
		dirty = true;
	}
	if (!w->ann && rec->arp_announce != STATE_NONE) {
		rec->arp_announce = STATE_NONE;
		dirty = true;
	}
	if (rec->arp_ignore == STATE_NONE && rec->arp_announce == STATE_NONE) {
		state_del(&m->st, rec);
		dirty = true;
	}
	if (dirty)
		save_later(m);
}

/* Steps 2 and 3, and what the policy reads (managed, mode). */
static void
carry_out(struct ifm *m, const struct conf *c, struct tbl_iface *ifp, const struct want *w)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	int r;

	/* also heals an arp_ignore someone rewrote behind our back */
	if (w->sysctl && ifp->managed && ifp->mode != POL_MONITOR && ifp->conf_known &&
	    ifp->arp_ignore != IFM_ARP_IGNORE_NEVER)
		log_ctx(LOG_WARNING, &lc, "%s: arp_ignore was changed to %d by "
		    "someone else; setting it to %d again", ifp->name, ifp->arp_ignore,
		    IFM_ARP_IGNORE_NEVER);
	if ((r = set(m, c, ifp, w)) == -1) {
		/* Not given back: the kernel may stay silent there; an
		 * interface arpownd managed keeps being answered by it (managed
		 * stays as it was), and the next apply tries again. */
		return;
	}
	if (r == 1 && !w->sysctl && !ifp->managed) {
		const struct state_orig *rec = state_find(&m->st, ifp->ifindex);

		/* a previous run's record, for an interface this
		 * configuration leaves to the kernel */
		log_ctx(LOG_NOTICE, &lc, "%s: not managed by this configuration; "
		    "restored what a previous run saved: arp_ignore=%d arp_announce=%d",
		    ifp->name, rec ? rec->arp_ignore : -1, rec ? rec->arp_announce : -1);
	}
	forget(m, ifp, w);
	if (w->mode >= 0) {
		bool changed = !ifp->managed || ifp->mode != w->mode;

		if (changed && w->mode == POL_MONITOR)
			log_ctx(LOG_INFO, &lc, "%s: watched, mode monitor (the kernel "
			    "answers, its sysctls untouched)", ifp->name);
		else if (changed)
			log_ctx(LOG_INFO, &lc, "%s: managed, mode %s", ifp->name,
			    pol_mode_str(w->mode));
		ifp->mode = w->mode;
		ifp->managed = true;
		if (changed && m->event != NULL)
			m->event(m->event_arg, ifp);
	} else if (ifp->managed) {
		ifp->managed = false;
		log_ctx(LOG_INFO, &lc, "%s: no longer managed", ifp->name);
		if (m->event != NULL)
			m->event(m->event_arg, ifp);
	}
}

/* The settings the frame path reads, from c, whatever becomes of the
 * sysctls: after a reload they must never point into the old conf. */
static void
settle(const struct conf *c, struct tbl_iface *ifp)
{
	struct conf_ifset set;

	if (conf_iface(c, ifp->name, &set) == -1)
		memset(&set, 0, sizeof(set));
	ifp->allow = set.allow;
	ifp->deny = set.deny;
	ifp->allow_probes = set.allow_probes > 0;
	ifp->answer_path = set.answer_path > 0 ? set.answer_path : CONF_PATH_CAPTURE;
	ifp->announce = set.announce > 0;
	ifp->defend = set.defend > 0 ? set.defend : 0;
}

void
ifm_apply(struct ifm *m, const struct conf *c, struct tbl_iface *ifp)
{
	struct want w;

	settle(c, ifp);
	wants(m, c, ifp, &w);
	if (record(m, ifp, &w) && save(m) == -1) {
		back_to_disk(m);
		return;
	}
	carry_out(m, c, ifp, &w);
}

struct all {
	struct ifm		*m;
	const struct conf	*c;
	bool			 dirty;
};

static int
record_cb(struct tbl_iface *ifp, void *arg)
{
	struct all *a = arg;
	struct want w;

	settle(a->c, ifp);
	wants(a->m, a->c, ifp, &w);
	a->dirty |= record(a->m, ifp, &w);
	return 0;
}

static int
carry_out_cb(struct tbl_iface *ifp, void *arg)
{
	struct all *a = arg;
	struct want w;

	wants(a->m, a->c, ifp, &w);
	carry_out(a->m, a->c, ifp, &w);
	return 0;
}

static int
prepare_cb(struct tbl_iface *ifp, void *arg)
{
	struct all *a = arg;
	struct want w;

	wants(a->m, a->c, ifp, &w);
	a->dirty |= record(a->m, ifp, &w);
	return 0;
}

/* The save of ifm_apply_all, done before the reload swaps c in: a save
 * that fails there would leave c in force with the interfaces on the old
 * one's sysctls and modes (half a reload); here it refuses c whole.  The
 * records only: no interface record is touched. */
int
ifm_prepare(struct ifm *m, const struct conf *c)
{
	struct all a = { m, c, false };

	tbl_iface_each(m->t, prepare_cb, &a);
	if (a.dirty && save(m) == -1) {
		back_to_disk(m);
		return -1;
	}
	return 0;
}

/*
 * With a thousand interfaces a save (and fsync) per interface would take
 * seconds: every original first, in one save, before anything changes;
 * then the changes; then one save of what was given back.
 */
int
ifm_apply_all(struct ifm *m, const struct conf *c)
{
	struct all a = { m, c, false };

	tbl_iface_each(m->t, record_cb, &a);
	if (a.dirty && save(m) == -1) {
		back_to_disk(m);
		return -1;
	}
	m->batch = true;
	tbl_iface_each(m->t, carry_out_cb, &a);
	m->batch = false;
	if (m->dirty)
		(void)save(m);
	return 0;
}

void
ifm_adopt(struct ifm *m)
{
	struct state_orig *rec;
	struct tbl_iface *ifp;
	bool dirty = false;
	size_t i = 0;

	while (i < m->st.n) {
		rec = &m->st.v[i];
		if (rec->ifindex > 0)
			ifp = tbl_iface(m->t, rec->ifindex);
		else {
			/* a v1 record: the name is all it has */
			ifp = tbl_iface_byname(m->t, rec->name);
			if (ifp != NULL && state_find(&m->st, ifp->ifindex) == NULL) {
				(void)state_add(&m->st, ifp->ifindex, rec->name);
				dirty = true;
				continue;	/* the record is now ifp's: look again */
			}
			ifp = NULL;
		}
		/* Another name on the same ifindex: a rename while we were
		 * down keeps our 8 (or what a stop left); a link created with a freed ifindex (ip
		 * link add ... index N, a link moved in) starts at its own
		 * value, and the record is not its. */
		if (ifp != NULL && strcmp(ifp->name, rec->name) != 0 && ifp->conf_known &&
		    !ifm_ours(rec, ifp->arp_ignore)) {
			log_info("%s (ifindex %d): saved originals dropped: the interface "
			    "is gone, %s has its ifindex now", rec->name, rec->ifindex,
			    ifp->name);
			state_del(&m->st, rec);
			dirty = true;
			continue;
		}
		if (ifp == NULL) {
			/* its sysctls went with it: nothing to restore */
			log_info("%s (ifindex %d): saved originals dropped, the interface "
			    "is gone", rec->name, rec->ifindex);
			state_del(&m->st, rec);
			dirty = true;
			continue;
		}
		dirty |= follow_rename(m, ifp);
		/* an 8 saved as an original (the version before 0.2 could)
		 * would be "restored" into deafness: the default instead */
		if (rec->arp_ignore == IFM_ARP_IGNORE_NEVER) {
			rec->arp_ignore = ifm_original_ignore(rec->name, rec->arp_ignore);
			dirty = true;
		}
		i++;
	}
	if (dirty)
		(void)save(m);
}

void
ifm_gone(struct ifm *m, int ifindex)
{
	struct state_orig *rec = state_find(&m->st, ifindex);

	/* Its sysctls went with it: nothing to restore, nothing to keep.  A
	 * crash before the save leaves a record of a missing ifindex, which
	 * the next start drops. */
	if (rec != NULL) {
		state_del(&m->st, rec);
		save_later(m);
	}
}

/* Give rec's values back to ifp; 0 or -1 with errno. */
static int
give_back(struct ifm *m, const struct tbl_iface *ifp, const struct state_orig *rec)
{
	return rtnl_set_arp(m->r, ifp->ifindex, rec->arp_ignore, rec->arp_announce);
}

size_t
ifm_restore_all(struct ifm *m, bool originals)
{
	struct state_orig *rec;
	struct tbl_iface *ifp;
	size_t i = 0, left = 0;
	bool keep;
	int r;

	while (i < m->st.n) {
		rec = &m->st.v[i];
		if ((ifp = tbl_iface(m->t, rec->ifindex)) == NULL) {
			state_del(&m->st, rec);
			continue;
		}
		/* strict: the kernel answers from the owning NIC only, and
		 * the originals stay recorded for whoever gives them back */
		keep = !originals && rec->leave != STATE_NONE && rec->arp_ignore != STATE_NONE;
		if (keep)
			r = ifp->arp_ignore == rec->leave ? 0 :
			    rtnl_set_arp(m->r, ifp->ifindex, rec->leave, -1);
		else
			r = give_back(m, ifp, rec);
		if (r == -1 && errno != ENODEV) {
			struct log_ctx lc = { MSGID_SYSCTL, ifp->name, 0, 0, NULL };

			if (keep)
				log_ctx(LOG_ERR, &lc, "%s: cannot set arp_ignore=%d: %s; left "
				    "for arpownd --restore", ifp->name, rec->leave,
				    strerror(errno));
			else
				log_ctx(LOG_ERR, &lc, "%s: cannot restore arp_ignore=%d "
				    "arp_announce=%d: %s; left for arpownd --restore", ifp->name,
				    rec->arp_ignore, rec->arp_announce, strerror(errno));
			left++;
			i++;
			continue;
		}
		ifp->managed = false;
		if (keep) {
			if (r == 0 && ifp->arp_ignore != rec->leave)
				ls_conf_written(ifp, rec->leave, -1);
			i++;
			continue;
		}
		state_del(&m->st, rec);
	}
	(void)save(m);
	return left;
}

static int
managed_cb(struct tbl_iface *ifp, void *arg)
{
	struct { int *v; size_t n, cap; } *l = arg;
	int *v;

	if (!ifp->managed)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		if ((v = realloc(l->v, l->cap * sizeof(*v))) == NULL)
			return -1;
		l->v = v;
	}
	l->v[l->n++] = ifp->ifindex;
	return 0;
}

int *
ifm_managed_now(struct ifm *m, size_t *n)
{
	struct { int *v; size_t n, cap; } l = { NULL, 0, 0 };

	*n = 0;
	if (tbl_iface_each(m->t, managed_cb, &l) == -1) {
		free(l.v);
		return NULL;
	}
	*n = l.n;
	return l.v;
}

void
ifm_drain_mark(struct ifm *m, const int *v, size_t n, bool on)
{
	struct tbl_iface *ifp;
	size_t i;

	for (i = 0; i < n; i++)
		if ((ifp = tbl_iface(m->t, v[i])) != NULL &&
		    (on || ifm_record(m, v[i]) == NULL))
			ifp->managed = on;
}

const struct state_orig *
ifm_record(struct ifm *m, int ifindex)
{
	return state_find(&m->st, ifindex);
}

size_t
ifm_nrecords(const struct ifm *m)
{
	return m->st.n;
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
 * once, by writing lo's arp_ignore with the value it has (no change).
 */
int
ifm_can_set(struct ifm *m)
{
	struct tbl_iface *lo = NULL;

	tbl_iface_each(m->t, lo_cb, &lo);
	if (lo == NULL)
		return 0;	/* no lo in this namespace: the first change tells */
	if (rtnl_set_arp(m->r, lo->ifindex, lo->arp_ignore, -1) == -1 &&
	    (errno == EPERM || errno == EACCES))
		return -1;
	return 0;
}
