/* test_limit.c — token buckets: rates hold, collisions share. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "limit.h"

/* Offer n tokens evenly over secs seconds from t0; how many were taken. */
static int
offer(struct lim_bucket *b, long rate, double t0, double secs, int n)
{
	int i, got = 0;

	for (i = 0; i < n; i++)
		got += lim_take(b, rate, t0 + secs * i / n);
	return got;
}

static void
test_rate(void **state)
{
	static const struct { long rate; double secs; int offered, lo, hi; } v[] = {
		{ 100, 1.0, 1000, 100, 111 },		/* burst 10 + 100/s */
		{ 1000, 2.0, 100000, 2000, 2101 },	/* burst 100 */
		{ 5, 4.0, 400, 20, 31 },		/* burst at least 10 */
		{ 1000, 1.0, 500, 500, 500 },		/* under the rate: all */
	};
	struct lim_bucket b;
	size_t i;
	int got;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&b, 0, sizeof(b));
		got = offer(&b, v[i].rate, 1000.0, v[i].secs, v[i].offered);
		if (got < v[i].lo || got > v[i].hi)
			fail_msg("rate %ld over %.1f s, %d offered: %d taken, want %d..%d",
			    v[i].rate, v[i].secs, v[i].offered, got, v[i].lo, v[i].hi);
	}
}

static void
test_clock_back(void **state)
{
	struct lim_bucket b;
	int i, got = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		got += lim_take(&b, 10, 5000.0);
	assert_int_equal(got, 10);
	/* a clock stepped back refills nothing */
	assert_false(lim_take(&b, 10, 4000.0));
	assert_false(lim_take(&b, 10, 4000.05));
	assert_true(lim_take(&b, 10, 4000.2));
}

/* Requests are charged when they arrived (issue 20): a time a little
 * before the last one charged refills nothing and leaves the bucket
 * where it was, so the same interval is never credited twice. */
static void
test_reorder(void **state)
{
	struct lim_bucket b;
	int i, got = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20; i++)
		got += lim_take(&b, 100, 5000.0);
	assert_int_equal(got, 10);
	/* 50 ms earlier (another CPU's frame): nothing, and no re-base */
	assert_false(lim_take(&b, 100, 4999.95));
	/* 10 ms after the last: one token, not the 6 a re-based bucket had */
	assert_true(lim_take(&b, 100, 5000.01));
	assert_false(lim_take(&b, 100, 5000.01));
	/* a client at the rate, its requests seen out of order by 2 ms,
	 * keeps its bucket full: every one taken */
	memset(&b, 0, sizeof(b));
	got = 0;
	for (i = 0; i < 1000; i++)
		got += lim_take(&b, 1000, 6000.0 + i * 1e-3 + (i % 2 ? -2e-3 : 0));
	assert_int_equal(got, 1000);
}

/* Issue 7.8: two senders sharing a bucket, alternating, get the rate
 * between them, not a fresh bucket each time. */
static void
test_collision_shares(void **state)
{
	static struct lim l;
	uint32_t a = htonl(0x0a000001u), b = 0, x;
	int i, got = 0;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (x = 0x0a000002u; x < 0x0a100000u; x++)
		if (lim_sender_slot(htonl(x)) == lim_sender_slot(a)) {
			b = htonl(x);
			break;
		}
	assert_int_not_equal(b, 0);
	for (i = 0; i < 2000; i++)
		got += lim_sender(&l, i % 2 ? a : b, 10, 100.0 + i * 0.0005);
	/* 1 s at 10/s with a burst of 10 */
	if (got > 21)
		fail_msg("two colliding senders alternating: %d answered, at most 21 allowed", got);
	/* another slot is untouched */
	for (x = 0x0b000000u; lim_sender_slot(htonl(x)) == lim_sender_slot(a); x++)
		;
	assert_true(lim_sender(&l, htonl(x), 10, 101.0));
}

/* Announcements never take the last half of the burst: replies keep it. */
static void
test_spare(void **state)
{
	struct lim_bucket b;
	int i, ann = 0, rep = 0;

	(void)state;
	memset(&b, 0, sizeof(b));
	/* rate 1000: burst 100; announcements alone stop at 50 left */
	for (i = 0; i < 1000; i++)
		ann += lim_take_spare(&b, 1000, 2, 10.0);
	assert_int_equal(ann, 25);
	for (i = 0; i < 1000; i++)
		rep += lim_take(&b, 1000, 10.0);
	assert_int_equal(rep, 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_collision_shares),
		cmocka_unit_test(test_spare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
