/* test_announce.c — the announcement schedule: count, spacing, retries,
 * cancellation, whole-interface bursts, bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "announce.h"

/* A recording sender: answers from a script, logs every call. */
struct call {
	int		ifindex;
	uint32_t	addr;
	unsigned	nth;
	double		t;
};

static struct call calls[64];
static int ncalls;
static double now_;
static enum ann_verdict answer = ANN_SENT;

static enum ann_verdict
sender(void *arg, int ifindex, uint32_t addr, unsigned nth, size_t *cursor)
{
	(void)arg;
	(void)cursor;
	if (ncalls < 64)
		calls[ncalls] = (struct call){ ifindex, addr, nth, now_ };
	ncalls++;
	return answer;
}

static double
run(struct ann *a, double t)
{
	now_ = t;
	return ann_run(a, t, sender, NULL);
}

/* deadlines are sums of doubles */
#define near(a, b)	((a) > (b) - 1e-9 && (a) < (b) + 1e-9)

static void
reset(void)
{
	ncalls = 0;
	answer = ANN_SENT;
}

static void
test_burst(void **state)
{
	struct ann *a = ann_new(16);

	(void)state;
	reset();
	assert_int_equal(ann_start(a, 2, 0x0a000001, 3, 1.1, 100.0), 0);
	assert_true(near(run(a, 100.0), 100.0 + 1.1));
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].nth, 0);
	/* not yet due: nothing */
	assert_true(near(run(a, 100.5), 101.1));
	assert_int_equal(ncalls, 1);
	/* late by 50 ms: sent, and the next stays on the schedule */
	assert_true(near(run(a, 101.15), 100.0 + 2.2));
	assert_int_equal(ncalls, 2);
	assert_true(near(run(a, 102.2), 0));
	assert_int_equal(ncalls, 3);
	assert_int_equal(calls[2].nth, 2);
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

static void
test_retry_cancel(void **state)
{
	struct ann *a = ann_new(16);
	double next;

	(void)state;
	reset();
	ann_start(a, 2, 0x0a000001, 3, 1.1, 0.5);
	answer = ANN_RETRY;
	next = run(a, 0.5);
	assert_true(next > 0.5 && next <= 0.5 + ANN_RETRY_DELAY + 1e-9);
	answer = ANN_SENT;
	run(a, next);
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].nth, 0);	/* the same step again */
	answer = ANN_CANCEL;
	assert_true(near(run(a, 10.0), 0));
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

static void
test_far_behind(void **state)
{
	struct ann *a = ann_new(16);

	(void)state;
	reset();
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0.0);
	run(a, 0.0);
	/* the loop was held up for 10 s: one frame now, the next 1 s later,
	 * never a burst of catch-up frames */
	assert_true(near(run(a, 10.0), 10.0 + 1.0));
	assert_int_equal(ncalls, 2);
	ann_free(a);
}

static void
test_restart_and_iface(void **state)
{
	struct ann *a = ann_new(16);

	(void)state;
	reset();
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0.0);
	run(a, 0.0);
	/* restarting the same address starts over, no second entry */
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0.5);
	assert_int_equal(ann_pending(a), 1);
	run(a, 0.5);
	assert_int_equal(calls[1].nth, 0);
	/* a whole-interface burst absorbs the single ones of that interface */
	ann_start(a, 2, 0x0a000002, 3, 1.0, 0.6);
	ann_start(a, 3, 0x0a000003, 3, 1.0, 0.6);
	ann_start(a, 2, 0, 3, 1.0, 0.7);
	assert_int_equal(ann_pending(a), 2);
	/* and a single one started before it has begun adds nothing */
	assert_int_equal(ann_start(a, 2, 0x0a000009, 3, 1.0, 0.7), 0);
	assert_int_equal(ann_pending(a), 2);
	ann_stop(a, 3, 0x0a000003);
	assert_int_equal(ann_pending(a), 1);
	ncalls = 0;
	run(a, 0.7);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, 0);
	/* once it has begun, a new address gets a burst of its own */
	assert_int_equal(ann_start(a, 2, 0x0a000009, 3, 1.0, 0.8), 0);
	assert_int_equal(ann_pending(a), 2);
	ann_stop(a, 2, 0);
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

static void
test_bounded(void **state)
{
	struct ann *a = ann_new(4);
	uint32_t i;

	(void)state;
	for (i = 1; i <= 4; i++)
		assert_int_equal(ann_start(a, 2, i, 3, 1.0, 0.0), 0);
	assert_int_equal(ann_start(a, 2, 99, 3, 1.0, 0.0), -1);
	assert_int_equal(ann_pending(a), 4);
	/* count 0: nothing to do, nothing kept */
	ann_stop(a, 2, 0);
	assert_int_equal(ann_start(a, 2, 5, 0, 1.0, 0.0), 0);
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

/* Many single addresses: past ANN_FEW the next one becomes its
 * interface's whole burst, which absorbs the single ones of that interface;
 * the pending list stays short. */
static void
test_many_collapse(void **state)
{
	struct ann *a = ann_new(65536);
	uint32_t i;
	int k;
	bool whole = false;

	(void)state;
	reset();
	for (i = 1; i <= ANN_FEW; i++)
		assert_int_equal(ann_start(a, 3, i, 3, 1.1, 0.0), 0);
	assert_int_equal(ann_pending(a), ANN_FEW);
	for (i = ANN_FEW + 1; i <= 65536; i++)
		assert_int_equal(ann_start(a, 3, i, 3, 1.1, 0.0), 0);
	assert_true(ann_pending(a) <= ANN_FEW + 1);
	/* another interface's single address is not lost either */
	assert_int_equal(ann_start(a, 4, 7, 3, 1.1, 0.0), 0);
	run(a, 0.0);
	for (k = 0; k < ncalls && k < 64; k++) {
		assert_true(calls[k].addr == 0 || calls[k].ifindex == 4);
		if (calls[k].ifindex == 3 && calls[k].addr == 0)
			whole = true;
	}
	assert_true(whole);
	assert_int_equal(ncalls, 2);	/* iface 3 whole, iface 4 its one */
	ann_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_retry_cancel),
		cmocka_unit_test(test_far_behind),
		cmocka_unit_test(test_restart_and_iface),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_many_collapse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
