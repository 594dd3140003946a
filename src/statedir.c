/* statedir.c — the state directory: the instance lock, and the files the
 * saved records live in.  They are the only memory that survives a crash
 * (arpownd --restore applies them), so they are written before any change,
 * and in a way a crash cannot tear.
 *
 * Started as root, the daemon drops to an unprivileged uid that must not be
 * able to change what root later restores: it opens every file here while
 * still root and keeps the descriptors, and nothing here is writable by that
 * uid.  It then cannot create or rename files, so the records alternate
 * between two slot files that always exist: a save rewrites the slot that
 * does not hold the newest version, and a reader takes the newest slot that
 * is complete (statefile.c's frame: a header with the generation, a trailer
 * with a checksum).  Under systemd's DynamicUser the directory is the
 * daemon's own and the same code creates the files as that user. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "statedir.h"
#include "util.h"

#define STATE_MAX_SIZE	(1 << 20)	/* 15,000 interfaces at the longest names */
#define UID_NOBODY	65534		/* what arpownd before the v2 format chowned to */
#define LOCK_FILE	"lock"
#define LEGACY_FILE	"originals"	/* v1: one file, replaced by rename */
#define ORIG_KIND	STATE_ORIG_KIND	/* v2: originals.0 and originals.1 */
#define PUB_KIND	"published"	/* the runtime-published addresses */
#define ANN_KIND	"announced"	/* what the last run announced, as it was */
#define NOTE_FILE	"stopping"	/* --stopping's word to --restore */

/* ---------------------------------------------------------------------
 * The directory
 */

/*
 * A pair of slot files holding versions of one kind of record ("originals";
 * the runtime-published addresses will be another pair).  Each version is a
 * framed text (state_unframe) carrying its generation; a write goes to the
 * slot that does not hold the newest good version, so the newest good one
 * survives a crash during the write.
 */
struct slots {
	const char	*kind;
	int		 fd[2];
	bool		 good[2];	/* framed (and accepted, once read) */
	uint64_t	 gen[2];
	uint64_t	 top;		/* highest generation seen, good or not */
};

struct sdir {
	char		*path;
	int		 dfd, lock, legacy;	/* legacy: a v1 file still to be read */
	uid_t		 uid;			/* the directory's owner, every file's */
	bool		 readonly;		/* --restore on a read-only file system */
	bool		 readonly_ok;		/* SDIR_RESTORE: that is allowed */
	bool		 peek;			/* SDIR_PEEK: no lock, nothing written */
	gid_t		 gid;
	struct slots	 orig;
	struct slots	 pub;		/* its snapshots; their journal: */
	int		 jfd;		/* published.log (pubjournal.c) */
	struct slots	 ann;		/* SDIR_DAEMON only */
};

/* Accept a slot's text (0) or say why not (-1). */
typedef int blob_accept(const char *text, size_t len, void *arg, char *err, size_t errlen);

/*
 * Open name in the directory: never through a symbolic link, created only
 * with O_EXCL, and then only what is a regular file with one link, owned
 * by the directory's owner and writable by nobody else.  A file we create
 * in a directory owned by someone else (root's --restore in a DynamicUser's
 * directory) is given to that owner, so the daemon can open it later.
 */
static int
open_in(struct sdir *sd, const char *name, int flags, bool create, char *err,
    size_t errlen)
{
	struct stat sb;
	int fd, e;

	fd = openat(sd->dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	/* --restore on a file system remounted read-only: read what is there */
	if (fd == -1 && errno == EROFS && sd->readonly_ok) {
		sd->readonly = true;
		flags = (flags & ~O_ACCMODE) | O_RDONLY;
		create = false;
		fd = openat(sd->dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
		    O_NONBLOCK);
	}
	if (fd == -1 && errno == ENOENT && create) {
		fd = openat(sd->dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC | O_NOCTTY, 0600);
		if (fd != -1 && sd->uid != geteuid() && fchown(fd, sd->uid, sd->gid) == -1) {
			e = errno;
			util_seterr(err, errlen, -1,
			    "%s/%s: cannot give it to uid %u: %s", sd->path,
			    name, (unsigned)sd->uid, strerror(e));
			(void)unlinkat(sd->dfd, name, 0);
			close(fd);
			return errno = e, -1;
		}
	}
	if (fd == -1) {
		e = errno;
		if (e == ELOOP)
			util_seterr(err, errlen, -1,
			    "%s/%s: a symbolic link, not followed: "
			    "remove it", sd->path, name);
		else if (e != ENOENT || create)
			util_seterr(err, errlen, -1,
			    "%s/%s: %s", sd->path, name, strerror(e));
		return errno = e, -1;
	}
	if (fstat(fd, &sb) == -1) {
		e = errno;
		util_seterr(err, errlen, -1, "%s/%s: %s", sd->path, name, strerror(e));
		goto bad;
	}
	e = EPERM;
	if (!S_ISREG(sb.st_mode))
		util_seterr(err, errlen, -1,
		    "%s/%s: not a regular file: remove it", sd->path, name);
	else if (sb.st_nlink != 1)
		util_seterr(err, errlen, -1, "%s/%s: has %lu hard links, so it is also "
		    "elsewhere: remove it", sd->path, name, (unsigned long)sb.st_nlink);
	else if (sb.st_uid != sd->uid)
		util_seterr(err, errlen, -1,
		    "%s/%s: owned by uid %u, not by the directory's "
		    "owner (uid %u): remove it", sd->path, name, (unsigned)sb.st_uid,
		    (unsigned)sd->uid);
	else if (sb.st_mode & (S_IWGRP | S_IWOTH))
		util_seterr(err, errlen, -1,
		    "%s/%s: writable by group or others (mode %04o): "
		    "remove it", sd->path, name, (unsigned)(sb.st_mode & 07777));
	else
		return fd;
bad:
	close(fd);
	return errno = e, -1;
}

/* The whole of fd, malloc'd and NUL-terminated; -1 with why in err. */
static int
read_all(int fd, const char *path, const char *name, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	struct stat sb;
	size_t len = 0;
	ssize_t r;
	char *buf;

	if (fstat(fd, &sb) == -1)
		goto fail;
	if (sb.st_size > STATE_MAX_SIZE) {
		util_seterr(err, errlen, -1, "%s/%s: larger than %d bytes", path, name,
		    STATE_MAX_SIZE);
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

static int
write_all(int fd, const char *s, size_t len)
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

static int
blob_open(struct sdir *sd, struct slots *sl, const char *kind, char *err,
    size_t errlen)
{
	char name[64];
	int i;

	sl->kind = kind;
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s.%d", kind, i);
		if ((sl->fd[i] = open_in(sd, name, sd->peek ? O_RDONLY : O_RDWR, !sd->peek,
		    err, errlen)) == -1 &&
		    !(sd->readonly && errno == ENOENT))
			return -1;	/* read-only, never written: an empty slot */
	}
	return 0;
}

/*
 * Find the newest good version of sl: framed, and accepted by accept.
 * 1 found (accept was given it last), 0 when both slots are empty (never
 * written), -1 with why in err when neither is good.  Records which slots
 * are good, for blob_write; unless quiet, logs a slot passed over.
 */
static int
blob_read(struct sdir *sd, struct slots *sl, blob_accept *accept, void *arg,
    bool quiet, char *err, size_t errlen)
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
		if (read_all(sl->fd[i], sd->path, name, &text[i], &len[i], why[i],
		    sizeof(why[i])) == -1) {
			len[i] = 1;
			continue;
		}
		if (len[i] == 0)
			continue;
		if (state_unframe(text[i], len[i], sl->kind, &sl->gen[i], &body, &bodyend,
		    r, sizeof(r)) == -1) {
			snprintf(why[i], sizeof(why[i]), "%s/%s: %s", sd->path, name, r);
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
		snprintf(why[s], sizeof(why[s]), "%s/%s.%d: %s", sd->path, sl->kind, s, r);
	}
	if (chose != -1) {
		if (!quiet && why[!chose][0] != '\0')
			log_notice("%s; using %s/%s.%d, generation %" PRIu64,
			    why[!chose], sd->path, sl->kind, chose, sl->gen[chose]);
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

/* Write a version of generation gen into the slot not holding the newest good one. */
static int
blob_write(struct slots *sl, uint64_t gen, const char *text, size_t len)
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
	if (write_all(sl->fd[s], text, len) == -1 ||
	    ftruncate(sl->fd[s], (off_t)len) == -1 || fdatasync(sl->fd[s]) == -1)
		return -1;
	sl->good[s] = true;
	sl->gen[s] = gen;
	if (gen > sl->top)
		sl->top = gen;
	return 0;
}

/* The directory: never through a symbolic link, writable only by its owner,
 * and that owner us, or the user a root-started daemon becomes (as), or
 * for --restore by root any user but nobody. */
static int
check_dir(const char *dir, const struct stat *sb, enum sdir_mode mode, uid_t as, char *err,
    size_t errlen)
{
	uid_t me = geteuid();

	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		util_seterr(err, errlen, -1,
		    "%s: writable by group or others (mode %04o), so "
		    "anyone could change what arpownd restores: chmod go-w %s",
		    dir, (unsigned)(sb->st_mode & 07777), dir);
		return -1;
	}
	if (sb->st_uid == me)
		return 0;
	if (sb->st_uid == UID_NOBODY) {
		util_seterr(err, errlen, -1,
		    "%s: owned by nobody (uid %u), as arpownd before "
		    "the v2 state format left it: any process running as nobody could "
		    "have changed the saved originals.  Check the files in it, then "
		    "chown -R %u:%u %s and start again (or remove it, if no interface "
		    "is left at arp_ignore=8)", dir, (unsigned)UID_NOBODY,
		    (unsigned)me, (unsigned)getegid(), dir);
		return -1;
	}
	if ((mode == SDIR_RESTORE || mode == SDIR_PEEK) && me == 0)
		return 0;	/* systemd's DynamicUser owns it: its records are the truth */
	/* the unit's RuntimeDirectory=, and root runs arpownd -d as the same
	 * user: after the drop the daemon is that user, as under the unit */
	if (mode == SDIR_DAEMON && me == 0 && as != (uid_t)-1 && sb->st_uid == as)
		return 0;
	/* no chown: the directory may be the service's, which a chown breaks */
	util_seterr(err, errlen, -1, "%s: owned by uid %u, not by the user arpownd "
	    "runs as (uid %u): arpownd trusts only a directory of its own, since "
	    "that user could have written what is in it.  When it is the service's "
	    "(/run/arpownd under the unit): stop the service (systemctl stop arpownd; "
	    "one arpownd runs at a time) and run arpownd as its user (user = in the "
	    "configuration; the default, arpownd, is the unit's); else give arpownd "
	    "another --state-dir", dir, (unsigned)sb->st_uid,
	    (unsigned)(as != (uid_t)-1 ? as : me));
	return -1;
}

static int
accept_orig(const char *text, size_t len, void *arg, char *err, size_t errlen)
{
	return state_parse(text, len, arg, err, errlen);
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

static int
read_legacy(struct sdir *sd, struct state *st, char *err, size_t errlen)
{
	char *text, why[256];
	size_t len;
	int r;

	if (read_all(sd->legacy, sd->path, LEGACY_FILE, &text, &len, err, errlen) == -1)
		return -1;
	if ((r = state_parse(text, len, st, why, sizeof(why))) == -1)
		util_seterr(err, errlen, -1, "%s/%s: %s", sd->path, LEGACY_FILE, why);
	free(text);
	return r;
}

static int
drop_legacy(struct sdir *sd)
{
	if (unlinkat(sd->dfd, LEGACY_FILE, 0) == -1) {
		log_warn("%s/%s: cannot remove the v1 file", sd->path, LEGACY_FILE);
		return -1;
	}
	close(sd->legacy);
	sd->legacy = -1;
	return 0;
}

/*
 * A v1 "originals" file is what arpownd before v2 saved: it is newer than
 * any slot unless a good slot was written after it (the one case: a
 * conversion whose unlink failed).  Convert it now, while the directory is
 * still writable to us, so that it cannot linger and later be taken for
 * the truth; if it does not parse, keep it for sdir_load to report.
 */
static void
convert_legacy(struct sdir *sd)
{
	struct state st = { 0 };
	struct timespec lt, t;
	struct stat sb;
	char err[320];
	char *text;
	int i;

	if (fstat(sd->legacy, &sb) == -1)
		return;
	lt = sb.st_mtim;
	for (i = 0; i < 2; i++) {
		if (!sd->orig.good[i] || fstat(sd->orig.fd[i], &sb) == -1)
			continue;
		t = sb.st_mtim;
		if (t.tv_sec > lt.tv_sec || (t.tv_sec == lt.tv_sec && t.tv_nsec > lt.tv_nsec)) {
			log_info("%s/%s: older than %s.%d, removed", sd->path, LEGACY_FILE,
			    ORIG_KIND, i);
			(void)drop_legacy(sd);
			return;
		}
	}
	if (read_legacy(sd, &st, err, sizeof(err)) == -1)
		return;
	st.gen = sd->orig.top + 1;
	if ((text = state_format(&st)) == NULL ||
	    blob_write(&sd->orig, st.gen, text, strlen(text)) == -1)
		log_warn("%s: cannot convert the v1 file %s", sd->path, LEGACY_FILE);
	else if (drop_legacy(sd) == 0)
		log_notice("%s/%s: the v1 file of an earlier arpownd, converted to "
		    "%s.0/1 (%zu records)", sd->path, LEGACY_FILE, ORIG_KIND, st.n);
	free(text);
	state_clear(&st);
}

/*
 * The one symbolic link followed: one root made, in a directory only root
 * can write.  systemd makes /run/arpownd such a link to /run/private/arpownd
 * for a DynamicUser= service whose RuntimeDirectory= is preserved; nobody
 * but root could have replaced it, and the directory it leads to is
 * checked as any other.
 */
static bool
root_link(const char *dir)
{
	char parent[PATH_MAX], *slash;
	struct stat sb;

	if (lstat(dir, &sb) == -1 || !S_ISLNK(sb.st_mode) || sb.st_uid != 0)
		return false;
	if ((size_t)snprintf(parent, sizeof(parent), "%s", dir) >= sizeof(parent))
		return false;
	if ((slash = strrchr(parent, '/')) == NULL)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	return stat(parent, &sb) == 0 && sb.st_uid == 0 &&
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* A pair of text slots of kind: opened, and which one is newest known. */
static int
text_open(struct sdir *sd, struct slots *sl, const char *kind, char *err, size_t errlen)
{
	struct text t = { kind, true, NULL, 0 };

	if (blob_open(sd, sl, kind, err, errlen) == -1)
		return -1;
	(void)blob_read(sd, sl, accept_text, &t, true, NULL, 0);
	return 0;
}

static int
text_load(struct sdir *sd, struct slots *sl, const char *kind, char **lines, size_t *len,
    char *err, size_t errlen)
{
	struct text t = { kind, false, NULL, 0 };
	int r;

	if (sl->fd[0] == -1)
		return errno = EBADF, -1;
	r = blob_read(sd, sl, accept_text, &t, false, err, errlen);
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

static int
text_save(struct slots *sl, const char *kind, const char *lines, size_t len)
{
	uint64_t gen = sl->top + 1;
	size_t n;
	char *text;
	int r, e;

	if (sl->fd[0] == -1)
		return errno = EBADF, -1;
	if ((text = state_frame(kind, gen, lines, len, &n)) == NULL)
		return errno = ENOMEM, -1;
	if (n + 1 > STATE_MAX_SIZE) {
		free(text);
		return errno = EFBIG, -1;
	}
	r = blob_write(sl, gen, text, n);
	e = errno;
	free(text);
	errno = e;
	return r;
}

struct sdir *
sdir_open(const char *dir, enum sdir_mode mode, char *err, size_t errlen)
{
	return sdir_open_as(dir, mode, (uid_t)-1, err, errlen);
}

struct sdir *
sdir_open_as(const char *dir, enum sdir_mode mode, uid_t as, char *err, size_t errlen)
{
	struct state scratch = { 0 };
	struct sdir *sd;
	char pid[32], held[32];
	struct stat sb;
	ssize_t r;
	int e, n;

	if ((sd = calloc(1, sizeof(*sd))) == NULL || (sd->path = strdup(dir)) == NULL) {
		free(sd);
		util_seterr(err, errlen, -1, "%s: out of memory", dir);
		return errno = ENOMEM, NULL;
	}
	sd->dfd = sd->lock = sd->legacy = -1;
	sd->orig.fd[0] = sd->orig.fd[1] = -1;
	sd->pub.fd[0] = sd->pub.fd[1] = sd->jfd = -1;
	sd->ann.fd[0] = sd->ann.fd[1] = -1;
	sd->readonly_ok = mode == SDIR_RESTORE;
	/* a look while the daemon runs: its lock stays its own, and nothing
	 * here is created or written */
	sd->peek = sd->readonly = mode == SDIR_PEEK;
	if (!sd->peek && mkdir(dir, 0755) == -1 && errno != EEXIST &&
	    !(errno == EROFS && sd->readonly_ok && access(dir, F_OK) == 0)) {
		util_seterr(err, errlen, -1,
		    "%s: cannot create it: %s", dir, strerror(errno));
		goto fail;
	}
	if ((sd->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    (root_link(dir) ? 0 : O_NOFOLLOW))) == -1) {
		/* O_DIRECTORY says ENOTDIR for a symbolic link too */
		if (errno == ELOOP || errno == ENOTDIR)
			util_seterr(err, errlen, -1,
			    "%s: %s; give arpownd a directory of its own",
			    dir, lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode) ?
			    "a symbolic link" : "not a directory");
		else
			util_seterr(err, errlen, -1, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (fstat(sd->dfd, &sb) == -1) {
		util_seterr(err, errlen, -1, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (check_dir(dir, &sb, mode, as, err, errlen) == -1) {
		errno = EPERM;
		goto fail;
	}
	sd->uid = sb.st_uid;
	sd->gid = sb.st_gid;

	if (sd->peek)
		goto files;
	if ((sd->lock = open_in(sd, LOCK_FILE, O_RDWR, true, err, errlen)) == -1)
		goto fail;
	/* flock is released by the kernel when the holder dies, however it dies */
	if (flock(sd->lock, LOCK_EX | LOCK_NB) == -1) {
		e = errno;
		if (e == EWOULDBLOCK) {
			r = pread(sd->lock, held, sizeof(held) - 1, 0);
			held[r > 0 ? r : 0] = '\0';
			held[strcspn(held, "\n")] = '\0';
			util_seterr(err, errlen, -1,
			    "%s: held by another arpownd (pid %s)", dir,
			    held[0] ? held : "unknown");
		} else
			util_seterr(err, errlen, -1,
			    "%s/%s: %s", dir, LOCK_FILE, strerror(e));
		errno = e;
		goto fail;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (!sd->readonly &&
	    (ftruncate(sd->lock, 0) == -1 || write_all(sd->lock, pid, (size_t)n) == -1))
		log_warn("%s/%s", dir, LOCK_FILE);	/* the lock holds without it */
	if (sd->readonly)
		log_warnx("%s: read-only: restoring from what is saved, but the records "
		    "cannot be updated", dir);
files:
	if (blob_open(sd, &sd->orig, ORIG_KIND, err, errlen) == -1)
		goto fail;
	/* which slot holds the newest good version, for a save before any
	 * sdir_load; what is wrong with them is for sdir_load to say */
	(void)blob_read(sd, &sd->orig, accept_orig, &scratch, true, NULL, 0);
	state_clear(&scratch);
	/* the daemon's other records (--withdraw edits them too; any file
	 * created here is given to the directory's owner, as above) */
	if (text_open(sd, &sd->pub, PUB_KIND, err, errlen) == -1 ||
	    ((sd->jfd = open_in(sd, SDIR_PUB_LOG, sd->peek ? O_RDONLY : O_RDWR, !sd->peek,
	    err, errlen)) == -1 && !(sd->readonly && errno == ENOENT)))
		goto fail;
	/* what the last run announced: only the daemon's own business */
	if (mode == SDIR_DAEMON && text_open(sd, &sd->ann, ANN_KIND, err, errlen) == -1)
		goto fail;
	if ((sd->legacy = open_in(sd, LEGACY_FILE, O_RDONLY, false, err, errlen)) == -1 &&
	    errno != ENOENT)
		goto fail;
	if (sd->legacy != -1 && !sd->peek)
		convert_legacy(sd);
	return sd;
fail:
	e = errno;
	sdir_close(sd);
	errno = e;
	return NULL;
}

void
sdir_close(struct sdir *sd)
{
	int i;

	if (sd == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (sd->orig.fd[i] != -1)
			close(sd->orig.fd[i]);
		if (sd->pub.fd[i] != -1)
			close(sd->pub.fd[i]);
		if (sd->ann.fd[i] != -1)
			close(sd->ann.fd[i]);
	}
	if (sd->jfd != -1)
		close(sd->jfd);
	if (sd->legacy != -1)
		close(sd->legacy);
	if (sd->lock != -1)
		close(sd->lock);
	if (sd->dfd != -1)
		close(sd->dfd);
	free(sd->path);
	free(sd);
}

int
sdir_load(struct sdir *sd, struct state *st, char *err, size_t errlen)
{
	state_clear(st);
	if (sd->legacy != -1)		/* newer than the slots, not converted */
		return read_legacy(sd, st, err, errlen);
	return blob_read(sd, &sd->orig, accept_orig, st, false, err, errlen) == -1 ? -1 : 0;
}

int
sdir_save(struct sdir *sd, const struct state *st)
{
	struct state v = *st;
	char *text;
	int r, e;

	v.gen = sd->orig.top + 1;
	if ((text = state_format(&v)) == NULL)
		return -1;
	if (strlen(text) > STATE_MAX_SIZE) {	/* it could not be read back */
		free(text);
		return errno = EFBIG, -1;
	}
	r = blob_write(&sd->orig, v.gen, text, strlen(text));
	e = errno;
	free(text);
	if (r == 0 && sd->legacy != -1)
		(void)drop_legacy(sd);	/* its records are in a slot now */
	errno = e;
	return r;
}

int
sdir_published_load(struct sdir *sd, char **lines, size_t *len, uint64_t *gen, char *err,
    size_t errlen)
{
	const struct slots *sl = &sd->pub;

	if (text_load(sd, &sd->pub, PUB_KIND, lines, len, err, errlen) == -1)
		return -1;
	*gen = sl->good[0] && (!sl->good[1] || sl->gen[0] > sl->gen[1]) ? sl->gen[0] :
	    sl->good[1] ? sl->gen[1] : 0;
	return 0;
}

int
sdir_published_save(struct sdir *sd, const char *lines, size_t len, uint64_t *gen)
{
	*gen = sd->pub.top + 1;
	return text_save(&sd->pub, PUB_KIND, lines, len);
}

int
sdir_published_log(const struct sdir *sd)
{
	return sd->jfd;
}

const char *
sdir_path(const struct sdir *sd)
{
	return sd->path;
}

int
sdir_announced_load(struct sdir *sd, char **lines, size_t *len, char *err, size_t errlen)
{
	return text_load(sd, &sd->ann, ANN_KIND, lines, len, err, errlen);
}

int
sdir_announced_save(struct sdir *sd, const char *lines, size_t len)
{
	return text_save(&sd->ann, ANN_KIND, lines, len);
}

int
sdir_note_put(struct sdir *sd, const char *text)
{
	int fd, r;

	/* root's own file, not given to the directory's owner: --restore
	 * believes only a note that the daemon could not have written */
	(void)unlinkat(sd->dfd, NOTE_FILE, 0);
	if ((fd = openat(sd->dfd, NOTE_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY, 0600)) == -1) {
		log_warn("%s/%s", sd->path, NOTE_FILE);
		return -1;
	}
	r = write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

void
sdir_note_take(struct sdir *sd, char *buf, size_t len)
{
	struct stat sb;
	ssize_t r;
	int fd;

	buf[0] = '\0';
	if ((fd = openat(sd->dfd, NOTE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
		if (errno != ENOENT)
			log_warn("%s/%s", sd->path, NOTE_FILE);
		return;
	}
	/* the directory's owner (the unprivileged daemon) can put a file
	 * here, and the note gives the originals back: only one written by
	 * our own uid (root's --stopping), a regular file of one link */
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    sb.st_uid != geteuid())
		log_warnx("%s/%s: not written by uid %u (--stopping): ignored", sd->path,
		    NOTE_FILE, (unsigned)geteuid());
	else {
		r = read(fd, buf, len - 1);
		buf[r > 0 ? r : 0] = '\0';
	}
	close(fd);
	if (!sd->readonly)
		(void)unlinkat(sd->dfd, NOTE_FILE, 0);
}
