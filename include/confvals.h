/* confvals.h — the kinds of value several configuration keys share, read
 * and written back; internal to conf*.c. */
#ifndef ARPOWND_CONFVALS_H
#define ARPOWND_CONFVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conftypes.h"
#include "ranges.h"

/* Blank-separated globs, "!" negating, into a new list; 0, or -1 with why. */
int cval_globs(const char *v, struct conf_glob **out, size_t *nout, const char **why);
/* Free such a list. */
void cval_globs_free(struct conf_glob *g, size_t n);
/* "name = globs", quoted when a glob holds '#' or ';'. */
void cval_globs_print(FILE *f, const char *name, const struct conf_glob *g, size_t n);
/* Blank-separated addresses, CIDRs and ranges ("!" excludes) into r; 0, or -1 with why. */
int cval_nets(struct rng *r, const char *v, const char **why);
/* "name = a b-c ...", r's ranges. */
void cval_nets_print(FILE *f, const char *name, const struct rng *r);
/* yes/true/on/1 or no/false/off/0, any case; 0, or -1. */
int cval_bool(const char *v, bool *out);
/* "name = yes" or "no"; nothing when v is -1 (not set). */
void cval_bool_print(FILE *f, const char *name, int v);
/* Decimal digits only, at most max; the number, or -1. */
long cval_uint(const char *v, long max);
/* Seconds as digits, optionally a point and digits; the number, or -1. */
double cval_seconds(const char *v);

#endif
