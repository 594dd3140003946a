/* test_pubjournal.c — the runtime-published entries as saved: the merge
 * of a snapshot and its journal (pure), and the files (a temporary state
 * directory). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pubjournal.h"
#include "statedir.h"

/* Records of gen for ops "+LINE" / "-ADDR/LEN", concatenated. */
static char *
journal(uint64_t gen, const char *const *ops, size_t n)
{
	static char buf[8192];
	size_t o = 0, i, w;

	for (i = 0; i < n; i++) {
		w = pjn_record(buf + o, sizeof(buf) - o, gen, ops[i][0], ops[i] + 1,
		    strlen(ops[i] + 1));
		assert_true(w > 0);
		o += w;
	}
	buf[o] = '\0';
	return buf;
}

static char *
merge(const char *snap, uint64_t gen, const char *log, size_t llen, struct pjn_replay *r)
{
	char *out;
	size_t len;

	assert_int_equal(pjn_merge(snap, strlen(snap), gen, log, llen, &out, &len, r), 0);
	assert_int_equal(strlen(out), len);
	return out;
}

static void
test_replay(void **state)
{
	const char *ops[] = { "+10.0.0.3/32 eth0", "-10.0.0.1/32", "+10.0.0.4/30 eth1 02:00:00:00:00:01" };
	struct pjn_replay r;
	char *log = journal(7, ops, 3), *out;

	(void)state;
	out = merge("10.0.0.1/32 eth0\n10.0.0.2/32 eth0\n", 7, log, strlen(log), &r);
	assert_string_equal(out, "10.0.0.2/32 eth0\n10.0.0.3/32 eth0\n"
	    "10.0.0.4/30 eth1 02:00:00:00:00:01\n");
	assert_int_equal(r.applied, 3);
	assert_int_equal(r.stale, 0);
	assert_false(r.torn);
	assert_int_equal(r.valid, strlen(log));
	free(out);
}

/* withdrawn after it was added in the journal, and added again */
static void
test_withdraw_journal_entry(void **state)
{
	const char *ops[] = { "+10.0.0.9/32 eth0", "-10.0.0.9/32", "+10.0.0.8/32 eth0",
	    "+10.0.0.9/32 eth1", "-10.0.0.5/32" };
	struct pjn_replay r;
	char *log = journal(3, ops, 5), *out;

	(void)state;
	out = merge("", 3, log, strlen(log), &r);
	assert_string_equal(out, "10.0.0.8/32 eth0\n10.0.0.9/32 eth1\n");
	assert_int_equal(r.applied, 5);
	free(out);
}

/* a crash mid-append: the cut record and nothing after it */
static void
test_torn_tail(void **state)
{
	const char *ops[] = { "+10.0.0.1/32 eth0", "+10.0.0.2/32 eth0" };
	struct pjn_replay r;
	char *log = journal(1, ops, 2), *out, *bad;
	size_t full = strlen(log), first = strchr(log, '\n') + 1 - log;
	size_t cut;

	(void)state;
	for (cut = first; cut < full; cut++) {
		out = merge("", 1, log, cut, &r);
		assert_string_equal(out, "10.0.0.1/32 eth0\n");
		assert_int_equal(r.applied, 1);
		assert_true(r.torn || cut == first);
		assert_int_equal(r.valid, first);
		free(out);
	}
	/* damaged, not cut: a flipped byte in the first record stops it all */
	bad = strdup(log);
	bad[3] = bad[3] == '1' ? '2' : '1';
	out = merge("10.0.0.7/32 eth0\n", 1, bad, full, &r);
	assert_string_equal(out, "10.0.0.7/32 eth0\n");
	assert_true(r.torn);
	assert_int_equal(r.applied, 0);
	free(out);
	free(bad);
}

/* records of the snapshot before: the new snapshot has them already */
static void
test_stale_generation(void **state)
{
	const char *ops[] = { "+10.0.0.1/32 eth0", "-10.0.0.2/32" };
	struct pjn_replay r;
	char *log = journal(4, ops, 2), *out;

	(void)state;
	out = merge("10.0.0.2/32 eth0\n10.0.0.1/32 eth0\n", 5, log, strlen(log), &r);
	assert_string_equal(out, "10.0.0.2/32 eth0\n10.0.0.1/32 eth0\n");
	assert_int_equal(r.applied, 0);
	assert_int_equal(r.stale, 2);
	assert_false(r.torn);
	free(out);
}

static void
test_record_limits(void **state)
{
	char buf[PJN_RECORD_MAX], big[PJN_TEXT_MAX + 1];

	(void)state;
	assert_int_equal(pjn_record(buf, sizeof(buf), 1, '+', "a\nb", 3), 0);
	memset(big, 'x', sizeof(big));
	assert_int_equal(pjn_record(buf, sizeof(buf), 1, '+', big, sizeof(big)), 0);
	assert_true(pjn_record(buf, sizeof(buf), UINT64_MAX, '-', big, PJN_TEXT_MAX) > 0);
}

/* The files: appends, a compaction at the boundary, a reload in between. */
static char *
load(struct sdir *sd)
{
	struct pjn *j = pjn_new(sd);
	char *lines, err[256];
	size_t len;

	assert_non_null(j);
	assert_int_equal(pjn_load(j, &lines, &len, err, sizeof(err)), 0);
	pjn_free(j);
	return lines;
}

static void
test_files_compaction(void **state)
{
	char tmpl[] = "/tmp/test_pubjournal.XXXXXX", err[256], line[64], *lines, cmd[128];
	char *want = calloc(1, 64 * PJN_FLOOR * 2);
	struct sdir *sd;
	struct pjn *j;
	size_t len, i, n = 0;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(sd = sdir_open(tmpl, SDIR_DAEMON, err, sizeof(err)));
	assert_non_null(j = pjn_new(sd));
	assert_int_equal(pjn_load(j, &lines, &len, err, sizeof(err)), 0);
	assert_string_equal(lines, "");
	free(lines);
	assert_false(pjn_due(j, 0));
	/* PJN_FLOOR records, then the op that is due writes a snapshot */
	for (i = 0; i < PJN_FLOOR; i++) {
		snprintf(line, sizeof(line), "10.1.%zu.%zu/32 eth0", i / 256, i % 256);
		assert_false(pjn_due(j, i));
		assert_int_equal(pjn_append(j, '+', line, strlen(line)), 0);
		n += (size_t)sprintf(want + n, "%s\n", line);
	}
	assert_true(pjn_due(j, PJN_FLOOR));
	lines = load(sd);
	assert_string_equal(lines, want);
	assert_int_equal(pjn_save(j, lines, strlen(lines)), 0);
	free(lines);
	assert_false(pjn_due(j, PJN_FLOOR));
	/* after the compaction: one withdraw in the new journal */
	assert_int_equal(pjn_append(j, '-', "10.1.0.0/32", 11), 0);
	lines = load(sd);
	assert_string_equal(lines, want + strlen("10.1.0.0/32 eth0\n"));
	free(lines);
	pjn_free(j);
	sdir_close(sd);
	free(want);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
}

/* A crash between the new snapshot and the journal emptied: the old
 * journal's records are not applied again (a withdraw stays withdrawn). */
static void
test_files_crash_after_snapshot(void **state)
{
	char tmpl[] = "/tmp/test_pubjournal.XXXXXX", err[256], *lines, cmd[128], path[128];
	char *old;
	struct sdir *sd;
	struct pjn *j;
	size_t len, olen;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(sd = sdir_open(tmpl, SDIR_DAEMON, err, sizeof(err)));
	assert_non_null(j = pjn_new(sd));
	assert_int_equal(pjn_load(j, &lines, &len, err, sizeof(err)), 0);
	free(lines);
	assert_int_equal(pjn_append(j, '+', "10.0.0.1/32 eth0", 16), 0);
	assert_int_equal(pjn_append(j, '+', "10.0.0.2/32 eth0", 16), 0);
	/* the journal as it was before the compaction */
	snprintf(path, sizeof(path), "%s/%s", tmpl, SDIR_PUB_LOG);
	assert_true((fd = open(path, O_RDONLY)) != -1);
	old = calloc(1, 4096);
	olen = (size_t)read(fd, old, 4096);
	close(fd);
	assert_int_equal(pjn_save(j, "10.0.0.2/32 eth0\n", 17), 0);	/* 10.0.0.1 withdrawn */
	/* the crash: the journal was never emptied */
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
	assert_int_equal(write(fd, old, olen), (ssize_t)olen);
	close(fd);
	pjn_free(j);
	sdir_close(sd);
	assert_non_null(sd = sdir_open(tmpl, SDIR_DAEMON, err, sizeof(err)));
	assert_non_null(j = pjn_new(sd));
	assert_int_equal(pjn_load(j, &lines, &len, err, sizeof(err)), 0);
	assert_string_equal(lines, "10.0.0.2/32 eth0\n");
	free(lines);
	/* and the next op compacts: it never follows the stale records */
	assert_true(pjn_due(j, 1));
	pjn_free(j);
	sdir_close(sd);
	free(old);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_withdraw_journal_entry),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_stale_generation),
		cmocka_unit_test(test_record_limits),
		cmocka_unit_test(test_files_compaction),
		cmocka_unit_test(test_files_crash_after_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
