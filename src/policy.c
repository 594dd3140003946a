/* policy.c — the one decision arpownd makes: answer this request or not,
 * judged against the table as it is now.  Pure. */
#include "config.h"

#include <net/if.h>
#include <net/if_arp.h>
#include <string.h>

#include "policy.h"
#include "publish.h"

static bool
usable(const struct tbl_iface *ifp)
{
	return ifp->managed && ifp->mode != POL_OFF && (ifp->flags & IFF_UP);
}

/* An address no interface holds, published on the arrival interface:
 * answered as if owned, with the entry's MAC or the interface's. */
static enum pol_verdict
published(const struct tbl *t, const struct tbl_iface *in, const struct pub *pub,
    const struct arp_req *req, struct pol_result *res)
{
	const struct pub_entry *e = pub_lookup(pub, req->tip, in->name);

	if (e == NULL)
		return res->verdict = pub != NULL && pub_find(pub, req->tip) != NULL ?
		    POL_OTHER_IFACE : POL_NOT_LOCAL;	/* published elsewhere */
	res->pub = e;
	res->mac = e->has_mac ? e->mac : in->mac;
	/* subnet: the sender on one of the interface's subnets */
	if (in->mode == POL_SUBNET && req->sip != 0 && !tbl_in_subnet(t, in, req->sip))
		return res->verdict = POL_NOT_SUBNET;
	return res->verdict = POL_ANSWER;
}

/* Is mac one of ours: an interface's, or a published entry's? */
static bool
our_mac(const struct tbl *t, const struct pub_entry *e, const uint8_t mac[static 6])
{
	return tbl_is_our_mac(t, mac) || (e != NULL && e->has_mac && memcmp(e->mac, mac, 6) == 0);
}

enum pol_verdict
pol_decide(const struct tbl *t, const struct pub *pub, const struct arp_req *req,
    struct pol_result *res)
{
	const struct pub_entry *sp;
	struct tbl_iface *in, *holder;

	memset(res, 0, sizeof(*res));
	if ((in = res->in = tbl_iface(t, req->ifindex)) == NULL)
		return res->verdict = POL_UNKNOWN_IFACE;
	if (!in->managed)
		return res->verdict = POL_UNMANAGED;
	if (in->mode == POL_OFF)
		return res->verdict = POL_MODE_OFF;
	/* monitor: what owner mode would say; the daemon sends nothing */
	if (!(in->flags & IFF_UP))
		return res->verdict = POL_LINK_DOWN;

	/* A sender using one of our addresses: either our own request seen
	 * by a sibling NIC on the same segment, or someone claiming it.
	 * The kernel drops both (martian source); so do we. */
	if (req->sip != 0 && tbl_addr_owner(t, req->sip, NULL) != NULL) {
		if (tbl_is_our_mac(t, req->sha))
			return res->verdict = POL_OWN_SENDER;
		return res->verdict = POL_CONFLICT;
	}
	/* the same for an address we publish on this interface */
	if (req->sip != 0 && (sp = pub_lookup(pub, req->sip, in->name)) != NULL) {
		res->pub = sp;
		return res->verdict = our_mac(t, sp, req->sha) ? POL_OWN_SENDER : POL_CONFLICT;
	}

	/* allow_senders / deny_senders (deny wins), allow_probes */
	if (req->sip == 0 && !in->allow_probes)
		return res->verdict = POL_PROBE_DENIED;
	if (req->sip != 0 && ((in->deny != NULL && rng_has(in->deny, req->sip)) ||
	    (in->allow != NULL && !rng_has(in->allow, req->sip))))
		return res->verdict = POL_SENDER_DENIED;

	if (in->mode == POL_SYSTEM) {
		holder = tbl_addr_owner(t, req->tip, usable);
		if (holder == NULL)
			return published(t, in, pub, req, res);
		if (!usable(holder))
			return res->verdict = POL_OTHER_IFACE;
		res->owner = holder;
		res->mac = in->mac;	/* the kernel's weak-host reply */
		return res->verdict = POL_ANSWER;
	}

	if (!tbl_addr_on(t, in->ifindex, req->tip)) {
		/* an address an interface holds is never published elsewhere */
		if ((res->owner = tbl_addr_owner(t, req->tip, NULL)) != NULL)
			return res->verdict = POL_OTHER_IFACE;
		return published(t, in, pub, req, res);
	}
	res->owner = in;
	res->mac = in->mac;
	/*
	 * The kernel's own test (inet_confirm_addr): one of the interface's
	 * subnets must hold the target and, for arp_ignore=2, the sender too.
	 * Holding the target is not enough: 192.168.1.50 asking eth0 for
	 * 10.0.0.1 is refused even when eth0 also has 192.168.1.1/24.  A
	 * probe has no sender to check.
	 */
	if (in->mode == POL_SUBNET && req->sip != 0)
		return res->verdict = tbl_covers(t, in, req->tip, req->sip) ?
		    POL_ANSWER : POL_NOT_SUBNET;
	if (!tbl_covers(t, in, req->tip, req->tip))
		return res->verdict = POL_NOT_SUBNET;
	return res->verdict = POL_ANSWER;
}

bool
pol_kernel_answers(const struct tbl *t, const struct arp_req *req, int arp_ignore)
{
	const struct tbl_iface *in = tbl_iface(t, req->ifindex);

	if (in == NULL || !(in->flags & IFF_UP))
		return false;
	/* a local sender fails the kernel's source check (a martian) */
	if (req->sip != 0 && tbl_addr_owner(t, req->sip, NULL) != NULL)
		return false;
	if (tbl_addr_owner(t, req->tip, NULL) == NULL)
		return false;	/* not local: proxy ARP, if anything */
	switch (arp_ignore) {
	case 1:
		return tbl_addr_on(t, in->ifindex, req->tip) &&
		    tbl_covers(t, in, req->tip, req->tip);
	case 2:
		return tbl_addr_on(t, in->ifindex, req->tip) &&
		    tbl_covers(t, in, req->tip, req->sip != 0 ? req->sip : req->tip);
	case 8:
		return false;
	default:	/* 0, 3 (scopes not tracked), 4 to 7 (reserved: reply) */
		return true;
	}
}

static const char *const verdict_names[POL_NVERDICTS] = {
	[POL_ANSWER] = "answered",
	[POL_UNKNOWN_IFACE] = "unknown_interface",
	[POL_UNMANAGED] = "unmanaged",
	[POL_MODE_OFF] = "mode_off",
	[POL_LINK_DOWN] = "link_down",
	[POL_NOT_LOCAL] = "not_local",
	[POL_OTHER_IFACE] = "other_interface",
	[POL_NOT_SUBNET] = "not_subnet",
	[POL_OWN_SENDER] = "own_sender",
	[POL_CONFLICT] = "conflict",
	[POL_SENDER_DENIED] = "sender_denied",
	[POL_PROBE_DENIED] = "probe_denied",
	[POL_RP_FILTER] = "rp_filter",
	[POL_ARP_FILTER] = "arp_filter",
	[POL_RP_UNCHECKED] = "rp_unchecked",
};

const char *
pol_verdict_str(enum pol_verdict v)
{
	if ((unsigned)v >= POL_NVERDICTS)
		return "?";
	return verdict_names[v];
}

static const char *const mode_names[POL_NMODES] = {
	[POL_OWNER] = "owner",
	[POL_SUBNET] = "subnet",
	[POL_SYSTEM] = "system",
	[POL_OFF] = "off",
	[POL_MONITOR] = "monitor",
};

const char *
pol_mode_str(enum pol_mode m)
{
	if ((unsigned)m >= POL_NMODES)
		return "?";
	return mode_names[m];
}

int
pol_mode_parse(const char *s)
{
	int m;

	for (m = 0; m < POL_NMODES; m++)
		if (strcmp(s, mode_names[m]) == 0)
			return m;
	return -1;
}

bool
pol_answers(int m)
{
	return m == POL_OWNER || m == POL_SUBNET || m == POL_SYSTEM;
}
