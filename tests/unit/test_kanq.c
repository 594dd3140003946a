/* test_kanq.c — the kernel path's deferred feeds, on a real libev loop:
 * wide changes gathered into one feed per interface, unconfirmed grants
 * fed again a bounded number of times, and "every interface" past the
 * set's size. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <ev.h>

#include "kanq.h"
#include "util.h"

/* A set naming one interface. */
static struct util_ifset
one(int ifindex)
{
	struct util_ifset s = { .n = 0 };

	util_ifset_add(&s, ifindex);
	return s;
}

static int fed[256], nfed, ndone, nretry_done;
static struct kanq *Q;
static bool never_confirms;

static void
feed(void *arg, int ifindex)
{
	(void)arg;
	if (nfed < 256)
		fed[nfed++] = ifindex;
}

static void
done(void *arg, bool retry)
{
	struct util_ifset v = one(7);

	(void)arg;
	ndone++;
	if (retry) {
		nretry_done++;
		/* the caller hands back what its writes still could not confirm */
		if (never_confirms)
			kanq_unconfirmed(Q, &v, true);
	}
}

static void
reset(void)
{
	nfed = ndone = nretry_done = 0;
	never_confirms = false;
}

/* Three changes on two interfaces within the batch: one feed each. */
static void
test_batch(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);

	(void)state;
	reset();
	Q = kanq_new(loop, feed, done, NULL);
	assert_non_null(Q);
	kanq_dirty(Q, 3);
	kanq_dirty(Q, 5);
	kanq_dirty(Q, 3);
	ev_run(loop, 0);	/* returns when no timer is left */
	assert_int_equal(nfed, 2);
	assert_true((fed[0] == 3 && fed[1] == 5) || (fed[0] == 5 && fed[1] == 3));
	assert_int_equal(ndone, 1);
	assert_int_equal(nretry_done, 0);
	kanq_free(Q);
	ev_loop_destroy(loop);
}

/* A grant that never confirms is fed KANQ_TRIES times, then left. */
static void
test_retry_bounded(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct util_ifset v = one(7);

	(void)state;
	reset();
	never_confirms = true;
	Q = kanq_new(loop, feed, done, NULL);
	kanq_unconfirmed(Q, &v, false);
	ev_run(loop, 0);
	assert_int_equal(nfed, KANQ_TRIES);
	assert_int_equal(fed[0], 7);
	assert_int_equal(fed[KANQ_TRIES - 1], 7);
	kanq_free(Q);
	ev_loop_destroy(loop);
}

/* One that confirms on the first retry is fed once. */
static void
test_retry_once(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct util_ifset v = one(9), none = { .n = 0 };

	(void)state;
	reset();
	Q = kanq_new(loop, feed, done, NULL);
	kanq_unconfirmed(Q, &v, false);
	kanq_unconfirmed(Q, &none, false);	/* nothing new: no harm */
	ev_run(loop, 0);
	assert_int_equal(nfed, 1);
	assert_int_equal(fed[0], 9);
	kanq_free(Q);
	ev_loop_destroy(loop);
}

/* More interfaces than the set holds: one feed of every interface. */
static void
test_overflow(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	int i;

	(void)state;
	reset();
	Q = kanq_new(loop, feed, done, NULL);
	for (i = 1; i <= 40; i++)
		kanq_dirty(Q, i);
	ev_run(loop, 0);
	assert_int_equal(fed[nfed - 1], -1);
	assert_true(nfed <= 17);
	kanq_free(Q);
	ev_loop_destroy(loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_retry_bounded),
		cmocka_unit_test(test_retry_once),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
