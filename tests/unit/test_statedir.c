/* test_statedir.c — the state directory: the two slot files, the v1 file
 * converted, and the checks on what is opened in it (those as root: they
 * chown to a test uid). */
#define _GNU_SOURCE	/* asprintf, setresuid */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "statedir.h"
#include "stateframe.h"

#define TEST_UID	61234	/* a uid nobody uses, as a dedicated daemon user */

/* A v2 file around body (test_statefile checks the frame itself). */
static char *
v2(uint64_t gen, const char *body)
{
	char *s = state_frame(STATE_ORIG_KIND, gen, body, strlen(body), NULL);

	assert_non_null(s);
	return s;
}

static char base[] = "/tmp/test_statedir.XXXXXX";
static char dir[128];

static int
setup(void **unused)
{
	(void)unused;
	if (mkdtemp(base) == NULL)
		return -1;
	chmod(base, 0755);
	snprintf(dir, sizeof(dir), "%s/st", base);
	return 0;
}

static int
teardown(void **unused)
{
	char cmd[400];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fresh, empty state directory. */
static void
fresh(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -m 0755 '%s'", dir, dir);
	assert_int_equal(system(cmd), 0);
}

static const char *
at(const char *name)
{
	static char p[2][256];
	static int i;

	i = !i;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void
put(const char *name, const char *text, mode_t mode)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(at(name), mode);
}

static char *
get(const char *name)
{
	static char buf[8192];
	ssize_t n;
	int fd;

	if ((fd = open(at(name), O_RDONLY)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* The generation in a slot's header, 0 when none. */
static uint64_t
gen_of(const char *name)
{
	char *s = get(name);
	uint64_t g = 0;

	if (s != NULL)
		sscanf(s, "arpownd originals v2 gen=%" SCNu64, &g);
	return g;
}

static struct sdir *
open_ok(enum sdir_mode mode)
{
	char err[512] = "";
	struct sdir *sd = sdir_open(dir, mode, err, sizeof(err));

	if (sd == NULL)
		fail_msg("sdir_open: %s", err);
	return sd;
}

static void
save_one(struct sdir *sd, int ifindex, const char *name, int ign)
{
	struct state st = { 0 };

	state_add(&st, ifindex, name)->arp_ignore = ign;
	assert_int_equal(sdir_save(sd, &st), 0);
	state_clear(&st);
}

/* Load, expecting one record ifindex=name arp_ignore=ign. */
static void
load_one(struct sdir *sd, int ifindex, const char *name, int ign)
{
	struct state st = { 0 };
	char err[512];

	if (sdir_load(sd, &st, err, sizeof(err)) != 0)
		fail_msg("sdir_load: %s", err);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.v[0].ifindex, ifindex);
	assert_string_equal(st.v[0].name, name);
	assert_int_equal(st.v[0].arp_ignore, ign);
	state_clear(&st);
}

static void
test_save_load(void **unused)
{
	struct sdir *sd;
	struct state st = { 0 };
	char err[512], expect[64];
	struct stat sb;
	int i, status;
	pid_t pid;

	(void)unused;
	fresh();
	rmdir(dir);
	sd = open_ok(SDIR_DAEMON);		/* creates the directory */
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777 & ~0755u, 0);
	for (i = 0; i < 3; i++) {
		const char *f = i == 0 ? "lock" : i == 1 ? "originals.0" : "originals.1";

		assert_int_equal(stat(at(f), &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0600);
		assert_int_equal(sb.st_uid, geteuid());
	}
	snprintf(expect, sizeof(expect), "%ld\n", (long)getpid());
	assert_string_equal(get("lock"), expect);

	/* a second instance: refused, told who holds it */
	pid = fork();
	if (pid == 0) {
		struct sdir *sd2 = sdir_open(dir, SDIR_RESTORE, err, sizeof(err));

		snprintf(expect, sizeof(expect), "held by another arpownd (pid %ld)",
		    (long)getppid());
		_exit(sd2 == NULL && errno == EWOULDBLOCK && strstr(err, expect) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);

	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), 0);	/* nothing yet */
	assert_int_equal(st.n, 0);

	/* save N times: the last one is read, the slots alternate */
	for (i = 1; i <= 7; i++) {
		save_one(sd, i, "eth0", i % 9);
		load_one(sd, i, "eth0", i % 9);
		assert_true(gen_of(i % 2 ? "originals.0" : "originals.1") == (uint64_t)i);
		assert_true(gen_of(i % 2 ? "originals.1" : "originals.0") == (uint64_t)i - 1);
	}
	sdir_close(sd);
	sd = open_ok(SDIR_DAEMON);		/* a restart reads the same */
	load_one(sd, 7, "eth0", 7);
	save_one(sd, 8, "eth0", 8);
	assert_true(gen_of("originals.1") == 8);

	/* an empty record set is a version like any other */
	assert_int_equal(sdir_save(sd, &st), 0);
	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 0);
	assert_true(st.gen == 9);
	sdir_close(sd);
}

/* The newer slot spoilt: the older is read; both spoilt: an error. */
static void
test_corrupt(void **unused)
{
	static const struct { const char *what; int trunc; int flip; const char *text; } spoil[] = {
		{ "truncated to nothing", 0, -1, NULL },
		{ "truncated mid-record", 40, -1, NULL },
		{ "truncated in the trailer", -5, -1, NULL },
		{ "a byte flipped", -1, 30, NULL },
		{ "a byte flipped in the checksum", -1, -3, NULL },
		{ "garbage", -1, -1, "\177ELF\x02\x01\x01 garbage\n" },
		{ "a v1 text", -1, -1, "eth0 arp_ignore=8\n" },
		{ "another kind", -1, -1, "arpownd published v2 gen=99\ncrc32=00000000\n" },
		{ "a bad record, checksum right", -1, -1, "" },
	};
	struct sdir *sd;
	struct state st = { 0 };
	char err[512], *text, *s;
	size_t i;
	int fd;

	(void)unused;
	for (i = 0; i < sizeof(spoil) / sizeof(spoil[0]); i++) {
		fresh();
		sd = open_ok(SDIR_DAEMON);
		save_one(sd, 2, "old", 1);		/* originals.0, gen 1 */
		save_one(sd, 3, "new", 2);		/* originals.1, gen 2 */
		sdir_close(sd);

		s = strdup(get("originals.1"));
		if (spoil[i].trunc >= 0)
			s[spoil[i].trunc] = '\0';
		else if (spoil[i].trunc < -1)
			s[strlen(s) + (size_t)spoil[i].trunc] = '\0';
		if (spoil[i].flip >= 0)
			s[spoil[i].flip] ^= 0x20;
		else if (spoil[i].flip < -1)
			s[strlen(s) + (size_t)spoil[i].flip] ^= 0x01;
		if (spoil[i].text != NULL && spoil[i].text[0] != '\0') {
			free(s);
			s = strdup(spoil[i].text);
		} else if (spoil[i].text != NULL) {
			free(s);
			s = v2(5, "ifindex=3 name=new arp_ignore=9\n");
		}
		fd = open(at("originals.1"), O_WRONLY | O_TRUNC);
		assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
		close(fd);
		free(s);

		sd = open_ok(SDIR_DAEMON);
		if (sdir_load(sd, &st, err, sizeof(err)) != 0 || st.n != 1 ||
		    st.v[0].ifindex != 2 || st.gen != 1)
			fail_msg("%s: the older version not read (%s)", spoil[i].what, err);
		/* and the next save goes over the spoilt slot, not the good one */
		save_one(sd, 4, "next", 0);
		assert_non_null(strstr(get("originals.0"), "name=old "));
		assert_non_null(strstr(get("originals.1"), "name=next "));
		assert_true(gen_of("originals.1") >= 2);
		sdir_close(sd);
	}

	/* a newer slot with a good checksum and a bad record, and a save
	 * before any load: it still goes over the bad one */
	fresh();
	sd = open_ok(SDIR_DAEMON);
	save_one(sd, 2, "old", 1);
	sdir_close(sd);
	text = v2(5, "ifindex=3 name=new arp_ignore=9\n");
	put("originals.1", text, 0600);
	free(text);
	sd = open_ok(SDIR_DAEMON);
	save_one(sd, 4, "next", 0);
	assert_non_null(strstr(get("originals.0"), "name=old "));
	assert_true(gen_of("originals.1") == 6);
	load_one(sd, 4, "next", 0);
	sdir_close(sd);

	/* a newer slot too large to be ours: passed over, not an error */
	fresh();
	sd = open_ok(SDIR_DAEMON);
	save_one(sd, 2, "old", 1);
	sdir_close(sd);
	assert_int_equal(truncate(at("originals.1"), (2 << 20)), 0);
	sd = open_ok(SDIR_DAEMON);
	load_one(sd, 2, "old", 1);
	sdir_close(sd);

	/* both spoilt: no version to trust, and the error says why for each */
	put("originals.0", "arpownd originals v2 gen=1\nifindex=3 name=a arp_ig", 0600);
	text = v2(2, "ifindex=3 name=a arp_ignore=1\n");
	text[strlen(text) - 3] ^= 1;
	put("originals.1", text, 0600);
	free(text);
	sd = open_ok(SDIR_DAEMON);
	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), -1);
	assert_int_equal(st.n, 0);
	assert_non_null(strstr(err, "no complete saved version"));
	assert_non_null(strstr(err, "originals.0: line 2: no checksum line"));
	assert_non_null(strstr(err, "originals.1: line 3: checksum mismatch"));
	/* a save still works, and is then the version read */
	save_one(sd, 5, "eth5", 3);
	load_one(sd, 5, "eth5", 3);
	sdir_close(sd);

	/* one never written, the other cut short: the first save ever, cut
	 * short (a full disk, a crash): nothing was changed on the strength
	 * of it, so nothing is saved; refusing would keep arpownd (and
	 * --restore) from ever starting again (the outside review's
	 * attack_enospc_crash.sh).  A link left at 8 with no record gets the
	 * kernel's default at the next start. */
	fresh();
	put("originals.0", "arpownd originals v2 gen=1\nifindex=3 name=a arp_ig", 0600);
	sd = open_ok(SDIR_DAEMON);
	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 0);
	save_one(sd, 5, "eth5", 3);
	load_one(sd, 5, "eth5", 3);
	sdir_close(sd);
	state_clear(&st);
}

/* The file of arpownd before v2: read, converted while still privileged. */
static void
test_legacy(void **unused)
{
	static const char v1[] = "# arpownd: sysctl values found before arpownd changed them\n"
	    "eth0 arp_ignore=0 arp_announce=2\nv=1 arp_ignore=1\n#v2 arp_ignore=2\n";
	struct sdir *sd;
	struct state st = { 0 };
	struct timeval tv[2];
	char err[512];

	(void)unused;
	fresh();
	put("originals", v1, 0644);
	sd = open_ok(SDIR_DAEMON);
	assert_null(get("originals"));			/* converted */
	assert_non_null(strstr(get("originals.0"), "ifindex=0 name=%23v2 arp_ignore=2\n"));
	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 3);
	assert_int_equal(state_find_name(&st, "v=1")->arp_ignore, 1);
	assert_int_equal(state_find_name(&st, "#v2")->ifindex, 0);
	sdir_close(sd);

	/* unreadable: kept, and the load says where and why */
	fresh();
	put("originals", "eth0 arp_ignore=1\neth1 arp_ignore=99\n", 0644);
	sd = open_ok(SDIR_DAEMON);
	assert_non_null(get("originals"));
	assert_int_equal(sdir_load(sd, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/originals: line 2: arp_ignore=99: not a number in 0..8"));
	sdir_close(sd);

	/* left over from a conversion (older than a good slot): removed */
	fresh();
	sd = open_ok(SDIR_DAEMON);
	save_one(sd, 4, "eth4", 1);
	sdir_close(sd);
	put("originals", "eth0 arp_ignore=0\n", 0644);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= 60;
	tv[1] = tv[0];
	assert_int_equal(utimes(at("originals"), tv), 0);
	sd = open_ok(SDIR_DAEMON);
	assert_null(get("originals"));
	load_one(sd, 4, "eth4", 1);
	sdir_close(sd);

	/* newer than the slots (an older arpownd ran after this one): it wins */
	put("originals", "eth0 arp_ignore=0\n", 0644);
	sd = open_ok(SDIR_DAEMON);
	assert_null(get("originals"));
	load_one(sd, 0, "eth0", 0);
	sdir_close(sd);
	state_clear(&st);
}

static bool
running_as_root(void)
{
	return geteuid() == 0;
}

/* What someone else may have put in the directory is refused, by name. */
static void
test_refused(void **unused)
{
	static const struct {
		const char	*setup;		/* shell, in the state directory */
		enum sdir_mode	 mode;
		const char	*err;		/* NULL: accepted */
	} cases[] = {
		{ "echo keep >../target; ln -s ../target lock", SDIR_DAEMON,
		    "/lock: a symbolic link, not followed: remove it" },
		{ "ln -s /nonexistent lock", SDIR_DAEMON, "/lock: a symbolic link" },
		{ "echo keep >../target; ln -s ../target originals.0", SDIR_DAEMON,
		    "/originals.0: a symbolic link, not followed: remove it" },
		{ "echo keep >../target; ln -s ../target originals", SDIR_DAEMON,
		    "/originals: a symbolic link, not followed: remove it" },
		{ "echo keep >../target; chmod 600 ../target; ln ../target originals.1",
		    SDIR_DAEMON, "/originals.1: has 2 hard links, so it is also elsewhere: remove it" },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 originals.0", SDIR_DAEMON,
		    "/originals.0: owned by uid 61234, not by the directory's owner (uid 0): remove it" },
		{ "touch lock; chmod 600 lock; chown 61234 lock", SDIR_RESTORE,
		    "/lock: owned by uid 61234, not by the directory's owner (uid 0)" },
		{ "touch originals.1; chmod 660 originals.1", SDIR_DAEMON,
		    "/originals.1: writable by group or others (mode 0660): remove it" },
		{ "mkfifo lock", SDIR_DAEMON, "/lock: not a regular file: remove it" },
		{ "mkdir originals.0", SDIR_DAEMON, "/originals.0: Is a directory" },
		{ "chmod 0775 .", SDIR_DAEMON, ": writable by group or others (mode 0775)" },
		{ "chmod 1777 .", SDIR_RESTORE, ": writable by group or others (mode 1777)" },
		{ "chown 61234 .", SDIR_DAEMON, ": owned by uid 61234, not by the user arpownd runs as (uid 0)" },
		{ "chown 65534 .", SDIR_DAEMON, ": owned by nobody (uid 65534)" },
		{ "chown 65534 .", SDIR_RESTORE, "chown -R 0:0 " },
		/* a link someone else made, or in a directory others can write */
		{ "mv ../st ../real; ln -s real ../st; chown -h 61234 ../st", SDIR_DAEMON,
		    ": a symbolic link; give arpownd a directory of its own" },
		{ "mv ../st ../real; ln -s real ../st; chmod 1777 ..", SDIR_DAEMON,
		    ": a symbolic link; give arpownd a directory of its own" },
		{ "mv ../st ../real; chown 61234 ../real; ln -s real ../st", SDIR_DAEMON,
		    ": owned by uid 61234, not by the user arpownd runs as (uid 0)" },
		/* root's link in root's directory: systemd's /run/arpownd ->
		 * /run/private/arpownd, for a DynamicUser */
		{ "mv ../st ../real; ln -s real ../st", SDIR_DAEMON, NULL },
		{ "touch originals.0 originals.1 lock; chmod 644 originals.0 originals.1 lock",
		    SDIR_DAEMON, NULL },
		/* a DynamicUser's own directory, for root's --restore */
		{ "chown 61234 .", SDIR_RESTORE, NULL },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 . originals.0",
		    SDIR_RESTORE, NULL },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 .", SDIR_RESTORE,
		    "/originals.0: owned by uid 0, not by the directory's owner (uid 61234)" },
	};
	char cmd[600], err[512];
	struct sdir *sd;
	size_t i;

	(void)unused;
	if (!running_as_root())
		skip();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "chmod 0755 '%s'; rm -rf '%s/real' '%s/target'",
		    base, base, base);
		assert_int_equal(system(cmd), 0);
		fresh();
		snprintf(cmd, sizeof(cmd), "cd '%s' && { %s; }", dir, cases[i].setup);
		assert_int_equal(system(cmd), 0);
		err[0] = '\0';
		sd = sdir_open(dir, cases[i].mode, err, sizeof(err));
		if (cases[i].err == NULL) {
			if (sd == NULL)
				fail_msg("%s: refused: %s", cases[i].setup, err);
		} else if (sd != NULL)
			fail_msg("%s: accepted", cases[i].setup);
		else if (strstr(err, cases[i].err) == NULL)
			fail_msg("%s: said \"%s\", not \"%s\"", cases[i].setup, err, cases[i].err);
		/* nothing was written through the link */
		if (strstr(cases[i].setup, "target") != NULL) {
			snprintf(cmd, sizeof(cmd), "%s/target", base);
			int fd = open(cmd, O_RDONLY);
			char buf[16] = "";

			assert_true(fd >= 0);
			assert_int_equal(read(fd, buf, sizeof(buf)), 5);
			assert_memory_equal(buf, "keep\n", 5);
			close(fd);
		}
		sdir_close(sd);
	}

	/* root's --restore in the DynamicUser's directory: what it creates
	 * is that user's, so the daemon can open it again */
	fresh();
	assert_int_equal(chown(dir, TEST_UID, TEST_UID), 0);
	sd = open_ok(SDIR_RESTORE);
	save_one(sd, 2, "eth0", 0);
	sdir_close(sd);
	struct stat sb;

	assert_int_equal(stat(at("originals.0"), &sb), 0);
	assert_int_equal(sb.st_uid, TEST_UID);
	assert_int_equal(stat(at("lock"), &sb), 0);
	assert_int_equal(sb.st_uid, TEST_UID);
	assert_int_equal(stat(at("originals.1"), &sb), 0);
	assert_int_equal(sb.st_gid, TEST_UID);
}

static int
become(uid_t uid)
{
	return setgroups(0, NULL) == -1 || setresgid(uid, uid, uid) == -1 ||
	    setresuid(uid, uid, uid) == -1 ? -1 : 0;
}

/*
 * Started as root, privileges dropped: the daemon saves through the files
 * it opened as root, and that uid can change nothing in the directory.
 */
static void
test_dropped(void **unused)
{
	static const char *const names[] = { ".", "lock", "originals.0", "originals.1" };
	struct sdir *sd;
	struct state st = { 0 };
	char err[512];
	struct stat sb;
	int status, i;
	pid_t pid;

	(void)unused;
	if (!running_as_root())
		skip();
	fresh();
	put("originals", "eth0 arp_ignore=0\n", 0644);	/* converted while root */
	sd = open_ok(SDIR_DAEMON);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (become(TEST_UID) == -1)
			_exit(100);
		for (i = 1; i <= 3; i++) {
			state_clear(&st);
			state_add(&st, i, "eth0")->arp_ignore = i;
			if (sdir_save(sd, &st) == -1)
				bad |= 1;
		}
		if (sdir_load(sd, &st, err, sizeof(err)) == -1 || st.n != 1 ||
		    st.v[0].arp_ignore != 3)
			bad |= 2;
		for (i = 0; i < 4; i++)
			if (faccessat(AT_FDCWD, at(names[i]), W_OK, AT_EACCESS) == 0 ||
			    errno != EACCES)
				bad |= 4;
		if (open(at("new"), O_WRONLY | O_CREAT, 0600) != -1 || errno != EACCES)
			bad |= 8;
		if (rename(at("originals.0"), at("x")) != -1 || unlink(at("lock")) != -1)
			bad |= 16;
		/* the dir is not ours: even a restore as this uid is refused */
		if (sdir_open(dir, SDIR_RESTORE, err, sizeof(err)) != NULL ||
		    strstr(err, "not by the user arpownd runs as (uid 61234)") == NULL)
			bad |= 32;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(stat(at(names[i]), &sb), 0);
		assert_int_equal(sb.st_uid, 0);
		assert_int_equal(sb.st_mode & (S_IWGRP | S_IWOTH), 0);
	}
	assert_null(get("originals"));
	sdir_close(sd);
	sd = open_ok(SDIR_DAEMON);
	load_one(sd, 3, "eth0", 3);
	sdir_close(sd);
}

/* Root starting the daemon that will run as the directory's owner (the
 * unit's RuntimeDirectory=, arpownd -d by hand): accepted, every file it
 * makes given to that user; another user's is still refused, and the
 * advice is no chown (which would break the service). */
static void
test_as_owner(void **unused)
{
	char cmd[400], err[1024] = "";
	struct sdir *sd;
	struct stat sb;
	struct state st = { 0 };

	(void)unused;
	if (!running_as_root())
		skip();
	fresh();
	snprintf(cmd, sizeof(cmd), "chown 61234:61234 '%s' && chmod 0750 '%s'", dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_null(sdir_open(dir, SDIR_DAEMON, err, sizeof(err)));
	assert_null(strstr(err, "chown"));
	assert_non_null(strstr(err, "stop the service"));
	assert_null(sdir_open_as(dir, SDIR_DAEMON, 61233, err, sizeof(err)));
	if ((sd = sdir_open_as(dir, SDIR_DAEMON, 61234, err, sizeof(err))) == NULL)
		fail_msg("sdir_open_as the owner: %s", err);
	state_add(&st, 2, "eth0")->arp_ignore = 1;
	assert_int_equal(sdir_save(sd, &st), 0);
	state_clear(&st);
	sdir_close(sd);
	assert_int_equal(stat(at("lock"), &sb), 0);
	assert_int_equal(sb.st_uid, 61234);
	assert_int_equal(stat(at("originals.0"), &sb), 0);
	assert_int_equal(sb.st_uid, 61234);
	assert_int_equal(stat(at("originals.1"), &sb), 0);
	assert_int_equal(sb.st_uid, 61234);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_as_owner),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
