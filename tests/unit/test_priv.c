/* test_priv.c — the privilege drop, each case in a forked child (a drop
 * cannot be undone); as root only, skipped otherwise. */
#define _GNU_SOURCE	/* getresuid */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "priv.h"

/* A /proc/self/status field, or "". */
static const char *
status(const char *key)
{
	static char val[128];
	char line[256];
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");

	val[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			sscanf(line + n + 1, " %127[^\n]", val);
			break;
		}
	if (f != NULL)
		fclose(f);
	return val;
}

/*
 * Run priv_drop(user) in a child and check what it became: 0 when it
 * returned want and, on success, has every uid and gid as asked, no
 * supplementary groups and exactly the two capabilities; stderr (the
 * log) into out.
 */
static int
drop(const char *user, int want, long uid, long gid, char *out, size_t outlen)
{
	int pfd[2], status_;
	size_t len;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		uid_t r, e, s;
		gid_t rg, eg, sg;
		int bad = 0;

		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		if (priv_drop(user) != want)
			_exit(1);
		if (want == -1)
			_exit(0);
		getresuid(&r, &e, &s);
		getresgid(&rg, &eg, &sg);
		if ((long)r != uid || (long)e != uid || (long)s != uid)
			bad |= 2;
		if ((long)rg != gid || (long)eg != gid || (long)sg != gid)
			bad |= 4;
		if (uid != 0) {
			if (getgroups(0, NULL) != 0)
				bad |= 8;
			if (strcmp(status("CapEff"), "0000000000003000") != 0 ||
			    strcmp(status("CapPrm"), "0000000000003000") != 0 ||
			    strcmp(status("CapBnd"), "0000000000003000") != 0)
				bad |= 16;
			if (strcmp(status("NoNewPrivs"), "1") != 0)
				bad |= 32;
		}
		_exit(bad);
	}
	close(pfd[1]);
	len = 0;
	while (len < outlen - 1 && (n = read(pfd[0], out + len, outlen - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pfd[0]);
	waitpid(pid, &status_, 0);
	return WIFEXITED(status_) ? WEXITSTATUS(status_) : 99;
}

static void
test_drop(void **unused)
{
	struct passwd *pw;
	char out[1024];
	int r;

	(void)unused;
	if (geteuid() != 0)
		skip();
	/* a dedicated uid with no passwd entry, as DynamicUser allocates */
	r = drop("61234", 0, 61234, 61234, out, sizeof(out));
	if (r != 0)
		fail_msg("61234: %d: %s", r, out);
	assert_non_null(strstr(out, "running as 61234 (uid 61234)"));
	r = drop("61234:61240", 0, 61234, 61240, out, sizeof(out));
	if (r != 0)
		fail_msg("61234:61240: %d: %s", r, out);
	/* a name from passwd, with its primary group */
	if ((pw = getpwnam("daemon")) != NULL && pw->pw_uid != 0) {
		r = drop("daemon", 0, (long)pw->pw_uid, (long)pw->pw_gid, out, sizeof(out));
		if (r != 0)
			fail_msg("daemon: %d: %s", r, out);
	}
	/* root stays root, with everything */
	assert_int_equal(drop("root", 0, 0, 0, out, sizeof(out)), 0);
	assert_int_equal(drop("0", 0, 0, 0, out, sizeof(out)), 0);
	/* nobody works, with a warning that it is shared */
	assert_int_equal(drop("65534", 0, 65534, 65534, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "shared with other services"));
}

static void
test_refused(void **unused)
{
	static const char *const bad[] = {
		"61234:", "61234:x", "1:2:3", "4294967295", "99999999999", "61234:4294967295",
		":5", "no-such-user-arpownd",
	};
	char out[1024];
	size_t i;

	(void)unused;
	if (geteuid() != 0)
		skip();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (drop(bad[i], -1, 0, 0, out, sizeof(out)) != 0 || out[0] == '\0')
			fail_msg("%s: not refused, or not said why", bad[i]);
	/* a missing user is named, with what to do; never nobody instead */
	drop("no-such-user-arpownd", -1, 0, 0, out, sizeof(out));
	assert_non_null(strstr(out, "user \"no-such-user-arpownd\" does not exist"));
	assert_non_null(strstr(out, "useradd --system --no-create-home --shell "
	    "/usr/sbin/nologin no-such-user-arpownd"));
	assert_non_null(strstr(out, "user = 61234"));
	drop("1:2:3", -1, 0, 0, out, sizeof(out));
	assert_non_null(strstr(out, "user = 1:2:3: expected a name, a uid or uid:gid"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
