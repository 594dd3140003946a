/* pubops.c — runtime publications.  An entry is written to the state
 * directory before it is answered (a restart keeps it until withdrawn),
 * and taken out of the set before a withdraw returns (never answered
 * after).  At start the saved entries join the configuration's sections;
 * where they overlap, the configuration wins: it is what -n approved. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "announcer.h"
#include "inforce.h"
#include "log.h"
#include "msgid.h"
#include "policy.h"
#include "pubjournal.h"
#include "pubops.h"
#include "rules.h"
#include "statedir.h"
#include "statefile.h"
#include "table.h"

struct pop {
	struct pop_deps	 d;
	struct pjn	*pj;		/* where they are kept: NULL, not kept */
	bool		 dropped;	/* saved entries left out: save again */
};

struct pop *
pop_new(const struct pop_deps *d)
{
	struct pop *o;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return NULL;
	o->d = *d;
	if (d->sd != NULL && (o->pj = pjn_new(d->sd)) == NULL) {
		free(o);
		return NULL;
	}
	return o;
}

void
pop_free(struct pop *o)
{
	if (o != NULL)
		pjn_free(o->pj);
	free(o);
}

/* Keep p's runtime entries in the state directory, crash-safely: a new
 * snapshot of them all. */
static int
save(struct pop *o, const struct pub *p)
{
	char *lines;
	size_t len;
	int r;

	if (o->pj == NULL)
		return 0;
	if ((lines = pub_format_runtime(p, &len)) == NULL)
		return -1;
	r = pjn_save(o->pj, lines, len);
	free(lines);
	return r;
}

/* Keep one op ('+' an entry's line, '-' its ADDR/LEN): a record in the
 * journal, or when the journal is due a compaction, a new snapshot of
 * the set in force (which has the op already). */
static int
keep(struct pop *o, char op, const char *text, size_t len)
{
	if (o->pj == NULL)
		return 0;
	if (pjn_due(o->pj, pub_count(inf_pub())))
		return save(o, inf_pub());
	return pjn_append(o->pj, op, text, len);
}

/* A saved runtime entry that the configuration now publishes itself: the
 * configuration wins, the entry is dropped and the state saved again
 * without it, rather than refusing to start. */
static void
skip_saved(void *arg, const char *cidr, const char *ifname, const char *why)
{
	struct log_ctx lc = { MSGID_PUBLISH, ifname, 0, 0, NULL };
	struct pop *o = arg;

	log_ctx(LOG_WARNING, &lc, "runtime-published %s on %s dropped: %s (the "
	    "configuration's section wins)", cidr, ifname, why);
	o->dropped = true;
}

/* Say what a start took back from the state directory: a cluster engine
 * published it, and /run does not survive a reboot. */
static void
restored(const struct pub *p)
{
	const struct pub_entry *e;
	size_t i;

	for (i = 0; i < pub_count(p); i++) {
		e = pub_at(p, i);
		if (!e->runtime)
			continue;
		log_ctx(LOG_NOTICE, &(struct log_ctx){ MSGID_PUBLISH, e->ifglob,
		    htonl(e->base), 0, NULL }, "runtime-published %s/%u on %s restored from "
		    "the state directory (kept across restarts, not across a reboot)",
		    log_ip(htonl(e->base)), e->plen, e->ifglob);
	}
}

struct pub *
pop_build(struct pop *o, const struct conf *c, const struct pub *old)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };
	char err[512], *lines = NULL;
	struct pub *p;
	size_t len;

	if ((p = pub_build(c, old, err, sizeof(err))) == NULL) {
		log_ctx(LOG_ERR, &lc, "%s", err);
		return NULL;
	}
	if (old != NULL || o->d.sd == NULL)
		return p;
	if (pjn_load(o->pj, &lines, &len, err, sizeof(err)) == -1) {
		log_ctx(LOG_ERR, &lc, "runtime-published addresses: %s", err);
		goto fail;
	}
	o->dropped = false;
	if (pub_parse_runtime(p, lines, len, skip_saved, o, err, sizeof(err)) == -1) {
		log_ctx(LOG_ERR, &lc, "runtime-published addresses, as saved: %s", err);
		goto fail;
	}
	free(lines);
	/* a journal of an older snapshot, or cut short by a crash: the
	 * next record would follow what a load passes over */
	if ((o->dropped || pjn_due(o->pj, pub_count(p))) && save(o, p) == -1)
		log_warn("state directory: saving the runtime-published addresses");
	restored(p);
	return p;
fail:
	free(lines);
	pub_free(p);
	return NULL;
}

/* Does any interface hold an address in set?  Or is one of them the
 * broadcast address of a subnet an interface is on (the kernel's local
 * table routes it as broadcast, and never answers it)? */
struct held {
	const struct rng	*set;
	uint32_t		 addr;		/* the first found, network order */
	const char		*ifname;
	const struct tbl_addr	*bcast;		/* the entry it is the broadcast of */
};

static int
held_cb(struct tbl_iface *ifp, void *arg)
{
	struct held *h = arg;
	const struct tbl_addr *e;
	uint32_t b;
	size_t i;

	for (i = 0; i < ifp->naddrs; i++) {
		e = &ifp->addrs[i];
		if (rng_has(h->set, e->addr)) {
			h->addr = e->addr;
			h->ifname = ifp->name;
			return 1;
		}
		if (e->plen >= 31)
			continue;
		b = htonl(rule_bcast(ntohl(e->prefix), e->plen));
		if (rng_has(h->set, b)) {
			h->addr = b;
			h->ifname = ifp->name;
			h->bcast = e;
			return 1;
		}
	}
	return 0;
}

/* Names of the interfaces arpownd answers on, for a message. */
struct names {
	char	buf[256];
	size_t	len;
};

static int
names_cb(struct tbl_iface *ifp, void *arg)
{
	struct names *n = arg;
	int w;

	if (!ifp->managed || !pol_answers(ifp->mode) || n->len >= sizeof(n->buf) - 1)
		return 0;
	w = snprintf(n->buf + n->len, sizeof(n->buf) - n->len, "%s%s", n->len ? " " : "",
	    ifp->name);
	if (w > 0)
		n->len += (size_t)w;
	if (n->len >= sizeof(n->buf) - 1)
		memcpy(n->buf + sizeof(n->buf) - 5, "...", 4);
	return 0;
}

/* Is ifname, literally, an interface arpownd answers on?  0, or
 * EX_DATAERR with why in err. */
static int
check_iface(struct pop *o, const char *cidr, const char *ifname, char *err, size_t errlen)
{
	struct tbl_iface *ifp = tbl_iface_byname(o->d.tbl, ifname);
	struct names n = { "", 0 };

	if (ifp != NULL && ifp->managed && pol_answers(ifp->mode))
		return 0;
	tbl_iface_each(o->d.tbl, names_cb, &n);
	if (ifp == NULL)
		snprintf(err, errlen, "%s: %s: no such interface (the name is taken "
		    "literally, never as a pattern); arpownd answers on: %s", cidr, ifname,
		    n.len ? n.buf : "none");
	else if (!ifp->managed)
		snprintf(err, errlen, "%s: %s: not an interface arpownd manages (see "
		    "interfaces = in the configuration); it answers on: %s", cidr, ifname,
		    n.len ? n.buf : "none");
	else
		snprintf(err, errlen, "%s: %s: in mode %s, where arpownd does not answer; "
		    "it answers on: %s", cidr, ifname, pol_mode_str(ifp->mode),
		    n.len ? n.buf : "none");
	return EX_DATAERR;
}

int
pop_publish(struct pop *o, uint32_t addr, uint8_t plen, const char *ifname, bool force,
    char *err, size_t errlen)
{
	struct log_ctx lc = { MSGID_PUBLISH, ifname, addr, 0, NULL };
	char cidr[INET_ADDRSTRLEN + 4];
	struct held h = { NULL, 0, NULL, NULL };
	char line[PUB_LINE_MAX];
	struct pub_entry e;
	const char *why;
	uint64_t had;
	int code;

	snprintf(cidr, sizeof(cidr), "%s/%u", log_ip(addr), plen);
	if ((code = check_iface(o, cidr, ifname, err, errlen)) != 0)
		return code;
	/* a /10 is 4 million addresses: one command, no second thought */
	if (plen < PUB_RUNTIME_PLEN && !force) {
		snprintf(err, errlen, "%s: %" PRIu64 " addresses, more than a /%d: publish "
		    "it in the configuration, or again with --force", cidr,
		    (uint64_t)1 << (32 - plen), PUB_RUNTIME_PLEN);
		return EX_DATAERR;
	}
	if (pub_runtime_make(&e, ntohl(addr), plen, ifname, &why) == -1) {
		snprintf(err, errlen, "%s: %s", cidr, why);
		return EX_USAGE;
	}
	/* counted over every runtime entry: 256 publishes of a /24 are the
	 * /8 that one command could not add */
	had = pub_runtime_count(inf_pub());
	if (!force && had + rng_count(&e.set) > PUB_RUNTIME_MAX) {
		snprintf(err, errlen, "%s: %" PRIu64 " more addresses would make %" PRIu64
		    " published at run time, more than %u (a /%d) in all: publish them in "
		    "the configuration, or again with --force", cidr, rng_count(&e.set),
		    had + rng_count(&e.set), PUB_RUNTIME_MAX, PUB_RUNTIME_PLEN);
		rng_clear(&e.set);
		return EX_DATAERR;
	}
	/* an address an interface holds is never published (lo's included),
	 * nor a subnet's broadcast address */
	h.set = &e.set;
	if (tbl_iface_each(o->d.tbl, held_cb, &h) != 0) {
		if (h.bcast != NULL)
			snprintf(err, errlen, "%s: %s is the broadcast address of %s/%u on %s",
			    cidr, log_ip(h.addr), log_ip(h.bcast->addr), h.bcast->plen,
			    h.ifname);
		else
			snprintf(err, errlen, "%s: %s is an address of %s", cidr,
			    log_ip(h.addr), h.ifname);
		rng_clear(&e.set);
		return EX_DATAERR;
	}
	if (pub_add(inf_pub_edit(), &e, err, errlen) == -1) {
		rng_clear(&e.set);
		return EX_DATAERR;
	}
	/* kept before it is answered: a restart keeps it until withdrawn
	 * (e's set is the set's now; its line is still e's) */
	if (keep(o, '+', line, pub_format_entry(&e, line, sizeof(line)) - 1) == -1) {
		snprintf(err, errlen, "%s: cannot save it in the state directory: %s", cidr,
		    strerror(errno));
		(void)pub_withdraw(inf_pub_edit(), e.base, e.plen);
		return EX_IOERR;
	}
	if (o->d.changed != NULL)
		o->d.changed(o->d.changed_arg, inf_pub());
	log_ctx(LOG_NOTICE, &lc, "published %s on %s%s", cidr, ifname,
	    pub_announced(pub_find(inf_pub(), addr)) ? "" : " (too many addresses to announce)");
	if (o->d.anr != NULL)
		anr_entry(o->d.anr, pub_find(inf_pub(), addr));
	return 0;
}

int
pop_withdraw(struct pop *o, uint32_t addr, uint8_t plen, char *err, size_t errlen)
{
	struct log_ctx lc = { MSGID_PUBLISH, NULL, addr, 0, NULL };
	char cidr[INET_ADDRSTRLEN + 4];
	const struct pub_entry *e;

	snprintf(cidr, sizeof(cidr), "%s/%u", log_ip(addr), plen);
	/* gone from the set first: never answered once this returns */
	if (pub_withdraw(inf_pub_edit(), ntohl(addr), plen) == 0) {
		if ((e = pub_find(inf_pub(), addr)) == NULL) {
			snprintf(err, errlen, "%s: not published", cidr);
			return EX_DATAERR;
		}
		/* still answered: say by what, and how to stop it */
		if (e->runtime)
			snprintf(err, errlen, "%s: not an entry of its own: %s is inside "
			    "%s/%u, published by arpownctl publish on %s; withdraw that",
			    cidr, log_ip(addr), log_ip(htonl(e->base)), e->plen, e->ifglob);
		else
			snprintf(err, errlen, "%s: not an entry of its own: %s is inside "
			    "[publish %s] of the configuration", cidr, log_ip(addr), e->label);
		return EX_NOINPUT;
	}
	/* and out of the kernel path's grants: never answered once this returns */
	if (o->d.changed != NULL)
		o->d.changed(o->d.changed_arg, inf_pub());
	log_ctx(LOG_NOTICE, &lc, "withdrew %s", cidr);
	if (keep(o, '-', cidr, strlen(cidr)) == -1) {
		snprintf(err, errlen, "%s: withdrawn, but the state directory still has "
		    "it (a restart would publish it again): %s", cidr, strerror(errno));
		return EX_IOERR;
	}
	return 0;
}
