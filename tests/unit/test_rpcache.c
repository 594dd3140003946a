/* test_rpcache.c — the reverse-path cache and lookup budget: a flood on
 * one interface leaves the others their lookups; a sender found again
 * outlives a flood of new ones in its set. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpcache.h"

static const unsigned char key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static struct rpc *
fresh(long rate, long share)
{
	struct rpc *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	rpc_init(c, key, rate, share);
	return c;
}

/* A verdict put is found, for that interface, sender and target only;
 * forgetting drops it. */
static void
test_find(void **state)
{
	struct rpc *c = fresh(20000, 5000);

	(void)state;
	assert_int_equal(rpc_find(c, 2, 0x0a000064, 0x0a000001), -1);
	rpc_put(c, 2, 0x0a000064, 0x0a000001, 1);
	assert_int_equal(rpc_find(c, 2, 0x0a000064, 0x0a000001), 1);
	assert_int_equal(rpc_find(c, 3, 0x0a000064, 0x0a000001), -1);
	assert_int_equal(rpc_find(c, 2, 0x0a000065, 0x0a000001), -1);
	assert_int_equal(rpc_find(c, 2, 0x0a000064, 0x0a000002), -1);
	rpc_forget(c);
	assert_int_equal(rpc_find(c, 2, 0x0a000064, 0x0a000001), -1);
	free(c);
}

/* One second of 60,000 lookups wanted on ifindex 4 (the outside's spoofed
 * senders): it gets its share and no more; ifindex 2 (the LAN) then still
 * gets every one of its 1,000, where the host's budget alone would have
 * none left for it. */
static void
test_share(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	int i, flood = 0, lan = 0;
	double t;

	(void)state;
	for (i = 0; i < 60000; i++) {
		t = 100.0 + i / 60000.0;
		flood += rpc_budget(c, 4, 1, t);
		if (i % 60 == 0)
			lan += rpc_budget(c, 2, 1, t);
	}
	assert_in_range(flood, 5000, 5000 + 5000 / 10 + 1);
	assert_int_equal(lan, 1000);
	free(c);
}

/* Four flooded interfaces may spend the host's budget (its bound on the
 * netlink work holds), never more than it. */
static void
test_host_bound(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	int i, k, got = 0;

	(void)state;
	for (i = 0; i < 60000; i++)
		for (k = 1; k <= 8; k++)
			got += rpc_budget(c, k, 1, 100.0 + i / 60000.0);
	assert_in_range(got, 20000, 20000 + 20000 / 10 + 1);
	free(c);
}

/* A lookup of two (rp_filter and arp_filter) takes both or none. */
static void
test_two(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	int i, got = 0;

	(void)state;
	for (i = 0; i < 10000; i++)
		got += rpc_budget(c, 2, 2, 100.0 + i / 10000.0);
	assert_in_range(got, 2500, 2500 + 500 / 2 + 1);
	free(c);
}

/* The client asked twice; then 200,000 new senders, each once, on the same
 * interface for the same target: the client's verdict is still there, as
 * are none of the flood's but the last ones. */
static void
test_again_outlives_flood(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	uint32_t client = 0x0a000064, tip = 0x0a000001, s;
	int kept = 0;

	(void)state;
	rpc_put(c, 2, client, tip, 0);
	assert_int_equal(rpc_find(c, 2, client, tip), 0);
	for (s = 0xac100001; s < 0xac100001 + 200000; s++)
		if (rpc_find(c, 2, s, tip) == -1)
			rpc_put(c, 2, s, tip, 0);
	assert_int_equal(rpc_find(c, 2, client, tip), 0);
	for (s = 0xac100001; s < 0xac100001 + 1000; s++)
		kept += rpc_find(c, 2, s, tip) != -1;
	assert_int_equal(kept, 0);
	free(c);
}

/* Without being found again, a sender put once is one of the flood: it
 * goes (what the test above relies on is the mark, not luck). */
static void
test_once_goes(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	uint32_t client = 0x0a000064, tip = 0x0a000001, s;

	(void)state;
	rpc_put(c, 2, client, tip, 0);
	for (s = 0xac100001; s < 0xac100001 + 200000; s++)
		rpc_put(c, 2, s, tip, 0);
	assert_int_equal(rpc_find(c, 2, client, tip), -1);
	free(c);
}

/* Two entries of one set, both found again: a refusal goes before an
 * answer; equal worth, the older goes. */
static void
test_refusal_goes_first(void **state)
{
	struct rpc *c = fresh(20000, 5000);
	uint32_t tip = 0x0a000001, s, same[3];
	struct rpc_ent *set0 = NULL;
	int n = 0;

	(void)state;
	/* three senders of one set */
	for (s = 1; n < 3 && s < 10000000; s++) {
		struct rpc_ent *e;

		rpc_forget(c);
		rpc_put(c, 2, s, tip, 0);
		for (e = c->v; e < c->v + 2 * RPC_SETS; e++)
			if (e->ifindex == 2 && e->sip == s && e->gen == c->gen)
				break;
		if (set0 == NULL || e - (e - c->v) % 2 == set0)
			same[n++] = s, set0 = e - (e - c->v) % 2;
	}
	assert_int_equal(n, 3);
	rpc_forget(c);
	rpc_put(c, 2, same[0], tip, 1);		/* a refusal, found again */
	(void)rpc_find(c, 2, same[0], tip);
	rpc_put(c, 2, same[1], tip, 0);		/* an answer, found again */
	(void)rpc_find(c, 2, same[1], tip);
	rpc_put(c, 2, same[2], tip, 0);
	assert_int_equal(rpc_find(c, 2, same[0], tip), -1);
	assert_int_equal(rpc_find(c, 2, same[1], tip), 0);
	assert_int_equal(rpc_find(c, 2, same[2], tip), 0);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_host_bound),
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_again_outlives_flood),
		cmocka_unit_test(test_once_goes),
		cmocka_unit_test(test_refusal_goes_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
