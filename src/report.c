/* report.c — the daemon's state as JSON documents, for arpownctl and the
 * SIGUSR1 dump; pure: a view in, text out.  Every document is an object
 * with "schema": RPT_SCHEMA; its fields are documented in arpownd(8) and
 * only ever added to within a schema version.  Top-level arrays have one
 * record per line, for a person reading --json; the SIGUSR1 dump joins
 * them into one line. */
#include "config.h"

#include <net/if.h>
#include <arpa/inet.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "arp.h"
#include "jsonw.h"
#include "policy.h"
#include "kpath.h"
#include "report.h"
#include "util.h"

struct collect {
	struct tbl_iface	**v;
	size_t			  n, cap;
	bool			  oom;
};

static int
collect_cb(struct tbl_iface *ifp, void *arg)
{
	struct collect *c = arg;
	struct tbl_iface **v;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		if ((v = realloc(c->v, c->cap * sizeof(*v))) == NULL) {	/* NOLINT(bugprone-sizeof-expression): pointers */
			c->oom = true;
			return 1;
		}
		c->v = v;
	}
	c->v[c->n++] = ifp;
	return 0;
}

static int
by_ifindex(const void *a, const void *b)
{
	const struct tbl_iface *x = *(struct tbl_iface *const *)a;
	const struct tbl_iface *y = *(struct tbl_iface *const *)b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

struct tbl_iface **
rpt_sorted(const struct tbl *t, size_t *n)
{
	struct collect c = { NULL, 0, 0, false };

	tbl_iface_each(t, collect_cb, &c);
	if (c.oom) {
		free(c.v);
		c.v = NULL;
		c.n = 0;
	}
	if (c.n > 1)
		qsort(c.v, c.n, sizeof(*c.v), by_ifindex);	/* NOLINT(bugprone-sizeof-expression): pointers */
	*n = c.n;
	return c.v;
}

/* Dotted quad of a (network order) into buf; by hand, as glibc's
 * inet_ntop goes through sprintf, most of an interfaces document's cost. */
static const char *
quad(uint32_t a, char buf[static INET_ADDRSTRLEN])
{
	const uint8_t *b = (const uint8_t *)&a;
	char *p = buf;
	int i;

	for (i = 0; i < 4; i++) {
		if (b[i] >= 100)
			*p++ = (char)('0' + b[i] / 100);
		if (b[i] >= 10)
			*p++ = (char)('0' + b[i] / 10 % 10);
		*p++ = (char)('0' + b[i] % 10);
		*p++ = i < 3 ? '.' : '\0';
	}
	return buf;
}

static void
ip(struct jw *w, const char *key, uint32_t a)
{
	char buf[INET_ADDRSTRLEN];

	jw_str(w, key, quad(a, buf));
}

static void
name(struct jw *w, const char *key, const struct tbl_iface *ifp)
{
	jw_strn(w, key, ifp->name, strnlen(ifp->name, sizeof(ifp->name)));
}

/* ---------------------------------------------------------- configured */

/* The known name nearest to name (within two edits), or NULL. */
static const char *
nearest(struct tbl_iface **ifs, size_t n, const char *name)
{
	const char *best = NULL;
	size_t bd = 3, d, i;

	for (i = 0; i < n; i++)
		if ((d = util_distance(name, ifs[i]->name)) < bd) {
			bd = d;
			best = ifs[i]->name;
		}
	return best;
}

/* One configured name or glob, and what it matches now. */
static void
pattern(struct jw *w, const char *section, const struct conf_glob *g,
    struct tbl_iface **ifs, size_t n)
{
	const char *near = NULL;
	size_t i, hits = 0;

	jw_obj(w, NULL, false);
	if (section != NULL)
		jw_str(w, "section", section);
	else
		jw_null(w, "section");		/* [global] interfaces */
	jw_str(w, "pattern", g->pat);
	jw_bool(w, "exclude", g->neg);
	jw_arr(w, "matches", false);
	for (i = 0; i < n; i++)
		if (fnmatch(g->pat, ifs[i]->name, 0) == 0) {
			name(w, NULL, ifs[i]);
			hits++;
		}
	jw_end(w);
	/* a name that is not a pattern and matches nothing: a typo, mostly */
	if (hits == 0 && strpbrk(g->pat, "*?[") == NULL)
		near = nearest(ifs, n, g->pat);
	if (near != NULL)
		jw_str(w, "did_you_mean", near);
	else
		jw_null(w, "did_you_mean");
	jw_end(w);
}

/* Each name or glob of [global] interfaces and of the sections' match,
 * with the interfaces it matches now (by name, whatever their kind). */
static void
configured(struct jw *w, const struct conf *c, struct tbl_iface **ifs, size_t n)
{
	size_t i, j;

	jw_arr(w, "interfaces_configured", true);
	for (i = 0; c != NULL && i < c->nifaces; i++)
		pattern(w, NULL, &c->ifaces[i], ifs, n);
	for (i = 0; c != NULL && i < c->nsections; i++)
		for (j = 0; j < c->sections[i].nmatch; j++)
			pattern(w, c->sections[i].label, &c->sections[i].match[j], ifs, n);
	jw_end(w);
}

/* ---------------------------------------------------------------- status */

bool
rpt_kernel_answers(const struct rpt_view *v, const struct tbl_iface *ifp)
{
	return ifp->kpath && v->kpath.answering;
}

const char *
rpt_answer_path(const struct rpt_view *v, const struct tbl_iface *ifp)
{
	if (!rpt_kernel_answers(v, ifp))
		return "capture";
	return ifp->kpath_xdp != 0 ? "xdp" : "kernel";
}

/* The kernel answer path: null when not loaded; else whether it answers
 * and what its maps (sized at the start) have no room for. */
static void
kpath(struct jw *w, const struct rpt_kpath *k)
{
	if (!k->loaded) {
		jw_null(w, "kernel_path");
		return;
	}
	jw_obj(w, "kernel_path", false);
	jw_bool(w, "answering", k->answering);
	jw_u64(w, "capacity", k->capacity);
	jw_u64(w, "map_bytes", k->map_bytes);
	jw_obj(w, "unheld", false);
	jw_u64(w, "addresses", k->unheld);
	jw_u64(w, "published_ranges", k->unheld_published);
	jw_u64(w, "interfaces", k->unheld_interfaces);
	jw_u64(w, "kernel_entries", k->unheld_mirror);
	jw_end(w);
	if (k->example != 0)
		ip(w, "unheld_example", k->example);
	else
		jw_null(w, "unheld_example");
	jw_str(w, "reason", !k->answering ? "a host address does not fit its maps: it "
	    "answers nothing, the capture path answers everything" :
	    k->unheld + k->unheld_published + k->unheld_interfaces + k->unheld_mirror > 0 ?
	    "its maps are full: the capture path answers what they cannot hold" : NULL);
	jw_end(w);
}

void
rpt_status(const struct rpt_view *v, FILE *f)
{
	struct tbl_iface **ifs;
	size_t n, i, managed = 0, answering = 0, monitor = 0, addrs = 0;
	uint64_t published = 0;
	struct jw w;

	ifs = rpt_sorted(v->tbl, &n);
	for (i = 0; i < n; i++) {
		if (!ifs[i]->managed)
			continue;
		managed++;
		if (pol_answers(ifs[i]->mode)) {
			answering++;
			addrs += ifs[i]->naddrs;
		} else if (ifs[i]->mode == POL_MONITOR)
			monitor++;
	}
	for (i = 0; v->pub != NULL && i < pub_count(v->pub); i++)
		published += rng_count(&pub_at(v->pub, i)->set);
	jw_init(&w, f);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_str(&w, "version", v->version);
	jw_int(&w, "pid", v->pid);
	jw_secs(&w, "started_at", v->started, false);
	jw_secs(&w, "uptime_seconds", v->now - v->started, false);
	jw_str(&w, "mode", pol_mode_str(v->conf->set.mode));
	/* --monitor: what the file says does not count, and how to answer */
	if (v->forced.by != NULL) {
		jw_obj(&w, "monitor_forced", false);
		jw_str(&w, "by", v->forced.by);
		jw_str(&w, "to_answer", v->forced.to_answer);
		jw_end(&w);
	} else
		jw_null(&w, "monitor_forced");
	jw_obj(&w, "config", false);
	jw_str(&w, "path", v->conf_path);
	jw_secs(&w, "loaded_at", v->conf_loaded, false);
	jw_secs(&w, "last_reload_success_at", v->reload_ok, false);
	jw_secs(&w, "last_reload_failure_at", v->reload_failed, true);
	jw_end(&w);
	jw_u64(&w, "interfaces_known", n);
	jw_u64(&w, "interfaces_managed", managed);
	jw_u64(&w, "interfaces_answering", answering);
	jw_u64(&w, "interfaces_monitor", monitor);
	jw_u64(&w, "addresses", addrs);
	jw_u64(&w, "published_entries", v->pub != NULL ? pub_count(v->pub) : 0);
	jw_u64(&w, "published_addresses", published);
	kpath(&w, &v->kpath);
	configured(&w, v->conf, ifs, n);
	jw_arr(&w, "managed", true);
	for (i = 0; i < n; i++) {
		if (!ifs[i]->managed)
			continue;
		jw_obj(&w, NULL, false);
		name(&w, "name", ifs[i]);
		jw_int(&w, "ifindex", ifs[i]->ifindex);
		jw_str(&w, "mode", pol_mode_str(ifs[i]->mode));
		/* who answers there: the kernel answer path, or the capture
		 * (also where the program is, but answers nothing now) */
		jw_str(&w, "answer_path", rpt_answer_path(v, ifs[i]));
		/* at XDP: native or generic; at TC where XDP was asked (auto,
		 * xdp): why not at XDP */
		jw_str(&w, "xdp_mode", !rpt_kernel_answers(v, ifs[i]) || ifs[i]->kpath_xdp == 0 ?
		    NULL : ifs[i]->kpath_xdp == KP_XDP_NATIVE ? "native" : "generic");
		jw_str(&w, "not_xdp", rpt_kernel_answers(v, ifs[i]) && ifs[i]->kpath_xdp == 0 &&
		    (ifs[i]->answer_path == CONF_PATH_AUTO || ifs[i]->answer_path == CONF_PATH_XDP) &&
		    ifs[i]->kpath_why[0] != '\0' ? ifs[i]->kpath_why : NULL);
		jw_bool(&w, "up", (ifs[i]->flags & IFF_UP) != 0);
		/* how many: the addresses themselves are in "interfaces" */
		jw_u64(&w, "addresses", ifs[i]->naddrs);
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
	free(ifs);
}

/* ------------------------------------------------------------ interfaces */

/* The current value and, when arpownd changed it, the original. */
static void
sysctl(struct jw *w, const char *key, int cur, const struct state_orig *o, bool ignore)
{
	int orig = o == NULL ? STATE_NONE : ignore ? o->arp_ignore : o->arp_announce;

	jw_obj(w, key, false);
	if (cur < 0)
		jw_null(w, "current");
	else
		jw_int(w, "current", cur);
	if (orig == STATE_NONE)
		jw_null(w, "original");
	else
		jw_int(w, "original", orig);
	jw_end(w);
}

void
rpt_interfaces(const struct rpt_view *v, FILE *f)
{
	const struct state_orig *o;
	struct tbl_iface **ifs, *ifp;
	const struct tbl_addr *a;
	size_t n, i, j;
	char mac[UTIL_MAC_STRLEN];
	struct jw w;

	ifs = rpt_sorted(v->tbl, &n);
	jw_init(&w, f);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_arr(&w, "interfaces", true);
	for (i = 0; i < n; i++) {
		ifp = ifs[i];
		if (v->only != NULL && strcmp(ifp->name, v->only) != 0)
			continue;
		o = v->orig != NULL ? v->orig(v->orig_arg, ifp->ifindex) : NULL;
		jw_obj(&w, NULL, false);
		name(&w, "name", ifp);
		jw_int(&w, "ifindex", ifp->ifindex);
		jw_str(&w, "mac", util_mac_str(ifp->mac, mac));
		jw_int(&w, "type", ifp->type);
		jw_bool(&w, "up", (ifp->flags & IFF_UP) != 0);
		jw_bool(&w, "running", (ifp->flags & IFF_RUNNING) != 0);
		jw_bool(&w, "managed", ifp->managed);
		jw_str(&w, "mode", ifp->managed ? pol_mode_str(ifp->mode) : NULL);
		jw_str(&w, "answer_path", !ifp->managed ? NULL : rpt_answer_path(v, ifp));
		sysctl(&w, "arp_ignore", ifp->arp_ignore, o, true);
		sysctl(&w, "arp_announce", ifp->arp_announce, o, false);
		jw_arr(&w, "addresses", false);
		for (j = 0; j < ifp->naddrs; j++) {
			a = &ifp->addrs[j];
			jw_obj(&w, NULL, false);
			ip(&w, "address", a->addr);
			jw_int(&w, "prefixlen", a->plen);
			if (a->prefix != a->addr)
				ip(&w, "peer", a->prefix);
			else
				jw_null(&w, "peer");
			jw_end(&w);
		}
		jw_end(&w);
		jw_end(&w);
	}
	jw_end(&w);
	if (v->only == NULL)
		configured(&w, v->conf, ifs, n);
	jw_end(&w);
	free(ifs);
}

/* -------------------------------------------------------------- counters */

static void
verdicts(struct jw *w, const char *key, const unsigned long long *c, int from)
{
	int i;

	jw_obj(w, key, false);
	for (i = from; i < POL_NVERDICTS; i++)
		jw_u64(w, pol_verdict_str((enum pol_verdict)i), c[i]);
	jw_end(w);
}

/* One interface's counters, or (ifp NULL) the daemon's in all.  They add
 * up (stats.h): received = invalid + announcements_heard + replies_heard
 * + requests + monitored; requests.answered = replies + rate_limited. */
static void
counts(struct jw *w, const char *key, const struct tbl_iface *ifp,
    const struct stats_if *s)
{
	static const struct stats_if zero;
	unsigned long long sum = 0;
	int i;

	if (s == NULL)
		s = &zero;	/* nothing counted on it yet */
	jw_obj(w, key, false);
	if (ifp != NULL) {
		name(w, "name", ifp);
		jw_int(w, "ifindex", ifp->ifindex);
		jw_str(w, "mode", ifp->managed ? pol_mode_str(ifp->mode) : "unmanaged");
	}
	jw_u64(w, "received", s->received);
	jw_obj(w, "invalid", false);
	for (i = ARP_OK + 1; i < ARP_NREASONS; i++)
		if (i != ARP_GRATUITOUS)
			jw_u64(w, arp_reason_str((enum arp_reason)i), s->invalid[i]);
	jw_end(w);
	jw_u64(w, "announcements_heard", s->announcements_heard);
	jw_u64(w, "replies_heard", s->replies_heard);
	for (i = 0; i < POL_NVERDICTS; i++)
		sum += s->verdict[i];
	jw_u64(w, "requests", sum);
	verdicts(w, "verdicts", s->verdict, POL_ANSWER);
	jw_u64(w, "replies", s->replies);
	jw_obj(w, "rate_limited", false);
	jw_u64(w, "sender", s->limited_sender);
	jw_u64(w, "total", s->limited_total);
	jw_end(w);
	jw_u64(w, "announcements", s->announcements);
	jw_u64(w, "conflicts", s->conflicts);
	jw_u64(w, "defences", s->defences);
	jw_u64(w, "monitored", s->monitored);
	verdicts(w, "would_refuse", s->would_refuse, POL_ANSWER + 1);
	jw_end(w);
}

void
rpt_counters(const struct rpt_view *v, FILE *f)
{
	struct tbl_iface **ifs;
	size_t n, i;
	struct jw w;

	ifs = rpt_sorted(v->tbl, &n);
	jw_init(&w, f);
	jw_obj(&w, NULL, true);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_arr(&w, "interfaces", true);
	for (i = 0; i < n; i++)
		if (v->only == NULL || strcmp(ifs[i]->name, v->only) == 0)
			counts(&w, NULL, ifs[i], ifs[i]->stats);
	jw_end(&w);
	counts(&w, "all", NULL, &v->st->all);
	jw_obj(&w, "daemon", false);
	jw_u64(&w, "send_errors", v->st->send_errors);
	jw_u64(&w, "capture_errors", v->st->capture_errors);
	jw_u64(&w, "capture_drops", v->capture_drops);
	jw_u64(&w, "learned", v->st->learned);
	jw_u64(&w, "resyncs", v->st->resyncs);
	jw_u64(&w, "announce_queued", v->st->announce_queued);
	jw_u64(&w, "announce_pending", v->announce_pending);
	jw_u64(&w, "announce_dropped", v->st->announce_dropped);
	jw_u64(&w, "announce_skipped", v->st->announce_skipped);
	jw_u64(&w, "announce_refused", v->st->announce_refused);
	jw_u64(&w, "handover_answered", v->st->handover_answered);
	jw_u64(&w, "handover_dropped", v->st->handover_dropped);
	jw_u64(&w, "conflicts_unlogged", v->cfl != NULL ? cfl_suppressed(v->cfl) : 0);
	jw_end(&w);
	jw_end(&w);
	free(ifs);
}

/* ------------------------------------------------------------- conflicts */

struct recs {
	const struct cfl_rec	**v;
	size_t			  n, cap;
};

static void
rec_cb(const struct cfl_rec *r, void *arg)
{
	struct recs *rs = arg;
	const struct cfl_rec **v;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		if ((v = realloc(rs->v, rs->cap * sizeof(*v))) == NULL)	/* NOLINT(bugprone-sizeof-expression): pointers */
			return;		/* fewer records shown, never a crash */
		rs->v = v;
	}
	rs->v[rs->n++] = r;
}

static int
by_addr(const void *a, const void *b)
{
	uint32_t x = ntohl((*(const struct cfl_rec *const *)a)->addr);
	uint32_t y = ntohl((*(const struct cfl_rec *const *)b)->addr);

	return (x > y) - (x < y);
}

void
rpt_conflicts(const struct rpt_view *v, FILE *f)
{
	struct recs rs = { NULL, 0, 0 };
	const struct tbl_iface *ifp;
	const struct cfl_rec *r;
	char mac[UTIL_MAC_STRLEN];
	struct jw w;
	size_t i;

	if (v->cfl != NULL)
		cfl_each(v->cfl, rec_cb, &rs);
	if (rs.n > 1)
		qsort(rs.v, rs.n, sizeof(*rs.v), by_addr);	/* NOLINT(bugprone-sizeof-expression): pointers */
	jw_init(&w, f);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_u64(&w, "unlogged", v->cfl != NULL ? cfl_suppressed(v->cfl) : 0);
	jw_arr(&w, "conflicts", true);
	for (i = 0; i < rs.n; i++) {
		r = rs.v[i];
		ifp = tbl_iface(v->tbl, r->ifindex);
		jw_obj(&w, NULL, false);
		ip(&w, "address", r->addr);
		if (ifp != NULL)
			name(&w, "interface", ifp);
		else
			jw_null(&w, "interface");	/* gone since */
		jw_int(&w, "ifindex", r->ifindex);
		jw_str(&w, "mac", util_mac_str(r->mac, mac));
		jw_secs(&w, "first_seen", r->first, false);
		jw_secs(&w, "last_seen", r->last, false);
		jw_u64(&w, "count", r->count);
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
	free(rs.v);
}

/* ------------------------------------------------------------- published */

void
rpt_published(const struct rpt_view *v, FILE *f)
{
	const struct pub_entry *e;
	char mac[UTIL_MAC_STRLEN];
	struct jw w;
	size_t i, j;

	jw_init(&w, f);
	jw_obj(&w, NULL, false);
	jw_int(&w, "schema", RPT_SCHEMA);
	jw_arr(&w, "published", true);
	for (i = 0; v->pub != NULL && i < pub_count(v->pub); i++) {
		e = pub_at(v->pub, i);
		if (v->only_addr != 0 && !rng_has(&e->set, v->only_addr))
			continue;
		jw_obj(&w, NULL, false);
		jw_strn(&w, "label", e->label, strnlen(e->label, sizeof(e->label)));
		jw_bool(&w, "runtime", e->runtime);
		jw_strn(&w, "interface", e->ifglob, strnlen(e->ifglob, sizeof(e->ifglob)));
		if (e->has_mac)
			jw_str(&w, "mac", util_mac_str(e->mac, mac));
		else
			jw_null(&w, "mac");	/* the interface's own */
		jw_u64(&w, "addresses", rng_count(&e->set));
		jw_arr(&w, "ranges", false);
		for (j = 0; j < e->set.n; j++) {
			jw_obj(&w, NULL, false);
			ip(&w, "first", htonl(e->set.v[j].lo));
			ip(&w, "last", htonl(e->set.v[j].hi));
			jw_end(&w);
		}
		jw_end(&w);
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
}
