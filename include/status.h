/* status.h — the STATUS= line systemctl status shows: what the table and
 * the published set amount to, sent only when that changed. */
#ifndef ARPOWND_STATUS_H
#define ARPOWND_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tbl;
struct pub;

struct sst {
	size_t		answering;	/* interfaces arpownd answers on */
	size_t		monitor;	/* interfaces in monitor mode */
	size_t		addrs;		/* address entries on the answering ones */
	uint64_t	published;	/* addresses published, ranges counted out */
};

/* Count the table's managed interfaces and the published addresses into s. */
void sst_tally(const struct tbl *t, const struct pub *p, struct sst *s);
/* The line, without "STATUS=", in buf; returns buf. */
char *sst_format(const struct sst *s, char *buf, size_t len);
/* Tally, and send STATUS= when it differs from *last (or *sent is false);
 * *last and *sent then say what was sent. */
void sst_report(const struct tbl *t, const struct pub *p, struct sst *last, bool *sent);

#endif
