/* test_statefile.c — the saved originals: the records, the v2 text and the
 * v1 one, and the frame the published addresses share. */
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

#include "statefile.h"
#include "stateframe.h"

/* CRC-32 bit by bit: a second implementation to check statefile.c's against */
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

	/* "ip link del ea; ip link set eb name ea" seen in either order
	 * during a re-dump: never two records for one link, and eb's
	 * originals stay eb's */
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

	/* the example in statefile.c, checksum computed by Python's zlib.crc32 */
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

/* The frame alone, around any lines: what the published addresses are
 * kept in.  Built here the independent way and compared byte for byte. */
static void
test_frame(void **unused)
{
	static const char *const bodies[] = { "", "10.0.0.0/24 eth0\n", "a\nb\n\n" };
	char err[256], *text, want[256];
	uint64_t gen;
	size_t i, len, body, bodyend;
	int n;

	(void)unused;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		text = state_frame("published", 40 + i, bodies[i], strlen(bodies[i]), &len);
		assert_non_null(text);
		n = snprintf(want, sizeof(want), "arpownd published v2 gen=%zu\n%s", 40 + i,
		    bodies[i]);
		snprintf(want + n, sizeof(want) - (size_t)n, "crc32=%08x\n",
		    crc32_bits(want, (size_t)n));
		assert_string_equal(text, want);
		assert_int_equal(len, strlen(want));
		assert_int_equal(state_unframe(text, len, "published", &gen, &body, &bodyend,
		    err, sizeof(err)), 0);
		assert_int_equal(gen, 40 + i);
		assert_int_equal(bodyend - body, strlen(bodies[i]));
		assert_memory_equal(text + body, bodies[i], bodyend - body);
		/* another kind's frame is not this one */
		assert_int_equal(state_unframe(text, len, STATE_ORIG_KIND, &gen, &body,
		    &bodyend, err, sizeof(err)), -1);
		assert_string_equal(err, "line 1: not an arpownd originals file");
		/* one byte less: a write cut short */
		assert_int_equal(state_unframe(text, len - 1, "published", &gen, &body,
		    &bodyend, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "no checksum line at the end"));
		free(text);
	}
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
		cmocka_unit_test(test_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
