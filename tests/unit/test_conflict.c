/* test_conflict.c — conflict logging: once per address per interval,
 * bounded memory, a global budget, no eviction of young records. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <net/if.h>
#include <stdio.h>

#include "conflict.h"
#include "conf.h"
#include "policy.h"
#include "publish.h"
#include "table.h"
#include "throttle.h"

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
	struct cfl_rec *r;
	int i, logged = 0;

	(void)state;
	for (i = 0; i < 100; i++)
		logged += cfl_note(c, A("10.0.0.1"), 2, M1, 100.0 + i * 0.01, &r);
	assert_int_equal(logged, 1);
	assert_non_null(r);
	assert_int_equal(r->count, 100);
	assert_int_equal(cfl_suppressed(c), 99);
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

/* n-acd's policies, on a claim that comes back every second for 25 s. */
static void
test_defend(void **state)
{
	static const struct { int policy; int defences; int give_ups; } v[] = {
		{ 0, 0, 0 },	/* never */
		{ 1, 1, 1 },	/* once: one defence, then it persisted: given up */
		{ 2, 3, 0 },	/* always: at 0, 10 and 20 s */
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		struct cfl *c = cfl_new(64);
		struct cfl_rec *r;
		int i, d = 0, g = 0;

		for (i = 0; i < 25; i++) {
			cfl_note(c, A("10.0.0.1"), 2, M1, 100.0 + i, &r);
			switch (cfl_defend(r, v[k].policy, 100.0 + i)) {
			case CFL_DEFEND: d++; break;
			case CFL_GIVE_UP: g++; break;
			case CFL_IGNORE: break;
			}
		}
		if (d != v[k].defences || g != v[k].give_ups)
			fail_msg("policy %d: %d defences, %d give-ups; want %d, %d",
			    v[k].policy, d, g, v[k].defences, v[k].give_ups);
		cfl_free(c);
	}
}

/* defend = once: a claim that stops for an interval is a new conflict. */
static void
test_defend_once_again(void **state)
{
	struct cfl *c = cfl_new(64);
	struct cfl_rec *r;

	(void)state;
	cfl_note(c, A("10.0.0.1"), 2, M1, 100.0, &r);
	assert_int_equal(cfl_defend(r, 1, 100.0), CFL_DEFEND);
	cfl_note(c, A("10.0.0.1"), 2, M1, 101.0, &r);
	assert_int_equal(cfl_defend(r, 1, 101.0), CFL_GIVE_UP);
	cfl_note(c, A("10.0.0.1"), 2, M1, 102.0, &r);
	assert_int_equal(cfl_defend(r, 1, 102.0), CFL_IGNORE);
	/* quiet from 102 to 115 s: defended again */
	cfl_note(c, A("10.0.0.1"), 2, M1, 115.0, &r);
	assert_int_equal(cfl_defend(r, 1, 115.0), CFL_DEFEND);
	cfl_free(c);
}

/* The throttle on its own: a key's line once per interval, colliding keys
 * independent, the budget per interval, suppressed lines counted. */
static void
test_throttle(void **state)
{
	struct thr *t = thr_new(16, 10.0, 3);
	unsigned quiet;
	uint64_t k;
	int n = 0;

	(void)state;
	assert_true(thr_allow(t, 1, 100.0, &quiet));
	assert_false(thr_allow(t, 1, 105.0, &quiet));
	assert_false(thr_allow(t, 1, 109.9, &quiet));
	assert_true(thr_allow(t, 1, 110.0, &quiet));
	assert_int_equal(quiet, 2);
	/* budget: 3 lines an interval, whatever the keys */
	for (k = 100; k < 200; k++)
		n += thr_allow(t, k, 111.0, NULL);
	assert_int_equal(n, 2);		/* key 1 used one of the three */
	assert_true(thr_suppressed(t) >= 98);
	thr_free(t);
}

/* A claim storm on many addresses, each claim defended: the claims' lines
 * and the defences' share CFL_LINES per interval in all; each address's
 * defence line once per interval. */
static void
test_log_more_shares_budget(void **state)
{
	struct cfl *c = cfl_new(4096);
	struct cfl_rec *r;
	uint32_t i;
	int lines = 0;

	(void)state;
	for (i = 0; i < 2048; i++) {
		uint32_t a = htonl(0x0a000800u + i);

		lines += cfl_note(c, a, 2, M1, 100.0 + i * 0.001, &r);
		lines += cfl_log_more(c, a, CFL_LINE_DEFENDED, 100.0 + i * 0.001);
	}
	assert_int_equal(lines, CFL_LINES);
	/* the next interval: lines again */
	assert_true(cfl_log_more(c, htonl(0x0a000800u), CFL_LINE_DEFENDED, 100.0 + CFL_INTERVAL + 3));
	assert_false(cfl_log_more(c, htonl(0x0a000800u), CFL_LINE_DEFENDED, 100.0 + CFL_INTERVAL + 3.5));
	/* the other kind about the same address is a line of its own */
	assert_true(cfl_log_more(c, htonl(0x0a000800u), CFL_LINE_GAVE_UP, 100.0 + CFL_INTERVAL + 4));
	cfl_free(c);
}

/* cfl_judge: which frames are claims, which are defended, with what. */
static void
test_judge(void **state)
{
	static const uint8_t J0[6] = { 2, 0, 0, 0, 0, 0x10 }, J1[6] = { 2, 0, 0, 0, 0, 0x11 },
	    F[6] = { 2, 0, 0, 0, 0, 0xf1 }, V[6] = { 2, 0xee, 0, 0, 0, 0x50 };
	static const struct {
		const char	*what;
		int		 in;		/* arrival ifindex */
		const char	*sip;
		const uint8_t	*sha;
		int		 mode;		/* of the arrival interface */
		unsigned	 flags;
		bool		 claim;
		bool		 holder;	/* another interface named */
		enum cfl_action	 action;
		const uint8_t	*mac;		/* CFL_DEFEND with */
	} v[] = {
		{ "ours on in", 2, "10.0.0.1", F, POL_OWNER, 3, true, false, CFL_DEFEND, J0 },
		{ "the other's", 2, "10.0.0.2", F, POL_OWNER, 3, true, true, CFL_IGNORE, NULL },
		{ "our own MAC", 2, "10.0.0.1", J1, POL_OWNER, 3, false, false, CFL_IGNORE, NULL },
		{ "a probe", 2, "0.0.0.0", F, POL_OWNER, 3, false, false, CFL_IGNORE, NULL },
		{ "not ours", 2, "10.0.0.9", F, POL_OWNER, 3, false, false, CFL_IGNORE, NULL },
		{ "published", 2, "10.0.0.50", F, POL_OWNER, 3, true, false, CFL_DEFEND, V },
		{ "published, its MAC", 2, "10.0.0.50", V, POL_OWNER, 3, false, false,
		    CFL_IGNORE, NULL },
		{ "published elsewhere", 3, "10.0.0.50", F, POL_OWNER, 3, false, false,
		    CFL_IGNORE, NULL },
		{ "monitor", 2, "10.0.0.1", F, POL_MONITOR, 3, true, false, CFL_IGNORE, NULL },
		{ "off", 2, "10.0.0.1", F, POL_OFF, 3, true, false, CFL_IGNORE, NULL },
		{ "link down", 2, "10.0.0.1", F, POL_OWNER, 1, true, false, CFL_IGNORE, NULL },
	};
	struct cfl_judgement j;
	struct pub_entry e;
	struct arp_req req;
	struct pub *p = pub_new();
	const char *why;
	char err[128];
	size_t i;

	(void)state;
	assert_int_equal(pub_runtime_make(&e, 0x0a000032, 32, "eth0", &why), 0);
	memcpy(e.mac, V, 6);
	e.has_mac = true;
	assert_int_equal(pub_add(p, &e, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tbl *t = tbl_new();
		struct cfl *c = cfl_new(16);
		struct tbl_iface *a = tbl_iface_add(t, 2), *b = tbl_iface_add(t, 3);
		uint32_t x;

		snprintf(a->name, IF_NAMESIZE, "eth0");
		snprintf(b->name, IF_NAMESIZE, "eth1");
		memcpy(a->mac, J0, 6);
		memcpy(b->mac, J1, 6);
		a->managed = b->managed = true;
		a->defend = b->defend = CONF_DEFEND_ALWAYS;
		b->flags = IFF_UP | IFF_RUNNING;
		a->mode = b->mode = v[i].mode;
		a->flags = b->flags = v[i].flags == 3 ? IFF_UP | IFF_RUNNING : IFF_UP;
		inet_pton(AF_INET, "10.0.0.1", &x);
		tbl_addr_add(t, 2, x, x, 24);
		inet_pton(AF_INET, "10.0.0.2", &x);
		tbl_addr_add(t, 3, x, x, 24);
		memset(&req, 0, sizeof(req));
		req.ifindex = v[i].in;
		req.op = 2;
		memcpy(req.sha, v[i].sha, 6);
		inet_pton(AF_INET, v[i].sip, &req.sip);
		cfl_judge(c, t, p, &req, tbl_iface(t, v[i].in), 100.0, &j);
		if (j.claim != v[i].claim || (j.holder != NULL) != v[i].holder ||
		    j.action != v[i].action ||
		    (v[i].mac != NULL && (j.mac == NULL || memcmp(j.mac, v[i].mac, 6) != 0)))
			fail_msg("%s: claim %d holder %d action %d", v[i].what, j.claim,
			    j.holder != NULL, j.action);
		if (j.claim)
			assert_true(j.log);	/* the first claim is reported */
		cfl_free(c);
		tbl_free(t);
	}
	pub_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_per_interval),
		cmocka_unit_test(test_no_young_eviction),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_defend),
		cmocka_unit_test(test_defend_once_again),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_log_more_shares_budget),
		cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
