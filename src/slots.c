/* slots.c — a record kept crash-safely in two slot files.  A daemon that
 * dropped its privileges cannot create or rename files in the state
 * directory (statedir.c), so each record alternates between two slot
 * files that always exist: a save rewrites the slot that does not hold the
 * newest version, and a reader takes the newest slot that is complete
 * (statefile.c's frame: a header with the generation, a trailer with a
 * checksum).  The files are opened by their owner; this works on the
 * descriptors. */
#include "config.h"

#include <sys/stat.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "slots.h"
#include "stateframe.h"
#include "util.h"

void
slots_init(struct slots *sl, const char *dir, const char *kind)
{
	memset(sl, 0, sizeof(*sl));
	sl->dir = dir;
	sl->kind = kind;
	sl->fd[0] = sl->fd[1] = -1;
}

void
slots_close(struct slots *sl)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (sl->fd[i] != -1)
			close(sl->fd[i]);
		sl->fd[i] = -1;
	}
}

int
slots_read_all(int fd, const char *path, const char *name, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	struct stat sb;
	size_t len = 0;
	ssize_t r;
	char *buf;

	if (fstat(fd, &sb) == -1)
		goto fail;
	if (sb.st_size > SLOTS_MAX_SIZE) {
		util_seterr(err, errlen, -1, "%s/%s: larger than %d bytes", path, name,
		    SLOTS_MAX_SIZE);
		return errno = EFBIG, -1;
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL)
		goto fail;
	while (len < (size_t)sb.st_size) {
		r = pread(fd, buf + len, (size_t)sb.st_size - len, (off_t)len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			free(buf);
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	util_seterr(err, errlen, -1, "%s/%s: %s", path, name, strerror(errno));
	return -1;
}

int
slots_write_all(int fd, const char *s, size_t len)
{
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		if ((w = pwrite(fd, s + off, len - off, (off_t)off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/*
 * Find the newest good version of sl: framed, and accepted by accept.
 * Records which slots are good, for slots_write.
 */
int
slots_read(struct slots *sl, slots_accept *accept, void *arg, bool quiet, char *err,
    size_t errlen)
{
	/* r: "line N: " and a reason, at most 160 bytes (statefile.c) */
	char *text[2] = { NULL, NULL }, why[2][320], name[64], r[192];
	size_t len[2] = { 0, 0 }, body, bodyend;
	int i, order[2], chose = -1;

	for (i = 0; i < 2; i++) {
		sl->good[i] = false;
		why[i][0] = '\0';
		snprintf(name, sizeof(name), "%s.%d", sl->kind, i);
		if (sl->fd[i] == -1)
			continue;	/* read-only and absent: empty */
		/* one slot unreadable (EIO, too large) leaves the other */
		if (slots_read_all(sl->fd[i], sl->dir, name, &text[i], &len[i], why[i],
		    sizeof(why[i])) == -1) {
			len[i] = 1;
			continue;
		}
		if (len[i] == 0)
			continue;
		if (state_unframe(text[i], len[i], sl->kind, &sl->gen[i], &body, &bodyend,
		    r, sizeof(r)) == -1) {
			snprintf(why[i], sizeof(why[i]), "%s/%s: %s", sl->dir, name, r);
			continue;
		}
		sl->good[i] = true;
		if (sl->gen[i] > sl->top)
			sl->top = sl->gen[i];
	}
	/* newest first */
	order[0] = sl->good[1] && (!sl->good[0] || sl->gen[1] > sl->gen[0]);
	order[1] = !order[0];
	for (i = 0; i < 2 && chose == -1; i++) {
		int s = order[i];

		if (!sl->good[s] || text[s] == NULL)
			continue;
		if (accept(text[s], len[s], arg, r, sizeof(r)) == 0) {
			chose = s;
			break;
		}
		sl->good[s] = false;
		snprintf(why[s], sizeof(why[s]), "%s/%s.%d: %s", sl->dir, sl->kind, s, r);
	}
	if (chose != -1) {
		if (!quiet && why[!chose][0] != '\0')
			log_notice("%s; using %s/%s.%d, generation %" PRIu64,
			    why[!chose], sl->dir, sl->kind, chose, sl->gen[chose]);
	} else if ((len[0] == 0) != (len[1] == 0)) {
		/*
		 * One slot never written, the other not good: the first save
		 * ever was cut short (a full disk, a crash in the write).
		 * Nothing was changed on the strength of it, so nothing is
		 * saved; a link left at 8 with no record gets the default.
		 */
		if (!quiet)
			log_notice("%s; the first save never completed: nothing saved",
			    why[len[0] == 0]);
		len[0] = len[1] = 0;
	} else if (len[0] != 0 || len[1] != 0) {
		util_seterr(err, errlen, -1, "no complete saved version: %s%s%s", why[0],
		    why[0][0] && why[1][0] ? "; " : "", why[1]);
		errno = EINVAL;
	}
	free(text[0]);
	free(text[1]);
	return chose != -1 ? 1 : len[0] == 0 && len[1] == 0 ? 0 : -1;
}

int
slots_write(struct slots *sl, uint64_t gen, const char *text, size_t len)
{
	int s;

	if (sl->fd[0] == -1 || sl->fd[1] == -1)
		return errno = EROFS, -1;	/* a read-only --restore */
	if (!sl->good[0])
		s = 0;
	else if (!sl->good[1])
		s = 1;
	else
		s = sl->gen[1] < sl->gen[0];
	sl->good[s] = false;	/* until the write is complete */
	if (slots_write_all(sl->fd[s], text, len) == -1 ||
	    ftruncate(sl->fd[s], (off_t)len) == -1 || fdatasync(sl->fd[s]) == -1)
		return -1;
	sl->good[s] = true;
	sl->gen[s] = gen;
	if (gen > sl->top)
		sl->top = gen;
	return 0;
}

/* Any framed text of its kind is accepted: its lines are for the caller
 * to judge.  Unless only checked, *(struct text *)arg gets a copy of them. */
struct text {
	const char	*kind;
	bool		 check;		/* only whether it is good */
	char		*lines;
	size_t		 len;
};

static int
accept_text(const char *text, size_t len, void *arg, char *err, size_t errlen)
{
	struct text *t = arg;
	size_t body = 0, bodyend = 0;
	uint64_t gen;

	if (state_unframe(text, len, t->kind, &gen, &body, &bodyend, err, errlen) == -1)
		return -1;
	if (t->check)
		return 0;
	free(t->lines);
	if ((t->lines = malloc(bodyend - body + 1)) == NULL) {
		util_seterr(err, errlen, -1, "out of memory");
		return -1;
	}
	memcpy(t->lines, text + body, bodyend - body);
	t->lines[bodyend - body] = '\0';
	t->len = bodyend - body;
	return 0;
}

void
slots_text_scan(struct slots *sl)
{
	struct text t = { sl->kind, true, NULL, 0 };

	(void)slots_read(sl, accept_text, &t, true, NULL, 0);
}

int
slots_text_load(struct slots *sl, char **lines, size_t *len, char *err, size_t errlen)
{
	struct text t = { sl->kind, false, NULL, 0 };
	int r;

	if (sl->fd[0] == -1)
		return errno = EBADF, -1;
	r = slots_read(sl, accept_text, &t, false, err, errlen);
	if (r == -1) {
		free(t.lines);
		return -1;
	}
	if (t.lines == NULL && (t.lines = strdup("")) == NULL)
		return errno = ENOMEM, -1;
	*lines = t.lines;
	*len = t.len;
	return 0;
}

int
slots_text_save(struct slots *sl, const char *lines, size_t len)
{
	uint64_t gen = sl->top + 1;
	size_t n;
	char *text;
	int r, e;

	if (sl->fd[0] == -1)
		return errno = EBADF, -1;
	if ((text = state_frame(sl->kind, gen, lines, len, &n)) == NULL)
		return errno = ENOMEM, -1;
	if (n + 1 > SLOTS_MAX_SIZE) {
		free(text);
		return errno = EFBIG, -1;
	}
	r = slots_write(sl, gen, text, n);
	e = errno;
	free(text);
	errno = e;
	return r;
}
