/* test_status.c — the STATUS= line: what it counts, how it reads, and
 * that it is sent when it changed and only then. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "notify.h"
#include "policy.h"
#include "status.h"
#include "table.h"

static char sent[8][256];
static int nsent;

/* notify.h, recorded */
void
notify_send(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (nsent < 8)
		vsnprintf(sent[nsent++], sizeof(sent[0]), fmt, ap);
	va_end(ap);
}

static struct tbl_iface *
iface(struct tbl *t, int ifindex, bool managed, int mode, int naddrs)
{
	struct tbl_iface *ifp = tbl_iface_add(t, ifindex);
	int i;

	assert_non_null(ifp);
	ifp->managed = managed;
	ifp->mode = mode;
	for (i = 0; i < naddrs; i++)
		assert_int_equal(tbl_addr_add(t, ifindex,
		    htonl(0x0a000000u | (uint32_t)ifindex << 8 | (uint32_t)(i + 1)),
		    htonl(0x0a000000u | (uint32_t)ifindex << 8), 24), 1);
	return ifp;
}

/* Monitor interfaces are not "answering"; unmanaged and off ones are not
 * counted at all; addresses only where arpownd answers. */
static void
test_tally(void **state)
{
	struct tbl *t = tbl_new();
	struct sst s;

	(void)state;
	iface(t, 2, true, POL_OWNER, 2);
	iface(t, 3, true, POL_SUBNET, 1);
	iface(t, 4, true, POL_MONITOR, 5);
	iface(t, 5, false, POL_OWNER, 3);
	iface(t, 6, true, POL_OFF, 1);
	sst_tally(t, NULL, &s);
	assert_int_equal(s.answering, 2);
	assert_int_equal(s.monitor, 1);
	assert_int_equal(s.addrs, 3);
	assert_int_equal(s.published, 0);
	tbl_free(t);
}

static void
test_format(void **state)
{
	struct sst s = { 1, 0, 1, 0 };
	char b[256];

	(void)state;
	assert_string_equal(sst_format(&s, NULL, b, sizeof(b)), "answering ARP on 1 interface for 1 address");
	s = (struct sst){ 3, 2, 7, 8 };
	assert_string_equal(sst_format(&s, NULL, b, sizeof(b)), "answering ARP on 3 interfaces for "
	    "7 addresses; 2 in monitor mode (the kernel answers there); 8 published");
	s = (struct sst){ 0, 0, 0, 0 };
	assert_string_equal(sst_format(&s, NULL, b, sizeof(b)), "answering ARP on 0 interfaces for 0 addresses");
}

/* --monitor forces monitor mode whatever the file says: STATUS= names the
 * one command that makes arpownd answer, which depends on where it came
 * from (the unit's ARPOWND_OPTIONS, alone or with other words). */
static void
test_forced(void **state)
{
	struct sst s = { 0, 3, 0, 0 };
	struct sst_forced f;
	char b[384];

	(void)state;
	sst_forced(false, "--monitor", &f);
	assert_null(f.by);
	assert_null(f.to_answer);
	sst_forced(true, " --monitor ", &f);
	assert_string_equal(f.by, "--monitor in ARPOWND_OPTIONS (/etc/default/arpownd)");
	assert_string_equal(f.to_answer, "rm /etc/default/arpownd && systemctl restart arpownd");
	assert_string_equal(sst_format(&s, f.to_answer, b, sizeof(b)), "answering ARP on 0 "
	    "interfaces for 0 addresses; 3 in monitor mode (the kernel answers there); to "
	    "answer: rm /etc/default/arpownd && systemctl restart arpownd");
	sst_forced(true, "-d --monitor", &f);
	assert_string_equal(f.to_answer, "remove --monitor from ARPOWND_OPTIONS in "
	    "/etc/default/arpownd, then systemctl restart arpownd");
	sst_forced(true, "--monitor-x", &f);
	assert_string_equal(f.to_answer, "remove --monitor from ARPOWND_OPTIONS in "
	    "/etc/default/arpownd, then systemctl restart arpownd");
	sst_forced(true, NULL, &f);
	assert_string_equal(f.by, "--monitor on the command line");
	assert_string_equal(f.to_answer, "start arpownd again without --monitor");
	/* nothing in monitor mode: nothing to say */
	s = (struct sst){ 2, 0, 2, 0 };
	assert_string_equal(sst_format(&s, f.to_answer, b, sizeof(b)),
	    "answering ARP on 2 interfaces for 2 addresses");
}

/* One datagram per change, not one per netlink wake-up. */
static void
test_report_on_change(void **state)
{
	struct tbl *t = tbl_new();
	struct sst last;
	bool was = false;

	(void)state;
	nsent = 0;
	iface(t, 2, true, POL_OWNER, 1);
	sst_report(t, NULL, NULL, &last, &was);
	sst_report(t, NULL, NULL, &last, &was);
	assert_int_equal(nsent, 1);
	assert_string_equal(sent[0], "STATUS=answering ARP on 1 interface for 1 address");
	assert_int_equal(tbl_addr_add(t, 2, htonl(0x0a000263u), htonl(0x0a000200u), 24), 1);
	sst_report(t, NULL, NULL, &last, &was);
	assert_int_equal(nsent, 2);
	assert_string_equal(sent[1], "STATUS=answering ARP on 1 interface for 2 addresses");
	tbl_iface(t, 2)->mode = POL_MONITOR;
	sst_report(t, NULL, NULL, &last, &was);
	assert_int_equal(nsent, 3);
	assert_string_equal(sent[2], "STATUS=answering ARP on 0 interfaces for 0 addresses; "
	    "1 in monitor mode (the kernel answers there)");
	tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_forced),
		cmocka_unit_test(test_report_on_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
