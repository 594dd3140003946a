/* kanxdp.c — which hook the kernel answer path takes on an interface:
 * XDP (arpownd_xdp: answered before the stack builds an skb, the request
 * consumed) where that answers exactly what TC would, else TC
 * (arpownd_answer: the request goes on for whoever comes after).  The
 * decision and its reason, for the log line and `arpownctl status`; an
 * interface put on the XDP hook, and taken off whichever it is on. */
#include "config.h"

#include <errno.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "kanint.h"
#include "kpath.h"
#include "log.h"
#include "msgid.h"
#include "policy.h"

int
kanx_choose(const struct tbl *t, const struct tbl_iface *ifp, bool filters, char *why, size_t len)
{
	const struct tbl_iface *m;
	char up[32];
	int n;

	why[0] = '\0';
	if (ifp->answer_path != CONF_PATH_AUTO && ifp->answer_path != CONF_PATH_XDP) {
		snprintf(why, len, "answer_path = kernel");
		return KANX_TC;
	}
	/* a bridge, bond, VLAN...: their frames come through a port or a
	 * lower device first, where an XDP program would see them (or not,
	 * the tag taken off in hardware) before the device they are for */
	if (ifp->kind[0] != '\0' && strcmp(ifp->kind, "veth") != 0) {
		snprintf(why, len, "a %s device: XDP is for the device frames arrive on", ifp->kind);
		return KANX_TC;
	}
	/* a port: TC ingress runs before the master's rx handler, and a new
	 * link instance keeps the program passing; at XDP the same holds,
	 * but what the port carries is the master's to answer */
	if (ifp->master != 0) {
		m = tbl_iface(t, ifp->master);
		snprintf(why, len, "a port of %s", m != NULL ? m->name : "a master device");
		return KANX_TC;
	}
	/* upper devices (VLAN, macvlan, ipvlan) get the frames through it: a
	 * request answered and consumed at XDP never reaches them, and a VLAN
	 * tag a NIC took off in hardware is not visible at XDP */
	if ((n = kp_uppers(ifp->ifindex, up, sizeof(up))) != 0) {
		if (n < 0)
			snprintf(why, len, "cannot list its upper devices");
		else
			snprintf(why, len, "it has %d upper device%s (%s)", n, n == 1 ? "" : "s", up);
		return KANX_TC;
	}
	/* another's TC filters (an admin's drop of a sender's ARP, or of
	 * replies): at TC arpownd runs after the ingress ones, last, and
	 * never sees what they dropped, and its replies pass the egress
	 * ones, as the kernel's do; at XDP it would answer before the first
	 * and send past the second (XDP_TX goes straight to the driver) */
	if (filters && (n = kp_tc_others(ifp->ifindex)) != 0) {
		if (n < 0)
			snprintf(why, len, "cannot list its TC filters");
		else
			snprintf(why, len, "%d other TC filter%s on it, which XDP would answer "
			    "past", n, n == 1 ? "" : "s");
		return KANX_TC;
	}
	/* a veth: native XDP_TX needs the peer's NAPI (an XDP program or GRO
	 * on the peer, maybe in another namespace, which arpownd cannot see:
	 * without it every reply is dropped); generic XDP sends through the
	 * device's own transmit and needs nothing of the peer */
	if (strcmp(ifp->kind, "veth") == 0)
		return KP_XDP_GENERIC;
	return KANX_ANY;
}

void
kan_unhook(struct kan *k, struct kan_if *s)
{
	kan_fold_one(k, s);
	(void)kp_del_iface(k->kp, s->ifindex);
	if (s->xdp != 0)
		(void)kp_xdp_detach(k->kp, s->ifindex);
	else
		(void)kp_detach(k->kp, s->ifindex);
	s->attached = false;
	s->xdp = 0;
}

bool
kan_hook_xdp(struct kan *k, struct tbl_iface *ifp, struct kan_if *s, int mode)
{
	struct log_ctx lc = { MSGID_IFACE, ifp->name, 0, 0, NULL };
	bool named = ifp->answer_path == CONF_PATH_XDP;
	char why[128];
	int got = 0;

	if (kp_xdp_attach(k->kp, ifp->ifindex, mode, &got, why, sizeof(why)) == -1) {
		/* asked for by name and held by another program: a
		 * configuration this host cannot honour (at the start: no
		 * start, kan_refused) */
		if (named && (errno == EEXIST || errno == EBUSY) && k->refused[0] == '\0')
			snprintf(k->refused, sizeof(k->refused), "%s: answer_path = xdp: %s",
			    ifp->name, why);
		snprintf(ifp->kpath_why, sizeof(ifp->kpath_why), "%s", why);
		if (!s->said)
			log_ctx(named ? LOG_ERR : LOG_NOTICE, &lc,
			    "%s: %s%s; the kernel path answers there at TC", ifp->name,
			    named ? "answer_path = xdp cannot be honoured: " :
			    "not answered at XDP: ", why);
		return false;
	}
	s->xdp = got;
	log_ctx(LOG_INFO, &lc, "%s: answered by the kernel path at XDP (%s mode); its "
	    "answers and the requests they answer are not seen by tcpdump: see arpownctl "
	    "counters", ifp->name, got == KP_XDP_NATIVE ? "native" : "generic");
	return true;
}

/* The first interface nc would put at XDP where another program is. */
struct conflict {
	struct kan		*k;
	const struct conf	*nc;
	char			*err;
	size_t			 errlen;
	bool			 found;
};

static int
conflict_cb(struct tbl_iface *ifp, void *arg)
{
	struct conflict *c = arg;
	struct kan_if *s = kan_slot(c->k, ifp->ifindex, false);
	struct conf_ifset set;
	struct tbl_iface as;
	char why[128], other[96];

	if (conf_iface(c->nc, ifp->name, &set) == -1 || set.answer_path != CONF_PATH_XDP ||
	    !pol_answers(set.mode) || ifp->type != ARPHRD_ETHER ||
	    (s != NULL && s->attached && s->xdp != 0))
		return 0;
	/* where xdp itself would go to TC (a bridge, a port, a VLAN's
	 * lower device), no XDP hook is asked of the other program */
	as = *ifp;
	as.answer_path = CONF_PATH_XDP;
	if (kanx_choose(c->k->d.tbl, &as, true, why, sizeof(why)) == KANX_TC ||
	    kp_xdp_other(ifp->ifindex, other, sizeof(other)) <= 0)
		return 0;
	snprintf(c->err, c->errlen, "%s: answer_path = xdp: another XDP program is on it: "
	    "%s; it is never replaced (answer_path = auto answers there at TC)", ifp->name,
	    other);
	c->found = true;
	return 1;
}

bool
kan_xdp_conflict(struct kan *k, const struct conf *nc, char *err, size_t errlen)
{
	struct conflict c = { k, nc, err, errlen, false };

	if (k == NULL || !k->started)
		return false;
	(void)tbl_iface_each(k->d.tbl, conflict_cb, &c);
	return c.found;
}
