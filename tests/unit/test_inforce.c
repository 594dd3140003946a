/* test_inforce.c — the holder of what is in force: a swap puts the new
 * configuration and published set in force at once, tells the
 * subscribers in the order they subscribed, each seeing the new ones in
 * force and the old ones still whole, and frees the old ones only after
 * the last.  conf_free and pub_free are this file's, to count. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "inforce.h"

static struct conf	 confs[3];
static char		 pubs[3];
static int		 conf_freed[3], pub_freed[3];
static int		 order[INF_SUBSCRIBERS + 1], norder;

#define PUB(i)	((struct pub *)(void *)&pubs[i])

void
conf_free(struct conf *c)
{
	if (c != NULL)
		conf_freed[c - confs]++;
}

void
pub_free(struct pub *p)
{
	if (p != NULL)
		pub_freed[(char *)(void *)p - pubs]++;
}

/* A subscriber: its number in order[], and what it saw. */
static void
told(void *arg, const struct conf *oc, const struct pub *op)
{
	int n = (int)(intptr_t)arg;

	order[norder++] = n;
	/* the new ones in force, the old ones given and not freed yet */
	assert_ptr_equal(inf_conf(), &confs[1]);
	assert_ptr_equal(inf_pub(), PUB(1));
	assert_ptr_equal(oc, &confs[0]);
	assert_ptr_equal(op, PUB(0));
	assert_int_equal(conf_freed[0], 0);
	assert_int_equal(pub_freed[0], 0);
}

static int
setup(void **state)
{
	(void)state;
	memset(conf_freed, 0, sizeof(conf_freed));
	memset(pub_freed, 0, sizeof(pub_freed));
	norder = 0;
	inf_init(&confs[0]);
	inf_init_pub(PUB(0));
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	inf_free();
	return 0;
}

static void
test_in_force_from_start(void **state)
{
	(void)state;
	assert_ptr_equal(inf_conf(), &confs[0]);
	assert_ptr_equal(inf_pub(), PUB(0));
	assert_ptr_equal(inf_pub_edit(), PUB(0));
}

static void
test_swap_tells_in_order_then_frees(void **state)
{
	(void)state;
	assert_int_equal(inf_subscribe(told, (void *)3), 0);
	assert_int_equal(inf_subscribe(told, (void *)1), 0);
	assert_int_equal(inf_subscribe(told, (void *)2), 0);
	inf_swap(&confs[1], PUB(1));
	assert_int_equal(norder, 3);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	/* the old ones freed once, after the last; the new ones in force */
	assert_int_equal(conf_freed[0], 1);
	assert_int_equal(pub_freed[0], 1);
	assert_int_equal(conf_freed[1], 0);
	assert_int_equal(pub_freed[1], 0);
	assert_ptr_equal(inf_conf(), &confs[1]);
	assert_ptr_equal(inf_pub(), PUB(1));
}

static void
test_swap_without_subscribers(void **state)
{
	(void)state;
	inf_swap(&confs[1], PUB(1));
	inf_swap(&confs[2], PUB(2));
	assert_int_equal(conf_freed[0] + conf_freed[1], 2);
	assert_int_equal(pub_freed[0] + pub_freed[1], 2);
	assert_int_equal(conf_freed[2] + pub_freed[2], 0);
}

static void
test_subscribers_bounded(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < INF_SUBSCRIBERS; i++)
		assert_int_equal(inf_subscribe(told, (void *)(intptr_t)i), 0);
	assert_int_equal(inf_subscribe(told, NULL), -1);
	inf_swap(&confs[1], PUB(1));
	assert_int_equal(norder, INF_SUBSCRIBERS);
	for (i = 0; i < INF_SUBSCRIBERS; i++)
		assert_int_equal(order[i], i);
}

/* The end of a run frees what is in force and forgets who was told. */
static void
test_end_of_run(void **state)
{
	(void)state;
	assert_int_equal(inf_subscribe(told, NULL), 0);
	inf_free();
	assert_int_equal(conf_freed[0], 1);
	assert_int_equal(pub_freed[0], 1);
	assert_null(inf_conf());
	assert_null(inf_pub());
	inf_init(&confs[0]);
	inf_init_pub(PUB(0));
	inf_swap(&confs[1], PUB(1));
	assert_int_equal(norder, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_force_from_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_tells_in_order_then_frees, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_swap_without_subscribers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subscribers_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_of_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
