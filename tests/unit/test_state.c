/* test_state.c — the saved originals: the records, the v2 text and the v1
 * one, the two slot files, and the checks on what is opened in the state
 * directory (those as root: they chown to a test uid). */
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

#include "state.h"

#define TEST_UID	61234	/* a uid nobody uses, as a dedicated daemon user */

/* CRC-32 bit by bit: a second implementation to check state.c's against */
static uint32_t
crc32_bits(const char *p, size_t len)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (len--) {
		c ^= (unsigned char)*p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

/* A v2 file around body, with a correct header and trailer. */
static char *
v2(uint64_t gen, const char *body)
{
	char *s;
	size_t n;

	n = (size_t)asprintf(&s, "arpownd originals v2 gen=%" PRIu64 "\n%s", gen, body);
	s = realloc(s, n + 16);
	snprintf(s + n, 16, "crc32=%08x\n", crc32_bits(s, n));
	return s;
}

static int
parse(const char *text, struct state *st, char *err)
{
	return state_parse(text, strlen(text), st, err, 256);
}

/* ---------------------------------------------------------------- records */

static void
test_records(void **unused)
{
	struct state st = { 0 };
	struct state_orig *a, *b;
	char err[256];

	(void)unused;
	a = state_add(&st, 3, "eth0");
	assert_non_null(a);
	assert_int_equal(a->arp_ignore, STATE_NONE);
	assert_int_equal(a->arp_announce, STATE_NONE);
	a->arp_ignore = 1;
	assert_ptr_equal(state_add(&st, 3, "eth0"), a);
	assert_ptr_equal(state_find(&st, 3), a);
	assert_ptr_equal(state_find_name(&st, "eth0"), a);
	assert_null(state_find(&st, 4));
	assert_null(state_find(&st, 0));

	/* a rename: the record follows the ifindex */
	assert_ptr_equal(state_add(&st, 3, "lan0"), a);
	assert_string_equal(a->name, "lan0");
	assert_int_equal(a->arp_ignore, 1);
	assert_null(state_find_name(&st, "eth0"));

	/* refused: not an ifindex, not a name the kernel takes */
	static const char *const badname[] = {
		"", ".", "..", "a b", "a\tb", "a\nb", "a/b", "a:b", "a\240b",
		"abcdefghijklmnop",
	};
	size_t i;

	errno = 0;
	assert_null(state_add(&st, 0, "eth1"));
	assert_int_equal(errno, EINVAL);
	assert_null(state_add(&st, -2, "eth1"));
	for (i = 0; i < sizeof(badname) / sizeof(badname[0]); i++) {
		errno = 0;
		if (state_add(&st, 9, badname[i]) != NULL || errno != EINVAL)
			fail_msg("accepted name %zu", i);
	}
	assert_int_equal(st.n, 1);

	/* a v1 record (ifindex 0) is adopted by the link that has its name */
	assert_int_equal(parse("eth1 arp_ignore=2\neth2 arp_announce=1\n", &st, err), 0);
	assert_null(state_find(&st, 0));
	assert_int_equal(state_find_name(&st, "eth1")->ifindex, 0);
	a = state_add(&st, 7, "eth1");
	assert_int_equal(a->ifindex, 7);
	assert_int_equal(a->arp_ignore, 2);
	assert_int_equal(st.n, 2);
	assert_ptr_equal(state_find(&st, 7), a);

	/* issue 7 §8: "ip link del ea; ip link set eb name ea" seen in
	 * either order during a re-dump: never two records for one link,
	 * and eb's originals stay eb's */
	state_clear(&st);
	state_add(&st, 3, "ea")->arp_ignore = 0;
	state_add(&st, 4, "eb")->arp_ignore = 1;
	b = state_add(&st, 4, "ea");		/* the rename first */
	assert_int_equal(b->arp_ignore, 1);
	assert_int_equal(st.n, 2);		/* two links, one name: allowed */
	char *text = state_format(&st);
	struct state back = { 0 };

	assert_non_null(text);
	assert_int_equal(parse(text, &back, err), 0);
	assert_int_equal(back.n, 2);
	free(text);
	state_del(&st, state_find(&st, 3));	/* then the deletion */
	assert_int_equal(st.n, 1);
	assert_int_equal(state_find_name(&st, "ea")->ifindex, 4);
	assert_int_equal(state_find_name(&st, "ea")->arp_ignore, 1);
	state_del(&st, NULL);			/* not a record: nothing */
	assert_int_equal(st.n, 1);
	state_clear(&st);
	state_clear(&back);
}

/* Every name the kernel accepts round-trips through the file. */
static void
test_hostile_names(void **unused)
{
	static const char *const good[] = {
		"eth0", "v=1", "#v2", "%", "%x", "%25", "\x01", "\xff", "a\205b",
		"\034x", "a\177b", "abcdefghijklmno", "-", ".x", "..x", "...",
		"@", "*?", "a\"b", "\\", "caf\xc3\xa9", "x;rm", "$(id)", "a,b", "=",
		"#", "'", "\x1f\x80\xfe",
	};
	struct state a = { 0 }, b = { 0 };
	char err[256], *text, *line;
	size_t i, j;

	(void)unused;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct state_orig *o = state_add(&a, (int)i + 1, good[i]);

		if (o == NULL)
			fail_msg("refused good name %zu", i);
		o->arp_ignore = (int)(i % 9);
		o->arp_announce = i % 2 ? (int)(i % 3) : STATE_NONE;
	}
	a.gen = 42;
	text = state_format(&a);
	assert_non_null(text);
	/* printable ASCII only, one record a line, four or three fields */
	for (j = 0; text[j] != '\0'; j++)
		if (text[j] != '\n' && (text[j] < ' ' || text[j] > '~'))
			fail_msg("raw byte 0x%02x in the text", (unsigned char)text[j]);
	assert_non_null(strstr(text, "name=v%3D1 "));
	assert_non_null(strstr(text, "name=%23v2 "));
	assert_non_null(strstr(text, "name=%25 "));
	assert_non_null(strstr(text, "name=%FF "));
	assert_int_equal(parse(text, &b, err), 0);
	assert_int_equal(b.gen, 42);
	assert_int_equal(b.n, a.n);
	for (i = 0; i < a.n; i++) {
		assert_int_equal(b.v[i].ifindex, a.v[i].ifindex);
		assert_string_equal(b.v[i].name, a.v[i].name);
		assert_int_equal(b.v[i].arp_ignore, a.v[i].arp_ignore);
		assert_int_equal(b.v[i].arp_announce, a.v[i].arp_announce);
	}
	for (line = text; (line = strchr(line, '\n')) != NULL && line[1] != 'c'; line++)
		;
	assert_non_null(line);			/* the trailer is the last line */
	free(text);
	state_clear(&a);
	state_clear(&b);
}

static void
test_format(void **unused)
{
	struct state st = { 0 }, back = { 0 };
	char err[256], *text, name[16];
	int i;

	(void)unused;
	/* empty: header and trailer only */
	text = state_format(&st);
	assert_string_equal(text, "arpownd originals v2 gen=0\ncrc32=f4f3859d\n");
	free(text);

	/* the example in state.c, checksum computed by Python's zlib.crc32 */
	static const char example[] = "arpownd originals v2 gen=7\n"
	    "ifindex=3 name=eth0 arp_ignore=0 arp_announce=2\n"
	    "ifindex=9 name=v%3D1 arp_ignore=1\ncrc32=3c09d4cb\n";
	assert_int_equal(parse(example, &st, err), 0);
	assert_int_equal(st.n, 2);
	text = state_format(&st);
	assert_string_equal(text, example);
	free(text);

	/* a record with nothing to give back is not written */
	state_add(&st, 11, "eth5");
	text = state_format(&st);
	assert_string_equal(text, example);
	free(text);

	/* what the parser would refuse is not written either */
	static const struct { int ign, ann; } badv[] = { { 9, 0 }, { -2, 0 }, { 0, 3 }, { 8, -5 } };
	size_t k;

	for (k = 0; k < sizeof(badv) / sizeof(badv[0]); k++) {
		st.v[2].arp_ignore = badv[k].ign;
		st.v[2].arp_announce = badv[k].ann;
		errno = 0;
		if (state_format(&st) != NULL || errno != EINVAL)
			fail_msg("wrote arp_ignore=%d arp_announce=%d", badv[k].ign, badv[k].ann);
	}
	st.v[2].arp_ignore = 8;			/* 8 is a value the kernel has */
	st.v[2].arp_announce = STATE_NONE;
	assert_non_null(text = state_format(&st));
	free(text);
	memcpy(st.v[2].name, "a b", 4);
	assert_null(state_format(&st));
	memcpy(st.v[2].name, "eth0", 5);	/* eth0 twice, as ifindex 3 and 11: fine */
	assert_non_null(text = state_format(&st));
	free(text);
	st.v[2].ifindex = 3;
	errno = 0;
	assert_null(state_format(&st));		/* two records for ifindex 3 */
	assert_int_equal(errno, EINVAL);
	st.v[2].ifindex = -1;
	assert_null(state_format(&st));
	state_clear(&st);

	/* many records, in the order given */
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "veth%d", i);
		state_add(&st, i + 1, name)->arp_ignore = i % 9;
		if (i % 3)
			state_find(&st, i + 1)->arp_announce = i % 3;
	}
	st.gen = UINT64_MAX;
	text = state_format(&st);
	assert_int_equal(parse(text, &back, err), 0);
	assert_int_equal(back.n, 3000);
	assert_true(back.gen == UINT64_MAX);
	for (i = 0; i < 3000; i++) {
		assert_int_equal(back.v[i].ifindex, i + 1);
		assert_int_equal(back.v[i].arp_ignore, i % 9);
		assert_int_equal(back.v[i].arp_announce, i % 3 ? i % 3 : STATE_NONE);
	}
	free(text);
	state_clear(&st);
	state_clear(&back);
}

static void
test_parse_good(void **unused)
{
	struct state st = { 0 };
	char err[256], *text;

	(void)unused;
	/* v2: keys in any order; one link's name may be another's old one;
	 * ifindex 0 is a v1 record carried over by --restore */
	text = v2(5, "name=eth0 arp_announce=1 ifindex=2 arp_ignore=8\n"
	    "ifindex=4 name=eth0 arp_ignore=0\n"
	    "ifindex=0 name=old%2B arp_announce=2\n"
	    "ifindex=2147483647 name=%01%7F%fe arp_ignore=0\n");
	assert_int_equal(parse(text, &st, err), 0);
	assert_int_equal(st.gen, 5);
	assert_int_equal(st.n, 4);
	assert_int_equal(state_find(&st, 2)->arp_ignore, 8);
	assert_int_equal(state_find(&st, 2)->arp_announce, 1);
	assert_int_equal(state_find(&st, 4)->arp_announce, STATE_NONE);
	assert_int_equal(state_find_name(&st, "old+")->ifindex, 0);
	assert_string_equal(state_find(&st, 2147483647)->name, "\x01\x7f\xfe");
	free(text);

	/* v1, as arpownd before v2 wrote it, including the names it broke on */
	static const char v1[] = "# arpownd: sysctl values found before arpownd changed them\n"
	    "eth0 arp_ignore=0 arp_announce=2\n"
	    "eth1.100 arp_ignore=1\n"
	    "veth-x arp_announce=0\n"
	    "v=1 arp_ignore=0 arp_announce=0\n"
	    "#v2 arp_ignore=1 arp_announce=1\n"
	    "#\n\n"
	    "# a comment that is no record\n"
	    "#eth9 arp_ignore=42\n"
	    "x\tarp_ignore=2\t arp_announce=1";
	assert_int_equal(parse(v1, &st, err), 0);
	assert_int_equal(st.n, 6);
	assert_int_equal(st.gen, 0);
	assert_int_equal(state_find_name(&st, "eth0")->arp_announce, 2);
	assert_int_equal(state_find_name(&st, "eth0")->ifindex, 0);
	assert_int_equal(state_find_name(&st, "eth1.100")->arp_announce, STATE_NONE);
	assert_int_equal(state_find_name(&st, "v=1")->arp_ignore, 0);
	assert_int_equal(state_find_name(&st, "#v2")->arp_ignore, 1);
	assert_int_equal(state_find_name(&st, "x")->arp_announce, 1);
	assert_null(state_find_name(&st, "#eth9"));
	/* and written back as v2 */
	text = state_format(&st);
	assert_non_null(strstr(text, "ifindex=0 name=%23v2 arp_ignore=1 arp_announce=1\n"));
	free(text);

	assert_int_equal(parse("", &st, err), 0);
	assert_int_equal(st.n, 0);
	assert_int_equal(parse("# only\n", &st, err), 0);
	assert_int_equal(st.n, 0);
	state_clear(&st);
}

static void
test_parse_bad(void **unused)
{
	/* record lines, framed correctly: the line number counts the header */
	static const struct { const char *body, *err; } bad2[] = {
		{ "ifindex=3 name=eth0\n", "line 2: no values" },
		{ "ifindex=3 name=eth0 arp_ignore=9\n", "line 2: arp_ignore=9: not a number in 0..8" },
		{ "ifindex=3 name=eth0 arp_announce=3\n", "line 2: arp_announce=3: not a number in 0..2" },
		{ "ifindex=3 name=eth0 arp_ignore=-1\n", "line 2: arp_ignore=-1: not a number in 0..8" },
		{ "ifindex=3 name=eth0 arp_ignore=\n", "line 2: arp_ignore=: not a number in 0..8" },
		{ "ifindex=3 name=eth0 arp_ignore=00000000000000000000001\n",
		    "line 2: arp_ignore=00000000000000000000001: not a number in 0..8" },
		{ "ifindex=3 name=eth0 arp_ignore=1 arp_ignore=2\n", "line 2: arp_ignore given twice" },
		{ "ifindex=3 ifindex=4 name=eth0 arp_ignore=1\n", "line 2: ifindex given twice" },
		{ "ifindex=3 name=a name=b arp_ignore=1\n", "line 2: name given twice" },
		{ "name=eth0 arp_ignore=0\n", "line 2: no ifindex" },
		{ "ifindex=3 arp_ignore=0\n", "line 2: no name" },
		{ "ifindex=3 name=eth0 foo=1\n", "line 2: unknown key \"foo\"" },
		{ "ifindex=3 name=eth0 =1\n", "line 2: unknown key \"\"" },
		{ "ifindex=3  name=eth0 arp_ignore=0\n", "line 2: empty field (two spaces, or one at an end)" },
		{ "ifindex=3 name=eth0 arp_ignore=0 \n", "line 2: empty field (two spaces, or one at an end)" },
		{ " ifindex=3 name=eth0 arp_ignore=0\n", "line 2: empty field (two spaces, or one at an end)" },
		{ "ifindex=3\tname=eth0 arp_ignore=0\n", "line 2: ifindex=3\\x09name=eth0: not a number in 0..2147483647" },
		{ "ifindex=3 name=eth0 arp_ignore\n", "line 2: \"arp_ignore\": expected key=value" },
		{ "eth0 arp_ignore=0\n", "line 2: \"eth0\": expected key=value" },
		{ "ifindex=-3 name=eth0 arp_ignore=0\n", "line 2: ifindex=-3: not a number in 0..2147483647" },
		{ "ifindex=2147483648 name=eth0 arp_ignore=0\n", "line 2: ifindex=2147483648: not a number in 0..2147483647" },
		{ "ifindex=3 name= arp_ignore=0\n", "line 2: name=: not an interface name" },
		{ "ifindex=3 name=v=1 arp_ignore=0\n", "line 2: name=v=1: not an interface name" },
		{ "ifindex=3 name=#v2 arp_ignore=0\n", "line 2: name=#v2: not an interface name" },
		{ "ifindex=3 name=a%20b arp_ignore=0\n", "line 2: name=a%20b: not an interface name" },
		{ "ifindex=3 name=a%09b arp_ignore=0\n", "line 2: name=a%09b: not an interface name" },
		{ "ifindex=3 name=a%A0b arp_ignore=0\n", "line 2: name=a%A0b: not an interface name" },
		{ "ifindex=3 name=a%2Fb arp_ignore=0\n", "line 2: name=a%2Fb: not an interface name" },
		{ "ifindex=3 name=a%3Ab arp_ignore=0\n", "line 2: name=a%3Ab: not an interface name" },
		{ "ifindex=3 name=a%00b arp_ignore=0\n", "line 2: name=a%00b: not an interface name" },
		{ "ifindex=3 name=%2E arp_ignore=0\n", "line 2: name=%2E: not an interface name" },
		{ "ifindex=3 name=%2E. arp_ignore=0\n", "line 2: name=%2E.: not an interface name" },
		{ "ifindex=3 name=a%4 arp_ignore=0\n", "line 2: name=a%4: not an interface name" },
		{ "ifindex=3 name=a%zz arp_ignore=0\n", "line 2: name=a%zz: not an interface name" },
		{ "ifindex=3 name=abcdefghijklmnop arp_ignore=0\n",
		    "line 2: name=abcdefghijklmnop: not an interface name" },
		{ "ifindex=3 name=abcdefghijklmn%41%41 arp_ignore=0\n",
		    "line 2: name=abcdefghijklmn%41%41: not an interface name" },
		{ "ifindex=3 name=\xff arp_ignore=0\n", "line 2: name=\\xff: not an interface name" },
		{ "ifindex=3 name=a arp_ignore=0\nifindex=3 name=b arp_ignore=0\n",
		    "line 3: ifindex 3 already on line 2" },
		{ "ifindex=0 name=a arp_ignore=0\nifindex=5 name=a arp_ignore=0\n"
		    "ifindex=0 name=a arp_announce=0\n", "line 4: \"a\" already on line 2" },
		{ "ifindex=3 name=a arp_ignore=0\n\n", "line 3: empty line" },
	};
	/* whole files */
	static const struct { const char *text, *err; } bad[] = {
		{ "arpownd originals v3 gen=1\ncrc32=00000000\n",
		    "line 1: not format v2 (a newer arpownd wrote this?)" },
		{ "arpownd originals v2 gen=x\ncrc32=00000000\n", "line 1: bad generation number" },
		{ "arpownd originals v2 gen=\ncrc32=00000000\n", "line 1: bad generation number" },
		{ "arpownd originals v2 gen=18446744073709551616\ncrc32=00000000\n",
		    "line 1: bad generation number" },
		{ "arpownd originals v2 gen=1", "line 1: the header line is cut short" },
		{ "arpownd originals v2 gen=1\nifindex=3 name=a arp_ignore=0\n",
		    "line 2: no checksum line at the end (a write cut short?)" },
		{ "arpownd originals v2 gen=1\nifindex=3 name=a arp_ig",
		    "line 2: no checksum line at the end (a write cut short?)" },
		{ "arpownd originals v2 gen=1\ncrc32=8c736521",
		    "line 2: no checksum line at the end (a write cut short?)" },
		{ "arpownd originals v2 gen=1\nxcrc32=8c736521\n",
		    "line 2: no checksum line at the end (a write cut short?)" },
		{ "arpownd originals v2 gen=7\nifindex=3 name=eth0 arp_ignore=0 arp_announce=2\n"
		    "ifindex=9 name=v%3D1 arp_ignore=2\ncrc32=3c09d4cb\n",
		    "line 4: checksum mismatch: the text gives 17248708 (a write cut short?)" },
		/* v1 */
		{ "eth0\n", "line 1: no values" },
		{ "eth0 arp_ignore=\n", "line 1: arp_ignore=: not a number in 0..8" },
		{ "eth0 arp_ignore=x\n", "line 1: arp_ignore=x: not a number in 0..8" },
		{ "eth0 arp_ignore=9\n", "line 1: arp_ignore=9: not a number in 0..8" },
		{ "eth0 arp_announce=3\n", "line 1: arp_announce=3: not a number in 0..2" },
		{ "eth0 arp_ignore=1234567890\n", "line 1: arp_ignore=1234567890: not a number in 0..8" },
		{ "eth0 foo=1\n", "line 1: unknown key \"foo\"" },
		{ "eth0 junk\n", "line 1: \"junk\": expected key=number" },
		{ "eth0 arp_ignore=1 arp_ignore=2\n", "line 1: arp_ignore given twice" },
		{ "# ok\neth0 arp_ignore=1\neth0 arp_ignore=2\n", "line 3: \"eth0\" already on line 2" },
		{ "averyveryverylongname arp_ignore=1\n",
		    "line 1: \"averyveryverylongname\": not an interface name" },
		{ "a/b arp_ignore=1\n", "line 1: \"a/b\": not an interface name" },
		{ "a:b arp_ignore=1\n", "line 1: \"a:b\": not an interface name" },
		{ ". arp_ignore=1\n", "line 1: \".\": not an interface name" },
		{ " arp_ignore=1\n", "line 1: \"\": not an interface name" },
		{ "ok arp_ignore=1\n\x01\x02\x03 arp_ignore=\xff\n",
		    "line 2: arp_ignore=\\xff: not a number in 0..8" },
		{ "arpownd originals\n", "line 1: \"originals\": expected key=number" },
	};
	struct state st = { 0 };
	char err[256], *text;
	size_t i;

	(void)unused;
	for (i = 0; i < sizeof(bad2) / sizeof(bad2[0]); i++) {
		text = v2(1, bad2[i].body);
		strcpy(err, "(none)");
		if (parse(text, &st, err) != -1)
			fail_msg("accepted: %s", bad2[i].body);
		if (strcmp(err, bad2[i].err) != 0)
			fail_msg("%s: said \"%s\", not \"%s\"", bad2[i].body, err, bad2[i].err);
		assert_int_equal(st.n, 0);	/* nothing half-read is kept */
		free(text);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(err, "(none)");
		if (parse(bad[i].text, &st, err) != -1)
			fail_msg("accepted: %s", bad[i].text);
		if (strcmp(err, bad[i].err) != 0)
			fail_msg("%s: said \"%s\", not \"%s\"", bad[i].text, err, bad[i].err);
		assert_int_equal(st.n, 0);
	}
	state_clear(&st);
}

/* ---------------------------------------------------------------- the directory */

static char base[] = "/tmp/test_state.XXXXXX";
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

static struct state_dir *
open_ok(enum state_mode mode)
{
	char err[512] = "";
	struct state_dir *sd = state_open(dir, mode, err, sizeof(err));

	if (sd == NULL)
		fail_msg("state_open: %s", err);
	return sd;
}

static void
save_one(struct state_dir *sd, int ifindex, const char *name, int ign)
{
	struct state st = { 0 };

	state_add(&st, ifindex, name)->arp_ignore = ign;
	assert_int_equal(state_save(sd, &st), 0);
	state_clear(&st);
}

/* Load, expecting one record ifindex=name arp_ignore=ign. */
static void
load_one(struct state_dir *sd, int ifindex, const char *name, int ign)
{
	struct state st = { 0 };
	char err[512];

	if (state_load(sd, &st, err, sizeof(err)) != 0)
		fail_msg("state_load: %s", err);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.v[0].ifindex, ifindex);
	assert_string_equal(st.v[0].name, name);
	assert_int_equal(st.v[0].arp_ignore, ign);
	state_clear(&st);
}

static void
test_save_load(void **unused)
{
	struct state_dir *sd;
	struct state st = { 0 };
	char err[512], expect[64];
	struct stat sb;
	int i, status;
	pid_t pid;

	(void)unused;
	fresh();
	rmdir(dir);
	sd = open_ok(STATE_DAEMON);		/* creates the directory */
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
		struct state_dir *sd2 = state_open(dir, STATE_RESTORE, err, sizeof(err));

		snprintf(expect, sizeof(expect), "held by another arpownd (pid %ld)",
		    (long)getppid());
		_exit(sd2 == NULL && errno == EWOULDBLOCK && strstr(err, expect) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);

	assert_int_equal(state_load(sd, &st, err, sizeof(err)), 0);	/* nothing yet */
	assert_int_equal(st.n, 0);

	/* save N times: the last one is read, the slots alternate */
	for (i = 1; i <= 7; i++) {
		save_one(sd, i, "eth0", i % 9);
		load_one(sd, i, "eth0", i % 9);
		assert_true(gen_of(i % 2 ? "originals.0" : "originals.1") == (uint64_t)i);
		assert_true(gen_of(i % 2 ? "originals.1" : "originals.0") == (uint64_t)i - 1);
	}
	state_close(sd);
	sd = open_ok(STATE_DAEMON);		/* a restart reads the same */
	load_one(sd, 7, "eth0", 7);
	save_one(sd, 8, "eth0", 8);
	assert_true(gen_of("originals.1") == 8);

	/* an empty record set is a version like any other */
	assert_int_equal(state_save(sd, &st), 0);
	assert_int_equal(state_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 0);
	assert_true(st.gen == 9);
	state_close(sd);
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
	struct state_dir *sd;
	struct state st = { 0 };
	char err[512], *text, *s;
	size_t i;
	int fd;

	(void)unused;
	for (i = 0; i < sizeof(spoil) / sizeof(spoil[0]); i++) {
		fresh();
		sd = open_ok(STATE_DAEMON);
		save_one(sd, 2, "old", 1);		/* originals.0, gen 1 */
		save_one(sd, 3, "new", 2);		/* originals.1, gen 2 */
		state_close(sd);

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

		sd = open_ok(STATE_DAEMON);
		if (state_load(sd, &st, err, sizeof(err)) != 0 || st.n != 1 ||
		    st.v[0].ifindex != 2 || st.gen != 1)
			fail_msg("%s: the older version not read (%s)", spoil[i].what, err);
		/* and the next save goes over the spoilt slot, not the good one */
		save_one(sd, 4, "next", 0);
		assert_non_null(strstr(get("originals.0"), "name=old "));
		assert_non_null(strstr(get("originals.1"), "name=next "));
		assert_true(gen_of("originals.1") >= 2);
		state_close(sd);
	}

	/* a newer slot with a good checksum and a bad record, and a save
	 * before any load: it still goes over the bad one */
	fresh();
	sd = open_ok(STATE_DAEMON);
	save_one(sd, 2, "old", 1);
	state_close(sd);
	text = v2(5, "ifindex=3 name=new arp_ignore=9\n");
	put("originals.1", text, 0600);
	free(text);
	sd = open_ok(STATE_DAEMON);
	save_one(sd, 4, "next", 0);
	assert_non_null(strstr(get("originals.0"), "name=old "));
	assert_true(gen_of("originals.1") == 6);
	load_one(sd, 4, "next", 0);
	state_close(sd);

	/* a newer slot too large to be ours: passed over, not an error */
	fresh();
	sd = open_ok(STATE_DAEMON);
	save_one(sd, 2, "old", 1);
	state_close(sd);
	assert_int_equal(truncate(at("originals.1"), (2 << 20)), 0);
	sd = open_ok(STATE_DAEMON);
	load_one(sd, 2, "old", 1);
	state_close(sd);

	/* both spoilt: no version to trust, and the error says why for each */
	put("originals.0", "arpownd originals v2 gen=1\nifindex=3 name=a arp_ig", 0600);
	text = v2(2, "ifindex=3 name=a arp_ignore=1\n");
	text[strlen(text) - 3] ^= 1;
	put("originals.1", text, 0600);
	free(text);
	sd = open_ok(STATE_DAEMON);
	assert_int_equal(state_load(sd, &st, err, sizeof(err)), -1);
	assert_int_equal(st.n, 0);
	assert_non_null(strstr(err, "no complete saved version"));
	assert_non_null(strstr(err, "originals.0: line 2: no checksum line"));
	assert_non_null(strstr(err, "originals.1: line 3: checksum mismatch"));
	/* a save still works, and is then the version read */
	save_one(sd, 5, "eth5", 3);
	load_one(sd, 5, "eth5", 3);
	state_close(sd);

	/* one never written, the other cut short: the first save ever, cut
	 * short (a full disk, a crash): nothing was changed on the strength
	 * of it, so nothing is saved; refusing would keep arpownd (and
	 * --restore) from ever starting again (the outside review's
	 * attack_enospc_crash.sh).  A link left at 8 with no record gets the
	 * kernel's default at the next start. */
	fresh();
	put("originals.0", "arpownd originals v2 gen=1\nifindex=3 name=a arp_ig", 0600);
	sd = open_ok(STATE_DAEMON);
	assert_int_equal(state_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 0);
	save_one(sd, 5, "eth5", 3);
	load_one(sd, 5, "eth5", 3);
	state_close(sd);
	state_clear(&st);
}

/* The file of arpownd before v2: read, converted while still privileged. */
static void
test_legacy(void **unused)
{
	static const char v1[] = "# arpownd: sysctl values found before arpownd changed them\n"
	    "eth0 arp_ignore=0 arp_announce=2\nv=1 arp_ignore=1\n#v2 arp_ignore=2\n";
	struct state_dir *sd;
	struct state st = { 0 };
	struct timeval tv[2];
	char err[512];

	(void)unused;
	fresh();
	put("originals", v1, 0644);
	sd = open_ok(STATE_DAEMON);
	assert_null(get("originals"));			/* converted */
	assert_non_null(strstr(get("originals.0"), "ifindex=0 name=%23v2 arp_ignore=2\n"));
	assert_int_equal(state_load(sd, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 3);
	assert_int_equal(state_find_name(&st, "v=1")->arp_ignore, 1);
	assert_int_equal(state_find_name(&st, "#v2")->ifindex, 0);
	state_close(sd);

	/* unreadable: kept, and the load says where and why */
	fresh();
	put("originals", "eth0 arp_ignore=1\neth1 arp_ignore=99\n", 0644);
	sd = open_ok(STATE_DAEMON);
	assert_non_null(get("originals"));
	assert_int_equal(state_load(sd, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/originals: line 2: arp_ignore=99: not a number in 0..8"));
	state_close(sd);

	/* left over from a conversion (older than a good slot): removed */
	fresh();
	sd = open_ok(STATE_DAEMON);
	save_one(sd, 4, "eth4", 1);
	state_close(sd);
	put("originals", "eth0 arp_ignore=0\n", 0644);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= 60;
	tv[1] = tv[0];
	assert_int_equal(utimes(at("originals"), tv), 0);
	sd = open_ok(STATE_DAEMON);
	assert_null(get("originals"));
	load_one(sd, 4, "eth4", 1);
	state_close(sd);

	/* newer than the slots (an older arpownd ran after this one): it wins */
	put("originals", "eth0 arp_ignore=0\n", 0644);
	sd = open_ok(STATE_DAEMON);
	assert_null(get("originals"));
	load_one(sd, 0, "eth0", 0);
	state_close(sd);
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
		enum state_mode	 mode;
		const char	*err;		/* NULL: accepted */
	} cases[] = {
		{ "echo keep >../target; ln -s ../target lock", STATE_DAEMON,
		    "/lock: a symbolic link, not followed: remove it" },
		{ "ln -s /nonexistent lock", STATE_DAEMON, "/lock: a symbolic link" },
		{ "echo keep >../target; ln -s ../target originals.0", STATE_DAEMON,
		    "/originals.0: a symbolic link, not followed: remove it" },
		{ "echo keep >../target; ln -s ../target originals", STATE_DAEMON,
		    "/originals: a symbolic link, not followed: remove it" },
		{ "echo keep >../target; chmod 600 ../target; ln ../target originals.1",
		    STATE_DAEMON, "/originals.1: has 2 hard links, so it is also elsewhere: remove it" },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 originals.0", STATE_DAEMON,
		    "/originals.0: owned by uid 61234, not by the directory's owner (uid 0): remove it" },
		{ "touch lock; chmod 600 lock; chown 61234 lock", STATE_RESTORE,
		    "/lock: owned by uid 61234, not by the directory's owner (uid 0)" },
		{ "touch originals.1; chmod 660 originals.1", STATE_DAEMON,
		    "/originals.1: writable by group or others (mode 0660): remove it" },
		{ "mkfifo lock", STATE_DAEMON, "/lock: not a regular file: remove it" },
		{ "mkdir originals.0", STATE_DAEMON, "/originals.0: Is a directory" },
		{ "chmod 0775 .", STATE_DAEMON, ": writable by group or others (mode 0775)" },
		{ "chmod 1777 .", STATE_RESTORE, ": writable by group or others (mode 1777)" },
		{ "chown 61234 .", STATE_DAEMON, ": owned by uid 61234, not by us (uid 0)" },
		{ "chown 65534 .", STATE_DAEMON, ": owned by nobody (uid 65534)" },
		{ "chown 65534 .", STATE_RESTORE, "chown -R 0:0 " },
		/* a link someone else made, or in a directory others can write */
		{ "mv ../st ../real; ln -s real ../st; chown -h 61234 ../st", STATE_DAEMON,
		    ": a symbolic link; give arpownd a directory of its own" },
		{ "mv ../st ../real; ln -s real ../st; chmod 1777 ..", STATE_DAEMON,
		    ": a symbolic link; give arpownd a directory of its own" },
		{ "mv ../st ../real; chown 61234 ../real; ln -s real ../st", STATE_DAEMON,
		    ": owned by uid 61234, not by us (uid 0)" },
		/* root's link in root's directory: systemd's /run/arpownd ->
		 * /run/private/arpownd, for a DynamicUser */
		{ "mv ../st ../real; ln -s real ../st", STATE_DAEMON, NULL },
		{ "touch originals.0 originals.1 lock; chmod 644 originals.0 originals.1 lock",
		    STATE_DAEMON, NULL },
		/* a DynamicUser's own directory, for root's --restore */
		{ "chown 61234 .", STATE_RESTORE, NULL },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 . originals.0",
		    STATE_RESTORE, NULL },
		{ "touch originals.0; chmod 600 originals.0; chown 61234 .", STATE_RESTORE,
		    "/originals.0: owned by uid 0, not by the directory's owner (uid 61234)" },
	};
	char cmd[600], err[512];
	struct state_dir *sd;
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
		sd = state_open(dir, cases[i].mode, err, sizeof(err));
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
		state_close(sd);
	}

	/* root's --restore in the DynamicUser's directory: what it creates
	 * is that user's, so the daemon can open it again */
	fresh();
	assert_int_equal(chown(dir, TEST_UID, TEST_UID), 0);
	sd = open_ok(STATE_RESTORE);
	save_one(sd, 2, "eth0", 0);
	state_close(sd);
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
	struct state_dir *sd;
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
	sd = open_ok(STATE_DAEMON);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (become(TEST_UID) == -1)
			_exit(100);
		for (i = 1; i <= 3; i++) {
			state_clear(&st);
			state_add(&st, i, "eth0")->arp_ignore = i;
			if (state_save(sd, &st) == -1)
				bad |= 1;
		}
		if (state_load(sd, &st, err, sizeof(err)) == -1 || st.n != 1 ||
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
		if (state_open(dir, STATE_RESTORE, err, sizeof(err)) != NULL ||
		    strstr(err, "not by us (uid 61234)") == NULL)
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
	state_close(sd);
	sd = open_ok(STATE_DAEMON);
	load_one(sd, 3, "eth0", 3);
	state_close(sd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_dropped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
