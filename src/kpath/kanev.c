/* kanev.c — the kernel answer path's events, read from its ring: a
 * sender to learn (the program holds it to the learning rate, the table
 * has the last word on the subnet) and a probe for one of ours (a note
 * for the operator, as the capture path gives). */
#include "config.h"

#include <ev.h>
#include <string.h>

#include "arp.h"
#include "kanint.h"
#include "log.h"
#include "notes.h"
#include "rtnl.h"
#include "stats.h"
#include "table.h"

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

void
kan_events(struct kan *k)
{
	if (kp_consume(k->kp, event, k) == -1)
		log_warn("kernel answer path: events");
}
