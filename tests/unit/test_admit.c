/* test_admit.c — admission to the control socket: the per-uid cap, the
 * slots kept for root, and which idle connection makes room. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "admit.h"

#define N	16

/* n slots used by uid, idle or not, their since counting up from t. */
static void
fill(struct adm_slot *v, size_t from, size_t n, uid_t uid, bool idle, double t)
{
	size_t i;

	for (i = from; i < from + n; i++)
		v[i] = (struct adm_slot){ true, uid, idle, t + (double)i };
}

static void
test_free_slots(void **state)
{
	struct adm_slot v[N] = { 0 };
	size_t slot = 99;

	(void)state;
	assert_int_equal(adm_decide(v, N, 1000, &slot), ADM_TAKE);
	assert_int_equal(slot, 0);
	assert_int_equal(adm_decide(v, N, 0, &slot), ADM_TAKE);
}

static void
test_per_uid_cap(void **state)
{
	struct adm_slot v[N] = { 0 };
	size_t slot;

	(void)state;
	/* four busy connections of uid 1000: its fifth is refused ... */
	fill(v, 0, ADM_PER_UID, 1000, false, 1);
	assert_int_equal(adm_decide(v, N, 1000, &slot), ADM_REFUSE_UID);
	/* ... another uid is not */
	assert_int_equal(adm_decide(v, N, 1001, &slot), ADM_TAKE);
	assert_int_equal(slot, ADM_PER_UID);
	/* its own oldest idle connection makes room for it */
	v[2].idle = true;
	v[3].idle = true;
	assert_int_equal(adm_decide(v, N, 1000, &slot), ADM_EVICT);
	assert_int_equal(slot, 2);
	/* root has no per-uid cap */
	fill(v, 0, N - 1, 0, false, 1);
	assert_int_equal(adm_decide(v, N, 0, &slot), ADM_TAKE);
	assert_int_equal(slot, N - 1);
}

static void
test_root_slots(void **state)
{
	struct adm_slot v[N] = { 0 };
	size_t slot;
	uid_t u;

	(void)state;
	/* other users fill all but the root slots, busy */
	for (u = 0; u < (N - ADM_ROOT_SLOTS) / ADM_PER_UID; u++)
		fill(v, u * ADM_PER_UID, ADM_PER_UID, 1000 + u, false, 1);
	assert_int_equal(adm_decide(v, N, 2000, &slot), ADM_REFUSE_BUSY);
	/* root still gets one of its own */
	assert_int_equal(adm_decide(v, N, 0, &slot), ADM_TAKE);
	assert_int_equal(slot, N - ADM_ROOT_SLOTS);
	/* an idle one of another user makes room for a newcomer: the oldest */
	v[5].idle = true;
	v[9].idle = true;
	assert_int_equal(adm_decide(v, N, 2000, &slot), ADM_EVICT);
	assert_int_equal(slot, 5);
}

static void
test_full_pool(void **state)
{
	struct adm_slot v[N] = { 0 };
	size_t slot;

	(void)state;
	/* root in every slot, busy: nobody gets in, root's never evicted */
	fill(v, 0, N, 0, false, 1);
	assert_int_equal(adm_decide(v, N, 0, &slot), ADM_REFUSE_BUSY);
	v[3].idle = true;
	assert_int_equal(adm_decide(v, N, 1000, &slot), ADM_REFUSE_BUSY);
	/* a full pool with an idle non-root connection: root takes its slot */
	fill(v, 0, 12, 1000 + 0, false, 1);
	for (slot = 0; slot < 12; slot++)
		v[slot].uid = (uid_t)(1000 + slot / ADM_PER_UID);
	fill(v, 12, 4, 0, false, 1);
	v[7].idle = true;
	v[1].idle = true;
	v[1].since = 50;
	assert_int_equal(adm_decide(v, N, 0, &slot), ADM_EVICT);
	assert_int_equal(slot, 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_slots),
		cmocka_unit_test(test_per_uid_cap),
		cmocka_unit_test(test_root_slots),
		cmocka_unit_test(test_full_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
