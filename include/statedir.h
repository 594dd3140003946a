/* statedir.h — the state directory: the instance lock, and the saved
 * records kept so a crash never leaves a host deaf. */
#ifndef ARPOWND_STATEDIR_H
#define ARPOWND_STATEDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "statefile.h"

#define SDIR_DEFAULT_DIR	"/run/arpownd"
#define SDIR_PUB_LOG		"published.log"	/* pubjournal.c's journal */

/* Whose directory sdir_open accepts. */
enum sdir_mode {
	SDIR_DAEMON,		/* only one owned by our effective uid */
	SDIR_RESTORE,		/* as root, also another user's (DynamicUser), never nobody's */
	SDIR_PEEK,		/* as SDIR_RESTORE, read only and without the lock:
				 * a look at a running daemon's records */
};

struct sdir;			/* the directory, its lock and its open files */

/* Open (0755 if missing), check and lock dir (SDIR_PEEK: neither makes nor
 * locks it), open its files; NULL + err, errno EWOULDBLOCK if held. */
struct sdir *sdir_open(const char *dir, enum sdir_mode mode, char *err, size_t errlen);
/* sdir_open for a daemon started as root that will run as uid as: a
 * directory of that user's is its own too (the unit's RuntimeDirectory=,
 * which arpownd -d run by hand then shares); files made in it are given
 * to that user. */
struct sdir *sdir_open_as(const char *dir, enum sdir_mode mode, uid_t as, char *err,
    size_t errlen);
/* Close the files, releasing the lock. */
void sdir_close(struct sdir *sd);
/* Read the newest valid saved records into st (empty when none); 0, or -1 with why in err. */
int sdir_load(struct sdir *sd, struct state *st, char *err, size_t errlen);
/* Write st into the slot not holding the newest version, synced; 0, or -1 with errno. */
int sdir_save(struct sdir *sd, const struct state *st);
/* The runtime-published addresses' snapshot, kept the same way (read and
 * write them through pubjournal.h, which adds their journal): the newest
 * complete version's lines, malloc'd ("" when none), and its generation
 * (0: none); 0, or -1 with why in err. */
int sdir_published_load(struct sdir *sd, char **lines, size_t *len, uint64_t *gen,
    char *err, size_t errlen);
/* Save those lines (each ending in a newline) crash-safely as generation
 * *gen (the next); 0, or -1 with errno. */
int sdir_published_save(struct sdir *sd, const char *lines, size_t len, uint64_t *gen);
/* The journal's file (SDIR_PUB_LOG), opened with the slots; -1 when a
 * read-only --restore found none. */
int sdir_published_log(const struct sdir *sd);
/* The directory's path, for messages. */
const char *sdir_path(const struct sdir *sd);
/* What the last run announced (announcer.c's lines), kept the same way. */
int sdir_announced_load(struct sdir *sd, char **lines, size_t *len, char *err,
    size_t errlen);
int sdir_announced_save(struct sdir *sd, const char *lines, size_t len);

/* --stopping's note to the --restore that follows it (the unit's ExecStop
 * to its ExecStopPost): text, in a file of its own given to the
 * directory's owner; 0, or -1 (logged).  Also in SDIR_PEEK. */
int sdir_note_put(struct sdir *sd, const char *text);
/* The note's text in buf ("" when there is none), and the note gone. */
void sdir_note_take(struct sdir *sd, char *buf, size_t len);

#endif
