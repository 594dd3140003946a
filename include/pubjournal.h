/* pubjournal.h — the runtime-published addresses as saved: a snapshot in
 * the state directory's two slots and a journal (published.log) that each
 * publish and withdraw appends one record to, so that saving one costs
 * the same at 20,000 entries as at 10; compacted into a new snapshot now
 * and then. */
#ifndef ARPOWND_PUBJOURNAL_H
#define ARPOWND_PUBJOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PJN_FLOOR	256		/* records before a compaction, at least */
#define PJN_MAX_SIZE	(4 << 20)	/* a larger journal is not read */
#define PJN_TEXT_MAX	160		/* a record's text, at most */
#define PJN_RECORD_MAX	(PJN_TEXT_MAX + 40)	/* a whole record (gen, CRC), at most */

/* What a replay found in a journal. */
struct pjn_replay {
	size_t	applied;	/* records of the snapshot's generation, applied */
	size_t	stale;		/* records of another generation, passed over */
	size_t	valid;		/* bytes up to the end of the last good record */
	bool	torn;		/* a record cut short or damaged ended the replay */
};

/* Pure: the record of op ('+' with an entry's line, '-' with its
 * ADDR/LEN) following snapshot generation gen, in buf; its length, or 0
 * when it does not fit (PJN_RECORD_MAX bytes hold any) or
 * text is longer than PJN_TEXT_MAX or holds a newline. */
size_t pjn_record(char *buf, size_t len, uint64_t gen, char op, const char *text,
    size_t textlen);
/* Pure: the lines of snapshot snap (generation gen) with the journal's
 * records of gen applied in order, up to the first bad one; malloc'd in
 * *out (NUL-terminated); 0, or -1 (ENOMEM). */
int pjn_merge(const char *snap, size_t slen, uint64_t gen, const char *log, size_t llen,
    char **out, size_t *outlen, struct pjn_replay *r);

struct sdir;
struct pjn;

/* The record kept in sd (which outlives it); NULL on ENOMEM. */
struct pjn *pjn_new(struct sdir *sd);
void pjn_free(struct pjn *j);
/* The saved lines: the newest snapshot and its journal, malloc'd; 0, or
 * -1 with why in err. */
int pjn_load(struct pjn *j, char **lines, size_t *len, char *err, size_t errlen);
/* lines as a new snapshot (the next generation), the journal emptied; 0,
 * or -1 with errno (nothing changed). */
int pjn_save(struct pjn *j, const char *lines, size_t len);
/* One op appended and synced ('+' LINE, '-' ADDR/LEN); 0, or -1 with
 * errno (the journal as it was). */
int pjn_append(struct pjn *j, char op, const char *text, size_t len);
/* Should the next op be a pjn_save of every line rather than a record:
 * the journal is longer than the entries (amortised O(1)), damaged, of
 * another generation, or never loaded? */
bool pjn_due(const struct pjn *j, size_t entries);

#endif
