/* state.c — the state directory: the instance lock, and the sysctl values
 * arpownd found before it changed them.  The file is the only memory that
 * survives a crash, so it is written before any change and atomically. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "state.h"

#define STATE_MAX_SIZE	(4 << 20)

struct state_orig *
state_find(struct state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0)
			return &st->v[i];
	return NULL;
}

struct state_orig *
state_add(struct state *st, const char *name)
{
	struct state_orig *o;

	if (strlen(name) >= IF_NAMESIZE)
		return NULL;
	if ((o = state_find(st, name)) != NULL)
		return o;
	if (st->n == st->alloc) {
		size_t n = st->alloc ? st->alloc * 2 : 16;

		if ((o = realloc(st->v, n * sizeof(*o))) == NULL)
			return NULL;
		st->v = o;
		st->alloc = n;
	}
	o = &st->v[st->n++];
	memset(o, 0, sizeof(*o));
	memcpy(o->name, name, strlen(name) + 1);	/* length checked above */
	o->arp_ignore = o->arp_announce = STATE_NONE;
	return o;
}

void
state_del(struct state *st, const char *name)
{
	struct state_orig *o;

	if ((o = state_find(st, name)) == NULL)
		return;
	*o = st->v[--st->n];
}

void
state_clear(struct state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

static int
valid_ifname(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= IF_NAMESIZE)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] == '/' || s[i] == '=' || (unsigned char)s[i] <= ' ')
			return 0;
	return 1;
}

static int
parse_value(const char *s, size_t len, int *out)
{
	long v = 0;
	size_t i;

	if (len == 0 || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = (int)v;
	return 0;
}

/* One line: "IFNAME key=value ..." with keys arp_ignore and arp_announce. */
static int
parse_line(const char *p, const char *end, struct state *st, const char **why)
{
	const char *w, *eq;
	struct state_orig *o;
	char name[IF_NAMESIZE];
	int v;

	for (w = p; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (!valid_ifname(w, (size_t)(p - w)))
		return *why = "bad interface name", -1;
	memcpy(name, w, (size_t)(p - w));
	name[p - w] = '\0';
	if (state_find(st, name) != NULL)
		return *why = "interface listed twice", -1;
	if ((o = state_add(st, name)) == NULL)
		return *why = "out of memory", -1;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		for (w = p, eq = NULL; p < end && *p != ' ' && *p != '\t'; p++)
			if (*p == '=' && eq == NULL)
				eq = p;
		if (eq == NULL || parse_value(eq + 1, (size_t)(p - eq - 1), &v) == -1)
			return *why = "expected key=number", -1;
		if ((size_t)(eq - w) == 10 && memcmp(w, "arp_ignore", 10) == 0 &&
		    o->arp_ignore == STATE_NONE)
			o->arp_ignore = v;
		else if ((size_t)(eq - w) == 12 && memcmp(w, "arp_announce", 12) == 0 &&
		    o->arp_announce == STATE_NONE)
			o->arp_announce = v;
		else
			return *why = "unknown or repeated key", -1;
	}
	if (o->arp_ignore == STATE_NONE && o->arp_announce == STATE_NONE)
		return *why = "no values", -1;
	return 0;
}

int
state_parse(const char *buf, size_t len, struct state *st, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *eol, *why = NULL;
	unsigned line = 0;

	while (p < end) {
		line++;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (eol > p && *p != '#' && parse_line(p, eol, st, &why) == -1) {
			snprintf(err, errlen, "line %u: %s", line, why);
			state_clear(st);
			return -1;
		}
		p = eol + 1;
	}
	return 0;
}

char *
state_format(const struct state *st)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fputs("# arpownd: sysctl values found before arpownd changed them\n", f);
	for (i = 0; i < st->n; i++) {
		fputs(st->v[i].name, f);
		if (st->v[i].arp_ignore != STATE_NONE)
			fprintf(f, " arp_ignore=%d", st->v[i].arp_ignore);
		if (st->v[i].arp_announce != STATE_NONE)
			fprintf(f, " arp_announce=%d", st->v[i].arp_announce);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
state_lock(const char *dir)
{
	char path[PATH_MAX], pid[24];
	int fd, n;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return -1;
	if (snprintf(path, sizeof(path), "%s/lock", dir) >= (int)sizeof(path))
		return errno = ENAMETOOLONG, -1;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1)
		return -1;
	/* flock is released by the kernel when the holder dies, however it dies */
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		n = errno;
		close(fd);
		return errno = n, -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 || write(fd, pid, (size_t)n) != n)
		log_warn("%s", path);
	return fd;
}

int
state_load(const char *dir, struct state *st)
{
	char path[PATH_MAX], err[128], *buf = NULL;
	ssize_t r;
	size_t len = 0;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("%s", path);
		return -1;
	}
	if ((buf = malloc(STATE_MAX_SIZE)) == NULL) {
		log_warn("%s", path);
		goto out;
	}
	while ((r = read(fd, buf + len, STATE_MAX_SIZE - len)) > 0)
		len += (size_t)r;
	if (r == -1) {
		log_warn("%s", path);
		goto out;
	}
	if (len == STATE_MAX_SIZE) {
		log_warnx("%s: larger than %d bytes", path, STATE_MAX_SIZE);
		goto out;
	}
	if (state_parse(buf, len, st, err, sizeof(err)) == -1) {
		log_warnx("%s: %s", path, err);
		goto out;
	}
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

static int
write_all(int fd, const char *s, size_t len)
{
	ssize_t w;

	while (len > 0) {
		if ((w = write(fd, s, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

int
state_save(const char *dir, const struct state *st)
{
	char path[PATH_MAX], tmp[PATH_MAX], *text = NULL;
	int fd = -1, dfd, ret = -1, saved;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, STATE_FILE);
	if (st->n == 0) {
		if (unlink(path) == -1 && errno != ENOENT)
			return -1;
		ret = 0;
		goto sync;
	}
	if ((text = state_format(st)) == NULL)
		return -1;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1)
		goto out;
	if (write_all(fd, text, strlen(text)) == -1 || fsync(fd) == -1)
		goto out;
	if (close(fd) == -1) {
		fd = -1;
		goto out;
	}
	fd = -1;
	/* rename is atomic: a crash leaves the old file or the new, never half */
	if (rename(tmp, path) == -1)
		goto out;
	ret = 0;
sync:
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
out:
	saved = errno;
	if (fd != -1) {
		close(fd);
		unlink(tmp);
	}
	free(text);
	errno = saved;
	return ret;
}
