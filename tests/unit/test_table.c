/* test_table.c — the ownership table against a reference model. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "table.h"

static uint32_t
A(const char *s)
{
	uint32_t a;

	inet_pton(AF_INET, s, &a);
	return a;
}

static void
test_ifaces(void **state)
{
	struct tbl *t = tbl_new();
	struct tbl_iface *a, *b;
	size_t ni, na;
	int i;

	(void)state;
	assert_non_null(t);
	assert_null(tbl_iface_add(t, 0));
	assert_null(tbl_iface_add(t, -3));
	a = tbl_iface_add(t, 2);
	assert_non_null(a);
	assert_ptr_equal(tbl_iface_add(t, 2), a);
	assert_ptr_equal(tbl_iface(t, 2), a);
	assert_int_equal(a->arp_ignore, -1);
	assert_null(tbl_iface(t, 3));
	/* growth keeps every entry findable */
	for (i = 10; i < 3000; i++)
		assert_non_null(tbl_iface_add(t, i * 7));
	for (i = 10; i < 3000; i++)
		assert_int_equal(tbl_iface(t, i * 7)->ifindex, i * 7);
	b = tbl_iface(t, 70);
	tbl_iface_del(t, 70);
	assert_null(tbl_iface(t, 70));
	(void)b;
	for (i = 11; i < 3000; i++)
		assert_non_null(tbl_iface(t, i * 7));
	tbl_count(t, &ni, &na);
	assert_int_equal(ni, 1 + 2989);
	assert_int_equal(na, 0);
	tbl_free(t);
}

static void
test_addrs(void **state)
{
	struct tbl *t = tbl_new();
	size_t ni, na;

	(void)state;
	tbl_iface_add(t, 2);
	tbl_iface_add(t, 3);
	assert_int_equal(tbl_addr_add(t, 9, A("10.0.0.1"), 24), -1);
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.1"), 24), 1);
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.1"), 24), 0);
	assert_int_equal(tbl_addr_add(t, 3, A("10.0.0.2"), 24), 1);
	/* the same address on two interfaces */
	assert_int_equal(tbl_addr_add(t, 3, A("10.0.0.1"), 24), 1);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_true(tbl_addr_on(t, 3, A("10.0.0.1")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.2")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.3")));
	assert_int_equal(tbl_addr_del(t, 2, A("10.0.0.1")), 1);
	assert_int_equal(tbl_addr_del(t, 2, A("10.0.0.1")), 0);
	assert_false(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_true(tbl_addr_on(t, 3, A("10.0.0.1")));
	assert_int_equal(tbl_addr_owner(t, A("10.0.0.1"), NULL)->ifindex, 3);
	tbl_count(t, &ni, &na);
	assert_int_equal(na, 2);
	tbl_iface_del(t, 3);
	assert_false(tbl_addr_on(t, 3, A("10.0.0.1")));
	assert_null(tbl_addr_owner(t, A("10.0.0.1"), NULL));
	assert_null(tbl_addr_owner(t, A("10.0.0.2"), NULL));
	tbl_count(t, &ni, &na);
	assert_int_equal(na, 0);
	tbl_free(t);
}

static bool
is_managed(const struct tbl_iface *ifp)
{
	return ifp->managed;
}

static void
test_owner_pred(void **state)
{
	struct tbl *t = tbl_new();

	(void)state;
	tbl_iface_add(t, 2);
	tbl_iface_add(t, 3)->managed = true;
	tbl_addr_add(t, 2, A("10.0.0.9"), 24);
	tbl_addr_add(t, 3, A("10.0.0.9"), 24);
	assert_int_equal(tbl_addr_owner(t, A("10.0.0.9"), is_managed)->ifindex, 3);
	tbl_iface(t, 3)->managed = false;
	/* none satisfies: some holder all the same */
	assert_non_null(tbl_addr_owner(t, A("10.0.0.9"), is_managed));
	tbl_free(t);
}

static void
test_subnet(void **state)
{
	struct tbl *t = tbl_new();
	struct tbl_iface *ifp = tbl_iface_add(t, 2);
	static const struct { const char *ip; bool in; } v[] = {
		{ "10.0.0.77", true }, { "10.0.1.1", false }, { "192.168.5.5", true },
		{ "192.168.5.4", false }, { "172.16.0.0", true }, { "172.16.0.1", true }, { "172.16.0.2", false },
		{ "172.16.0.3", false }, { "192.168.5.6", false },
	};
	size_t i;

	(void)state;
	assert_false(tbl_in_subnet(ifp, A("10.0.0.1")));
	tbl_addr_add(t, 2, A("10.0.0.1"), 24);
	tbl_addr_add(t, 2, A("192.168.5.5"), 32);
	tbl_addr_add(t, 2, A("172.16.0.1"), 31);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (tbl_in_subnet(ifp, A(v[i].ip)) != v[i].in)
			fail_msg("%s: want %d", v[i].ip, v[i].in);
	tbl_addr_add(t, 2, A("1.2.3.4"), 0);
	assert_true(tbl_in_subnet(ifp, A("8.8.8.8")));
	tbl_free(t);
}

static void
test_our_mac(void **state)
{
	struct tbl *t = tbl_new();
	uint8_t m[6] = { 2, 0, 0, 0, 0, 1 }, o[6] = { 2, 0, 0, 0, 0, 2 };

	(void)state;
	memcpy(tbl_iface_add(t, 5)->mac, m, 6);
	assert_true(tbl_is_our_mac(t, m));
	assert_false(tbl_is_our_mac(t, o));
	tbl_free(t);
}

static int nswept;

static void
swept(struct tbl_iface *ifp, uint32_t addr, void *arg)
{
	(void)arg;
	assert_int_equal(ifp->ifindex, 2);
	assert_true(addr == A("10.0.0.2") || addr == A("10.0.0.4"));
	nswept++;
}

static void
test_resync(void **state)
{
	struct tbl *t = tbl_new();
	unsigned g;

	(void)state;
	tbl_iface_add(t, 2);
	tbl_addr_add(t, 2, A("10.0.0.1"), 24);
	tbl_addr_add(t, 2, A("10.0.0.2"), 24);
	tbl_addr_add(t, 2, A("10.0.0.3"), 24);
	tbl_addr_add(t, 2, A("10.0.0.4"), 24);
	g = tbl_gen_begin(t);
	tbl_addr_seen(t, 2, A("10.0.0.1"));
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.3"), 24), 0);	/* re-add marks */
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.5"), 24), 1);	/* new in the dump */
	tbl_addr_sweep(t, g, swept, NULL);
	assert_int_equal(nswept, 2);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.2")));
	assert_true(tbl_addr_on(t, 2, A("10.0.0.3")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.4")));
	assert_true(tbl_addr_on(t, 2, A("10.0.0.5")));
	tbl_free(t);
}

/* A reference model: present[ifindex][addr index]. */
#define M_IF	50
#define M_AD	5000

static uint32_t
maddr(int i)
{
	return htonl(0x0a000000u + (uint32_t)i * 7919u);
}

static void
test_model(void **state)
{
	static bool present[M_IF + 1][M_AD];
	struct tbl *t = tbl_new();
	size_t ni, na, want = 0;
	unsigned seed = 12345;
	int op, i, a, k;

	(void)state;
	for (i = 1; i <= M_IF; i++)
		tbl_iface_add(t, i);
	for (op = 0; op < 200000; op++) {
		seed = seed * 1103515245u + 12345u;
		i = 1 + (int)((seed >> 8) % M_IF);
		a = (int)((seed >> 16) % M_AD);
		switch ((seed >> 4) % 16) {
		case 0:		/* rarely: the interface goes and comes back */
			if ((seed >> 12) % 64 == 0) {
				tbl_iface_del(t, i);
				tbl_iface_add(t, i);
				for (k = 0; k < M_AD; k++) {
					want -= present[i][k];
					present[i][k] = false;
				}
			}
			break;
		case 1: case 2: case 3: case 4: case 5: case 6: case 7:
			assert_int_equal(tbl_addr_add(t, i, maddr(a), 24), !present[i][a]);
			want += !present[i][a];
			present[i][a] = true;
			break;
		default:
			assert_int_equal(tbl_addr_del(t, i, maddr(a)), present[i][a]);
			want -= present[i][a];
			present[i][a] = false;
		}
		assert_int_equal(tbl_addr_on(t, i, maddr(a)), present[i][a]);
	}
	for (i = 1; i <= M_IF; i++)
		for (a = 0; a < M_AD; a++)
			if (tbl_addr_on(t, i, maddr(a)) != present[i][a])
				fail_msg("ifindex %d addr %d: table %d model %d", i, a,
				    tbl_addr_on(t, i, maddr(a)), present[i][a]);
	tbl_count(t, &ni, &na);
	assert_int_equal(na, want);
	for (i = 1; i <= M_IF; i++) {
		size_t n = 0;

		for (a = 0; a < M_AD; a++)
			n += present[i][a];
		assert_int_equal(tbl_iface(t, i)->naddrs, n);
	}
	tbl_free(t);
}

static void
test_scale(void **state)
{
	struct tbl *t = tbl_new();
	size_t ni, na;
	int i, j;

	(void)state;
	for (i = 1; i <= 1000; i++) {
		tbl_iface_add(t, i);
		for (j = 0; j < 100; j++)
			assert_int_equal(tbl_addr_add(t, i, htonl(0x0b000000u | (uint32_t)(i << 8 | j)), 24), 1);
	}
	tbl_count(t, &ni, &na);
	assert_int_equal(ni, 1000);
	assert_int_equal(na, 100000);
	for (i = 1; i <= 1000; i++)
		for (j = 0; j < 100; j++) {
			assert_true(tbl_addr_on(t, i, htonl(0x0b000000u | (uint32_t)(i << 8 | j))));
			assert_false(tbl_addr_on(t, i, htonl(0x0c000000u | (uint32_t)(i << 8 | j))));
			assert_false(tbl_addr_on(t, i % 1000 + 1, htonl(0x0b000000u | (uint32_t)(i << 8 | j))));
		}
	tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifaces),
		cmocka_unit_test(test_addrs),
		cmocka_unit_test(test_owner_pred),
		cmocka_unit_test(test_subnet),
		cmocka_unit_test(test_our_mac),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
