/* test_sysctl.c — the /proc/sys reader: names that could leave the
 * directory are refused before any path is built; the values this host's
 * kernel gives are read as numbers. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "sysctl.h"

static void
test_refused(void **state)
{
	static const struct { const char *ifname, *key; } bad[] = {
		{ "", "arp_ignore" }, { ".", "arp_ignore" }, { "..", "arp_ignore" },
		{ "../../../etc", "passwd" }, { "lo/..", "arp_ignore" },
		{ "eth0:1", "arp_ignore" }, { "a b", "arp_ignore" },
		{ "1234567890123456", "arp_ignore" },
		{ "lo", "" }, { "lo", "." }, { "lo", ".." }, { "lo", "../../hostname" },
		{ "lo", "x/y" },
	};
	size_t i;
	int v = 42;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (sys_get(bad[i].ifname, bad[i].key, &v) != -1 || errno != EINVAL)
			fail_msg("bad[%zu] (\"%s\", \"%s\"): not refused with EINVAL", i,
			    bad[i].ifname, bad[i].key);
	}
	assert_int_equal(v, 42);
}

/* Where /proc/sys is there (not in every build chroot): the kernel's own
 * values, arp_ignore 0..8 and arp_announce 0..2, for lo, all and default. */
static void
test_read(void **state)
{
	static const char *const names[] = { "lo", "all", "default" };
	size_t i;
	int v;

	(void)state;
	if (access("/proc/sys/net/ipv4/conf/lo/arp_ignore", R_OK) != 0)
		skip();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		v = -1;
		assert_int_equal(sys_get(names[i], "arp_ignore", &v), 0);
		assert_in_range(v, 0, 8);
		v = -1;
		assert_int_equal(sys_get(names[i], "arp_announce", &v), 0);
		assert_in_range(v, 0, 2);
	}
	assert_int_equal(sys_get("lo", "no_such_key", &v), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(sys_get("nosuchlink0", "arp_ignore", &v), -1);
	assert_int_equal(errno, ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
