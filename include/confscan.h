/* confscan.h — reading a configuration file into sections and keys, with
 * the line of each, and reporting errors against them; internal to conf*.c. */
#ifndef ARPOWND_CONFSCAN_H
#define ARPOWND_CONFSCAN_H

#include <stddef.h>

#include "conftypes.h"

/* A key = value of a section, as iniparser read it. */
struct cscan_kv {
	const char	*key;		/* lowercased, the part after "section:" */
	const char	*val;		/* NULL: a section iniparser made of a ':' */
};

/* A section, lowercased, with its keys; pointers into iniparser's dictionary. */
struct cscan_sec {
	const char	*name;
	struct cscan_kv	*k;
	size_t		 n, alloc;
	size_t		 next;		/* confscan.c's hash chain */
};

struct cscan_where;

/* One file read: set path, err and arg, zero the rest, then cscan_load. */
struct cscan {
	const char		*path;
	conf_err_fn		*err;
	void			*arg;
	int			 nerr;		/* errors reported so far */
	struct cscan_sec	*sec;		/* iniparser's sections, in its order */
	size_t			 nsec;
	/* confscan.c's: the lines, the hash heads, the dictionary */
	struct cscan_where	*w;
	size_t			 nw, aw;
	size_t			*wbucket, nwbucket;
	size_t			*sbucket, nsbucket;
	void			*dict;
};

/* Read x->path: our own scan for lines and duplicates, then iniparser's;
 * 0, or -1 when there is nothing to go on (the reason reported). */
int cscan_load(struct cscan *x);
/* Free what cscan_load built. */
void cscan_free(struct cscan *x);
/* Report "path:line: message" (line 0: "path: message") and count it. */
void cscan_report(struct cscan *x, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The line of [sec] key, of [sec] itself when key is NULL; 0 when not in the file. */
unsigned cscan_line(const struct cscan *x, const char *sec, const char *key);

#endif
