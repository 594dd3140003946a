/* state.h — the state directory: instance lock and saved sysctl originals. */
#ifndef ARPOWND_STATE_H
#define ARPOWND_STATE_H

#include <net/if.h>
#include <stddef.h>

#define STATE_DEFAULT_DIR	"/run/arpownd"
#define STATE_FILE		"originals"
#define STATE_NONE		(-1)	/* a value arpownd did not change */

/* The values an interface had before arpownd changed them. */
struct state_orig {
	char	name[IF_NAMESIZE];
	int	arp_ignore;
	int	arp_announce;
};

struct state {
	struct state_orig	*v;
	size_t			 n, alloc;
};

/* Parse a state file's text; 0, or -1 with a reason in err (line numbered). */
int state_parse(const char *buf, size_t len, struct state *st, char *err, size_t errlen);
/* Render st as state-file text into a malloc'd string. */
char *state_format(const struct state *st);
/* Find the record for name, or NULL. */
struct state_orig *state_find(struct state *st, const char *name);
/* Add or return the record for name; NULL on ENOMEM. */
struct state_orig *state_add(struct state *st, const char *name);
/* Drop the record for name, if any. */
void state_del(struct state *st, const char *name);
/* Free the records. */
void state_clear(struct state *st);

/* Create dir if needed and take its lock; fd, or -1 (errno EWOULDBLOCK if held). */
int state_lock(const char *dir);
/* Read dir's state file into st; 0 when absent or read, -1 on error (logged). */
int state_load(const char *dir, struct state *st);
/* Write st atomically (temp + fsync + rename); removes the file when st is empty. */
int state_save(const char *dir, const struct state *st);

#endif
