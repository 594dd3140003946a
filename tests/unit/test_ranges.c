/* test_ranges.c — address sets as ranges: parsing, excludes, merging and
 * lookups against a bitmap model, overlap, counts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "ranges.h"

/* Each set with the first martian it holds ("" for none). */
static void
test_martian(void **state)
{
	static const struct { const char *items, *first; } v[] = {
		{ "10.0.0.0/8", "" }, { "1.0.0.0-126.255.255.255", "" },
		{ "128.0.0.0-223.255.255.255", "" }, { "240.0.0.0-255.255.255.254", "" },
		{ "0.0.0.5", "" }, { "9.255.255.0/24 0.255.255.255", "" },
		{ "0.0.0.0", "0.0.0.0" }, { "0.0.0.0/8", "0.0.0.0" }, { "0.1.2.0/24", "" },
		{ "126.255.255.255-127.0.0.1", "127.0.0.0" }, { "224.0.0.251", "224.0.0.251" },
		{ "223.255.254.0/23", "" }, { "223.255.255.0-224.0.0.0", "224.0.0.0" },
		{ "255.255.255.255", "255.255.255.255" }, { "0.0.0.0/0", "0.0.0.0" },
		{ "224.0.0.0/4 !224.0.0.0/4 10.0.0.1", "" },
	};
	char buf[64], *tok, *save;
	struct rng r;
	const char *why;
	struct in_addr a;
	uint32_t at;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&r, 0, sizeof(r));
		snprintf(buf, sizeof(buf), "%s", v[i].items);
		for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			assert_int_equal(rng_add_item(&r, tok, &why), 0);
		assert_int_equal(rng_finish(&r), 0);
		if (!rng_martian(&r, &at)) {
			if (*v[i].first != '\0')
				fail_msg("%s: no martian found, want %s", v[i].items, v[i].first);
		} else {
			a.s_addr = htonl(at);
			if (strcmp(inet_ntoa(a), v[i].first) != 0)
				fail_msg("%s: martian %s, want \"%s\"", v[i].items, inet_ntoa(a),
				    v[i].first);
		}
		rng_clear(&r);
	}
}

static void
test_items(void **state)
{
	static const struct { const char *item; int ok; } v[] = {
		{ "10.0.0.1", 1 }, { "10.0.1.0/28", 1 }, { "10.0.2.10-10.0.2.20", 1 },
		{ "!10.0.1.5", 1 }, { "0.0.0.0/0", 1 }, { "10.0.0.0/32", 1 },
		{ "10.0.1.1/28", 0 },		/* host bits */
		{ "10.0.0.0/33", 0 }, { "10.0.0.0/", 0 }, { "10.0.0.0/-1", 0 },
		{ "10.0.0.0/024", 0 }, { "10.0.2.20-10.0.2.10", 0 }, { "10.0.0", 0 },
		{ "10.0.0.256", 0 }, { "", 0 }, { "!", 0 }, { "a.b.c.d", 0 },
		{ "10.0.0.1-", 0 }, { "1.2.3.4 ", 0 }, { "010.0.0.1", 0 },
	};
	struct rng r;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&r, 0, sizeof(r));
		why = NULL;
		if ((rng_add_item(&r, v[i].item, &why) == 0) != v[i].ok)
			fail_msg("\"%s\": %s, want %s", v[i].item, why ? why : "accepted",
			    v[i].ok ? "accepted" : "refused");
		if (!v[i].ok)
			assert_non_null(why);
		rng_clear(&r);
	}
}

static uint32_t
A(const char *s)
{
	uint32_t a;

	inet_pton(AF_INET, s, &a);
	return a;
}

static void
test_publish_example(void **state)
{
	static const char *const items[] = { "10.0.0.50", "10.0.1.0/28", "10.0.2.10-10.0.2.20",
	    "!10.0.1.5", "!10.0.2.15-10.0.2.30" };
	struct rng r, o;
	const char *why;
	uint32_t at;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 5; i++)
		assert_int_equal(rng_add_item(&r, items[i], &why), 0);
	assert_int_equal(rng_finish(&r), 0);
	assert_true(rng_has(&r, A("10.0.0.50")));
	assert_false(rng_has(&r, A("10.0.0.51")));
	assert_true(rng_has(&r, A("10.0.1.0")));
	assert_true(rng_has(&r, A("10.0.1.15")));
	assert_false(rng_has(&r, A("10.0.1.5")));
	assert_false(rng_has(&r, A("10.0.1.16")));
	assert_true(rng_has(&r, A("10.0.2.14")));
	assert_false(rng_has(&r, A("10.0.2.15")));
	assert_int_equal(rng_count(&r), 1 + 15 + 5);
	/* a million addresses, a few bytes */
	memset(&o, 0, sizeof(o));
	assert_int_equal(rng_add_item(&o, "10.16.0.0/12", &why), 0);
	assert_int_equal(rng_finish(&o), 0);
	assert_int_equal(rng_count(&o), 1 << 20);
	assert_int_equal(o.n, 1);
	assert_false(rng_overlap(&r, &o, &at));
	assert_int_equal(rng_add_item(&o, "10.0.1.8-10.0.1.9", &why), 0);
	assert_int_equal(rng_finish(&o), 0);
	assert_true(rng_overlap(&r, &o, &at));
	assert_int_equal(at, ntohl(A("10.0.1.8")));
	rng_clear(&r);
	rng_clear(&o);
}

/* Random items over 10.0.0.0/20 against a bitmap, excludes included. */
static void
test_model(void **state)
{
	static uint8_t in[4096], ex[4096];
	unsigned seed = 4242;
	int round, k, i;

	(void)state;
	for (round = 0; round < 200; round++) {
		struct rng r;
		const char *why;
		char item[48];

		memset(&r, 0, sizeof(r));
		memset(in, 0, sizeof(in));
		memset(ex, 0, sizeof(ex));
		for (k = 0; k < 1 + (int)(seed % 12); k++) {
			unsigned a, b, plen, kind, neg;

			seed = seed * 1103515245u + 12345u;
			a = (seed >> 8) % 4096;
			b = a + (seed >> 20) % 300;
			if (b > 4095)
				b = 4095;
			kind = (seed >> 4) % 3;
			neg = (seed >> 6) % 4 == 0;
			plen = 24 + (seed >> 12) % 9;
			if (kind == 1)
				a &= ~((1u << (32 - plen)) - 1) & 0xfff;
			if (kind == 0)
				snprintf(item, sizeof(item), "%s10.0.%u.%u", neg ? "!" : "", a >> 8, a & 255);
			else if (kind == 1)
				snprintf(item, sizeof(item), "%s10.0.%u.%u/%u", neg ? "!" : "", a >> 8,
				    a & 255, plen);
			else
				snprintf(item, sizeof(item), "%s10.0.%u.%u-10.0.%u.%u", neg ? "!" : "",
				    a >> 8, a & 255, b >> 8, b & 255);
			assert_int_equal(rng_add_item(&r, item, &why), 0);
			if (kind == 0)
				b = a;
			else if (kind == 1)
				b = a + (1u << (32 - plen)) - 1;
			for (i = (int)a; i <= (int)b && i < 4096; i++)
				(neg ? ex : in)[i] = 1;
		}
		assert_int_equal(rng_finish(&r), 0);
		for (i = 0; i < 4096; i++) {
			bool want = in[i] && !ex[i];

			if (rng_has(&r, htonl(0x0a000000u + (uint32_t)i)) != want)
				fail_msg("round %d: 10.0.%d.%d: %d, want %d", round, i >> 8, i & 255,
				    !want, want);
		}
		for (i = 1; i < (int)r.n; i++)
			assert_true(r.v[i].lo > r.v[i - 1].hi + 1);	/* merged */
		rng_clear(&r);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_martian),
		cmocka_unit_test(test_publish_example),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
