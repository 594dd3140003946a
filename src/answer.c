/* answer.c — the frame path.  Each captured frame is checked (arp.c),
 * decided against the current table and published set (policy.c),
 * rate-limited per sender and in all (limit.c), answered from the arrival
 * interface with the owner's MAC (capture.c), counted per interface, and
 * its requester put into the neighbour table as the kernel does.  A frame
 * that claims one of our addresses goes to the conflict tracker. */
#include "config.h"

#include <arpa/inet.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <time.h>

#include "announcer.h"
#include "answer.h"
#include "arp.h"
#include "capture.h"
#include "conflict.h"
#include "inforce.h"
#include "limit.h"
#include "log.h"
#include "notes.h"
#include "policy.h"
#include "rpf.h"
#include "rtnl.h"
#include "stats.h"
#include "table.h"

#define SPIN_MAX	(CONF_BUSY_POLL_MAX * 1e-6)	/* never longer in one go */

struct ans {
	struct ans_deps		 d;
	double			 batch;		/* the loop's time for this batch */
	double			 now;		/* the frame's arrival, for the limits */
};

struct ans *
ans_new(const struct ans_deps *d)
{
	struct ans *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->d = *d;
	return a;
}

void
ans_free(struct ans *a)
{
	free(a);
}

/* Count into the daemon's total and, when known, the interface's. */
#define COUNT(a, s, field) do {					\
	struct stats_if *s_ = (s);				\
	(a)->d.st->all.field++;					\
	if (s_ != NULL)						\
		s_->field++;					\
} while (0)

/* Per sender and in total; fixed memory whatever the number of senders. */
static bool
rate_allowed(struct ans *a, struct stats_if *is, const struct arp_req *req)
{
	const struct conf *c = inf_conf();

	if (c->sender_rate > 0 &&
	    !lim_sender(a->d.lim, req->sip, req->sha, c->sender_rate, a->now)) {
		COUNT(a, is, limited_sender);
		return false;
	}
	if (c->total_rate > 0 && !lim_take(&a->d.lim->total, c->total_rate, a->now)) {
		COUNT(a, is, limited_total);
		return false;
	}
	return true;
}

static void
answer(struct ans *a, const struct arp_req *req, const struct pol_result *res,
    struct stats_if *is)
{
	uint8_t reply[ARP_FRAME_LEN];
	size_t len;

	if (!rate_allowed(a, is, req))
		return;
	/* From the arrival interface with its MAC: in owner and subnet modes
	 * that is the owner; in system mode it is what the kernel's
	 * weak-host reply looks like. */
	len = arp_build_reply(req, res->mac, reply);
	cap_send(a->d.cap, req->ifindex, reply, len);
	COUNT(a, is, replies);
	note_answered(req, res->in);
	/* What the kernel's neigh_event_ns() does when it answers. */
	if (inf_conf()->learn && req->sip != 0 && tbl_in_subnet(a->d.tbl, res->in, req->sip) &&
	    lim_take(&a->d.lim->learn, ANS_LEARN_RATE, a->now)) {
		rtnl_learn(a->d.rtnl, req->ifindex, req->sip, req->sha);
		a->d.st->learned++;
	}
}

static void flush(struct ans *a, const char *what);

static int
local_cb(struct tbl_iface *ifp, void *arg)
{
	uint32_t *dst = arg;
	size_t i;

	for (i = 0; i < ifp->naddrs; i++)
		if ((ntohl(ifp->addrs[i].addr) >> 24) != 127) {
			*dst = ifp->addrs[i].addr;
			return 1;
		}
	return 0;
}

/* An answerable request, through the kernel's reverse-path checks
 * (rp_filter, arp_filter) as arp_process() makes them: POL_ANSWER, or the
 * verdict that refuses it.  A published address is not the kernel's: the
 * checks are made as for one of its addresses (the arrival interface's
 * first, else any interface's); with none at all, not made. */
static enum pol_verdict
reverse_path(struct ans *a, const struct arp_req *req, const struct pol_result *res)
{
	uint32_t dst = req->tip;

	if (a->d.rpf == NULL || req->sip == 0 || !res->in->rp_check)
		return POL_ANSWER;
	if (res->owner == NULL && res->pub != NULL) {
		dst = 0;
		if (local_cb(res->in, &dst) == 0 && tbl_iface_each(a->d.tbl, local_cb, &dst) == 0)
			return POL_ANSWER;
	}
	switch (rpf_check(a->d.rpf, res->in, req->sip, req->tip, dst, a->now)) {
	case RPF_OK:
		return POL_ANSWER;
	case RPF_RP_FILTER:
		return POL_RP_FILTER;
	case RPF_ARP_FILTER:
		return POL_ARP_FILTER;
	default:
		return POL_RP_UNCHECKED;
	}
}

/* A frame that may claim one of our addresses: judged, counted, reported
 * and defended as the conflict tracker says. */
static void
claim(struct ans *a, const struct arp_req *req, struct tbl_iface *in)
{
	struct cfl_judgement j;

	cfl_judge(a->d.cfl, a->d.tbl, inf_pub(), req, in, a->now, &j);
	if (!j.claim)
		return;
	COUNT(a, tbl_iface_stats(in), conflicts);
	if (j.log)
		note_claim(req, in, j.holder, j.more);
	switch (j.action) {
	case CFL_DEFEND:
		if (anr_defend(a->d.anr, in, req->sip, j.mac)) {
			COUNT(a, tbl_iface_stats(in), defences);
			if (cfl_log_more(a->d.cfl, req->sip, CFL_LINE_DEFENDED, a->now))
				note_defended(req, in);
		}
		break;
	case CFL_GIVE_UP:
		if (cfl_log_more(a->d.cfl, req->sip, CFL_LINE_GAVE_UP, a->now))
			note_gave_up(req, in);
		break;
	case CFL_IGNORE:
		break;
	}
}

static double wall(void);

/*
 * When the frame came, on the clock of the loop (ev_now(): CLOCK_REALTIME,
 * the clock of the capture's and the kept socket's stamps).  A request
 * read late (a backlog after a busy moment, the gap of a restart) costs
 * what it cost when it was sent, not a share of a burst; a stamp from the
 * future or from long ago (a clock stepped since) is taken as now.  The
 * future is the clock's now, not the loop's: the loop's time is when it
 * woke, and frames that came after that (while a batch is read, or while
 * the process waited for a CPU after it woke: 300 ms on a loaded host)
 * would otherwise all be charged at that one time, a burst of them.
 */
static double
arrival(uint64_t ts, double now)
{
	double t = (double)ts * 1e-9;

	if (ts == 0 || t < now - ANS_MAX_LATE || (t > now && t > wall()))
		return now;
	return t;
}

void
ans_frame(struct ans *a, const uint8_t *pkt, size_t caplen, uint64_t ts, double now)
{
	struct tbl_iface *in;
	struct pol_result res;
	struct arp_req req;
	struct stats_if *is;
	enum arp_reason why;
	enum pol_verdict v;

	a->now = arrival(ts, now);
	/* A frame newer than the last netlink drain may follow an address
	 * delete the kernel has acknowledged since: read that first. */
	if (ts > rtnl_drained(a->d.rtnl))
		a->d.sync(a->d.sync_arg);
	why = arp_check(pkt, caplen, &req);
	in = tbl_iface(a->d.tbl, arp_ifindex(pkt, caplen));
	is = tbl_iface_stats(in);
	COUNT(a, is, received);
	if (why != ARP_OK) {
		/* announcements and replies are not answered, but one that
		 * claims an address of ours is a conflict */
		bool reply = why == ARP_NOT_REQUEST && req.op == ARPOP_REPLY;

		if (why == ARP_GRATUITOUS || (reply && req.sip == req.tip))
			COUNT(a, is, announcements_heard);
		else if (reply)
			COUNT(a, is, replies_heard);
		else
			COUNT(a, is, invalid[why]);	/* an op 3..: not_request */
		if (in != NULL && (why == ARP_GRATUITOUS || why == ARP_NOT_REQUEST) &&
		    req.op != 0)
			claim(a, &req, in);
		return;
	}
	v = pol_decide(a->d.tbl, inf_pub(), &req, &res);
	if (in != NULL && in->managed && in->mode == POL_MONITOR) {
		COUNT(a, is, monitored);
		/* the kernel answered; would arpownd (owner mode) have? */
		if (v != POL_ANSWER && pol_kernel_answers(a->d.tbl, &req, in->arp_ignore)) {
			COUNT(a, is, would_refuse[v]);
			note_monitor(a->d.notes, &req, &res, v, in, now);
		}
		if (v == POL_CONFLICT)
			claim(a, &req, in);
		return;
	}
	if (v == POL_ANSWER)
		v = reverse_path(a, &req, &res);
	COUNT(a, is, verdict[v]);
	switch (v) {
	case POL_ANSWER:
		answer(a, &req, &res, is);
		if (req.sip == 0)
			note_probe(a->d.notes, &req, res.in, now);
		return;
	case POL_CONFLICT:
		claim(a, &req, res.in);
		return;
	default:
		break;
	}
	if (res.in != NULL)
		note_refusal(a->d.notes, &req, &res, v, now);
	note_not_answered(&req, &res, v);
}

bool
ans_handover(struct ans *a, const uint8_t *pkt, size_t caplen, uint64_t ts, double now,
    bool owned)
{
	struct tbl_iface *in;
	struct pol_result res;
	struct arp_req req;
	struct stats_if *is;
	enum pol_verdict v;
	uint64_t sent;

	a->now = arrival(ts, now);
	/* the kernel answered the host's own addresses during the gap: only
	 * what is published was left unanswered (unless owned: a takeover) */
	if (arp_check(pkt, caplen, &req) != ARP_OK)
		return false;
	v = pol_decide(a->d.tbl, inf_pub(), &req, &res);
	in = tbl_iface(a->d.tbl, req.ifindex);
	if (v != POL_ANSWER || (!owned && (res.pub == NULL || res.owner != NULL)) ||
	    in == NULL || in->mode == POL_MONITOR || reverse_path(a, &req, &res) != POL_ANSWER)
		return false;
	is = tbl_iface_stats(in);
	COUNT(a, is, received);
	COUNT(a, is, verdict[v]);
	sent = a->d.st->all.replies;
	answer(a, &req, &res, is);	/* queued: ans_flush sends them */
	return a->d.st->all.replies > sent;
}

void
ans_flush(struct ans *a)
{
	flush(a, "replies");
}

static void
frame_cb(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg)
{
	struct ans *a = arg;

	ans_frame(a, pkt, caplen, ts, a->batch);
}

/* Seconds on the clock libev's ev_time() reads. */
static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Send what the batch queued; the failures counted and logged. */
static void
flush(struct ans *a, const char *what)
{
	int failed;

	if ((failed = cap_flush(a->d.cap)) > 0) {
		a->d.st->send_errors += (unsigned)failed;
		if (what != NULL)
			log_warn("capture: %d %s not sent", failed, what);
	}
}

void
ans_run(struct ans *a, double now)
{
	double start = wall(), last = start, t;
	int n;

	a->batch = a->now = now;
	/*
	 * Waking a sleeping process costs tens of microseconds on an idle
	 * machine, the kernel's own reply none: so after a frame, keep polling
	 * for busy_poll_us before going back to sleep.  An idle host pays
	 * nothing; a busy one answers without a wake-up per request.  Bounded
	 * by SPIN_MAX so that signals and timers are never held up.
	 */
	for (;;) {
		/* Netlink first: every event queued before the frames of
		 * this batch is applied before any of them is decided. */
		a->d.sync(a->d.sync_arg);
		if (a->d.rpf != NULL && rpf_active(a->d.rpf))
			rpf_read(a->d.rpf);	/* routes: the cached checks go */
		if ((n = cap_dispatch(a->d.cap, ANS_BUDGET, frame_cb, a)) == -1) {
			/* an interface vanishing mid-read is no reason to stop */
			a->d.st->capture_errors++;
			log_warnx("capture: read failed; carrying on");
		}
		flush(a, "replies");
		t = wall();
		if (n > 0)
			last = t;
		else if (t - last > (double)inf_conf()->busy_poll_us * 1e-6 ||
		    t - start > SPIN_MAX)
			break;
	}
}

void
ans_drain(struct ans *a, double now, double max)
{
	double start = wall();
	int n;

	a->batch = a->now = now;
	do {
		n = cap_dispatch(a->d.cap, ANS_BUDGET, frame_cb, a);
		flush(a, NULL);
	} while (n > 0 && wall() - start < max);
}
