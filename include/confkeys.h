/* confkeys.h — the configuration's keys, one row each: the sections it may
 * be set in, its parser, its printer; internal to conf*.c. */
#ifndef ARPOWND_CONFKEYS_H
#define ARPOWND_CONFKEYS_H

#include <stddef.h>
#include <stdio.h>

#include "conftypes.h"

/* Kinds of section, the bits of a key's where. */
#define CKEY_GLOBAL	1u	/* [global] */
#define CKEY_IFACE	2u	/* [interface LABEL] */
#define CKEY_PUBLISH	4u	/* [publish LABEL] */

struct ckey;

/* The key called name that a section of kind where may set, or NULL. */
const struct ckey *ckey_find(const char *name, unsigned where);
/* v as key k into c and, in an [interface] or [publish] section, s or p; 0, or -1 with why. */
int ckey_parse(const struct ckey *k, struct conf *c, struct conf_iface *s, struct conf_pub *p,
    const char *v, const char **why);
/* The key a section of kind where may set that name misspells, or NULL. */
const char *ckey_near(const char *name, unsigned where);
/* A "key = value" line for each key a section of kind where sets, in the table's order. */
void ckey_print(FILE *f, unsigned where, const struct conf *c, const struct conf_iface *s,
    const struct conf_pub *p);
/* Free an interfaces or match list. */
void ckey_globs_free(struct conf_glob *g, size_t n);

#endif
