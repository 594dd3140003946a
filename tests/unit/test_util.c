/* test_util.c — the pure helpers: error text, FNV-1a against the
 * published test vectors. */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seterr),
		cmocka_unit_test(test_fnv1a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
