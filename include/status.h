/* status.h — the STATUS= line systemctl status shows: what the table and
 * the published set amount to, sent only when that changed. */
#ifndef ARPOWND_STATUS_H
#define ARPOWND_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tbl;
struct pub;

/* The file the shipped unit reads ARPOWND_OPTIONS from (EnvironmentFile=). */
#define SST_DEFAULTS_FILE	"/etc/default/arpownd"

struct sst {
	size_t		answering;	/* interfaces arpownd answers on */
	size_t		monitor;	/* interfaces in monitor mode */
	size_t		addrs;		/* address entries on the answering ones */
	uint64_t	published;	/* addresses published, ranges counted out */
};

/* When --monitor forces monitor mode (monitor): what set it, and the one
 * command that makes arpownd answer, as a person reads them; options is
 * ARPOWND_OPTIONS as the environment has it (the unit's EnvironmentFile),
 * or NULL.  Both NULL when not forced. */
struct sst_forced {
	const char	*by;
	const char	*to_answer;
};
void sst_forced(bool monitor, const char *options, struct sst_forced *f);

/* Count the table's managed interfaces and the published addresses into s. */
void sst_tally(const struct tbl *t, const struct pub *p, struct sst *s);
/* The line, without "STATUS=", in buf; with to_answer (not NULL) said
 * after the interfaces in monitor mode; returns buf. */
char *sst_format(const struct sst *s, const char *to_answer, char *buf, size_t len);
/* Tally, and send STATUS= when it differs from *last (or *sent is false);
 * *last and *sent then say what was sent. */
void sst_report(const struct tbl *t, const struct pub *p, const char *to_answer,
    struct sst *last, bool *sent);

#endif
