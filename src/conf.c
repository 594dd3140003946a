/* conf.c — /etc/arpownd.conf through iniparser, validated here: iniparser's
 * typed getters accept malformed values silently, so every value is read
 * as a string and checked, and every error is reported, not just the first. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <net/if.h>
#include <stdarg.h>
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

#define CONF_MAX_LINE	1024

/* Where each key stands in the file: iniparser 4.1 keeps no line numbers
 * and silently keeps the last of two equal keys, so a small scan of our
 * own finds both before iniparser reads the file. */
struct where {
	char	*sec;		/* lowercased, as iniparser names it */
	char	*key;
	unsigned line;
};

struct ctx {
	const char	*path;
	conf_err_fn	*err;
	void		*arg;
	int		 nerr;
	struct where	*w;
	size_t		 nw;
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

static unsigned
line_of(const struct ctx *x, const char *sec, const char *key)
{
	size_t i;

	for (i = 0; i < x->nw; i++)
		if (strcmp(x->w[i].sec, sec) == 0 &&
		    (key == NULL ? x->w[i].key == NULL :
		    x->w[i].key != NULL && strcmp(x->w[i].key, key) == 0))
			return x->w[i].line;
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

	if ((w = realloc(x->w, (x->nw + 1) * sizeof(*w))) == NULL)
		return -1;
	x->w = w;
	w = &x->w[x->nw];
	w->sec = strdup(sec);
	w->key = key ? strdup(key) : NULL;
	w->line = line;
	if (w->sec == NULL || (key != NULL && w->key == NULL)) {
		free(w->sec);
		free(w->key);
		return -1;
	}
	x->nw++;
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

static int
k_mode(struct conf *c, struct conf_iface *s, const char *v, const char **why)
{
	int m = pol_mode_parse(v);

	if (m < 0)
		return *why = "must be one of owner, subnet, system, off", -1;
	if (s != NULL)
		s->mode = m;
	else
		c->mode = m;
	return 0;
}

static int
k_announce(struct conf *c, struct conf_iface *s, const char *v, const char **why)
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

struct key {
	const char	*name;
	key_fn		*fn;
};

/* Adding a key: one line here, its validator above, conf_print below. */
static const struct key global_keys[] = {
	{ "interfaces", k_interfaces },
	{ "mode", k_mode },
	{ "arp_announce", k_announce },
	{ "learn", k_learn },
	{ "log_level", k_log_level },
	{ "user", k_user },
	{ "sender_rate", k_sender_rate },
	{ "total_rate", k_total_rate },
	{ "busy_poll_us", k_busy_poll },
	{ "qdisc_bypass", k_qdisc_bypass },
	{ "metrics_file", k_metrics_file },
	{ "metrics_interval", k_metrics_interval },
	{ NULL, NULL }
};

static const struct key iface_keys[] = {
	{ "match", k_match },
	{ "mode", k_mode },
	{ NULL, NULL }
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

static void
read_section(struct ctx *x, dictionary *d, const char *sec, const struct key *keys,
    struct conf *c, struct conf_iface *s)
{
	const char **names, *v, *why, *k, *best;
	size_t i, bd, dd;
	int n, j;

	if ((n = iniparser_getsecnkeys(d, sec)) <= 0)
		return;
	if ((names = calloc((size_t)n, sizeof(*names))) == NULL) {
		report(x, 0, "out of memory");
		return;
	}
	iniparser_getseckeys(d, sec, names);
	for (j = 0; j < n; j++) {
		k = names[j] + strlen(sec) + 1;		/* "sec:key" */
		v = iniparser_getstring(d, names[j], "");
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
		if (keys[i].fn(c, s, v, &why) == -1)
			report(x, line_of(x, sec, k), "[%s] %s = %s: %s", sec, k, v, why);
	}
	free(names);
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
	c->mode = POL_OWNER;
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

struct conf *
conf_load(const char *path, conf_err_fn *err, void *arg)
{
	struct ctx x = { path, err, arg, 0, NULL, 0 };
	struct conf *c = NULL;
	struct conf_iface *s;
	dictionary *d = NULL;
	const char *sec;
	FILE *f;
	int i, n;
	size_t k;

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
	n = iniparser_getnsec(d);
	for (i = 0; i < n; i++) {
		sec = iniparser_getsecname(d, i);
		if (strcmp(sec, "global") == 0) {
			read_section(&x, d, sec, global_keys, c, NULL);
			continue;
		}
		if (strncmp(sec, "interface", 9) != 0 || (sec[9] != ' ' && sec[9] != '\t' &&
		    sec[9] != '\0')) {
			/* a key outside any section shows up as a "section" */
			if (line_of(&x, sec, NULL) != 0)
				report(&x, line_of(&x, sec, NULL), "[%s]: unknown section "
				    "(allowed: [global], [interface LABEL])", sec);
			continue;
		}
		if (sec[9] == '\0' || sec[strspn(sec + 9, " \t") + 9] == '\0') {
			report(&x, line_of(&x, sec, NULL), "[%s]: an interface section "
			    "needs a label: [interface LABEL]", sec);
			continue;
		}
		if ((s = realloc(c->sections, (c->nsections + 1) * sizeof(*s))) == NULL) {
			report(&x, 0, "out of memory");
			break;
		}
		c->sections = s;
		s = &c->sections[c->nsections++];
		memset(s, 0, sizeof(*s));
		s->mode = -1;
		s->label = strdup(sec + strspn(sec + 9, " \t") + 9);
		read_section(&x, d, sec, iface_keys, c, s);
		if (s->nmatch == 0 && line_of(&x, sec, "match") == 0)
			report(&x, line_of(&x, sec, NULL), "[%s]: match = GLOBS is required", sec);
	}
out:
	if (d != NULL)
		iniparser_freedict(d);
	for (k = 0; k < x.nw; k++) {
		free(x.w[k].sec);
		free(x.w[k].key);
	}
	free(x.w);
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
	for (i = 0; i < c->nsections; i++) {
		free(c->sections[i].label);
		free_globs(c->sections[i].match, c->sections[i].nmatch);
	}
	free(c->sections);
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
conf_iface_mode(const struct conf *c, const char *name)
{
	size_t i;

	if (!selects(c->ifaces, c->nifaces, name))
		return -1;
	for (i = 0; i < c->nsections; i++)
		if (c->sections[i].mode >= 0 &&
		    selects(c->sections[i].match, c->sections[i].nmatch, name))
			return c->sections[i].mode;
	return c->mode;
}

static void
print_globs(FILE *f, const struct conf_glob *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%s%s", i ? " " : "", g[i].neg ? "!" : "", g[i].pat);
	fputc('\n', f);
}

void
conf_print(const struct conf *c, FILE *f)
{
	size_t i;

	fprintf(f, "# effective configuration from %s\n", c->path ? c->path :
	    "the built-in defaults");
	fprintf(f, "[global]\ninterfaces = ");
	print_globs(f, c->ifaces, c->nifaces);
	fprintf(f, "mode = %s\n", pol_mode_str(c->mode));
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
	fprintf(f, "metrics_file = %s\n", c->metrics_file ? c->metrics_file : "");
	fprintf(f, "metrics_interval = %ld\n", c->metrics_interval);
	for (i = 0; i < c->nsections; i++) {
		fprintf(f, "\n[interface %s]\nmatch = ", c->sections[i].label);
		print_globs(f, c->sections[i].match, c->sections[i].nmatch);
		if (c->sections[i].mode >= 0)
			fprintf(f, "mode = %s\n", pol_mode_str(c->sections[i].mode));
	}
}
