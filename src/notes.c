/* notes.c — what an operator reads about requests and claims.  A request
 * costs no log line unless it says something: one network asking for
 * another's address, a probe for ours, what monitor mode would have
 * refused, a conflict.  The frequent kinds are throttled per (sender,
 * target) pair in fixed memory, so a storm costs a few lines. */
#include "config.h"

#include <stdlib.h>

#include "conflict.h"
#include "log.h"
#include "msgid.h"
#include "notes.h"
#include "throttle.h"
#include "util.h"

/* The kinds of throttled lines, each with its own memory. */
enum note_kind { NOTE_REFUSAL, NOTE_PROBE, NOTE_MONITOR, NOTE_KINDS };

struct notes {
	const struct tbl	*tbl;
	struct thr		*thr[NOTE_KINDS];
};

struct notes *
note_new(const struct tbl *t)
{
	struct notes *n;
	int i;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->tbl = t;
	for (i = 0; i < NOTE_KINDS; i++)
		if ((n->thr[i] = thr_new(NOTE_KEYS, NOTE_INTERVAL, NOTE_LINES)) == NULL) {
			note_free(n);
			return NULL;
		}
	return n;
}

void
note_free(struct notes *n)
{
	int i;

	if (n == NULL)
		return;
	for (i = 0; i < NOTE_KINDS; i++)
		thr_free(n->thr[i]);
	free(n);
}

/* A line of this kind at most once per (a, b) per interval. */
static bool
allowed(struct notes *n, enum note_kind kind, uint32_t a, uint32_t b, double now)
{
	return thr_allow(n->thr[kind], (uint64_t)a << 32 | b, now, NULL);
}

/* The seed's firewall story, made visible: a request refused because the
 * target is another interface's and the sender is not on that interface's
 * networks (two NICs on one segment hear each other's requests all day:
 * not news), or because the sender is outside the subnets, is someone
 * asking from one network for what is on another. */
void
note_refusal(struct notes *n, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v, double now)
{
	struct log_ctx lc = { MSGID_PROBE, res->in->name, req->tip, req->sip, req->sha };

	if ((v != POL_OTHER_IFACE && v != POL_NOT_SUBNET) || !log_enabled(LOG_INFO))
		return;
	/* a probe (sender 0.0.0.0) says nothing of where it comes from */
	if (v == POL_OTHER_IFACE && (req->sip == 0 ||
	    (res->owner != NULL && tbl_in_subnet(n->tbl, res->owner, req->sip))))
		return;
	if (!allowed(n, NOTE_REFUSAL, req->sip, req->tip, now))
		return;
	if (v == POL_OTHER_IFACE && res->owner != NULL)
		log_ctx(LOG_INFO, &lc, "%s: refused who-has %s from %s: owned by %s, "
		    "not by this interface", res->in->name, log_ip(req->tip),
		    log_ip(req->sip), res->owner->name);
	else
		log_ctx(LOG_INFO, &lc, "%s: refused who-has %s from %s: %s",
		    res->in->name, log_ip(req->tip), log_ip(req->sip), pol_verdict_str(v));
}

void
note_probe(struct notes *n, const struct arp_req *req, const struct tbl_iface *in,
    double now)
{
	struct log_ctx lc = { MSGID_PROBE, in->name, req->tip, 0, req->sha };
	char mac[18];

	if (!allowed(n, NOTE_PROBE, 0, req->tip, now))
		return;
	log_ctx(LOG_NOTICE, &lc, "%s: %s probes for %s, which is ours: someone is "
	    "about to take this address", in->name, util_mac_str(req->sha, mac),
	    log_ip(req->tip));
}

void
note_monitor(struct notes *n, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v, const struct tbl_iface *in, double now)
{
	struct log_ctx lc = { MSGID_MONITOR, in->name, req->tip, req->sip, req->sha };

	if (!log_enabled(LOG_INFO) || !allowed(n, NOTE_MONITOR, req->sip, req->tip, now))
		return;
	log_ctx(LOG_INFO, &lc, "%s: the kernel answered who-has %s from %s; arpownd "
	    "(owner) would refuse: %s%s%s", in->name, log_ip(req->tip),
	    log_ip(req->sip), pol_verdict_str(v),
	    res->owner && res->owner != in ? ", owned by " : "",
	    res->owner && res->owner != in ? res->owner->name : "");
}

void
note_answered(const struct arp_req *req, const struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_ANSWER, in->name, req->tip, req->sip, req->sha };

	if (!log_enabled(LOG_DEBUG))
		return;
	log_ctx(LOG_DEBUG, &lc, "%s: answered who-has %s from %s", in->name,
	    log_ip(req->tip), log_ip(req->sip));
}

void
note_not_answered(const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v)
{
	struct log_ctx lc;

	if (!log_enabled(LOG_DEBUG) || res->in == NULL)
		return;
	lc = (struct log_ctx){ MSGID_REFUSED, res->in->name, req->tip, req->sip, req->sha };
	log_ctx(LOG_DEBUG, &lc, "%s: not answering who-has %s from %s: %s%s%s",
	    res->in->name, log_ip(req->tip), log_ip(req->sip), pol_verdict_str(v),
	    res->owner && res->owner != res->in ? ", owned by " : "",
	    res->owner && res->owner != res->in ? res->owner->name : "");
}

void
note_claim(const struct arp_req *req, const struct tbl_iface *in,
    const struct tbl_iface *holder, bool more)
{
	struct log_ctx lc = { MSGID_CONFLICT, in->name, req->sip, req->sip, req->sha };
	char mac[18];

	log_ctx(LOG_WARNING, &lc, "%s: address conflict: %s is ours%s%s, but %s "
	    "claims it%s", in->name, log_ip(req->sip), holder ? ", on " : "",
	    holder ? holder->name : "", util_mac_str(req->sha, mac),
	    more ? " (more claims since the last report)" : "");
}

void
note_defended(const struct arp_req *req, const struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_CONFLICT, in->name, req->sip, req->sip, req->sha };
	char mac[18];

	log_ctx(LOG_NOTICE, &lc, "%s: defended %s against %s with an announcement",
	    in->name, log_ip(req->sip), util_mac_str(req->sha, mac));
}

void
note_gave_up(const struct arp_req *req, const struct tbl_iface *in)
{
	struct log_ctx lc = { MSGID_CONFLICT, in->name, req->sip, req->sip, req->sha };
	char mac[18];

	log_ctx(LOG_ERR, &lc, "%s: address conflict on %s persists after its defence: %s "
	    "keeps claiming it; not defending it again until the claims stop for "
	    "%.0f s (defend = once)", in->name, log_ip(req->sip),
	    util_mac_str(req->sha, mac), CFL_INTERVAL);
}
