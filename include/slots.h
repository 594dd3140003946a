/* slots.h — a record kept crash-safely in two slot files: the newest
 * complete version read, the next written over the other slot. */
#ifndef ARPOWND_SLOTS_H
#define ARPOWND_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLOTS_MAX_SIZE	(1 << 20)	/* 15,000 interfaces at the longest names */

/*
 * A pair of slot files holding versions of one kind of record
 * ("originals", "published", "announced").  Each version is a framed text
 * (state_unframe) carrying its generation; a write goes to the slot that
 * does not hold the newest good version, so the newest good one survives
 * a crash during the write.  Its owner opens the two files (fd -1: a
 * read-only slot never written, read as empty).
 */
struct slots {
	const char	*dir;		/* where they are, for messages */
	const char	*kind;		/* their names: kind.0, kind.1 */
	int		 fd[2];
	bool		 good[2];	/* framed (and accepted, once read) */
	uint64_t	 gen[2];
	uint64_t	 top;		/* highest generation seen, good or not */
};

/* Accept a slot's text (0) or say why not (-1). */
typedef int slots_accept(const char *text, size_t len, void *arg, char *err, size_t errlen);

/* sl empty, its files not open yet (dir and kind must outlive it). */
void slots_init(struct slots *sl, const char *dir, const char *kind);
/* Close the files. */
void slots_close(struct slots *sl);
/* The newest good version, given last to accept: 1, 0 when both slots are
 * empty, -1 with why in err when neither is good; unless quiet, logs a slot
 * passed over. */
int slots_read(struct slots *sl, slots_accept *accept, void *arg, bool quiet, char *err,
    size_t errlen);
/* text (len bytes, framed as generation gen) into the slot not holding the
 * newest good version, synced; 0, or -1 with errno. */
int slots_write(struct slots *sl, uint64_t gen, const char *text, size_t len);
/* Which slot of a pair of framed texts is newest, quietly: for a save
 * before any load. */
void slots_text_scan(struct slots *sl);
/* The newest framed text's lines, malloc'd ("" when none); 0, or -1 with
 * why in err. */
int slots_text_load(struct slots *sl, char **lines, size_t *len, char *err, size_t errlen);
/* Save lines (each ending in a newline), framed as the next generation;
 * 0, or -1 with errno. */
int slots_text_save(struct slots *sl, const char *lines, size_t len);
/* The whole of fd (path/name, for messages), malloc'd and NUL-terminated,
 * at most SLOTS_MAX_SIZE bytes; 0, or -1 with why in err. */
int slots_read_all(int fd, const char *path, const char *name, char **out, size_t *outlen,
    char *err, size_t errlen);
/* len bytes of s written at the start of fd; 0, or -1 with errno. */
int slots_write_all(int fd, const char *s, size_t len);

#endif
