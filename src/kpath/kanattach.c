/* kanattach.c — the kernel answer path's attach policy: which interfaces
 * the program sits on (managed, answering, answer_path not capture,
 * Ethernet) and on which hook (XDP or TC: kanxdp.c), attached, moved or
 * detached as that changes, and the holders of an interface's addresses
 * written again when it stops or starts being usable. */
#include "config.h"

#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>

#include "kanint.h"
#include "kpfeed.h"
#include "log.h"
#include "msgid.h"
#include "policy.h"
#include "table.h"

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

/* A path that must load (kernel, xdp): its failures are errors. */
static bool
requires(int path)
{
	return path == CONF_PATH_KERNEL || path == CONF_PATH_XDP;
}

void
kan_ifapply(struct kan *k, struct tbl_iface *ifp)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	struct kan_if *s = kan_slot(k, ifp->ifindex, true);
	bool want = wants(k, ifp), u, fresh = false;
	char why[256];
	size_t j;
	int others = 0, hook = KANX_TC;

	ifp->kpath = false;
	if (s == NULL)
		return;
	/* the hook it should be on: XDP where that answers what TC would */
	if (want)
		hook = kanx_choose(k->d.tbl, ifp, true, ifp->kpath_why, sizeof(ifp->kpath_why));
	/* at TC because another's XDP program holds the hook: there it
	 * stays while that program is there (no detach and failed attach
	 * at every event); once it is gone, to XDP */
	if (want && hook != KANX_TC && s->attached && s->xdp == 0 && ifp->xdp_id != 0) {
		/* the table's program id (linksync, LS_XDP when it changes)
		 * says so; its name asked once per program, not at every
		 * feed: each query is a dump of every link, and a publish
		 * feeds every interface again */
		if (s->other_id != ifp->xdp_id) {
			if (kp_xdp_other(ifp->ifindex, s->other, sizeof(s->other)) <= 0)
				snprintf(s->other, sizeof(s->other), "id %u", ifp->xdp_id);
			s->other_id = ifp->xdp_id;
		}
		snprintf(ifp->kpath_why, sizeof(ifp->kpath_why),
		    "another XDP program is on it: %.64s", s->other);
		hook = KANX_TC;
	}
	/* on the other hook than it should be (a reload changed its path, it
	 * became a port, a VLAN came on it): off, then on the right one */
	if (want && s->attached && (hook == KANX_TC) != (s->xdp == 0)) {
		kan_unhook(k, s);
		log_ctx(LOG_INFO, &lc, "%s: the kernel path moves to %s", ifp->name,
		    hook == KANX_TC ? "TC" : "XDP");
	}
	if (want && !s->attached && hook != KANX_TC && kan_hook_xdp(k, ifp, s, hook)) {
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
		kan_unhook(k, s);
		log_ctx(LOG_INFO, &lc, "%s: no longer answered by the kernel path", ifp->name);
	}
	ifp->kpath_xdp = s->attached ? s->xdp : 0;
	/* its grants too when it is new here, or when asked (an interface's
	 * own event); all_again (kanswer.c) writes them all after, a change of the
	 * configuration or the published set leaves them as they are */
	if (s->attached)
		kan_feed(k, ifp, !k->bulk && (fresh || k->feed_grants));
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

/* The interfaces the program is due on and not yet on, gathered for one
 * batch of attaches (at 1,000 interfaces, one at a time was most of a
 * start). */
struct wanted {
	struct kan	*k;
	int		*v;
	size_t		 n, a;
};

static int
wanted_cb(struct tbl_iface *ifp, void *arg)
{
	struct wanted *w = arg;
	struct kan_if *s = kan_slot(w->k, ifp->ifindex, false);
	char why[96];
	int *nv;

	/* at TC only: an interface bound for XDP is attached alone */
	if (!wants(w->k, ifp) || (s != NULL && s->attached) ||
	    kanx_choose(w->k->d.tbl, ifp, true, why, sizeof(why)) != KANX_TC)
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

int
kan_attach_due(struct kan *k)
{
	struct wanted w = { k, NULL, 0, 0 };
	char why[256];
	int rc = 0;

	/* every filter that is due, in one batch: kan_ifapply() finds them
	 * there (one that failed, it tries again alone and says why) */
	if (tbl_iface_each(k->d.tbl, wanted_cb, &w) == 0 && w.n > 0)
		rc = kp_attach_many(k->kp, w.v, w.n, why, sizeof(why));
	free(w.v);
	return rc;
}
