/* test_conflict.c — conflict logging: once per address per interval,
 * bounded memory, a global budget, no eviction of young records. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "conflict.h"

static const uint8_t M1[6] = { 2, 0, 0, 0, 0, 0x99 };

static uint32_t
A(const char *s)
{
	uint32_t a;

	inet_pton(AF_INET, s, &a);
	return a;
}

static void
test_once_per_interval(void **state)
{
	struct cfl *c = cfl_new(256);
	const struct cfl_rec *r;
	int i, logged = 0;

	(void)state;
	for (i = 0; i < 100; i++)
		logged += cfl_note(c, A("10.0.0.1"), 2, M1, 100.0 + i * 0.01, &r);
	assert_int_equal(logged, 1);
	assert_non_null(r);
	assert_int_equal(r->count, 100);
	assert_int_equal(r->suppressed, 99);
	assert_memory_equal(r->mac, M1, 6);
	/* after the interval: logged again, telling how many were quiet */
	assert_true(cfl_note(c, A("10.0.0.1"), 2, M1, 100.0 + CFL_INTERVAL + 0.5, &r));
	assert_int_equal(r->quiet, 99);
	assert_int_equal(r->first, 100.0);
	cfl_free(c);
}

/* Issue 7.8: two of our addresses sharing a slot must not reset each
 * other: 2,000 alternating claims in 10 s give one line each. */
static void
test_no_young_eviction(void **state)
{
	struct cfl *c = cfl_new(256);
	uint32_t a = A("10.0.0.1"), b = A("10.0.0.234");
	int i, logged = 0;

	(void)state;
	for (i = 0; i < 2000; i++)
		logged += cfl_note(c, i % 2 ? a : b, 2, M1, 100.0 + i * 0.004, NULL);
	assert_int_equal(logged, 2);
	cfl_free(c);
}

/* Many addresses at once: memory stays bounded, young records are kept,
 * and the global budget caps the lines of one interval. */
static void
test_bounded(void **state)
{
	struct cfl *c = cfl_new(64);
	int i, logged = 0;

	(void)state;
	for (i = 0; i < 5000; i++)
		logged += cfl_note(c, htonl(0x0a000000u + (uint32_t)i), 2, M1,
		    100.0 + i * 0.001, NULL);
	assert_int_equal(logged, CFL_LINES);
	assert_int_equal(cfl_suppressed(c), 5000 - CFL_LINES);
	/* the first address is still remembered, and still quiet */
	assert_false(cfl_note(c, htonl(0x0a000000u), 2, M1, 105.5, NULL));
	/* a later interval has a fresh budget, and expired records are reused */
	logged = 0;
	for (i = 0; i < 100; i++)
		logged += cfl_note(c, htonl(0x0b000000u + (uint32_t)i), 2, M1,
		    200.0 + i * 0.001, NULL);
	assert_int_equal(logged, CFL_LINES);
	cfl_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_per_interval),
		cmocka_unit_test(test_no_young_eviction),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
