/* confscan.c — reading a configuration file: which sections and keys it
 * holds, on which lines, and iniparser's reading of their values; errors
 * are reported as "file:line: ...".  iniparser keeps no line numbers and
 * silently keeps the last of two equal keys, so a scan of our own comes
 * first and finds both. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_INIPARSER_INIPARSER_H
#include <iniparser/iniparser.h>
#else
#include <iniparser.h>
#endif

#include "confscan.h"
#include "util.h"

#define CONF_MAX_LINE	1024

/* Where each section and key stands in the file, hashed: a file of 8,000
 * sections stays linear. */
struct cscan_where {
	char	*sec;		/* lowercased, as iniparser names it */
	char	*key;		/* NULL: the section's own line */
	unsigned line;
	size_t	 next;		/* the next in its hash chain, WHERE_NIL ends */
};

#define WHERE_NIL	((size_t)-1)

void
cscan_report(struct cscan *x, unsigned line, const char *fmt, ...)
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

unsigned
cscan_line(const struct cscan *x, const char *sec, const char *key)
{
	size_t i;

	if (x->nwbucket == 0)
		return 0;
	for (i = x->wbucket[where_hash(sec, key) & (x->nwbucket - 1)]; i != WHERE_NIL;
	    i = x->w[i].next)
		if (strcmp(x->w[i].sec, sec) == 0 &&
		    (key == NULL ? x->w[i].key == NULL :
		    x->w[i].key != NULL && strcmp(x->w[i].key, key) == 0))
			return x->w[i].line;
	return 0;
}

/* Twice as many chains as entries, rebuilt when they are outgrown. */
static int
where_rehash(struct cscan *x)
{
	size_t n = x->nwbucket ? x->nwbucket * 2 : 64, i, h;
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
	free(x->wbucket);
	x->wbucket = b;
	x->nwbucket = n;
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
add_where(struct cscan *x, const char *sec, const char *key, unsigned line)
{
	struct cscan_where *w;
	size_t h;

	if (x->nw == x->aw) {
		size_t n = x->aw ? x->aw * 2 : 64;

		if ((w = realloc(x->w, n * sizeof(*w))) == NULL)
			return -1;
		x->w = w;
		x->aw = n;
	}
	if (x->nw * 2 >= x->nwbucket && where_rehash(x) == -1)
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
	h = where_hash(sec, key) & (x->nwbucket - 1);
	w->next = x->wbucket[h];
	x->wbucket[h] = x->nw++;
	return 0;
}

/* Record sections and keys with their lines; report duplicates and keys
 * outside any section (iniparser would file those under no section). */
static int
scan(struct cscan *x, FILE *f)
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
			cscan_report(x, line, "the line ends in a backslash, which would join "
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
				cscan_report(x, line, "[%s]: ':' cannot be used in a section "
				    "name or label", sec);
			if ((prev = cscan_line(x, sec, NULL)) != 0)
				cscan_report(x, line, "[%s]: section already defined at line %u",
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
			cscan_report(x, line, "%s: key outside any section (put it under "
			    "[global])", s);
			continue;
		}
		if ((prev = cscan_line(x, sec, s)) != 0)
			cscan_report(x, line, "[%s] %s: key already set at line %u", sec, s,
			    prev);
		else if (add_where(x, sec, s, line) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ iniparser */

/*
 * iniparser's dictionary, walked once: its sections in its order, each
 * with its keys.  The accessors (getsecname, getseckeys) walk the whole
 * dictionary for each section: a file of 8,000 sections took 6 s, and a
 * reload holds the loop that long.
 */
static struct cscan_sec *
sec_find(const struct cscan *x, const char *name, size_t len)
{
	size_t i = x->sbucket[util_fnv1a(UTIL_FNV1A_INIT, name, len) & (x->nsbucket - 1)];

	for (; i != WHERE_NIL; i = x->sec[i].next)
		if (strncmp(x->sec[i].name, name, len) == 0 && x->sec[i].name[len] == '\0')
			return &x->sec[i];
	return NULL;
}

static void
sec_free(struct cscan *x)
{
	size_t i;

	for (i = 0; i < x->nsec; i++)
		free(x->sec[i].k);
	free(x->sec);
	free(x->sbucket);
	x->sec = NULL;
	x->sbucket = NULL;
	x->nsec = x->nsbucket = 0;
}

static int
sec_index(const dictionary *d, struct cscan *x)
{
	struct cscan_sec *sec;
	struct cscan_kv *nk;
	const char *colon;
	ssize_t i;
	size_t h, n = 0;

	for (i = 0; i < d->size; i++)
		if (d->key[i] != NULL && strchr(d->key[i], ':') == NULL)
			n++;
	for (x->nsbucket = 16; x->nsbucket < 2 * n; x->nsbucket *= 2)
		;
	if ((x->sec = calloc(n ? n : 1, sizeof(*x->sec))) == NULL ||
	    (x->sbucket = malloc(x->nsbucket * sizeof(*x->sbucket))) == NULL)
		goto nomem;
	for (h = 0; h < x->nsbucket; h++)
		x->sbucket[h] = WHERE_NIL;
	/* the sections first (a key's section may come later in the array) */
	for (i = 0; i < d->size; i++) {
		if (d->key[i] == NULL || strchr(d->key[i], ':') != NULL)
			continue;
		sec = &x->sec[x->nsec];
		sec->name = d->key[i];
		h = util_fnv1a(UTIL_FNV1A_INIT, sec->name, strlen(sec->name)) &
		    (x->nsbucket - 1);
		sec->next = x->sbucket[h];
		x->sbucket[h] = x->nsec++;
	}
	for (i = 0; i < d->size; i++) {
		if (d->key[i] == NULL || (colon = strchr(d->key[i], ':')) == NULL)
			continue;
		/* "sec:key"; a ':' in the section's name was reported by scan() */
		if ((sec = sec_find(x, d->key[i], (size_t)(colon - d->key[i]))) == NULL)
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
	sec_free(x);
	return -1;
}

/* iniparser's own syntax errors arrive here; it has no context argument. */
static struct cscan *cur_ctx;

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
		cscan_report(cur_ctx, 0, "%s", trim(msg));
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

int
cscan_load(struct cscan *x)
{
	dictionary *d;
	FILE *f;

	if ((f = fopen(x->path, "re")) == NULL) {
		cscan_report(x, 0, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (scan(x, f) == -1)
		cscan_report(x, 0, "out of memory");
	fclose(f);
	cur_ctx = x;
	iniparser_set_error_callback(ini_error);
	d = iniparser_load(x->path);
	iniparser_set_error_callback(default_ini_error);
	cur_ctx = NULL;
	if (d == NULL) {
		if (x->nerr == 0)
			cscan_report(x, 0, "cannot parse");
		return -1;
	}
	x->dict = d;
	if (sec_index(d, x) == -1) {
		cscan_report(x, 0, "out of memory");
		return -1;
	}
	return 0;
}

void
cscan_free(struct cscan *x)
{
	size_t i;

	sec_free(x);
	if (x->dict != NULL)
		iniparser_freedict(x->dict);
	x->dict = NULL;
	for (i = 0; i < x->nw; i++) {
		free(x->w[i].sec);
		free(x->w[i].key);
	}
	free(x->w);
	free(x->wbucket);
	x->w = NULL;
	x->wbucket = NULL;
	x->nw = x->aw = x->nwbucket = 0;
}
