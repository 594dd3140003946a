/* state.h — the state directory: the instance lock and the sysctl values
 * arpownd found before it changed them, kept so a crash never leaves a host deaf. */
#ifndef ARPOWND_STATE_H
#define ARPOWND_STATE_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#define STATE_DEFAULT_DIR	"/run/arpownd"
#define STATE_NONE		(-1)	/* a value arpownd did not change */

/* The values one interface had before arpownd changed them. */
struct state_orig {
	int	ifindex;		/* 0: read from a v1 file, match by name */
	char	name[IF_NAMESIZE];
	int	arp_ignore;		/* 0..8 or STATE_NONE */
	int	arp_announce;		/* 0..2 or STATE_NONE */
};

struct state {
	struct state_orig	*v;	/* pointers into v die with state_add/del */
	size_t			 n, alloc;
	uint64_t		 gen;	/* generation in the file's header */
};

/* Whose directory state_open accepts. */
enum state_mode {
	STATE_DAEMON,		/* only one owned by our effective uid */
	STATE_RESTORE,		/* as root, also another user's (DynamicUser), never nobody's */
};

struct state_dir;		/* the directory, its lock and its open files */

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

/* Open (0755 if missing), check and lock dir, open its files; NULL + err, errno EWOULDBLOCK if held. */
struct state_dir *state_open(const char *dir, enum state_mode mode, char *err, size_t errlen);
/* Close the files, releasing the lock. */
void state_close(struct state_dir *sd);
/* Read the newest valid saved records into st (empty when none); 0, or -1 with why in err. */
int state_load(struct state_dir *sd, struct state *st, char *err, size_t errlen);
/* Write st into the slot not holding the newest version, synced; 0, or -1 with errno. */
int state_save(struct state_dir *sd, const struct state *st);
/* The runtime-published addresses, kept the same way:
 * the newest complete version's lines, malloc'd ("" when none); 0, or -1
 * with why in err. */
int state_published_load(struct state_dir *sd, char **lines, size_t *len, char *err,
    size_t errlen);
/* Save those lines (each ending in a newline) crash-safely; 0, or -1 with errno. */
int state_published_save(struct state_dir *sd, const char *lines, size_t len);

#endif
