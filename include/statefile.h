/* statefile.h — the records of the sysctl values arpownd found before it
 * changed them, and their text: parsed and formatted (framed by
 * stateframe.h); pure. */
#ifndef ARPOWND_STATEFILE_H
#define ARPOWND_STATEFILE_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#define STATE_NONE		(-1)		/* a value arpownd did not change */
#define STATE_ORIG_KIND		"originals"	/* the records' kind in their frame */

/* The values one interface had before arpownd changed them. */
struct state_orig {
	int	ifindex;		/* 0: read from a v1 file, match by name */
	char	name[IF_NAMESIZE];
	int	arp_ignore;		/* 0..8 or STATE_NONE */
	int	arp_announce;		/* 0..2 or STATE_NONE */
	/* the arp_ignore a stop leaves while the originals stay recorded
	 * (the kernel's strict mode for the interface's mode), or
	 * STATE_NONE: a stop gives the originals back (stop_leaves) */
	int	leave;
};

struct state {
	struct state_orig	*v;	/* pointers into v die with state_add/del */
	size_t			 n, alloc;
	uint64_t		 gen;	/* generation in the file's header */
};

/* Parse a v2 (checksum checked) or v1 file into st; 0, or -1 with the line and why in err. */
int state_parse(const char *buf, size_t len, struct state *st, char *err, size_t errlen);
/* Render st as a v2 file of generation st->gen, malloc'd; NULL with errno (EINVAL: bad record). */
char *state_format(const struct state *st);
/* The record of ifindex (> 0), or NULL. */
struct state_orig *state_find(struct state *st, int ifindex);
/* The first record called name, or NULL. */
struct state_orig *state_find_name(struct state *st, const char *name);
/* ifindex's record, renamed to name (or a v1 record called name, adopted), or a new empty one; NULL + errno. */
struct state_orig *state_add(struct state *st, int ifindex, const char *name);
/* Drop rec, a pointer into st->v (the last record takes its place). */
void state_del(struct state *st, struct state_orig *rec);
/* Free the records. */
void state_clear(struct state *st);

#endif
