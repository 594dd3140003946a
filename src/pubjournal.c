/* pubjournal.c — the runtime-published addresses as saved: a snapshot
 * and a journal.
 *
 * Rewriting every entry at each publish made a publish cost grow with the
 * entries (28 ms at 20,000, all of it holding the daemon's loop).  Now a
 * publish or a withdraw appends one record to published.log and syncs it;
 * when the journal holds more records than there are entries (or a few
 * hundred, whichever is more), the next op writes a whole new snapshot
 * into the slots (statedir.c) and empties the journal: amortised, a
 * constant cost per op.
 *
 * Each record names the snapshot generation it follows and carries its
 * own CRC-32, so a reader takes the newest good snapshot, then the
 * journal's records of that generation in order, up to the first one cut
 * short or damaged (a crash in an append loses only that op, which was
 * never acknowledged).  A crash between a new snapshot and the emptying
 * of the journal leaves records of the old generation: passed over.  An
 * offline save (arpownd --withdraw) writes a new snapshot the same way.
 *
 * A record: "GEN OP TEXT CRC\n", OP '+' (TEXT: the entry's line, as in
 * the snapshot) or '-' (TEXT: its ADDR/LEN), CRC the CRC-32 (hex, eight
 * digits) of every byte before the space that precedes it. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pubjournal.h"
#include "statedir.h"
#include "stateframe.h"

#define CRC_LEN	9	/* " xxxxxxxx" */

size_t
pjn_record(char *buf, size_t len, uint64_t gen, char op, const char *text, size_t textlen)
{
	int n;

	if (textlen > PJN_TEXT_MAX || memchr(text, '\n', textlen) != NULL)
		return 0;
	n = snprintf(buf, len, "%" PRIu64 " %c %.*s", gen, op, (int)textlen, text);
	if (n < 0 || (size_t)n + CRC_LEN + 2 > len)
		return 0;
	snprintf(buf + n, len - (size_t)n, " %08" PRIx32 "\n", state_crc32(buf, (size_t)n));
	return (size_t)n + CRC_LEN + 1;
}

/* A record at [p, p + len) (its newline excluded): gen, op and text; 0,
 * or -1 when it is not a good one. */
static int
parse_record(const char *p, size_t len, uint64_t *gen, char *op, const char **text,
    size_t *textlen)
{
	char want[CRC_LEN + 1];
	const char *s = p, *end;

	if (len < CRC_LEN + 5 || len >= PJN_RECORD_MAX)
		return -1;
	end = p + len - CRC_LEN;
	snprintf(want, sizeof(want), " %08" PRIx32, state_crc32(p, (size_t)(end - p)));
	if (memcmp(end, want, CRC_LEN) != 0)
		return -1;
	for (*gen = 0; s < end && *s >= '0' && *s <= '9'; s++) {
		if (*gen > (UINT64_MAX - 9) / 10)
			return -1;
		*gen = *gen * 10 + (uint64_t)(*s - '0');
	}
	if (s == p || end - s < 4 || s[0] != ' ' || (s[1] != '+' && s[1] != '-') ||
	    s[2] != ' ')
		return -1;
	*op = s[1];
	*text = s + 3;
	*textlen = (size_t)(end - *text);
	return 0;
}

/* The merge's lines, each (text without its newline, live), and a hash
 * of their keys (the ADDR/LEN before the first space) to the newest. */
struct item {
	const char	*p;
	size_t		 len;
	bool		 live;
};

struct merge {
	struct item	*v;
	size_t		 n;
	size_t		*slot;		/* item + 1; 0 empty */
	size_t		 mask;
};

static size_t
keylen(const char *p, size_t len)
{
	const char *sp = memchr(p, ' ', len);

	return sp != NULL ? (size_t)(sp - p) : len;
}

/* The slot of key p (FNV-1a, linear probing): holding it, or empty. */
static size_t *
find(struct merge *m, const char *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i, k, kl;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	for (k = h & m->mask; m->slot[k] != 0; k = (k + 1) & m->mask) {
		const struct item *it = &m->v[m->slot[k] - 1];

		kl = keylen(it->p, it->len);
		if (kl == len && memcmp(it->p, p, len) == 0)
			break;
	}
	return &m->slot[k];
}

static void
add(struct merge *m, const char *p, size_t len)
{
	size_t *s = find(m, p, keylen(p, len));

	if (*s != 0)		/* the same key again: the newer line holds */
		m->v[*s - 1].live = false;
	m->v[m->n] = (struct item){ p, len, true };
	*s = ++m->n;
}

static void
del(struct merge *m, const char *p, size_t len)
{
	size_t *s = find(m, p, keylen(p, len));

	if (*s != 0)
		m->v[*s - 1].live = false;
}

int
pjn_merge(const char *snap, size_t slen, uint64_t gen, const char *log, size_t llen,
    char **out, size_t *outlen, struct pjn_replay *r)
{
	struct merge m = { NULL, 0, NULL, 0 };
	const char *s, *eol, *text;
	size_t cap = 1, size = 16, i, tl, o = 0;
	uint64_t g;
	char op;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < slen; i++)
		cap += snap[i] == '\n';
	for (i = 0; i < llen; i++)
		cap += log[i] == '\n';
	while (size < 2 * cap)
		size *= 2;
	m.mask = size - 1;
	if ((m.v = calloc(cap, sizeof(*m.v))) == NULL ||
	    (m.slot = calloc(size, sizeof(*m.slot))) == NULL ||
	    (*out = malloc(slen + llen + 2)) == NULL)
		goto nomem;
	for (s = snap; s < snap + slen; s = eol + 1) {
		if ((eol = memchr(s, '\n', (size_t)(snap + slen - s))) == NULL)
			eol = snap + slen;
		if (eol > s)
			add(&m, s, (size_t)(eol - s));
	}
	for (s = log; s < log + llen; s = eol + 1) {
		if ((eol = memchr(s, '\n', (size_t)(log + llen - s))) == NULL ||
		    parse_record(s, (size_t)(eol - s), &g, &op, &text, &tl) == -1) {
			r->torn = true;
			break;
		}
		r->valid = (size_t)(eol + 1 - log);
		if (g != gen) {
			r->stale++;
			continue;
		}
		r->applied++;
		if (op == '+')
			add(&m, text, tl);
		else
			del(&m, text, tl);
	}
	for (i = 0; i < m.n; i++) {
		if (!m.v[i].live)
			continue;
		memcpy(*out + o, m.v[i].p, m.v[i].len);
		o += m.v[i].len;
		(*out)[o++] = '\n';
	}
	(*out)[o] = '\0';
	*outlen = o;
	free(m.v);
	free(m.slot);
	return 0;
nomem:
	free(m.v);
	free(m.slot);
	*out = NULL;
	return errno = ENOMEM, -1;
}

/* ---------------------------------------------------------------------
 * The files
 */

struct pjn {
	struct sdir	*sd;
	uint64_t	 gen;		/* of the snapshot the journal follows */
	size_t		 recs;		/* records in the journal */
	size_t		 end;		/* its length */
	bool		 clean;		/* loaded, all its records of gen */
};

struct pjn *
pjn_new(struct sdir *sd)
{
	struct pjn *j = calloc(1, sizeof(*j));

	if (j != NULL)
		j->sd = sd;
	return j;
}

void
pjn_free(struct pjn *j)
{
	free(j);
}

/* The journal's bytes, malloc'd ("" when it does not exist); 0, or -1
 * with errno. */
static int
read_log(int fd, char **buf, size_t *len)
{
	struct stat sb;
	ssize_t r;

	*len = 0;
	if (fd == -1)
		return (*buf = strdup("")) == NULL ? -1 : 0;
	if (fstat(fd, &sb) == -1)
		return -1;
	if (sb.st_size > PJN_MAX_SIZE)
		return errno = EFBIG, -1;
	if ((*buf = malloc((size_t)sb.st_size + 1)) == NULL)
		return -1;
	while (*len < (size_t)sb.st_size) {
		r = pread(fd, *buf + *len, (size_t)sb.st_size - *len, (off_t)*len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			free(*buf);
			return -1;
		}
		if (r == 0)
			break;
		*len += (size_t)r;
	}
	(*buf)[*len] = '\0';
	return 0;
}

int
pjn_load(struct pjn *j, char **lines, size_t *len, char *err, size_t errlen)
{
	struct pjn_replay r;
	char *snap, *log;
	size_t slen, llen;
	uint64_t gen;
	int rc;

	if (sdir_published_load(j->sd, &snap, &slen, &gen, err, errlen) == -1)
		return -1;
	if (read_log(sdir_published_log(j->sd), &log, &llen) == -1) {
		snprintf(err, errlen, "%s/%s: %s", sdir_path(j->sd), SDIR_PUB_LOG,
		    strerror(errno));
		free(snap);
		return -1;
	}
	rc = pjn_merge(snap, slen, gen, log, llen, lines, len, &r);
	free(snap);
	free(log);
	if (rc == -1) {
		snprintf(err, errlen, "runtime-published addresses: out of memory");
		return -1;
	}
	j->gen = gen;
	j->recs = r.applied + r.stale;
	j->end = llen;
	j->clean = !r.torn && r.stale == 0;
	if (r.stale != 0 || r.torn)
		log_notice("%s/%s: %zu record(s) of generation %" PRIu64 " applied; %zu of an "
		    "older snapshot passed over%s (a crash during a save): compacted at the "
		    "next publish or withdraw", sdir_path(j->sd), SDIR_PUB_LOG, r.applied,
		    gen, r.stale, r.torn ? ", and the last one cut short or damaged" : "");
	return 0;
}

int
pjn_save(struct pjn *j, const char *lines, size_t len)
{
	int fd = sdir_published_log(j->sd);
	uint64_t gen;

	if (sdir_published_save(j->sd, lines, len, &gen) == -1)
		return -1;
	/* the snapshot holds every op: the journal's records are of the old
	 * generation now, passed over even if this does not happen */
	j->gen = gen;
	j->recs = j->end = 0;
	j->clean = fd != -1 && ftruncate(fd, 0) == 0 && fdatasync(fd) == 0;
	if (!j->clean)
		log_warn("%s/%s: cannot empty it", sdir_path(j->sd), SDIR_PUB_LOG);
	return 0;
}

int
pjn_append(struct pjn *j, char op, const char *text, size_t len)
{
	int fd = sdir_published_log(j->sd), e;
	char rec[PJN_RECORD_MAX];
	size_t n, off = 0;
	ssize_t w;

	if (fd == -1)
		return errno = EBADF, -1;
	if ((n = pjn_record(rec, sizeof(rec), j->gen, op, text, len)) == 0)
		return errno = EINVAL, -1;
	while (off < n) {
		w = pwrite(fd, rec + off, n - off, (off_t)(j->end + off));
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			goto fail;
		off += (size_t)w;
	}
	if (fdatasync(fd) == -1)
		goto fail;
	j->end += n;
	j->recs++;
	return 0;
fail:
	/* not acknowledged: never replayed (and if this fails too, the next
	 * op compacts) */
	e = errno;
	if (ftruncate(fd, (off_t)j->end) == -1)
		j->clean = false;
	return errno = e, -1;
}

bool
pjn_due(const struct pjn *j, size_t entries)
{
	return !j->clean || j->recs >= (entries > PJN_FLOOR ? entries : PJN_FLOOR) ||
	    j->end > PJN_MAX_SIZE / 2;
}
