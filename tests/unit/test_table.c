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

/* An address whose subnet is its own (not point-to-point). */
#define ADD(t, i, a, plen)	tbl_addr_add((t), (i), A(a), A(a), (plen))
#define DEL(t, i, a, plen)	tbl_addr_del((t), (i), A(a), A(a), (plen))

static void
test_addrs(void **state)
{
	struct tbl *t = tbl_new();
	size_t ni, na;

	(void)state;
	tbl_iface_add(t, 2);
	tbl_iface_add(t, 3);
	assert_int_equal(ADD(t, 9, "10.0.0.1", 24), -1);
	assert_int_equal(ADD(t, 2, "10.0.0.1", 33), -1);
	assert_int_equal(ADD(t, 2, "10.0.0.1", 24), 1);
	assert_int_equal(ADD(t, 2, "10.0.0.1", 24), 0);
	assert_int_equal(ADD(t, 3, "10.0.0.2", 24), 1);
	/* the same address on two interfaces */
	assert_int_equal(ADD(t, 3, "10.0.0.1", 24), 1);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_true(tbl_addr_on(t, 3, A("10.0.0.1")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.2")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.3")));
	assert_int_equal(DEL(t, 2, "10.0.0.1", 24), 1);
	assert_int_equal(DEL(t, 2, "10.0.0.1", 24), 0);
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

/* Issue 7.1: one address with two prefixes.  Deleting one prefix leaves
 * the address owned; each prefix counts for the subnet test. */
static void
test_two_prefixes(void **state)
{
	struct tbl *t = tbl_new();
	struct tbl_iface *ifp = tbl_iface_add(t, 2);
	size_t ni, na;

	(void)state;
	assert_int_equal(ADD(t, 2, "10.0.0.1", 24), 1);
	assert_int_equal(ADD(t, 2, "10.0.0.1", 16), 1);
	assert_int_equal(ifp->naddrs, 2);
	assert_true(tbl_covers(t, ifp, A("10.0.0.1"), A("10.0.200.1")));	/* by the /16 */
	/* a prefix that is not there is not deleted, and deletes nothing */
	assert_int_equal(DEL(t, 2, "10.0.0.1", 8), 0);
	assert_int_equal(DEL(t, 2, "10.0.0.1", 16), 1);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_non_null(tbl_addr_owner(t, A("10.0.0.1"), NULL));
	assert_false(tbl_covers(t, ifp, A("10.0.0.1"), A("10.0.200.1")));
	assert_true(tbl_covers(t, ifp, A("10.0.0.1"), A("10.0.0.200")));
	tbl_count(t, &ni, &na);
	assert_int_equal(na, 1);
	assert_int_equal(DEL(t, 2, "10.0.0.1", 24), 1);
	assert_false(tbl_addr_on(t, 2, A("10.0.0.1")));
	/* point-to-point: one local address towards two peers, both /32 */
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.1"), A("10.9.0.1"), 32), 1);
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.1"), A("10.9.0.2"), 32), 1);
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.1"), A("10.9.0.2"), 32), 0);
	/* the subnet is the peer's: the local address lies outside it */
	assert_false(tbl_covers(t, ifp, A("10.0.0.1"), A("10.0.0.1")));
	assert_true(tbl_covers(t, ifp, A("10.9.0.2"), A("10.9.0.2")));
	assert_int_equal(tbl_addr_del(t, 2, A("10.0.0.1"), A("10.9.0.1"), 32), 1);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	/* the kernel's identity is the subnet, not the exact prefix address */
	assert_int_equal(ADD(t, 2, "10.0.0.5", 24), 1);
	assert_int_equal(tbl_addr_add(t, 2, A("10.0.0.5"), A("10.0.0.77"), 24), 0);
	assert_int_equal(tbl_addr_del(t, 2, A("10.0.0.5"), A("10.0.0.9"), 24), 1);
	assert_false(tbl_addr_on(t, 2, A("10.0.0.5")));
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
	ADD(t, 2, "10.0.0.9", 24);
	ADD(t, 3, "10.0.0.9", 24);
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
	assert_false(tbl_in_subnet(t, ifp, A("10.0.0.1")));
	ADD(t, 2, "10.0.0.1", 24);
	ADD(t, 2, "192.168.5.5", 32);
	ADD(t, 2, "172.16.0.1", 31);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (tbl_in_subnet(t, ifp, A(v[i].ip)) != v[i].in)
			fail_msg("%s: want %d", v[i].ip, v[i].in);
	ADD(t, 2, "1.2.3.4", 0);
	assert_true(tbl_in_subnet(t, ifp, A("8.8.8.8")));
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
swept(struct tbl_iface *ifp, const struct tbl_addr *e, void *arg)
{
	(void)arg;
	assert_int_equal(ifp->ifindex, 2);
	assert_true((e->addr == A("10.0.0.2") && e->plen == 24) ||
	    (e->addr == A("10.0.0.4") && e->plen == 24) ||
	    (e->addr == A("10.0.0.3") && e->plen == 16));
	nswept++;
}

static void
test_resync(void **state)
{
	struct tbl *t = tbl_new();
	unsigned g;

	(void)state;
	tbl_iface_add(t, 2);
	ADD(t, 2, "10.0.0.1", 24);
	ADD(t, 2, "10.0.0.2", 24);
	ADD(t, 2, "10.0.0.3", 24);
	ADD(t, 2, "10.0.0.3", 16);
	ADD(t, 2, "10.0.0.4", 24);
	g = tbl_gen_begin(t);
	assert_int_equal(ADD(t, 2, "10.0.0.1", 24), 0);	/* re-add marks */
	assert_int_equal(ADD(t, 2, "10.0.0.3", 24), 0);
	assert_int_equal(ADD(t, 2, "10.0.0.5", 24), 1);	/* new in the dump */
	tbl_addr_sweep(t, g, swept, NULL);
	assert_int_equal(nswept, 3);
	assert_true(tbl_addr_on(t, 2, A("10.0.0.1")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.2")));
	/* its /16 went, its /24 stays */
	assert_true(tbl_addr_on(t, 2, A("10.0.0.3")));
	assert_false(tbl_covers(t, tbl_iface(t, 2), A("10.0.0.3"), A("10.0.9.9")));
	assert_false(tbl_addr_on(t, 2, A("10.0.0.4")));
	assert_true(tbl_addr_on(t, 2, A("10.0.0.5")));
	assert_int_equal(tbl_iface(t, 2)->naddrs, 3);
	tbl_free(t);
}

/*
 * A reference model of everything the kernel can hold: entries (ifindex,
 * address, prefix length, subnet), the same address on several
 * interfaces and on one interface several times, with other prefixes and
 * with peers.  The peers lie in /8s of their own, so that no two subnet
 * choices of one address coincide under any mask used here.
 */
#define M_IF	12
#define M_AD	48
#define M_PL	4
#define M_PK	4	/* the address's own subnet, or one of three peers */

static const uint8_t mplen[M_PL] = { 8, 16, 24, 32 };
static bool present[M_IF + 1][M_AD][M_PL][M_PK];

static uint32_t
maddr(int a)
{
	return htonl(0x0a000000u + (uint32_t)a * 4099u);	/* 10/8 */
}

static uint32_t
mprefix(int a, int pk)
{
	static const uint32_t peer[M_PK] = { 0, 0x64000001u, 0xac100001u, 0xc0a80001u };

	return pk == 0 ? maddr(a) : htonl(peer[pk] + (uint32_t)a);
}

static bool
m_holds(uint32_t ip, int a, int pl, int pk)
{
	uint32_t mask = htonl(0xffffffffu << (32 - mplen[pl]));

	return ((ip ^ mprefix(a, pk)) & mask) == 0;
}

static bool
m_on(int i, int a)
{
	int pl, pk;

	for (pl = 0; pl < M_PL; pl++)
		for (pk = 0; pk < M_PK; pk++)
			if (present[i][a][pl][pk])
				return true;
	return false;
}

static bool
m_covers(int i, uint32_t x, uint32_t y)
{
	int a, pl, pk;

	for (a = 0; a < M_AD; a++)
		for (pl = 0; pl < M_PL; pl++)
			for (pk = 0; pk < M_PK; pk++)
				if (present[i][a][pl][pk] && m_holds(x, a, pl, pk) &&
				    m_holds(y, a, pl, pk))
					return true;
	return false;
}

static size_t
m_count(int i)
{
	size_t n = 0;
	int a, pl, pk;

	for (a = 0; a < M_AD; a++)
		for (pl = 0; pl < M_PL; pl++)
			for (pk = 0; pk < M_PK; pk++)
				n += present[i][a][pl][pk];
	return n;
}

/* Compare everything the table answers with the model's answer. */
static void
m_check(struct tbl *t, unsigned seed)
{
	size_t ni, na, want = 0;
	uint32_t x, y;
	int i, a, j;

	for (i = 1; i <= M_IF; i++) {
		const struct tbl_iface *ifp = tbl_iface(t, i);
		size_t k;

		want += m_count(i);
		assert_int_equal(ifp->naddrs, m_count(i));
		/* subnets and peers first, the /32s that hold only themselves after */
		for (k = 0; k < ifp->naddrs; k++) {
			const struct tbl_addr *e = &ifp->addrs[k];
			bool nar = e->plen == 32 && e->prefix == e->addr;

			if (nar != (k >= ifp->nwide))
				fail_msg("ifindex %d entry %zu: %s, but nwide %zu", i, k,
				    nar ? "narrow" : "wide", ifp->nwide);
		}
		for (a = 0; a < M_AD; a++)
			if (tbl_addr_on(t, i, maddr(a)) != m_on(i, a))
				fail_msg("ifindex %d addr %d: table %d model %d", i, a,
				    tbl_addr_on(t, i, maddr(a)), m_on(i, a));
		for (j = 0; j < 32; j++) {
			seed = seed * 1103515245u + 12345u;
			a = (int)((seed >> 8) % M_AD);
			x = (seed >> 20) & 1 ? maddr(a) : mprefix(a, 1 + (int)((seed >> 21) % 3));
			y = x ^ htonl((seed >> 4) & ((seed >> 24) & 1 ? 0xffffu : 0xffu));
			if (tbl_covers(t, tbl_iface(t, i), x, y) != m_covers(i, x, y))
				fail_msg("ifindex %d covers %08x %08x: table %d model %d", i,
				    ntohl(x), ntohl(y), tbl_covers(t, tbl_iface(t, i), x, y),
				    m_covers(i, x, y));
		}
	}
	for (a = 0; a < M_AD; a++) {
		bool any = false;

		for (i = 1; i <= M_IF; i++)
			any |= m_on(i, a);
		assert_int_equal(tbl_addr_owner(t, maddr(a), NULL) != NULL, any);
	}
	tbl_count(t, &ni, &na);
	assert_int_equal(ni, M_IF);
	assert_int_equal(na, want);
}

static void
test_model(void **state)
{
	struct tbl *t = tbl_new();
	unsigned seed = 12345, g = 0;
	int op, i, a, pl, pk;
	bool *p;

	(void)state;
	memset(present, 0, sizeof(present));
	for (i = 1; i <= M_IF; i++)
		tbl_iface_add(t, i);
	for (op = 0; op < 200000; op++) {
		seed = seed * 1103515245u + 12345u;
		i = 1 + (int)((seed >> 8) % M_IF);
		a = (int)((seed >> 12) % M_AD);
		pl = (int)((seed >> 18) % M_PL);
		pk = (int)((seed >> 22) % M_PK);
		p = &present[i][a][pl][pk];
		switch ((seed >> 26) % 16) {
		case 0:		/* rarely: the interface goes and comes back */
			if ((seed >> 3) % 64 == 0) {
				tbl_iface_del(t, i);
				tbl_iface_add(t, i);
				memset(present[i], 0, sizeof(present[i]));
			}
			break;
		case 1:		/* rarely: a re-dump that sees all but one entry */
			if ((seed >> 3) % 64 == 0) {
				unsigned gen = tbl_gen_begin(t);
				int ii, aa, ll, kk;

				for (ii = 1; ii <= M_IF; ii++)
					for (aa = 0; aa < M_AD; aa++)
						for (ll = 0; ll < M_PL; ll++)
							for (kk = 0; kk < M_PK; kk++)
								if (present[ii][aa][ll][kk] &&
								    !(ii == i && aa == a && ll == pl && kk == pk))
									assert_int_equal(tbl_addr_add(t, ii, maddr(aa),
									    mprefix(aa, kk), mplen[ll]), 0);
				tbl_addr_sweep(t, gen, NULL, NULL);
				*p = false;
				g++;
			}
			break;
		case 2: case 3: case 4: case 5: case 6: case 7: case 8:
			assert_int_equal(tbl_addr_add(t, i, maddr(a), mprefix(a, pk), mplen[pl]), !*p);
			*p = true;
			break;
		default:
			assert_int_equal(tbl_addr_del(t, i, maddr(a), mprefix(a, pk), mplen[pl]), *p);
			*p = false;
		}
		assert_int_equal(tbl_addr_on(t, i, maddr(a)), m_on(i, a));
		if (op % 5000 == 0)
			m_check(t, seed);
	}
	m_check(t, seed);
	assert_true(g > 0);
	tbl_free(t);
}

/* 50,000 VIPs and one subnet: the subnet test never walks the VIPs. */
static void
test_many_vips(void **state)
{
	struct tbl *t = tbl_new();
	struct tbl_iface *ifp = tbl_iface_add(t, 2);
	uint32_t i, a;

	(void)state;
	for (i = 0; i < 50000; i++) {
		a = htonl(0x0b000000u + i);
		assert_int_equal(tbl_addr_add(t, 2, a, a, 32), 1);
	}
	assert_int_equal(ADD(t, 2, "10.0.0.1", 24), 1);
	assert_int_equal(ifp->nwide, 1);
	assert_true(tbl_covers(t, ifp, htonl(0x0b000000u + 49999), htonl(0x0b000000u + 49999)));
	assert_true(tbl_covers(t, ifp, A("10.0.0.1"), A("10.0.0.99")));
	assert_false(tbl_covers(t, ifp, htonl(0x0b000000u + 7), A("10.0.0.99")));
	/* deleting the subnet and a VIP keeps the order */
	assert_int_equal(DEL(t, 2, "10.0.0.1", 24), 1);
	assert_int_equal(ifp->nwide, 0);
	a = htonl(0x0b000000u + 3);
	assert_int_equal(tbl_addr_del(t, 2, a, a, 32), 1);
	assert_false(tbl_addr_on(t, 2, a));
	assert_true(tbl_addr_on(t, 2, htonl(0x0b000000u + 49999)));
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
			assert_int_equal(tbl_addr_add(t, i, htonl(0x0b000000u | (uint32_t)(i << 8 | j)),
			    htonl(0x0b000000u | (uint32_t)(i << 8 | j)), 24), 1);
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

/* The layouts a host really has — whole subnets in network byte order,
 * a VIP on a few links, thousands of links — must each keep every
 * lookup short (an address on several links is one cluster by design:
 * tbl_addr_owner walks it).  A hash that multiplied without mixing down sent all of
 * 10.0.0.0/24 to one home slot: a 253-long probe at 256 slots. */
static void
test_probe_length(void **state)
{
	struct tbl *t;
	uint32_t h;
	int i;

	(void)state;
	/* a /24 on one link, filled host by host */
	t = tbl_new();
	assert_non_null(tbl_iface_add(t, 2));
	for (h = 1; h < 255; h++)
		assert_int_equal(tbl_addr_add(t, 2, htonl(0x0a000000u | h), htonl(0x0a000000u), 24), 1);
	assert_true(tbl_probe_max(t) <= 12);
	tbl_free(t);

	/* a /16 published on one link: 65,534 entries */
	t = tbl_new();
	assert_non_null(tbl_iface_add(t, 7));
	for (h = 1; h < 0xffff; h++)
		assert_int_equal(tbl_addr_add(t, 7, htonl(0xac100000u | h), htonl(h | 0xac100000u), 32), 1);
	assert_true(tbl_probe_max(t) <= 40);
	tbl_free(t);

	/* 1,000 links with a /24 each, and one address (a VIP) on four */
	t = tbl_new();
	for (i = 1; i <= 1000; i++) {
		assert_non_null(tbl_iface_add(t, i));
		if (i <= 4)
			assert_int_equal(tbl_addr_add(t, i, htonl(0xc0a80001u), htonl(0xc0a80000u), 24), 1);
		assert_int_equal(tbl_addr_add(t, i, htonl(0x0a000000u | (uint32_t)i << 8 | 1),
		    htonl(0x0a000000u | (uint32_t)i << 8), 24), 1);
	}
	assert_true(tbl_probe_max(t) <= 24);
	tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifaces),
		cmocka_unit_test(test_addrs),
		cmocka_unit_test(test_two_prefixes),
		cmocka_unit_test(test_owner_pred),
		cmocka_unit_test(test_subnet),
		cmocka_unit_test(test_our_mac),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_many_vips),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_probe_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
