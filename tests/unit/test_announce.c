/* test_announce.c — the announcement schedule: count, spacing, retries,
 * cancellation, whole-interface bursts taking turns, what moved first,
 * bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "announce.h"

/* A recording sender: answers from a script, logs every call.  A whole
 * interface has naddrs addresses; each call sends the one at the cursor. */
struct call {
	int		ifindex;
	uint32_t	addr;
	unsigned	nth;
	unsigned	flags;
	size_t		cursor;
	double		t;
};

static struct call calls[256];
static int ncalls;
static double now_;
static enum ann_verdict answer = ANN_SENT;
static size_t naddrs = 0;
static int budget = -1;		/* sends allowed before ANN_RETRY; -1 any */

static enum ann_verdict
sender(void *arg, struct ann_step *s)
{
	(void)arg;
	if (answer != ANN_SENT)
		goto out;
	if (budget == 0)
		return ANN_RETRY;
	if (s->addr == 0 && s->cursor >= naddrs)
		return ANN_SENT;	/* nothing left: no frame */
	if (budget > 0)
		budget--;
out:
	if (ncalls < 256)
		calls[ncalls] = (struct call){ s->ifindex, s->addr, s->nth, s->flags, s->cursor,
		    now_ };
	ncalls++;
	if (answer == ANN_SENT && s->addr == 0) {
		s->cursor++;
		return ANN_MORE;
	}
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
	naddrs = 0;
	budget = -1;
}

static void
test_burst(void **state)
{
	struct ann *a = ann_new(16);

	(void)state;
	reset();
	assert_int_equal(ann_start(a, 2, 0x0a000001, 3, 1.1, 0, 100.0), 0);
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
	ann_start(a, 2, 0x0a000001, 3, 1.1, 0, 0.5);
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
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0, 0.0);
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
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0, 0.0);
	run(a, 0.0);
	/* restarting the same address starts over, no second entry */
	ann_start(a, 2, 0x0a000001, 3, 1.0, 0, 0.5);
	assert_int_equal(ann_pending(a), 1);
	run(a, 0.5);
	assert_int_equal(calls[1].nth, 0);
	/* a moved address keeps its own burst beside its interface's: it
	 * must not wait for the interface's walk to reach it */
	ann_start(a, 2, 0x0a000002, 3, 1.0, 0, 0.6);
	ann_start(a, 3, 0x0a000003, 3, 1.0, 0, 0.6);
	ann_start(a, 2, 0, 3, 1.0, 0, 0.7);
	assert_int_equal(ann_pending(a), 4);
	/* the whole one again: restarted, not doubled */
	ann_start(a, 2, 0, 3, 1.0, 0, 0.7);
	assert_int_equal(ann_pending(a), 4);
	ann_stop(a, 3, 0x0a000003);
	assert_int_equal(ann_pending(a), 3);
	/* all of interface 2's, singles and whole */
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
		assert_int_equal(ann_start(a, 2, i, 3, 1.0, 0, 0.0), 0);
	assert_int_equal(ann_start(a, 2, 99, 3, 1.0, 0, 0.0), -1);
	assert_int_equal(ann_start(a, 5, 0, 3, 1.0, 0, 0.0), -1);
	assert_int_equal(ann_pending(a), 4);
	/* count 0: nothing to do, nothing kept */
	ann_stop(a, 2, 0);
	assert_int_equal(ann_start(a, 2, 5, 0, 1.0, 0, 0.0), 0);
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

/* What moved goes first: with a budget for one frame, the single address
 * started after three whole interfaces is sent, not their addresses; and
 * it stays first at the next run. */
static void
test_singles_first(void **state)
{
	struct ann *a = ann_new(64);
	int i;

	(void)state;
	reset();
	naddrs = 100;
	for (i = 1; i <= 3; i++)
		ann_start(a, i, 0, 1, 1.0, ANN_F_START, 0.0);
	ann_start(a, 2, 0x0a000063, 3, 1.0, 0, 0.0);
	budget = 1;
	run(a, 0.0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, 0x0a000063);
	/* its second step is due later; the wholes get the next frames */
	budget = 3;
	run(a, 0.01);
	assert_int_equal(ncalls, 4);
	for (i = 1; i < 4; i++)
		assert_int_equal(calls[i].addr, 0);
	budget = 1;
	run(a, 1.0);
	assert_int_equal(calls[4].addr, 0x0a000063);
	assert_int_equal(calls[4].nth, 1);
	ann_free(a);
}

/* Whole interfaces take turns, an address each, and a run cut short by the
 * budget resumes with the interface whose turn it was. */
static void
test_round_robin(void **state)
{
	struct ann *a = ann_new(64);
	int per[4] = { 0 }, i;

	(void)state;
	reset();
	naddrs = 5;
	for (i = 1; i <= 3; i++)
		ann_start(a, i, 0, 1, 1.0, ANN_F_START, 0.0);
	budget = 4;
	run(a, 0.0);
	assert_int_equal(ncalls, 4);
	assert_int_not_equal(calls[0].ifindex, calls[1].ifindex);
	assert_int_not_equal(calls[1].ifindex, calls[2].ifindex);
	assert_int_not_equal(calls[0].ifindex, calls[2].ifindex);
	assert_int_equal(calls[3].ifindex, calls[0].ifindex);
	assert_int_equal(calls[3].cursor, 1);
	assert_int_equal(calls[0].flags, ANN_F_START);
	budget = 2;
	run(a, 0.01);
	assert_int_equal(calls[4].ifindex, calls[1].ifindex);
	assert_int_equal(calls[5].ifindex, calls[2].ifindex);
	/* the rest: 15 addresses in all, 5 each, and then the bursts are done */
	budget = -1;
	assert_true(near(run(a, 0.02), 0));
	assert_int_equal(ncalls, 15);
	for (i = 0; i < ncalls; i++)
		per[calls[i].ifindex]++;
	assert_int_equal(per[1], 5);
	assert_int_equal(per[2], 5);
	assert_int_equal(per[3], 5);
	assert_int_equal(ann_pending(a), 0);
	ann_free(a);
}

/* ann_first: a burst's first step and where it is; not once it is done. */
static void
test_first(void **state)
{
	struct ann *a = ann_new(16);
	const struct ann_step *s;

	(void)state;
	reset();
	naddrs = 3;
	ann_start(a, 7, 0, 2, 1.0, ANN_F_START, 0.0);
	ann_start(a, 7, 0x0a000001, 2, 1.0, 0, 0.0);
	assert_non_null(ann_first(a, 7, 0x0a000001));
	assert_null(ann_first(a, 7, 0x0a000002));
	budget = 3;	/* the single one, and two of the interface's three */
	run(a, 0.0);
	assert_null(ann_first(a, 7, 0x0a000001));
	s = ann_first(a, 7, 0);
	assert_non_null(s);
	assert_int_equal(s->cursor, 2);
	assert_int_equal(s->flags, ANN_F_START);
	budget = -1;
	run(a, 0.01);
	assert_null(ann_first(a, 7, 0));
	/* the second step keeps no start flag: the previous run's word is
	 * for the first */
	run(a, 1.0);
	assert_int_equal(calls[ncalls - 1].flags, 0);
	ann_free(a);
}

/* An address whose own burst went out while its interface's first step
 * was under way counts as said for that step, and only for it. */
static void
test_said(void **state)
{
	struct ann *a = ann_new(16);

	(void)state;
	reset();
	naddrs = 10;
	ann_start(a, 7, 0, 2, 1.0, 0, 0.0);
	ann_start(a, 7, 0x0a000005, 1, 1.0, 0, 0.0);
	ann_start(a, 8, 0x0a000006, 1, 1.0, 0, 0.0);	/* no whole burst there */
	budget = 3;
	run(a, 0.0);
	assert_true(ann_said(a, 7, 0x0a000005));
	assert_false(ann_said(a, 7, 0x0a000006));
	assert_false(ann_said(a, 8, 0x0a000006));
	/* restarted: all of it again */
	ann_start(a, 7, 0, 2, 1.0, 0, 0.1);
	assert_false(ann_said(a, 7, 0x0a000005));
	ann_start(a, 7, 0x0a000005, 1, 1.0, 0, 0.1);
	budget = 1;
	run(a, 0.1);
	assert_true(ann_said(a, 7, 0x0a000005));
	/* its first step done: forgotten */
	budget = -1;
	run(a, 0.2);
	assert_false(ann_said(a, 7, 0x0a000005));
	ann_free(a);
}

/* What a non-root peer asked for goes after root's and the daemon's
 * singles: with 16 of a peer's pending and a budget for one frame, root's
 * single started after them is sent first; then the peer's, then the
 * whole interfaces. */
static void
test_peer_after_root(void **state)
{
	struct ann *a = ann_new(64);
	uint32_t i;

	(void)state;
	reset();
	naddrs = 100;
	ann_start(a, 1, 0, 1, 1.0, 0, 0.0);
	for (i = 1; i <= ANN_PEER_PENDING; i++)
		assert_int_equal(ann_ask(a, 2, 0x0a090000 + i, 3, 1.1, 1000, 0.0), 0);
	assert_int_equal(ann_start(a, 2, 0x0a000032, 3, 1.1, 0, 0.0), 0);
	budget = 1;
	run(a, 0.0);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].addr, 0x0a000032);
	/* root's second step is not due: the peer's, all of them, before the
	 * interface's walk */
	budget = ANN_PEER_PENDING + 1;
	run(a, 0.01);
	assert_int_equal(ncalls, ANN_PEER_PENDING + 2);
	for (i = 1; i <= ANN_PEER_PENDING; i++)
		assert_int_equal(calls[i].addr >> 16, 0x0a09);
	assert_int_equal(calls[ANN_PEER_PENDING + 1].addr, 0);
	/* at the next steps root's is first again */
	budget = 1;
	run(a, 1.2);
	assert_int_equal(calls[ANN_PEER_PENDING + 2].addr, 0x0a000032);
	assert_int_equal(calls[ANN_PEER_PENDING + 2].nth, 1);
	ann_free(a);
}

/* A non-root peer has ANN_PEER_PENDING bursts pending at most, ANN_PEERS
 * peers at once; past that it is refused (-2), room comes back as its
 * bursts end; root's singles keep their ANN_SINGLES whatever the peers
 * hold. */
static void
test_peer_bound(void **state)
{
	struct ann *a = ann_new(65536);
	uint32_t i, u;

	(void)state;
	reset();
	assert_int_equal(ann_room(a, 1000), ANN_PEER_PENDING);
	for (i = 1; i <= ANN_PEER_PENDING; i++)
		assert_int_equal(ann_ask(a, 2, 0x0a090000 + i, 3, 1.1, 1000, 0.0), 0);
	assert_int_equal(ann_room(a, 1000), 0);
	assert_int_equal(ann_ask(a, 2, 0x0a09ffff, 3, 1.1, 1000, 0.0), -2);
	/* asking again for one it has pending restarts it, costs nothing */
	assert_int_equal(ann_ask(a, 2, 0x0a090001, 3, 1.1, 1000, 0.5), 0);
	/* one root has pending goes out anyway: not refused, not counted */
	assert_int_equal(ann_start(a, 2, 0x0a000032, 3, 1.1, 0, 0.0), 0);
	assert_int_equal(ann_ask(a, 2, 0x0a000032, 3, 1.1, 1000, 0.0), 0);
	/* root asking for one the peer asked for makes it root's */
	assert_int_equal(ann_start(a, 2, 0x0a090002, 3, 1.1, 0, 0.0), 0);
	assert_int_equal(ann_room(a, 1000), 1);
	assert_int_equal(ann_ask(a, 2, 0x0a09fffe, 3, 1.1, 1000, 0.0), 0);
	/* the other peers, each with its own bound, ANN_PEERS of them */
	for (u = 1001; u < 1000 + ANN_PEERS; u++)
		for (i = 1; i <= ANN_PEER_PENDING; i++)
			assert_int_equal(ann_ask(a, 3, (u << 16) + i, 3, 1.1, u, 0.0), 0);
	assert_int_equal(ann_room(a, 5000), 0);
	assert_int_equal(ann_ask(a, 3, 0x0b000001, 3, 1.1, 5000, 0.0), -2);
	/* root's and the daemon's singles have their room still */
	for (i = 1; i < ANN_SINGLES - 1; i++)
		assert_int_equal(ann_start(a, 4, i, 3, 1.1, 0, 0.0), 0);
	assert_null(ann_first(a, 4, 0));
	assert_non_null(ann_first(a, 4, ANN_SINGLES - 2));
	/* the bursts end (three steps each; one restarted at 0.5): the
	 * peers' room is back */
	ann_stop(a, 4, 0);
	run(a, 0.5);
	run(a, 1.6);
	run(a, 2.7);
	assert_int_equal(ann_pending(a), 0);
	assert_int_equal(ann_room(a, 1000), ANN_PEER_PENDING);
	assert_int_equal(ann_room(a, 5000), ANN_PEER_PENDING);
	ann_free(a);
}

/* Many single addresses: past ANN_SINGLES the next becomes its interface's
 * whole burst; a single one of another interface is not lost; every start
 * costs O(1) (65,536 of them here, at once). */
static void
test_many_collapse(void **state)
{
	struct ann *a = ann_new(65536);
	uint32_t i;

	(void)state;
	reset();
	for (i = 1; i <= ANN_SINGLES; i++)
		assert_int_equal(ann_start(a, 3, i, 3, 1.1, 0, 0.0), 0);
	assert_int_equal(ann_pending(a), ANN_SINGLES);
	for (i = ANN_SINGLES + 1; i <= 65536; i++)
		assert_int_equal(ann_start(a, 3, i, 3, 1.1, 0, 0.0), 0);
	assert_int_equal(ann_pending(a), ANN_SINGLES + 1);
	assert_non_null(ann_first(a, 3, 0));
	/* another interface's address becomes that interface's burst */
	assert_int_equal(ann_start(a, 4, 7, 3, 1.1, 0, 0.0), 0);
	assert_non_null(ann_first(a, 4, 0));
	/* one already pending restarts in place */
	assert_int_equal(ann_start(a, 3, 5, 3, 1.1, 0, 0.5), 0);
	assert_int_equal(ann_pending(a), ANN_SINGLES + 2);
	/* stopping them one by one keeps the index whole */
	for (i = 1; i <= ANN_SINGLES; i += 2)
		ann_stop(a, 3, i);
	for (i = 2; i <= ANN_SINGLES; i += 2)
		assert_non_null(ann_first(a, 3, i));
	for (i = 1; i <= ANN_SINGLES; i += 2)
		assert_null(ann_first(a, 3, i));
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
		cmocka_unit_test(test_singles_first),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_said),
		cmocka_unit_test(test_many_collapse),
		cmocka_unit_test(test_peer_after_root),
		cmocka_unit_test(test_peer_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
