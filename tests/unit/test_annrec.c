/* test_annrec.c — the record of what a run announced: written as ranges,
 * read back, looked up by interface, MAC and address; what is not ours
 * left out. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "annrec.h"

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static uint32_t
ip(const char *s)
{
	return inet_addr(s);
}

static void
test_round_trip(void **state)
{
	uint32_t v[] = { 0x0a000005, 0x0a000001, 0x0a000002, 0x0a000003, 0x0a000003,
	    0xc0a80001, 0xffffffff };
	uint32_t w[] = { 0x0a000101 };
	char *buf = NULL;
	size_t len = 0, cap = 0, bad;
	struct annrec *r;

	(void)state;
	assert_int_equal(annrec_line(&buf, &len, &cap, "eth0", mac_a, v, 7), 0);
	assert_int_equal(annrec_line(&buf, &len, &cap, "eth1", mac_b, w, 1), 0);
	/* nothing announced: no line */
	assert_int_equal(annrec_line(&buf, &len, &cap, "eth2", mac_b, w, 0), 0);
	assert_string_equal(buf, "eth0 02:00:00:00:00:0a a000001-a000003 a000005 c0a80001 ffffffff\n"
	    "eth1 02:00:00:00:00:0b a000101\n");
	assert_int_equal(strlen(buf), len);
	r = annrec_parse(buf, len, &bad);
	assert_non_null(r);
	assert_int_equal(bad, 0);
	assert_int_equal(annrec_count(r), 2);
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.1")));
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.2")));
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.3")));
	assert_false(annrec_has(r, "eth0", mac_a, ip("10.0.0.4")));
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.5")));
	assert_true(annrec_has(r, "eth0", mac_a, ip("255.255.255.255")));
	assert_true(annrec_has(r, "eth0", mac_a, ip("192.168.0.1")));
	/* the same address from another interface, or with another MAC, moved */
	assert_false(annrec_has(r, "eth1", mac_b, ip("10.0.0.1")));
	assert_false(annrec_has(r, "eth0", mac_b, ip("10.0.0.1")));
	assert_false(annrec_has(r, "eth9", mac_a, ip("10.0.0.1")));
	assert_true(annrec_has(r, "eth1", mac_b, ip("10.0.1.1")));
	assert_false(annrec_has(NULL, "eth1", mac_b, ip("10.0.1.1")));
	annrec_free(r);
	free(buf);
}

/* Lines not as written are left out, each counted; the others stay. */
static void
test_bad_lines(void **state)
{
	static const char text[] =
	    "eth0 02:00:00:00:00:0a a000001\n"
	    "eth1 02:00:00:00:00 a000001\n"			/* short MAC */
	    "eth2 02:00:00:00:00:0b zz\n"			/* not hex */
	    "eth3 02:00:00:00:00:0b a000005-a000001\n"		/* backwards */
	    "eth4 02:00:00:00:00:0b a000005 a000001\n"		/* unsorted */
	    "eth5 02:00:00:00:00:0b 1a000000000\n"		/* past 32 bits */
	    "averyveryverylongname 02:00:00:00:00:0b a000001\n"
	    "eth6 02:00:00:00:00:0b a000001\n"
	    "eth6 02:00:00:00:00:0b a000002\n"			/* a name twice */
	    "eth7\n"
	    "\n"
	    "eth8 02:00:00:00:00:0b\n";				/* none announced */
	struct annrec *r;
	size_t bad;

	(void)state;
	r = annrec_parse(text, sizeof(text) - 1, &bad);
	assert_non_null(r);
	assert_int_equal(bad, 9);
	assert_int_equal(annrec_count(r), 2);
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.1")));
	assert_false(annrec_has(r, "eth6", mac_b, ip("10.0.0.1")));
	assert_false(annrec_has(r, "eth8", mac_b, ip("10.0.0.1")));
	annrec_free(r);
	/* empty */
	r = annrec_parse("", 0, &bad);
	assert_non_null(r);
	assert_int_equal(bad, 0);
	assert_int_equal(annrec_count(r), 0);
	annrec_free(r);
}

/* One interface, two MACs (its own, a [publish] section's): a line each,
 * each address found only with the MAC it was announced with. */
static void
test_two_macs(void **state)
{
	static const char text[] =
	    "eth0 02:00:00:00:00:0b a000032\n"
	    "eth0 02:00:00:00:00:0a a000001\n";
	struct annrec *r;
	size_t bad;

	(void)state;
	r = annrec_parse(text, sizeof(text) - 1, &bad);
	assert_non_null(r);
	assert_int_equal(bad, 0);
	assert_int_equal(annrec_count(r), 2);
	assert_true(annrec_has(r, "eth0", mac_a, ip("10.0.0.1")));
	assert_true(annrec_has(r, "eth0", mac_b, ip("10.0.0.50")));
	assert_false(annrec_has(r, "eth0", mac_a, ip("10.0.0.50")));
	assert_false(annrec_has(r, "eth0", mac_b, ip("10.0.0.1")));
	annrec_free(r);
}

/* 100,000 addresses in 1,000 blocks of 100: a few kilobytes, not 900. */
static void
test_compact(void **state)
{
	uint32_t *v = malloc(100000 * sizeof(*v));
	char *buf = NULL;
	size_t len = 0, cap = 0, i, bad;
	struct annrec *r;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < 100000; i++)
		v[i] = 0x0a000000u + (uint32_t)(i / 100) * 256 + (uint32_t)(i % 100) + 1;
	assert_int_equal(annrec_line(&buf, &len, &cap, "eth0", mac_a, v, 100000), 0);
	assert_true(len < 1000 * 20);
	r = annrec_parse(buf, len, &bad);
	assert_non_null(r);
	assert_true(annrec_has(r, "eth0", mac_a, htonl(0x0a000001)));
	assert_true(annrec_has(r, "eth0", mac_a, htonl(0x0a03e764)));
	assert_false(annrec_has(r, "eth0", mac_a, htonl(0x0a000065)));
	annrec_free(r);
	free(buf);
	free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_two_macs),
		cmocka_unit_test(test_compact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
