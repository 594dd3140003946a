/* statedir.c — the state directory: the instance lock, and the files the
 * saved records live in.  They are the only memory that survives a crash
 * (arpownd --restore applies them), so they are written before any change,
 * and in a way a crash cannot tear.
 *
 * Started as root, the daemon drops to an unprivileged uid that must not be
 * able to change what root later restores: it opens every file here while
 * still root and keeps the descriptors, and nothing here is writable by that
 * uid.  It then cannot create or rename files, so each record alternates
 * between two slot files that always exist (slots.c keeps them; here they
 * are opened, checked and owned).  Under systemd's DynamicUser the
 * directory is the daemon's own and the same code creates the files as
 * that user. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "slots.h"
#include "statedir.h"
#include "util.h"

#define UID_NOBODY	65534		/* what arpownd before the v2 format chowned to */
#define LOCK_FILE	"lock"
#define LEGACY_FILE	"originals"	/* v1: one file, replaced by rename */
#define ORIG_KIND	STATE_ORIG_KIND	/* v2: originals.0 and originals.1 */
#define PUB_KIND	"published"	/* the runtime-published addresses */
#define ANN_KIND	"announced"	/* what the last run announced, as it was */
#define NOTE_FILE	"stopping"	/* --stopping's word to --restore */

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

/* Open sl's two files through open_in's checks (slots.c reads and writes them). */
static int
open_slots(struct sdir *sd, struct slots *sl, char *err, size_t errlen)
{
	char name[64];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s.%d", sl->kind, i);
		if ((sl->fd[i] = open_in(sd, name, sd->peek ? O_RDONLY : O_RDWR, !sd->peek,
		    err, errlen)) == -1 &&
		    !(sd->readonly && errno == ENOENT))
			return -1;	/* read-only, never written: an empty slot */
	}
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

static int
read_legacy(struct sdir *sd, struct state *st, char *err, size_t errlen)
{
	char *text, why[256];
	size_t len;
	int r;

	if (slots_read_all(sd->legacy, sd->path, LEGACY_FILE, &text, &len, err, errlen) == -1)
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
	    slots_write(&sd->orig, st.gen, text, strlen(text)) == -1)
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
text_open(struct sdir *sd, struct slots *sl, char *err, size_t errlen)
{
	if (open_slots(sd, sl, err, errlen) == -1)
		return -1;
	slots_text_scan(sl);
	return 0;
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
	sd->dfd = sd->lock = sd->legacy = sd->jfd = -1;
	slots_init(&sd->orig, sd->path, ORIG_KIND);
	slots_init(&sd->pub, sd->path, PUB_KIND);
	slots_init(&sd->ann, sd->path, ANN_KIND);
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
	    (ftruncate(sd->lock, 0) == -1 || slots_write_all(sd->lock, pid, (size_t)n) == -1))
		log_warn("%s/%s", dir, LOCK_FILE);	/* the lock holds without it */
	if (sd->readonly)
		log_warnx("%s: read-only: restoring from what is saved, but the records "
		    "cannot be updated", dir);
files:
	if (open_slots(sd, &sd->orig, err, errlen) == -1)
		goto fail;
	/* which slot holds the newest good version, for a save before any
	 * sdir_load; what is wrong with them is for sdir_load to say */
	(void)slots_read(&sd->orig, accept_orig, &scratch, true, NULL, 0);
	state_clear(&scratch);
	/* the daemon's other records (--withdraw edits them too; any file
	 * created here is given to the directory's owner, as above) */
	if (text_open(sd, &sd->pub, err, errlen) == -1 ||
	    ((sd->jfd = open_in(sd, SDIR_PUB_LOG, sd->peek ? O_RDONLY : O_RDWR, !sd->peek,
	    err, errlen)) == -1 && !(sd->readonly && errno == ENOENT)))
		goto fail;
	/* what the last run announced: only the daemon's own business */
	if (mode == SDIR_DAEMON && text_open(sd, &sd->ann, err, errlen) == -1)
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
	if (sd == NULL)
		return;
	slots_close(&sd->orig);
	slots_close(&sd->pub);
	slots_close(&sd->ann);
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
	return slots_read(&sd->orig, accept_orig, st, false, err, errlen) == -1 ? -1 : 0;
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
	if (strlen(text) > SLOTS_MAX_SIZE) {	/* it could not be read back */
		free(text);
		return errno = EFBIG, -1;
	}
	r = slots_write(&sd->orig, v.gen, text, strlen(text));
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

	if (slots_text_load(&sd->pub, lines, len, err, errlen) == -1)
		return -1;
	*gen = sl->good[0] && (!sl->good[1] || sl->gen[0] > sl->gen[1]) ? sl->gen[0] :
	    sl->good[1] ? sl->gen[1] : 0;
	return 0;
}

int
sdir_published_save(struct sdir *sd, const char *lines, size_t len, uint64_t *gen)
{
	*gen = sd->pub.top + 1;
	return slots_text_save(&sd->pub, lines, len);
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
	return slots_text_load(&sd->ann, lines, len, err, errlen);
}

int
sdir_announced_save(struct sdir *sd, const char *lines, size_t len)
{
	return slots_text_save(&sd->ann, lines, len);
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
	r = slots_write_all(fd, text, strlen(text));
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
