/* confkeysint.h — what the files of the configuration's keys share
 * (confkeys.c, confglobal.c): a row's shape, and [global]'s own rows. */
#ifndef ARPOWND_CONFKEYSINT_H
#define ARPOWND_CONFKEYSINT_H

#include <stddef.h>
#include <stdio.h>

#include "conftypes.h"

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

/* The keys of [global] alone, in conf_print's order (confglobal.c). */
extern const struct ckey ckey_globals[];
/* How many rows ckey_globals has. */
extern const size_t ckey_nglobals;

#endif
