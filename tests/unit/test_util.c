/* test_util.c — the pure helpers: error text, FNV-1a against the
 * published test vectors, interface names as the kernel judges them, MAC
 * addresses as every log line and report spells them. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util.h"

/* The message, cut to fit; nothing written without room; errno kept. */
static void
test_seterr(void **state)
{
	char err[8] = "xxxxxxx";

	(void)state;
	errno = ENOSPC;
	assert_int_equal(util_seterr(err, sizeof(err), -1, "%s=%d", "key", 42), -1);
	assert_string_equal(err, "key=42");
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(util_seterr(err, sizeof(err), 65, "%s", "far too long"), 65);
	assert_string_equal(err, "far too");
	memcpy(err, "abc", 4);
	assert_int_equal(util_seterr(err, 0, -1, "%s", "not written"), -1);
	assert_string_equal(err, "abc");
	assert_int_equal(util_seterr(NULL, 0, 0, "%s", "no buffer"), 0);
	assert_int_equal(errno, ENOSPC);
}

/* The FNV-1a 32-bit vectors of the reference (draft-eastlake-fnv), and
 * a hash continued over pieces equal to one over the whole. */
static void
test_fnv1a(void **state)
{
	static const struct { const char *s; uint32_t h; } v[] = {
		{ "", 0x811c9dc5u }, { "a", 0xe40c292cu }, { "foobar", 0xbf9cf968u },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (util_fnv1a(UTIL_FNV1A_INIT, v[i].s, strlen(v[i].s)) != v[i].h)
			fail_msg("fnv1a(\"%s\") = %08x, want %08x", v[i].s,
			    util_fnv1a(UTIL_FNV1A_INIT, v[i].s, strlen(v[i].s)), v[i].h);
	assert_int_equal(util_fnv1a(util_fnv1a(UTIL_FNV1A_INIT, "foo", 3), "bar", 3),
	    0xbf9cf968u);
}

/* dev_valid_name() in net/core/dev.c, byte for byte; the kernel's
 * isspace() is Latin-1's, so 0xa0 is white space and 0x85, 0x1c are not. */
static void
test_ifname(void **state)
{
	static const struct { const char *s; size_t len; } good[] = {
		{ "eth0", 4 }, { "123456789012345", 15 }, { "a", 1 }, { "...", 3 },
		{ ".a", 2 }, { "v=1", 3 }, { "#v2", 3 }, { "eth0.100", 8 },
		{ "br-lan@x", 8 }, { "\x85\x1c", 2 }, { "\x01\x7f\xfe", 3 },
		{ "eth*", 4 }, { "\xc3\xa9", 2 },
	};
	static const struct { const char *s; size_t len; } bad[] = {
		{ "", 0 }, { "1234567890123456", 16 }, { ".", 1 }, { "..", 2 },
		{ "a/b", 3 }, { "eth0:1", 6 }, { "a b", 3 }, { "a\tb", 3 },
		{ "a\nb", 3 }, { "a\vb", 3 }, { "a\fb", 3 }, { "a\rb", 3 },
		{ "a\xa0" "b", 3 }, { "a\0b", 3 }, { "/", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!util_ifname_ok(good[i].s, good[i].len))
			fail_msg("good[%zu] refused", i);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (util_ifname_ok(bad[i].s, bad[i].len))
			fail_msg("bad[%zu] accepted", i);
	/* only len bytes are looked at */
	assert_true(util_ifname_ok("eth0/x", 4));
}

static void
test_mac_str(void **state)
{
	static const struct { uint8_t mac[6]; const char *s; } v[] = {
		{ { 0xd6, 0x13, 0x18, 0x81, 0x27, 0x77 }, "d6:13:18:81:27:77" },
		{ { 0, 0, 0, 0, 0, 0 }, "00:00:00:00:00:00" },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, "ff:ff:ff:ff:ff:ff" },
		{ { 0x02, 0x00, 0x0a, 0xb0, 0x0c, 0x01 }, "02:00:0a:b0:0c:01" },
	};
	char buf[UTIL_MAC_STRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_ptr_equal(util_mac_str(v[i].mac, buf), buf);
		assert_string_equal(buf, v[i].s);
	}
}

/* A set of interfaces: each once, then "all" past its bound, and a merge
 * that keeps both sides' "all". */
static void
test_ifset(void **state)
{
	struct util_ifset a = { .n = 0 }, b = { .n = 0 };
	int i;

	(void)state;
	assert_true(util_ifset_empty(&a));
	util_ifset_add(&a, 3);
	util_ifset_add(&a, 3);
	util_ifset_add(&a, 5);
	assert_int_equal(a.n, 2);
	assert_false(a.all);
	for (i = 100; i < 100 + UTIL_IFSET_MAX; i++)
		util_ifset_add(&b, i);
	assert_int_equal(b.n, UTIL_IFSET_MAX);
	assert_false(b.all);
	util_ifset_merge(&a, &b);	/* 2 + 16 names: too many */
	assert_true(a.all);
	assert_false(util_ifset_empty(&a));
	memset(&b, 0, sizeof(b));
	b.all = true;
	memset(&a, 0, sizeof(a));
	util_ifset_merge(&a, &b);
	assert_true(a.all);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seterr),
		cmocka_unit_test(test_fnv1a),
		cmocka_unit_test(test_ifname),
		cmocka_unit_test(test_mac_str),
		cmocka_unit_test(test_ifset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
