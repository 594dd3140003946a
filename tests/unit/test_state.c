/* test_state.c — the saved-originals file: parse, format, save, load, lock. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "state.h"

static void
test_parse_good(void **state)
{
	const char *text = "# comment\n\neth0 arp_ignore=0 arp_announce=2\n"
	    "eth1.100 arp_ignore=1\nveth-x arp_announce=0\n";
	struct state st = { 0 };
	char err[128];

	(void)state;
	assert_int_equal(state_parse(text, strlen(text), &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 3);
	assert_int_equal(state_find(&st, "eth0")->arp_ignore, 0);
	assert_int_equal(state_find(&st, "eth0")->arp_announce, 2);
	assert_int_equal(state_find(&st, "eth1.100")->arp_ignore, 1);
	assert_int_equal(state_find(&st, "eth1.100")->arp_announce, STATE_NONE);
	assert_int_equal(state_find(&st, "veth-x")->arp_ignore, STATE_NONE);
	assert_null(state_find(&st, "eth2"));
	state_clear(&st);
}

static void
test_parse_bad(void **state)
{
	static const struct { const char *text, *err; } bad[] = {
		{ "eth0\n", "line 1: no values" },
		{ "eth0 arp_ignore=\n", "line 1: expected key=number" },
		{ "eth0 arp_ignore=x\n", "line 1: expected key=number" },
		{ "eth0 arp_ignore=-1\n", "line 1: expected key=number" },
		{ "eth0 foo=1\n", "line 1: unknown or repeated key" },
		{ "eth0 arp_ignore=1 arp_ignore=2\n", "line 1: unknown or repeated key" },
		{ "# ok\neth0 arp_ignore=1\neth0 arp_ignore=2\n", "line 3: interface listed twice" },
		{ "averyveryverylongname arp_ignore=1\n", "line 1: bad interface name" },
		{ "a/b arp_ignore=1\n", "line 1: bad interface name" },
		{ " arp_ignore=1\n", "line 1: bad interface name" },
		{ "eth0 arp_ignore=1234567890\n", "line 1: expected key=number" },
	};
	struct state st = { 0 };
	char err[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (state_parse(bad[i].text, strlen(bad[i].text), &st, err, sizeof(err)) != -1)
			fail_msg("accepted: %s", bad[i].text);
		assert_string_equal(err, bad[i].err);
		assert_int_equal(st.n, 0);	/* nothing half-read is kept */
	}
}

static void
test_roundtrip(void **state)
{
	struct state a = { 0 }, b = { 0 };
	char err[128], *text, name[16];
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "if%d", i);
		state_add(&a, name)->arp_ignore = i % 9;
		if (i % 3)
			state_find(&a, name)->arp_announce = i % 3;
	}
	assert_ptr_equal(state_add(&a, "if5"), state_find(&a, "if5"));
	assert_null(state_add(&a, "0123456789abcdef"));
	text = state_format(&a);
	assert_int_equal(state_parse(text, strlen(text), &b, err, sizeof(err)), 0);
	assert_int_equal(b.n, 100);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "if%d", i);
		assert_int_equal(state_find(&b, name)->arp_ignore, i % 9);
		assert_int_equal(state_find(&b, name)->arp_announce, i % 3 ? i % 3 : STATE_NONE);
	}
	state_del(&b, "if0");
	state_del(&b, "nosuch");
	assert_int_equal(b.n, 99);
	assert_null(state_find(&b, "if0"));
	assert_non_null(state_find(&b, "if99"));
	free(text);
	state_clear(&a);
	state_clear(&b);
}

static void
test_files(void **state)
{
	char dir[] = "/tmp/test_state.XXXXXX", path[256];
	struct state a = { 0 }, b = { 0 };
	struct stat sb;
	int fd, status;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub", dir);
	fd = state_lock(path);			/* creates the directory */
	assert_true(fd >= 0);
	pid = fork();
	if (pid == 0)				/* a second instance */
		_exit(state_lock(path) == -1 && errno == EWOULDBLOCK ? 0 : 1);
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);

	assert_int_equal(state_load(path, &b), 0);	/* absent: empty */
	assert_int_equal(b.n, 0);
	state_add(&a, "eth0")->arp_ignore = 2;
	assert_int_equal(state_save(path, &a), 0);
	assert_int_equal(state_load(path, &b), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(state_find(&b, "eth0")->arp_ignore, 2);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/.originals.tmp");
	assert_int_equal(stat(path, &sb), -1);	/* no temporary left */
	path[strlen(path) - strlen("/.originals.tmp")] = '\0';
	state_clear(&a);
	assert_int_equal(state_save(path, &a), 0);	/* empty: the file goes */
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", STATE_FILE);
	assert_int_equal(stat(path, &sb), -1);
	close(fd);
	state_clear(&b);
	path[strlen(path) - strlen(STATE_FILE) - 1] = '\0';
	unlink(strcat(path, "/lock"));
	path[strlen(path) - 5] = '\0';
	rmdir(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
