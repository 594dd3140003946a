/* kanroom.c — what the kernel answer path's maps have no room for.  A map
 * cannot grow once made (and making it again takes CAP_BPF, gone after
 * the start), so what a full map refuses is passed up to the capture
 * path, which answers it, and kept by kproom.c until it is written or no
 * longer wanted.  Here it is written again when something was deleted
 * (room, maybe) and every KANROOM_TICK while any is out, and said: one
 * warning when it starts (which address, how many, why), one notice when
 * all of it fits again; status and the metrics have the numbers. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "kanroom.h"
#include "kpath.h"
#include "kpfeed.h"
#include "log.h"
#include "msgid.h"
#include "report.h"
#include "table.h"

struct kanroom {
	struct ev_loop		*loop;
	struct kp		*kp;
	const struct tbl	*tbl;
	kanroom_fn		*again;
	void			*arg;
	ev_timer		 tick;
	bool			 room;		/* deleted since the last tick */
	bool			 short_said, stall_said;
};

static bool
any(const struct kp_room *m)
{
	return m->grants > 0 || m->published > 0 || m->ifaces > 0 || m->mirror > 0;
}

/* What did not fit, written again; the grants until one still does not
 * (the map is full yet: the rest would not fit either).  mirror: read the
 * kernel's entries again too (a dump of them all, so at a tick alone). */
static void
retry(struct kanroom *r, const struct kp_room *m, bool mirror)
{
	uint64_t keys[KANROOM_BATCH];
	struct kp_room after;
	size_t n, i;

	if (mirror && m->mirror > 0 && kp_remirror(r->kp) == 0) {
		kp_room(r->kp, &after);
		if (after.mirror < m->mirror) {
			/* grants written while their entry was missing never
			 * confirm: every one again */
			r->again(r->arg, true);
			return;
		}
	}
	n = kp_unheld(r->kp, keys, KANROOM_BATCH);
	for (i = 0; i < n; i++)
		if (kpf_addr(r->kp, r->tbl, (int)(keys[i] >> 32), (uint32_t)keys[i]) == -1 &&
		    errno == E2BIG)
			break;
	if (m->published > 0 || m->ifaces > 0)
		r->again(r->arg, false);
}

/* The journal, when it starts and when it ends. */
static void
say(struct kanroom *r, const struct kp_room *m)
{
	const struct tbl_iface *ifp = NULL;
	struct log_ctx lc = { MSGID_IFACE, NULL, 0, 0, NULL };
	char a[INET_ADDRSTRLEN] = "?";
	int ifindex;

	/* the example only when a line is due: a walk of them all */
	if ((m->stalled != r->stall_said || any(m) != r->short_said) &&
	    (m->stalled || any(m))) {
		kp_room_example(r->kp, &ifindex, &lc.addr);
		if (lc.addr != 0) {
			inet_ntop(AF_INET, &lc.addr, a, sizeof(a));
			ifp = ifindex != 0 ? tbl_iface(r->tbl, ifindex) :
			    tbl_addr_owner(r->tbl, lc.addr, NULL);
			lc.ifname = ifp != NULL ? ifp->name : NULL;
		}
	}
	if (m->stalled && !r->stall_said)
		log_ctx(LOG_WARNING, &lc, "kernel answer path: no room to mark %s%s%s as one of "
		    "the host's addresses (its maps were sized for %u address entries at the "
		    "start): it answers nothing, and the capture path answers everything, "
		    "until there is room", a, lc.ifname ? " on " : "", lc.ifname ? lc.ifname : "",
		    m->max_addrs);
	else if (!m->stalled && r->stall_said)
		log_ctx(LOG_NOTICE, &lc, "kernel answer path: every host address is marked "
		    "again; it answers again");
	r->stall_said = m->stalled;
	if (any(m) && !r->short_said)
		log_ctx(LOG_WARNING, &lc, "kernel answer path: its maps (sized for %u address "
		    "entries at the start) are full: %zu address%s (%s%s%s first), %zu published "
		    "range%s, %zu interface%s' sender lists and %llu kernel address entr%s do not "
		    "fit; the capture path answers them until there is room (arpownctl status)",
		    m->max_addrs, m->grants, m->grants == 1 ? "" : "es", a,
		    lc.ifname ? " on " : "", lc.ifname ? lc.ifname : "", m->published,
		    m->published == 1 ? "" : "s", m->ifaces, m->ifaces == 1 ? "'s" : "s",
		    (unsigned long long)m->mirror, m->mirror == 1 ? "y" : "ies");
	else if (!any(m) && r->short_said)
		log_ctx(LOG_NOTICE, &lc, "kernel answer path: everything fits in its maps again");
	r->short_said = any(m);
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kanroom *r = w->data;
	struct kp_room m;

	(void)loop;
	(void)revents;
	kp_room(r->kp, &m);
	if (any(&m)) {
		retry(r, &m, r->room);
		r->room = false;
		kp_room(r->kp, &m);
	}
	say(r, &m);
	if (!any(&m))
		ev_timer_stop(r->loop, &r->tick);
}

struct kanroom *
kanroom_new(struct ev_loop *loop, struct kp *kp, const struct tbl *t, kanroom_fn *again,
    void *arg)
{
	struct kanroom *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->loop = loop;
	r->kp = kp;
	r->tbl = t;
	r->again = again;
	r->arg = arg;
	ev_timer_init(&r->tick, tick_cb, KANROOM_TICK, KANROOM_TICK);
	r->tick.data = r;
	return r;
}

void
kanroom_free(struct kanroom *r)
{
	if (r == NULL)
		return;
	ev_timer_stop(r->loop, &r->tick);
	free(r);
}

void
kanroom_check(struct kanroom *r)
{
	struct kp_room m;

	if (r == NULL)
		return;
	kp_room(r->kp, &m);
	if (kp_take_room(r->kp) && any(&m)) {
		r->room = true;		/* the mirror at the next tick */
		retry(r, &m, false);
		kp_room(r->kp, &m);
	}
	say(r, &m);
	if (any(&m) && !ev_is_active(&r->tick))
		ev_timer_again(r->loop, &r->tick);
	else if (!any(&m))
		ev_timer_stop(r->loop, &r->tick);
}

void
kanroom_view(struct kanroom *r, struct rpt_kpath *out)
{
	struct kp_room m;
	int ifindex;

	memset(out, 0, sizeof(*out));
	if (r == NULL)
		return;
	kp_room(r->kp, &m);
	out->loaded = true;
	out->answering = !m.stalled && !kp_needs_resync(r->kp);
	out->capacity = m.max_addrs;
	out->map_bytes = m.map_bytes;
	out->unheld = m.grants;
	out->unheld_published = m.published;
	out->unheld_interfaces = m.ifaces;
	out->unheld_mirror = m.mirror;
	kp_room_example(r->kp, &ifindex, &out->example);
}
