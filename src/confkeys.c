/* confkeys.c — the configuration's keys: for each, the sections it may be
 * set in, the parser that validates its value and the printer that writes
 * it back.  A new key is a row in keys[] and its two functions; conf.c
 * drives the table and never names a key.  iniparser's typed getters
 * accept malformed values silently, so every value arrives here as a
 * string and is checked, and an error says why in one line. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/ether.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "confkeys.h"
#include "confvals.h"
#include "policy.h"
#include "util.h"

/* Where a value is parsed into: the configuration and, in an [interface]
 * or [publish] section, that section (else NULL). */
struct ckey_dst {
	struct conf		*c;
	struct conf_iface	*s;
	struct conf_pub		*p;
};

/* Where it is printed from, the same. */
struct ckey_src {
	const struct conf	*c;
	const struct conf_iface	*s;
	const struct conf_pub	*p;
};

struct ckey {
	const char	*name;
	unsigned	 where;		/* CKEY_GLOBAL | CKEY_IFACE | CKEY_PUBLISH */
	/* v into d, or why not */
	int		(*parse)(const struct ckey_dst *d, const char *v, const char **why);
	/* "name = value", unless what is printed from leaves the key unset */
	void		(*print)(FILE *f, const char *name, const struct ckey_src *at);
};

static const char *const level_names[] = {
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};
static const char *const defend_names[] = { "never", "once", "always" };
static const char *const form_names[] = { NULL, "request", "reply", "both" };
static const char *const path_names[] = { "capture", "auto", "kernel", "xdp" };

/* ------------------------------------------------------------------ parsing */

static int
k_interfaces(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_glob *g;
	size_t n;

	if (cval_globs(v, &g, &n, why) == -1)
		return -1;
	cval_globs_free(d->c->ifaces, d->c->nifaces);
	d->c->ifaces = g;
	d->c->nifaces = n;
	return 0;
}

/* The settings an [interface] section may override: [global]'s or the section's. */
static struct conf_ifset *
ifset(const struct ckey_dst *d)
{
	return d->s != NULL ? &d->s->set : &d->c->set;
}

static int
k_mode(const struct ckey_dst *d, const char *v, const char **why)
{
	int m = pol_mode_parse(v);

	if (m < 0)
		return *why = "must be one of owner, subnet, system, monitor, off", -1;
	ifset(d)->mode = m;
	return 0;
}

static int
k_announce(const struct ckey_dst *d, const char *v, const char **why)
{
	bool b;

	if (cval_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(d)->announce = b;
	return 0;
}

static int
k_defend(const struct ckey_dst *d, const char *v, const char **why)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(v, defend_names[i]) == 0)
			return ifset(d)->defend = i, 0;
	return *why = "must be one of never, once, always", -1;
}

static int
k_allow_senders(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_acl *acl = d->s != NULL ? &d->s->acl : &d->c->acl;

	if (cval_nets(&acl->allow, v, why) == -1)
		return -1;
	acl->has_allow = true;
	return 0;
}

static int
k_deny_senders(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_acl *acl = d->s != NULL ? &d->s->acl : &d->c->acl;

	if (cval_nets(&acl->deny, v, why) == -1)
		return -1;
	acl->has_deny = true;
	return 0;
}

static int
k_allow_probes(const struct ckey_dst *d, const char *v, const char **why)
{
	bool b;

	if (cval_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(d)->allow_probes = b;
	return 0;
}

static int
k_answer_path(const struct ckey_dst *d, const char *v, const char **why)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(v, path_names[i]) == 0) {
#ifndef HAVE_BPF
			/* a start would refuse it (kp_open cannot load): refused
			 * here, so that -n, the start and a reload agree */
			if (i == CONF_PATH_KERNEL || i == CONF_PATH_XDP)
				return *why = "this arpownd is built without the kernel answer "
				    "path (configure found no BPF toolchain); use auto or capture", -1;
#endif
			ifset(d)->answer_path = i;
			return 0;
		}
	return *why = "must be capture, auto, kernel or xdp", -1;
}

static int
k_announce_count(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 100);

	if (n < 1)
		return *why = "must be a whole number of frames, 1 to 100", -1;
	d->c->announce_count = (unsigned)n;
	return 0;
}

static int
k_announce_interval(const struct ckey_dst *d, const char *v, const char **why)
{
	double secs = cval_seconds(v);

	if (secs < 0.1 || secs > 60)
		return *why = "must be seconds, 0.1 to 60 (e.g. 1.1)", -1;
	d->c->announce_interval = secs;
	return 0;
}

static int
k_announce_form(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "request") == 0)
		return d->c->announce_form = CONF_FORM_REQUEST, 0;
	if (strcmp(v, "reply") == 0)
		return d->c->announce_form = CONF_FORM_REPLY, 0;
	if (strcmp(v, "both") == 0)
		return d->c->announce_form = CONF_FORM_BOTH, 0;
	return *why = "must be one of request, reply, both", -1;
}

static int
k_announce_refresh(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 86400);

	if (n < 0)
		return *why = "must be a whole number of seconds, 0 (never) to 86400", -1;
	d->c->announce_refresh = (unsigned)n;
	return 0;
}

static int
k_arp_announce(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "keep") == 0)
		return d->c->arp_announce = CONF_ANNOUNCE_KEEP, 0;
	if (strlen(v) == 1 && v[0] >= '0' && v[0] <= '2')
		return d->c->arp_announce = v[0] - '0', 0;
	return *why = "must be one of keep, 0, 1, 2", -1;
}

static int
k_stop_leaves(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "strict") == 0)
		return d->c->stop_leaves = CONF_STOP_STRICT, 0;
	if (strcmp(v, "originals") == 0)
		return d->c->stop_leaves = CONF_STOP_ORIGINALS, 0;
	return *why = "must be strict or originals", -1;
}

static int
k_learn(const struct ckey_dst *d, const char *v, const char **why)
{
	if (cval_bool(v, &d->c->learn) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

static int
k_log_level(const struct ckey_dst *d, const char *v, const char **why)
{
	int l;

	for (l = LOG_ERR; l <= LOG_DEBUG; l++)
		if (strcmp(v, level_names[l]) == 0)
			return d->c->log_level = l, 0;
	return *why = "must be one of err, warning, notice, info, debug", -1;
}

static int
k_user(const struct ckey_dst *d, const char *v, const char **why)
{
	char *u;

	/* a name, a numeric uid, or uid:gid (no passwd entry needed) */
	if (*v == '\0' || strpbrk(v, " \t/") != NULL ||
	    (strchr(v, ':') != NULL && strspn(v, "0123456789:") != strlen(v)) ||
	    (strchr(v, ':') != NULL && (v[0] == ':' || strchr(v, ':') != strrchr(v, ':') ||
	    v[strlen(v) - 1] == ':')))
		return *why = "must be a user name, a uid, or uid:gid", -1;
	if ((u = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(d->c->user);
	d->c->user = u;
	return 0;
}

static int
k_rate(long *dst, const char *v, long max, const char **why)
{
	long n = cval_uint(v, max);

	if (n < 0)
		return *why = "must be a whole number (0 = no limit)", -1;
	*dst = n;
	return 0;
}

static int
k_sender_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	return k_rate(&d->c->sender_rate, v, 1000000, why);
}

static int
k_total_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	return k_rate(&d->c->total_rate, v, 100000000, why);
}

static int
k_announce_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 1000000);

	if (n < 0 || (n > 0 && n < 10))
		return *why = "must be a whole number of frames a second, 10 to 1000000 "
		    "(0 = not paced)", -1;
	d->c->announce_rate = n;
	return 0;
}

static int
k_busy_poll(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, CONF_BUSY_POLL_MAX);

	if (n < 0)
		return *why = "must be a whole number of microseconds, 0 to 2000", -1;
	d->c->busy_poll_us = n;
	return 0;
}

static int
k_qdisc_bypass(const struct ckey_dst *d, const char *v, const char **why)
{
	if (cval_bool(v, &d->c->qdisc_bypass) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

/*
 * An absolute path, and one that survives the trip through iniparser and
 * conf_print unchanged: iniparser cuts a value at ';' or '#', strips
 * quotes and surrounding blanks, so none of those may be in it.
 */
static int
k_metrics_file(const struct ckey_dst *d, const char *v, const char **why)
{
	const unsigned char *p;
	char *m = NULL;

	if (*v != '\0') {
		if (*v != '/' || v[strlen(v) - 1] == '/')
			return *why = "must be an absolute path to a file, or empty (off)", -1;
		for (p = (const unsigned char *)v; *p != '\0'; p++)
			if (*p <= ' ' || *p == 0x7f || strchr(";#\"'\\", *p) != NULL)
				return *why = "a path without white space, control "
				    "characters, quotes, backslashes, ';' or '#'", -1;
		if ((m = strdup(v)) == NULL)
			return *why = "out of memory", -1;
	}
	free(d->c->metrics_file);
	d->c->metrics_file = m;
	return 0;
}

static int
k_metrics_interval(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, CONF_METRICS_INTERVAL_MAX);

	if (n < 1)
		return *why = "must be a whole number of seconds, 1 to 3600", -1;
	d->c->metrics_interval = n;
	return 0;
}

static int
k_match(const struct ckey_dst *d, const char *v, const char **why)
{
	cval_globs_free(d->s->match, d->s->nmatch);
	d->s->match = NULL;
	d->s->nmatch = 0;
	return cval_globs(v, &d->s->match, &d->s->nmatch, why);
}

static int
k_addresses(const struct ckey_dst *d, const char *v, const char **why)
{
	static char buf[160];
	struct in_addr a;
	uint32_t at;

	if (cval_nets(&d->p->set, v, why) == -1)
		return -1;
	if (rng_martian(&d->p->set, &at)) {
		rng_clear(&d->p->set);
		a.s_addr = htonl(at);
		snprintf(buf, sizeof(buf), "holds %s: 0.0.0.0, 127.0.0.0/8, multicast "
		    "and the broadcast address are never answered over ARP", inet_ntoa(a));
		return *why = buf, -1;
	}
	return 0;
}

static int
k_interface(const struct ckey_dst *d, const char *v, const char **why)
{
	char *g;

	if (*v == '\0' || strpbrk(v, " \t/:\"'") != NULL || strlen(v) >= 64)
		return *why = "must be one interface name or glob", -1;
	if ((g = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(d->p->ifglob);
	d->p->ifglob = g;
	return 0;
}

static int
k_mac(const struct ckey_dst *d, const char *v, const char **why)
{
	struct ether_addr ea;

	/* glibc's parser, held to the one spelling we print (two digits) */
	if (strlen(v) != 17 || ether_aton_r(v, &ea) == NULL)
		return *why = "must be a MAC address, aa:bb:cc:dd:ee:ff", -1;
	if (ea.ether_addr_octet[0] & 1)
		return *why = "a multicast or broadcast MAC cannot answer", -1;
	if (memcmp(ea.ether_addr_octet, "\0\0\0\0\0\0", 6) == 0)
		return *why = "the zero MAC cannot answer", -1;
	memcpy(d->p->mac, ea.ether_addr_octet, 6);
	d->p->has_mac = true;
	return 0;
}

/* ------------------------------------------------------------------ printing */

static const struct conf_ifset *
cifset(const struct ckey_src *at)
{
	return at->s != NULL ? &at->s->set : &at->c->set;
}

static const struct conf_acl *
cacl(const struct ckey_src *at)
{
	return at->s != NULL ? &at->s->acl : &at->c->acl;
}

static void
o_interfaces(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_globs_print(f, name, at->c->ifaces, at->c->nifaces);
}

static void
o_match(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_globs_print(f, name, at->s->match, at->s->nmatch);
}

static void
o_mode(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cifset(at)->mode >= 0)
		fprintf(f, "%s = %s\n", name, pol_mode_str(cifset(at)->mode));
}

static void
o_announce(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, cifset(at)->announce);
}

static void
o_defend(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cifset(at)->defend >= 0)
		fprintf(f, "%s = %s\n", name, defend_names[cifset(at)->defend]);
}

static void
o_allow_senders(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cacl(at)->has_allow)
		cval_nets_print(f, name, &cacl(at)->allow);
}

static void
o_deny_senders(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cacl(at)->has_deny)
		cval_nets_print(f, name, &cacl(at)->deny);
}

static void
o_allow_probes(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, cifset(at)->allow_probes);
}

static void
o_answer_path(FILE *f, const char *name, const struct ckey_src *at)
{
	int p = cifset(at)->answer_path;

	if (p >= 0 && p < 4)
		fprintf(f, "%s = %s\n", name, path_names[p]);
}

static void
o_arp_announce(FILE *f, const char *name, const struct ckey_src *at)
{
	if (at->c->arp_announce == CONF_ANNOUNCE_KEEP)
		fprintf(f, "%s = keep\n", name);
	else
		fprintf(f, "%s = %d\n", name, at->c->arp_announce);
}

static void
o_stop_leaves(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name,
	    at->c->stop_leaves == CONF_STOP_ORIGINALS ? "originals" : "strict");
}

static void
o_learn(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, at->c->learn);
}

static void
o_log_level(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, level_names[at->c->log_level]);
}

static void
o_user(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, at->c->user);
}

static void
o_sender_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->sender_rate);
}

static void
o_total_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->total_rate);
}

static void
o_busy_poll(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->busy_poll_us);
}

static void
o_qdisc_bypass(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, at->c->qdisc_bypass);
}

static void
o_announce_count(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %u\n", name, at->c->announce_count);
}

static void
o_announce_interval(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %g\n", name, at->c->announce_interval);
}

static void
o_announce_form(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, form_names[at->c->announce_form]);
}

static void
o_announce_refresh(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %u\n", name, at->c->announce_refresh);
}

static void
o_announce_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->announce_rate);
}

static void
o_metrics_file(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, at->c->metrics_file ? at->c->metrics_file : "");
}

static void
o_metrics_interval(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->metrics_interval);
}

static void
o_addresses(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_nets_print(f, name, &at->p->set);
}

static void
o_interface(FILE *f, const char *name, const struct ckey_src *at)
{
	const char *g = at->p->ifglob;

	fprintf(f, g && strpbrk(g, "#;") ? "%s = \"%s\"\n" : "%s = %s\n", name, g ? g : "");
}

static void
o_mac(FILE *f, const char *name, const struct ckey_src *at)
{
	char mac[UTIL_MAC_STRLEN];

	if (at->p->has_mac)
		fprintf(f, "%s = %s\n", name, util_mac_str(at->p->mac, mac));
}

/* ------------------------------------------------------------------ the keys */

#define G	CKEY_GLOBAL
#define I	CKEY_IFACE
#define P	CKEY_PUBLISH

/*
 * Adding a key: a row here, its k_ parser and o_ printer above, a line in
 * conf/arpownd.conf and arpownd.conf(5).  The rows are in the order
 * conf_print writes them; a key set in a section its row does not allow is
 * an unknown key there.
 */
static const struct ckey keys[] = {
	{ "interfaces",		G,	k_interfaces,		o_interfaces },
	{ "match",		I,	k_match,		o_match },
	{ "mode",		G | I,	k_mode,			o_mode },
	{ "announce",		G | I,	k_announce,		o_announce },
	{ "defend",		G | I,	k_defend,		o_defend },
	{ "allow_senders",	G | I,	k_allow_senders,	o_allow_senders },
	{ "deny_senders",	G | I,	k_deny_senders,		o_deny_senders },
	{ "allow_probes",	G | I,	k_allow_probes,		o_allow_probes },
	{ "answer_path",	G | I,	k_answer_path,		o_answer_path },
	{ "arp_announce",	G,	k_arp_announce,		o_arp_announce },
	{ "stop_leaves",	G,	k_stop_leaves,		o_stop_leaves },
	{ "learn",		G,	k_learn,		o_learn },
	{ "log_level",		G,	k_log_level,		o_log_level },
	{ "user",		G,	k_user,			o_user },
	{ "sender_rate",	G,	k_sender_rate,		o_sender_rate },
	{ "total_rate",		G,	k_total_rate,		o_total_rate },
	{ "busy_poll_us",	G,	k_busy_poll,		o_busy_poll },
	{ "qdisc_bypass",	G,	k_qdisc_bypass,		o_qdisc_bypass },
	{ "announce_count",	G,	k_announce_count,	o_announce_count },
	{ "announce_interval",	G,	k_announce_interval,	o_announce_interval },
	{ "announce_form",	G,	k_announce_form,	o_announce_form },
	{ "announce_refresh",	G,	k_announce_refresh,	o_announce_refresh },
	{ "announce_rate",	G,	k_announce_rate,	o_announce_rate },
	{ "metrics_file",	G,	k_metrics_file,		o_metrics_file },
	{ "metrics_interval",	G,	k_metrics_interval,	o_metrics_interval },
	{ "addresses",		P,	k_addresses,		o_addresses },
	{ "interface",		P,	k_interface,		o_interface },
	{ "mac",		P,	k_mac,			o_mac },
};

#undef G
#undef I
#undef P

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

const struct ckey *
ckey_find(const char *name, unsigned where)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if ((keys[i].where & where) != 0 && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

int
ckey_parse(const struct ckey *k, struct conf *c, struct conf_iface *s, struct conf_pub *p,
    const char *v, const char **why)
{
	const struct ckey_dst d = { c, s, p };

	return k->parse(&d, v, why);
}

/* The first row within two edits of name, of those nearest. */
const char *
ckey_near(const char *name, unsigned where)
{
	const char *best = NULL;
	size_t i, bd = 3, dd;

	for (i = 0; i < NKEYS; i++)
		if ((keys[i].where & where) != 0 && (dd = util_distance(name, keys[i].name)) < bd) {
			bd = dd;
			best = keys[i].name;
		}
	return best;
}

void
ckey_print(FILE *f, unsigned where, const struct conf *c, const struct conf_iface *s,
    const struct conf_pub *p)
{
	const struct ckey_src at = { c, s, p };
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if ((keys[i].where & where) != 0)
			keys[i].print(f, keys[i].name, &at);
}
