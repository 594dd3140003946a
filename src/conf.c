/* conf.c — /etc/arpownd.conf through iniparser, validated here: iniparser's
 * typed getters accept malformed values silently, so every value is read
 * as a string and checked, and every error is reported, not just the first. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#ifdef HAVE_INIPARSER_INIPARSER_H
#include <iniparser/iniparser.h>
#else
#include <iniparser.h>
#endif

#include "conf.h"
#include "policy.h"
#include "util.h"

#define CONF_MAX_LINE	1024

/* Where each key stands in the file: iniparser 4.1 keeps no line numbers
 * and silently keeps the last of two equal keys, so a small scan of our
 * own finds both before iniparser reads the file. */
struct where {
	char	*sec;		/* lowercased, as iniparser names it */
	char	*key;		/* NULL: the section's own line */
	unsigned line;
	size_t	 next;		/* the next in its hash chain, WHERE_NIL ends */
};

#define WHERE_NIL	((size_t)-1)

struct ctx {
	const char	*path;
	conf_err_fn	*err;
	void		*arg;
	int		 nerr;
	struct where	*w;		/* hashed: a file of 8,000 sections stays linear */
	size_t		 nw, aw;
	size_t		*bucket;	/* heads, a power of two of them */
	size_t		 nbucket;
};

static void
report(struct ctx *x, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
report(struct ctx *x, unsigned line, const char *fmt, ...)
{
	char msg[CONF_MAX_LINE * 2], *p = msg;
	size_t left = sizeof(msg);
	va_list ap;
	int n;

	n = line ? snprintf(p, left, "%s:%u: ", x->path, line) :
	    snprintf(p, left, "%s: ", x->path);
	if (n > 0 && (size_t)n < left) {
		p += n;
		left -= (size_t)n;
	}
	va_start(ap, fmt);
	vsnprintf(p, left, fmt, ap);
	va_end(ap);
	x->nerr++;
	if (x->err != NULL)
		x->err(x->arg, msg);
}

/* The section's name, a separator no name holds, the key's. */
static size_t
where_hash(const char *sec, const char *key)
{
	uint32_t h = util_fnv1a(UTIL_FNV1A_INIT, sec, strlen(sec));

	h = util_fnv1a(h, "\x1f", 1);
	return key != NULL ? util_fnv1a(h, key, strlen(key)) : h;
}

static unsigned
line_of(const struct ctx *x, const char *sec, const char *key)
{
	size_t i;

	if (x->nbucket == 0)
		return 0;
	for (i = x->bucket[where_hash(sec, key) & (x->nbucket - 1)]; i != WHERE_NIL;
	    i = x->w[i].next)
		if (strcmp(x->w[i].sec, sec) == 0 &&
		    (key == NULL ? x->w[i].key == NULL :
		    x->w[i].key != NULL && strcmp(x->w[i].key, key) == 0))
			return x->w[i].line;
	return 0;
}

/* Twice as many chains as entries, rebuilt when they are outgrown. */
static int
where_rehash(struct ctx *x)
{
	size_t n = x->nbucket ? x->nbucket * 2 : 64, i, h;
	size_t *b;

	if ((b = malloc(n * sizeof(*b))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		b[i] = WHERE_NIL;
	for (i = 0; i < x->nw; i++) {
		h = where_hash(x->w[i].sec, x->w[i].key) & (n - 1);
		x->w[i].next = b[h];
		b[h] = i;
	}
	free(x->bucket);
	x->bucket = b;
	x->nbucket = n;
	return 0;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static void
lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int
add_where(struct ctx *x, const char *sec, const char *key, unsigned line)
{
	struct where *w;
	size_t h;

	if (x->nw == x->aw) {
		size_t n = x->aw ? x->aw * 2 : 64;

		if ((w = realloc(x->w, n * sizeof(*w))) == NULL)
			return -1;
		x->w = w;
		x->aw = n;
	}
	if (x->nw * 2 >= x->nbucket && where_rehash(x) == -1)
		return -1;
	w = &x->w[x->nw];
	w->sec = strdup(sec);
	w->key = key ? strdup(key) : NULL;
	w->line = line;
	if (w->sec == NULL || (key != NULL && w->key == NULL)) {
		free(w->sec);
		free(w->key);
		return -1;
	}
	h = where_hash(sec, key) & (x->nbucket - 1);
	w->next = x->bucket[h];
	x->bucket[h] = x->nw++;
	return 0;
}

/* Record sections and keys with their lines; report duplicates and keys
 * outside any section (iniparser would file those under no section). */
static int
scan(struct ctx *x, FILE *f)
{
	char buf[CONF_MAX_LINE], sec[CONF_MAX_LINE] = "", *s, *e;
	unsigned line = 0, prev;
	int insec = 0;

	while (fgets(buf, sizeof(buf), f) != NULL) {
		line++;
		s = trim(buf);
		/* iniparser joins a line ending in a backslash, a comment
		 * included, with the next one: that line would be lost */
		if (*s != '\0' && s[strlen(s) - 1] == '\\')
			report(x, line, "the line ends in a backslash, which would join "
			    "line %u to it: remove the backslash", line + 1);
		if (*s == '\0' || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			if ((e = strchr(s, ']')) == NULL)
				continue;	/* iniparser reports the syntax */
			*e = '\0';
			snprintf(sec, sizeof(sec), "%s", trim(s + 1));
			lower(sec);
			insec = 1;
			/* iniparser names a key "section:key": a ':' in a
			 * section would hand its keys to another section */
			if (strchr(sec, ':') != NULL)
				report(x, line, "[%s]: ':' cannot be used in a section "
				    "name or label", sec);
			if ((prev = line_of(x, sec, NULL)) != 0)
				report(x, line, "[%s]: section already defined at line %u",
				    sec, prev);
			else if (add_where(x, sec, NULL, line) == -1)
				return -1;
			continue;
		}
		if ((e = strchr(s, '=')) == NULL)
			continue;
		*e = '\0';
		s = trim(s);
		lower(s);
		if (!insec) {
			report(x, line, "%s: key outside any section (put it under [global])", s);
			continue;
		}
		if ((prev = line_of(x, sec, s)) != 0)
			report(x, line, "[%s] %s: key already set at line %u", sec, s, prev);
		else if (add_where(x, sec, s, line) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ values */

static int
parse_globs(const char *v, struct conf_glob **out, size_t *nout, const char **why)
{
	struct conf_glob *g = NULL, *ng;
	char *copy, *tok, *save = NULL;
	size_t n = 0;

	if ((copy = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		int neg = tok[0] == '!';

		if (tok[neg] == '\0' || strchr(tok, '/') != NULL) {
			*why = "globs are interface name patterns, non-empty, without '/'";
			goto err;
		}
		/* a quote inside a value is what iniparser leaves of an
		 * unbalanced one: the name would never match as meant */
		if (strpbrk(tok, "\"'") != NULL) {
			*why = "a glob cannot contain quotes (to keep a '#' or ';' in "
			    "names, quote the whole value: \"eth#1 eth2\")";
			goto err;
		}
		if ((ng = realloc(g, (n + 1) * sizeof(*g))) == NULL) {
			*why = "out of memory";
			goto err;
		}
		g = ng;
		if ((g[n].pat = strdup(tok + neg)) == NULL) {
			*why = "out of memory";
			goto err;
		}
		g[n++].neg = neg;
	}
	if (n == 0) {
		*why = "at least one glob is needed";
		goto err;
	}
	free(copy);
	*out = g;
	*nout = n;
	return 0;
err:
	while (n > 0)
		free(g[--n].pat);
	free(g);
	free(copy);
	return -1;
}

static void
free_globs(struct conf_glob *g, size_t n)
{
	while (n > 0)
		free(g[--n].pat);
	free(g);
}

static int
parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, 0;
	}
	return -1;
}

static const char *const level_names[] = {
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

static long
parse_uint(const char *v, long max)
{
	char *end;
	long n;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || n > max)
		return -1;
	return n;
}

/* One validator per key: parse v into c (or s), or say why not. */
typedef int key_fn(struct conf *c, struct conf_iface *s, const char *v, const char **why);

static int
k_interfaces(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	struct conf_glob *g;
	size_t n;

	(void)s;
	if (parse_globs(v, &g, &n, why) == -1)
		return -1;
	free_globs(c->ifaces, c->nifaces);
	c->ifaces = g;
	c->nifaces = n;
	return 0;
}

/* The settings an [interface] section may override: [global]'s or the section's. */
static struct conf_ifset *
ifset(struct conf *c, struct conf_iface *s)
{
	return s != NULL ? &s->set : &c->set;
}

static int
k_mode(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	int m = pol_mode_parse(v);

	if (m < 0)
		return *why = "must be one of owner, subnet, system, monitor, off", -1;
	ifset(c, s)->mode = m;
	return 0;
}

static int
k_announce(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	bool b;

	if (parse_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(c, s)->announce = b;
	return 0;
}

static int
k_defend(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	static const char *const names[] = { "never", "once", "always" };
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(v, names[i]) == 0)
			return ifset(c, s)->defend = i, 0;
	return *why = "must be one of never, once, always", -1;
}

/* A list of addresses, CIDRs and ranges ("!" excludes) into r. */
static int
k_nets(struct rng *r, const char *v, const char **why)
{
	char *copy, *tok, *save = NULL;
	int n = 0;

	rng_clear(r);
	if ((copy = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (rng_add_item(r, tok, why) == -1)
			goto err;
		n++;
	}
	if (n == 0) {
		*why = "at least one address, CIDR or range is needed";
		goto err;
	}
	if (rng_finish(r) == -1) {
		*why = "out of memory";
		goto err;
	}
	free(copy);
	return 0;
err:
	free(copy);
	rng_clear(r);
	return -1;
}

static int
k_allow_senders(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	struct conf_acl *acl = s != NULL ? &s->acl : &c->acl;

	if (k_nets(&acl->allow, v, why) == -1)
		return -1;
	acl->has_allow = true;
	return 0;
}

static int
k_deny_senders(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	struct conf_acl *acl = s != NULL ? &s->acl : &c->acl;

	if (k_nets(&acl->deny, v, why) == -1)
		return -1;
	acl->has_deny = true;
	return 0;
}

static int
k_allow_probes(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	bool b;

	if (parse_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(c, s)->allow_probes = b;
	return 0;
}

static int
k_announce_count(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	long n = parse_uint(v, 100);

	(void)s;
	if (n < 1)
		return *why = "must be a whole number of frames, 1 to 100", -1;
	c->announce_count = (unsigned)n;
	return 0;
}

/* A decimal number of seconds: digits, optionally a point and digits. */
static double
parse_seconds(const char *v)
{
	size_t n = strspn(v, "0123456789");
	char *end;

	if (n == 0 || (v[n] != '\0' && (v[n] != '.' || v[n + 1] == '\0' ||
	    strspn(v + n + 1, "0123456789") != strlen(v + n + 1))))
		return -1;
	return strtod(v, &end);
}

static int
k_announce_interval(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	double d = parse_seconds(v);

	(void)s;
	if (d < 0.1 || d > 60)
		return *why = "must be seconds, 0.1 to 60 (e.g. 1.1)", -1;
	c->announce_interval = d;
	return 0;
}

static int
k_announce_form(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	if (strcmp(v, "request") == 0)
		return c->announce_form = CONF_FORM_REQUEST, 0;
	if (strcmp(v, "reply") == 0)
		return c->announce_form = CONF_FORM_REPLY, 0;
	if (strcmp(v, "both") == 0)
		return c->announce_form = CONF_FORM_BOTH, 0;
	return *why = "must be one of request, reply, both", -1;
}

static int
k_announce_refresh(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	long n = parse_uint(v, 86400);

	(void)s;
	if (n < 0)
		return *why = "must be a whole number of seconds, 0 (never) to 86400", -1;
	c->announce_refresh = (unsigned)n;
	return 0;
}

static int
k_arp_announce(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	if (strcmp(v, "keep") == 0)
		return c->arp_announce = CONF_ANNOUNCE_KEEP, 0;
	if (strlen(v) == 1 && v[0] >= '0' && v[0] <= '2')
		return c->arp_announce = v[0] - '0', 0;
	return *why = "must be one of keep, 0, 1, 2", -1;
}

static int
k_learn(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	if (parse_bool(v, &c->learn) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

static int
k_log_level(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	int l;

	(void)s;
	for (l = LOG_ERR; l <= LOG_DEBUG; l++)
		if (strcmp(v, level_names[l]) == 0)
			return c->log_level = l, 0;
	return *why = "must be one of err, warning, notice, info, debug", -1;
}

static int
k_user(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	char *u;

	(void)s;
	/* a name, a numeric uid, or uid:gid (no passwd entry needed) */
	if (*v == '\0' || strpbrk(v, " \t/") != NULL ||
	    (strchr(v, ':') != NULL && strspn(v, "0123456789:") != strlen(v)) ||
	    (strchr(v, ':') != NULL && (v[0] == ':' || strchr(v, ':') != strrchr(v, ':') ||
	    v[strlen(v) - 1] == ':')))
		return *why = "must be a user name, a uid, or uid:gid", -1;
	if ((u = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(c->user);
	c->user = u;
	return 0;
}

static int
k_rate(long *dst, const char *v, long max, const char **why)
{
	long n = parse_uint(v, max);

	if (n < 0)
		return *why = "must be a whole number (0 = no limit)", -1;
	*dst = n;
	return 0;
}

static int
k_sender_rate(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	return k_rate(&c->sender_rate, v, 1000000, why);
}

static int
k_total_rate(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	return k_rate(&c->total_rate, v, 100000000, why);
}

static int
k_busy_poll(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	long n = parse_uint(v, CONF_BUSY_POLL_MAX);

	(void)s;
	if (n < 0)
		return *why = "must be a whole number of microseconds, 0 to 2000", -1;
	c->busy_poll_us = n;
	return 0;
}

static int
k_qdisc_bypass(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)s;
	if (parse_bool(v, &c->qdisc_bypass) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

/*
 * An absolute path, and one that survives the trip through iniparser and
 * conf_print unchanged: iniparser cuts a value at ';' or '#', strips
 * quotes and surrounding blanks, so none of those may be in it.
 */
static int
k_metrics_file(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	const unsigned char *p;
	char *m = NULL;

	(void)s;
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
	free(c->metrics_file);
	c->metrics_file = m;
	return 0;
}

static int
k_metrics_interval(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	long n = parse_uint(v, CONF_METRICS_INTERVAL_MAX);

	(void)s;
	if (n < 1)
		return *why = "must be a whole number of seconds, 1 to 3600", -1;
	c->metrics_interval = n;
	return 0;
}

static int
k_match(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	(void)c;
	free_globs(s->match, s->nmatch);
	s->match = NULL;
	s->nmatch = 0;
	return parse_globs(v, &s->match, &s->nmatch, why);
}

/* A [publish] section's keys. */
typedef int pkey_fn(struct conf_pub *p, const char *v, const char **why);

struct key {
	const char	*name;
	key_fn		*fn;
	pkey_fn		*pfn;	/* instead of fn, in [publish] sections */
};

static int
p_addresses(struct conf_pub *p, const char *v, const char **why)
{
	static char buf[160];
	struct in_addr a;
	uint32_t at;

	if (k_nets(&p->set, v, why) == -1)
		return -1;
	if (rng_martian(&p->set, &at)) {
		rng_clear(&p->set);
		a.s_addr = htonl(at);
		snprintf(buf, sizeof(buf), "holds %s: 0.0.0.0/8, 127.0.0.0/8, multicast "
		    "and the broadcast address are never answered over ARP", inet_ntoa(a));
		return *why = buf, -1;
	}
	return 0;
}

static int
p_interface(struct conf_pub *p, const char *v, const char **why)
{
	char *g;

	if (*v == '\0' || strpbrk(v, " \t/:\"'") != NULL || strlen(v) >= 64)
		return *why = "must be one interface name or glob", -1;
	if ((g = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(p->ifglob);
	p->ifglob = g;
	return 0;
}

static int
p_mac(struct conf_pub *p, const char *v, const char **why)
{
	struct ether_addr ea;

	/* glibc's parser, held to the one spelling we print (two digits) */
	if (strlen(v) != 17 || ether_aton_r(v, &ea) == NULL)
		return *why = "must be a MAC address, aa:bb:cc:dd:ee:ff", -1;
	if (ea.ether_addr_octet[0] & 1)
		return *why = "a multicast or broadcast MAC cannot answer", -1;
	if (memcmp(ea.ether_addr_octet, "\0\0\0\0\0\0", 6) == 0)
		return *why = "the zero MAC cannot answer", -1;
	memcpy(p->mac, ea.ether_addr_octet, 6);
	p->has_mac = true;
	return 0;
}

/* Adding a key: one line here, its validator above, conf_print below. */
static const struct key global_keys[] = {
	{ "interfaces", k_interfaces, NULL },
	{ "mode", k_mode, NULL },
	{ "arp_announce", k_arp_announce, NULL },
	{ "learn", k_learn, NULL },
	{ "log_level", k_log_level, NULL },
	{ "user", k_user, NULL },
	{ "sender_rate", k_sender_rate, NULL },
	{ "total_rate", k_total_rate, NULL },
	{ "busy_poll_us", k_busy_poll, NULL },
	{ "qdisc_bypass", k_qdisc_bypass, NULL },
	{ "announce", k_announce, NULL },
	{ "announce_count", k_announce_count, NULL },
	{ "announce_interval", k_announce_interval, NULL },
	{ "announce_form", k_announce_form, NULL },
	{ "announce_refresh", k_announce_refresh, NULL },
	{ "defend", k_defend, NULL },
	{ "allow_senders", k_allow_senders, NULL },
	{ "deny_senders", k_deny_senders, NULL },
	{ "allow_probes", k_allow_probes, NULL },
	{ "metrics_file", k_metrics_file, NULL },
	{ "metrics_interval", k_metrics_interval, NULL },
	{ NULL, NULL, NULL }
};

static const struct key publish_keys[] = {
	{ "addresses", NULL, p_addresses },
	{ "interface", NULL, p_interface },
	{ "mac", NULL, p_mac },
	{ NULL, NULL, NULL }
};

static const struct key iface_keys[] = {
	{ "match", k_match, NULL },
	{ "mode", k_mode, NULL },
	{ "announce", k_announce, NULL },
	{ "defend", k_defend, NULL },
	{ "allow_senders", k_allow_senders, NULL },
	{ "deny_senders", k_deny_senders, NULL },
	{ "allow_probes", k_allow_probes, NULL },
	{ NULL, NULL, NULL }
};

static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, d[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = d[j];
			d[j] = a[i - 1] == b[j - 1] ? prev :
			    1 + (prev < d[j] ? (prev < d[j - 1] ? prev : d[j - 1]) :
			    (d[j] < d[j - 1] ? d[j] : d[j - 1]));
			prev = cur;
		}
	}
	return d[lb];
}

/*
 * iniparser's dictionary, walked once: its sections in file order, each
 * with its keys.  The accessors (getsecname, getseckeys) walk the whole
 * dictionary for each section: a file of 8,000 sections took 6 s, and a
 * reload holds the loop that long.
 */
struct ini_key {
	const char	*key;		/* the part after "section:" */
	const char	*val;
};

struct ini_sec {
	const char	*name;
	struct ini_key	*k;
	size_t		 n, alloc;
	size_t		 next;		/* hash chain */
};

struct ini {
	struct ini_sec	*s;
	size_t		 n;
	size_t		*bucket;
	size_t		 nbucket;
};

static struct ini_sec *
ini_find(const struct ini *ix, const char *name, size_t len)
{
	size_t i = ix->bucket[util_fnv1a(UTIL_FNV1A_INIT, name, len) & (ix->nbucket - 1)];

	for (; i != WHERE_NIL; i = ix->s[i].next)
		if (strncmp(ix->s[i].name, name, len) == 0 && ix->s[i].name[len] == '\0')
			return &ix->s[i];
	return NULL;
}

static void
ini_free(struct ini *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		free(ix->s[i].k);
	free(ix->s);
	free(ix->bucket);
	memset(ix, 0, sizeof(*ix));
}

static int
ini_index(const dictionary *d, struct ini *ix)
{
	struct ini_sec *sec;
	struct ini_key *nk;
	const char *colon;
	ssize_t i;
	size_t h, n = 0;

	memset(ix, 0, sizeof(*ix));
	for (i = 0; i < d->size; i++)
		if (d->key[i] != NULL && strchr(d->key[i], ':') == NULL)
			n++;
	for (ix->nbucket = 16; ix->nbucket < 2 * n; ix->nbucket *= 2)
		;
	if ((ix->s = calloc(n ? n : 1, sizeof(*ix->s))) == NULL ||
	    (ix->bucket = malloc(ix->nbucket * sizeof(*ix->bucket))) == NULL)
		goto nomem;
	for (h = 0; h < ix->nbucket; h++)
		ix->bucket[h] = WHERE_NIL;
	/* the sections first (a key's section may come later in the array) */
	for (i = 0; i < d->size; i++) {
		if (d->key[i] == NULL || strchr(d->key[i], ':') != NULL)
			continue;
		sec = &ix->s[ix->n];
		sec->name = d->key[i];
		h = util_fnv1a(UTIL_FNV1A_INIT, sec->name, strlen(sec->name)) & (ix->nbucket - 1);
		sec->next = ix->bucket[h];
		ix->bucket[h] = ix->n++;
	}
	for (i = 0; i < d->size; i++) {
		if (d->key[i] == NULL || (colon = strchr(d->key[i], ':')) == NULL)
			continue;
		/* "sec:key"; a ':' in the section's name was refused by scan() */
		if ((sec = ini_find(ix, d->key[i], (size_t)(colon - d->key[i]))) == NULL)
			continue;
		if (sec->n == sec->alloc) {
			size_t na = sec->alloc ? sec->alloc * 2 : 8;

			if ((nk = realloc(sec->k, na * sizeof(*nk))) == NULL)
				goto nomem;
			sec->k = nk;
			sec->alloc = na;
		}
		sec->k[sec->n].key = colon + 1;
		sec->k[sec->n++].val = d->val[i];
	}
	return 0;
nomem:
	ini_free(ix);
	return -1;
}

static void
read_section(struct ctx *x, const struct ini_sec *is, const struct key *keys,
    struct conf *c, struct conf_iface *s, struct conf_pub *p)
{
	const char *sec = is->name, *v, *why, *k, *best;
	size_t i, bd, dd, j;

	for (j = 0; j < is->n; j++) {
		k = is->k[j].key;
		v = is->k[j].val;
		/* [interface a:b] and its keys come back under [interface a]
		 * as "b" (a section: no value) and "b:key"; scan() reported it */
		if (v == NULL || strchr(k, ':') != NULL)
			continue;
		for (i = 0; keys[i].name != NULL; i++)
			if (strcmp(keys[i].name, k) == 0)
				break;
		if (keys[i].name == NULL) {
			for (i = 0, best = NULL, bd = 3; keys[i].name != NULL; i++)
				if ((dd = distance(k, keys[i].name)) < bd) {
					bd = dd;
					best = keys[i].name;
				}
			if (best != NULL)
				report(x, line_of(x, sec, k), "[%s] %s = %s: unknown key "
				    "\"%s\" (did you mean \"%s\"?)", sec, k, v, k, best);
			else
				report(x, line_of(x, sec, k), "[%s] %s = %s: unknown key "
				    "\"%s\"", sec, k, v, k);
			continue;
		}
		why = NULL;
		if ((keys[i].pfn != NULL ? keys[i].pfn(p, v, &why) : keys[i].fn(c, s, v, &why)) == -1)
			report(x, line_of(x, sec, k), "[%s] %s = %s: %s", sec, k, v, why);
	}
}

/* iniparser's own syntax errors arrive here; it has no context argument. */
static struct ctx *cur_ctx;

static int ini_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int default_ini_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
ini_error(const char *fmt, ...)
{
	char msg[CONF_MAX_LINE * 2], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; (p = strchr(p, '\n')) != NULL; )
		*p = ' ';
	if (cur_ctx != NULL)
		report(cur_ctx, 0, "%s", trim(msg));
	return 0;
}

static int
default_ini_error(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

struct conf *
conf_defaults(void)
{
	struct conf *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->set.mode = POL_OWNER;
	c->set.announce = 1;
	c->set.defend = CONF_DEFEND_ONCE;
	c->set.allow_probes = 1;
	c->announce_count = CONF_DEFAULT_ANN_COUNT;
	c->announce_interval = CONF_DEFAULT_ANN_INTERVAL;
	c->announce_form = CONF_FORM_BOTH;
	c->announce_refresh = 0;
	c->arp_announce = 2;
	c->learn = true;
	c->log_level = LOG_INFO;
	c->sender_rate = CONF_DEFAULT_SENDER_RATE;
	c->total_rate = CONF_DEFAULT_TOTAL_RATE;
	c->busy_poll_us = CONF_DEFAULT_BUSY_POLL;
	c->metrics_interval = CONF_DEFAULT_METRICS_INTERVAL;
	c->ifaces = calloc(1, sizeof(*c->ifaces));
	c->user = strdup("arpownd");
	if (c->ifaces == NULL || c->user == NULL ||
	    (c->ifaces[0].pat = strdup("*")) == NULL) {
		conf_free(c);
		return NULL;
	}
	c->nifaces = 1;
	return c;
}

/* A [publish LABEL] section: addresses and interface required; no
 * address in two sections. */
static void
read_publish(struct ctx *x, const struct ini_sec *is, struct conf *c)
{
	const char *sec = is->name, *label = sec + 7 + strspn(sec + 7, " \t");
	struct conf_pub *p;
	struct in_addr a;
	uint32_t at;
	size_t i;

	if (*label == '\0') {
		report(x, line_of(x, sec, NULL), "[%s]: a publish section needs a label: "
		    "[publish LABEL]", sec);
		return;
	}
	if ((p = realloc(c->pubs, (c->npubs + 1) * sizeof(*p))) == NULL) {
		report(x, 0, "out of memory");
		return;
	}
	c->pubs = p;
	p = &c->pubs[c->npubs++];
	memset(p, 0, sizeof(*p));
	p->label = strdup(label);
	read_section(x, is, publish_keys, c, NULL, p);
	if (p->set.n == 0 && line_of(x, sec, "addresses") == 0)
		report(x, line_of(x, sec, NULL), "[%s]: addresses = ... is required", sec);
	if (p->ifglob == NULL && line_of(x, sec, "interface") == 0)
		report(x, line_of(x, sec, NULL), "[%s]: interface = NAME is required", sec);
	for (i = 0; i + 1 < c->npubs; i++)
		if (rng_overlap(&c->pubs[i].set, &p->set, &at)) {
			a.s_addr = htonl(at);
			report(x, line_of(x, sec, "addresses"), "[%s] addresses: %s is "
			    "published by [publish %s] too", sec, inet_ntoa(a),
			    c->pubs[i].label);
		}
}

struct conf *
conf_load(const char *path, conf_err_fn *err, void *arg)
{
	struct ctx x = { path, err, arg, 0, NULL, 0, 0, NULL, 0 };
	struct conf *c = NULL;
	struct conf_iface *s;
	dictionary *d = NULL;
	struct ini ix = { NULL, 0, NULL, 0 };
	size_t k, asections = 0;
	const char *sec;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL) {
		report(&x, 0, "cannot read: %s", strerror(errno));
		return NULL;
	}
	if (scan(&x, f) == -1)
		report(&x, 0, "out of memory");
	fclose(f);
	if ((c = conf_defaults()) == NULL || (c->path = strdup(path)) == NULL) {
		report(&x, 0, "out of memory");
		goto out;
	}
	cur_ctx = &x;
	iniparser_set_error_callback(ini_error);
	d = iniparser_load(path);
	iniparser_set_error_callback(default_ini_error);
	cur_ctx = NULL;
	if (d == NULL) {
		if (x.nerr == 0)
			report(&x, 0, "cannot parse");
		goto out;
	}
	if (ini_index(d, &ix) == -1) {
		report(&x, 0, "out of memory");
		goto out;
	}
	for (k = 0; k < ix.n; k++) {
		sec = ix.s[k].name;
		if (strcmp(sec, "global") == 0) {
			read_section(&x, &ix.s[k], global_keys, c, NULL, NULL);
			continue;
		}
		if (strncmp(sec, "publish", 7) == 0 && (sec[7] == ' ' || sec[7] == '\t' ||
		    sec[7] == '\0')) {
			read_publish(&x, &ix.s[k], c);
			continue;
		}
		if (strncmp(sec, "interface", 9) != 0 || (sec[9] != ' ' && sec[9] != '\t' &&
		    sec[9] != '\0')) {
			/* a key outside any section shows up as a "section" */
			if (line_of(&x, sec, NULL) != 0)
				report(&x, line_of(&x, sec, NULL), "[%s]: unknown section "
				    "(allowed: [global], [interface LABEL], [publish LABEL])", sec);
			continue;
		}
		if (sec[9] == '\0' || sec[strspn(sec + 9, " \t") + 9] == '\0') {
			report(&x, line_of(&x, sec, NULL), "[%s]: an interface section "
			    "needs a label: [interface LABEL]", sec);
			continue;
		}
		if (c->nsections == asections) {
			asections = asections ? asections * 2 : 8;
			if ((s = realloc(c->sections, asections * sizeof(*s))) == NULL) {
				report(&x, 0, "out of memory");
				break;
			}
			c->sections = s;
		}
		s = &c->sections[c->nsections++];
		memset(s, 0, sizeof(*s));
		s->set.mode = s->set.announce = s->set.defend = s->set.allow_probes = -1;
		s->label = strdup(sec + strspn(sec + 9, " \t") + 9);
		read_section(&x, &ix.s[k], iface_keys, c, s, NULL);
		if (s->nmatch == 0 && line_of(&x, sec, "match") == 0)
			report(&x, line_of(&x, sec, NULL), "[%s]: match = GLOBS is required", sec);
	}
out:
	ini_free(&ix);
	if (d != NULL)
		iniparser_freedict(d);
	for (k = 0; k < x.nw; k++) {
		free(x.w[k].sec);
		free(x.w[k].key);
	}
	free(x.w);
	free(x.bucket);
	if (x.nerr > 0) {
		conf_free(c);
		return NULL;
	}
	return c;
}

void
conf_free(struct conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	free_globs(c->ifaces, c->nifaces);
	rng_clear(&c->acl.allow);
	rng_clear(&c->acl.deny);
	for (i = 0; i < c->nsections; i++) {
		free(c->sections[i].label);
		free_globs(c->sections[i].match, c->sections[i].nmatch);
		rng_clear(&c->sections[i].acl.allow);
		rng_clear(&c->sections[i].acl.deny);
	}
	free(c->sections);
	for (i = 0; i < c->npubs; i++) {
		free(c->pubs[i].label);
		free(c->pubs[i].ifglob);
		rng_clear(&c->pubs[i].set);
	}
	free(c->pubs);
	free(c->user);
	free(c->metrics_file);
	free(c->path);
	free(c);
}

/* Selected: matches a positive glob (or there is none) and no negative one. */
static bool
selects(const struct conf_glob *g, size_t n, const char *name)
{
	bool pos = false, any_pos = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (fnmatch(g[i].pat, name, 0) == 0) {
			if (g[i].neg)
				return false;
			pos = true;
		}
		any_pos |= !g[i].neg;
	}
	return pos || !any_pos;
}

int
conf_iface(const struct conf *c, const char *name, struct conf_ifset *out)
{
	const struct conf_ifset *set;
	size_t i;

	if (!selects(c->ifaces, c->nifaces, name))
		return -1;
	*out = (struct conf_ifset){ -1, -1, -1, NULL, NULL, -1 };
	for (i = 0; i < c->nsections; i++) {
		if (!selects(c->sections[i].match, c->sections[i].nmatch, name))
			continue;
		set = &c->sections[i].set;
		if (out->mode < 0)
			out->mode = set->mode;
		if (out->announce < 0)
			out->announce = set->announce;
		if (out->defend < 0)
			out->defend = set->defend;
		if (out->allow == NULL && c->sections[i].acl.has_allow)
			out->allow = &c->sections[i].acl.allow;
		if (out->deny == NULL && c->sections[i].acl.has_deny)
			out->deny = &c->sections[i].acl.deny;
		if (out->allow_probes < 0)
			out->allow_probes = set->allow_probes;
	}
	if (out->mode < 0)
		out->mode = c->set.mode;
	if (out->announce < 0)
		out->announce = c->set.announce;
	if (out->defend < 0)
		out->defend = c->set.defend;
	if (out->allow == NULL && c->acl.has_allow)
		out->allow = &c->acl.allow;
	if (out->deny == NULL && c->acl.has_deny)
		out->deny = &c->acl.deny;
	if (out->allow_probes < 0)
		out->allow_probes = c->set.allow_probes;
	return 0;
}

int
conf_iface_mode(const struct conf *c, const char *name)
{
	struct conf_ifset s;

	return conf_iface(c, name, &s) == -1 ? -1 : s.mode;
}

static const char *const defend_names[] = { "never", "once", "always" };
static const char *const form_names[] = { NULL, "request", "reply", "both" };

static void
print_nets(FILE *f, const char *key, const struct rng *r)
{
	struct in_addr a, b;
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];
	size_t i;

	fprintf(f, "%s =", key);
	for (i = 0; i < r->n; i++) {
		a.s_addr = htonl(r->v[i].lo);
		b.s_addr = htonl(r->v[i].hi);
		inet_ntop(AF_INET, &a, x, sizeof(x));
		inet_ntop(AF_INET, &b, y, sizeof(y));
		if (r->v[i].lo == r->v[i].hi)
			fprintf(f, " %s", x);
		else
			fprintf(f, " %s-%s", x, y);
	}
	fputc('\n', f);
}

/* One line per key a section sets. */
static void
print_set(FILE *f, const struct conf_ifset *set, const struct conf_acl *acl)
{
	if (set->mode >= 0)
		fprintf(f, "mode = %s\n", pol_mode_str(set->mode));
	if (set->announce >= 0)
		fprintf(f, "announce = %s\n", set->announce ? "yes" : "no");
	if (set->defend >= 0)
		fprintf(f, "defend = %s\n", defend_names[set->defend]);
	if (acl->has_allow)
		print_nets(f, "allow_senders", &acl->allow);
	if (acl->has_deny)
		print_nets(f, "deny_senders", &acl->deny);
	if (set->allow_probes >= 0)
		fprintf(f, "allow_probes = %s\n", set->allow_probes ? "yes" : "no");
}

/* '#' and ';' start a comment unless the value is quoted (iniparser). */
static bool
needs_quotes(const struct conf_glob *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strpbrk(g[i].pat, "#;") != NULL)
			return true;
	return false;
}

static void
print_globs(FILE *f, const struct conf_glob *g, size_t n)
{
	bool q = needs_quotes(g, n);
	size_t i;

	if (q)
		fputc('"', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s%s", i ? " " : "", g[i].neg ? "!" : "", g[i].pat);
	if (q)
		fputc('"', f);
	fputc('\n', f);
}

void
conf_print(const struct conf *c, FILE *f)
{
	char mac[UTIL_MAC_STRLEN];
	size_t i;

	fprintf(f, "# effective configuration from %s\n", c->path ? c->path :
	    "the built-in defaults");
	fprintf(f, "[global]\ninterfaces = ");
	print_globs(f, c->ifaces, c->nifaces);
	print_set(f, &c->set, &c->acl);
	if (c->arp_announce == CONF_ANNOUNCE_KEEP)
		fprintf(f, "arp_announce = keep\n");
	else
		fprintf(f, "arp_announce = %d\n", c->arp_announce);
	fprintf(f, "learn = %s\n", c->learn ? "yes" : "no");
	fprintf(f, "log_level = %s\n", level_names[c->log_level]);
	fprintf(f, "user = %s\n", c->user);
	fprintf(f, "sender_rate = %ld\n", c->sender_rate);
	fprintf(f, "total_rate = %ld\n", c->total_rate);
	fprintf(f, "busy_poll_us = %ld\n", c->busy_poll_us);
	fprintf(f, "qdisc_bypass = %s\n", c->qdisc_bypass ? "yes" : "no");
	fprintf(f, "announce_count = %u\n", c->announce_count);
	fprintf(f, "announce_interval = %g\n", c->announce_interval);
	fprintf(f, "announce_form = %s\n", form_names[c->announce_form]);
	fprintf(f, "announce_refresh = %u\n", c->announce_refresh);
	fprintf(f, "metrics_file = %s\n", c->metrics_file ? c->metrics_file : "");
	fprintf(f, "metrics_interval = %ld\n", c->metrics_interval);
	for (i = 0; i < c->npubs; i++) {
		const struct conf_pub *p = &c->pubs[i];

		fprintf(f, "\n[publish %s]\n", p->label);
		print_nets(f, "addresses", &p->set);
		fprintf(f, p->ifglob && strpbrk(p->ifglob, "#;") ? "interface = \"%s\"\n" :
		    "interface = %s\n", p->ifglob ? p->ifglob : "");
		if (p->has_mac)
			fprintf(f, "mac = %s\n", util_mac_str(p->mac, mac));
	}
	for (i = 0; i < c->nsections; i++) {
		fprintf(f, "\n[interface %s]\nmatch = ", c->sections[i].label);
		print_globs(f, c->sections[i].match, c->sections[i].nmatch);
		print_set(f, &c->sections[i].set, &c->sections[i].acl);
	}
}
