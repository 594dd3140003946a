/* test_rules.c — the kernel's address rules (include/rules.h) on a table
 * of addresses and prefix lengths, with the answers written out by hand.
 * tests/integration/kpath/rules_bpf.sh runs the same table through the same
 * header compiled for the BPF target. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rules.h"
#include "rules_table.h"

static void
test_martian(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < RT_NADDRS; i++) {
		if (rule_martian(rt_addrs[i].h) != rt_addrs[i].martian)
			fail_msg("%s: martian %d, want %d", rt_addrs[i].name,
			    rule_martian(rt_addrs[i].h), rt_addrs[i].martian);
		if (rule_next_martian(rt_addrs[i].h) != rt_addrs[i].next)
			fail_msg("%s: next martian %08x, want %08x", rt_addrs[i].name,
			    rule_next_martian(rt_addrs[i].h), rt_addrs[i].next);
	}
}

static void
test_prefix(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < RT_NPREFIXES; i++) {
		const struct rt_prefix *p = &rt_prefixes[i];

		assert_int_equal(rule_mask(p->plen), p->mask);
		assert_int_equal(rule_mask_n(p->plen), htonl(p->mask));
		if (rule_bcast(p->h, p->plen) != p->bcast)
			fail_msg("%08x/%u: broadcast %08x, want %08x", p->h, p->plen,
			    rule_bcast(p->h, p->plen), p->bcast);
		if (rule_in_prefix_n(htonl(p->ip), htonl(p->h), p->plen) != p->in)
			fail_msg("%08x in %08x/%u: %d, want %d", p->ip, p->h, p->plen,
			    rule_in_prefix_n(htonl(p->ip), htonl(p->h), p->plen), p->in);
	}
}

static void
test_ifa_ends(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < RT_NIFAS; i++) {
		const struct rt_ifa *f = &rt_ifas[i];
		__u32 local = f->have_l ? f->local : 0, address = f->have_a ? f->address : 0;

		assert_int_equal(rule_ifa_ends(f->have_l, f->have_a, &local, &address), f->ok);
		if (f->ok) {
			assert_int_equal(local, f->want_local);
			assert_int_equal(address, f->want_address);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_martian),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_ifa_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
