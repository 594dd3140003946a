/* confvals.c — the kinds of value several keys share, each read from the
 * file and written back so that it reads the same: lists of interface
 * globs, lists of addresses, yes/no, whole numbers, seconds.  Which key
 * holds which kind, and its range, is confkeys.c's. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "confvals.h"

int
cval_globs(const char *v, struct conf_glob **out, size_t *nout, const char **why)
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

void
cval_globs_free(struct conf_glob *g, size_t n)
{
	while (n > 0)
		free(g[--n].pat);
	free(g);
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

void
cval_globs_print(FILE *f, const char *name, const struct conf_glob *g, size_t n)
{
	bool q = needs_quotes(g, n);
	size_t i;

	fprintf(f, "%s = ", name);
	if (q)
		fputc('"', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s%s", i ? " " : "", g[i].neg ? "!" : "", g[i].pat);
	if (q)
		fputc('"', f);
	fputc('\n', f);
}

/* A list of addresses, CIDRs and ranges ("!" excludes) into r. */
int
cval_nets(struct rng *r, const char *v, const char **why)
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

void
cval_nets_print(FILE *f, const char *name, const struct rng *r)
{
	struct in_addr a, b;
	char x[INET_ADDRSTRLEN], y[INET_ADDRSTRLEN];
	size_t i;

	fprintf(f, "%s =", name);
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

int
cval_bool(const char *v, bool *out)
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

void
cval_bool_print(FILE *f, const char *name, int v)
{
	if (v >= 0)
		fprintf(f, "%s = %s\n", name, v ? "yes" : "no");
}

long
cval_uint(const char *v, long max)
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

/* A decimal number of seconds: digits, optionally a point and digits. */
double
cval_seconds(const char *v)
{
	size_t n = strspn(v, "0123456789");
	char *end;

	if (n == 0 || (v[n] != '\0' && (v[n] != '.' || v[n + 1] == '\0' ||
	    strspn(v + n + 1, "0123456789") != strlen(v + n + 1))))
		return -1;
	return strtod(v, &end);
}
