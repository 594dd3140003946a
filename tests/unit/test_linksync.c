/* test_linksync.c — sequences of rtnetlink messages against the table:
 * what each changed, and what the table holds after. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <cmocka.h>

#include "linksync.h"

static const uint8_t MAC0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC9[6] = { 0x02, 0, 0, 0, 0, 0x99 };

static struct rtnl_msg
link_msg(enum rtnl_kind kind, int ifindex, const char *name, const uint8_t mac[6],
    unsigned flags)
{
	struct rtnl_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.ifindex = ifindex;
	snprintf(m.name, sizeof(m.name), "%s", name);
	if (mac != NULL) {
		memcpy(m.mac, mac, 6);
		m.has_mac = true;
	}
	m.type = ARPHRD_ETHER;
	m.flags = flags;
	return m;
}

static struct rtnl_msg
addr_msg(enum rtnl_kind kind, int ifindex, const char *addr, uint8_t plen)
{
	struct rtnl_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.ifindex = ifindex;
	assert_int_equal(inet_pton(AF_INET, addr, &m.addr), 1);
	m.prefix = m.addr;
	m.plen = plen;
	return m;
}

static unsigned
apply(struct tbl *t, struct rtnl_msg m, unsigned gen, bool dumping, struct ls_change *c)
{
	ls_apply(t, &m, gen, dumping, c);
	return c->what;
}

static void
test_link_life(void **state)
{
	struct tbl *t = tbl_new();
	struct ls_change c;
	struct rtnl_msg m;
	struct tbl_iface *ifp;

	(void)state;
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0), 1, false, &c),
	    LS_NEW);
	ifp = tbl_iface(t, 2);
	assert_non_null(ifp);
	assert_string_equal(ifp->name, "eth0");
	assert_memory_equal(ifp->mac, MAC0, 6);
	/* the same again: nothing changed */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0), 1, false, &c), 0);
	/* up and running: both bits */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0,
	    IFF_UP | IFF_RUNNING), 1, false, &c), LS_UPDOWN | LS_READY);
	/* carrier lost, then back: ready again, no up/down */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, IFF_UP), 1, false,
	    &c), 0);
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0,
	    IFF_UP | IFF_RUNNING), 1, false, &c), LS_READY);
	/* renamed, the old name reported */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "lan0", MAC0,
	    IFF_UP | IFF_RUNNING), 1, false, &c), LS_RENAMED);
	assert_string_equal(c.oldname, "eth0");
	assert_string_equal(tbl_iface(t, 2)->name, "lan0");
	/* a new MAC */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "lan0", MAC9,
	    IFF_UP | IFF_RUNNING), 1, false, &c), LS_MAC);
	assert_memory_equal(tbl_iface(t, 2)->mac, MAC9, 6);
	/* a message without a MAC changes none */
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "lan0", NULL,
	    IFF_UP | IFF_RUNNING), 1, false, &c), 0);
	/* an XDP program put on it, then taken off (IFLA_XDP's id); a
	 * message without IFLA_XDP changes nothing */
	m = link_msg(RTNL_NEWLINK, 2, "lan0", MAC9, IFF_UP | IFF_RUNNING);
	m.has_xdp = true;
	m.xdp_id = 77;
	assert_int_equal(apply(t, m, 1, false, &c), LS_XDP);
	assert_int_equal(tbl_iface(t, 2)->xdp_id, 77);
	assert_int_equal(apply(t, m, 1, false, &c), 0);
	assert_int_equal(apply(t, link_msg(RTNL_NEWLINK, 2, "lan0", MAC9,
	    IFF_UP | IFF_RUNNING), 1, false, &c), 0);
	m.xdp_id = 0;
	assert_int_equal(apply(t, m, 1, false, &c), LS_XDP);
	assert_int_equal(tbl_iface(t, 2)->xdp_id, 0);
	/* deleted: gone from the table, its last name and state told */
	tbl_iface(t, 2)->managed = true;
	assert_int_equal(apply(t, link_msg(RTNL_DELLINK, 2, "lan0", NULL, 0), 1, false, &c),
	    LS_GONE);
	assert_null(c.ifp);
	assert_string_equal(c.oldname, "lan0");
	assert_true(c.was_managed);
	assert_null(tbl_iface(t, 2));
	/* a delete of what is not known: nothing */
	assert_int_equal(apply(t, link_msg(RTNL_DELLINK, 2, "lan0", NULL, 0), 1, false, &c), 0);
	tbl_free(t);
}

static void
test_addresses(void **state)
{
	struct tbl *t = tbl_new();
	struct ls_change c;
	uint32_t a;

	(void)state;
	inet_pton(AF_INET, "10.0.0.1", &a);
	apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0), 1, false, &c);
	assert_int_equal(apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.1", 24), 1, false, &c),
	    LS_ADDR_ADDED);
	assert_int_equal(c.addr, a);
	assert_int_equal(c.plen, 24);
	/* known: nothing */
	assert_int_equal(apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.1", 24), 1, false, &c), 0);
	/* the same address with a second prefix is a second entry */
	assert_int_equal(apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.1", 16), 1, false, &c),
	    LS_ADDR_ADDED);
	/* one entry goes: the address stays */
	assert_int_equal(apply(t, addr_msg(RTNL_DELADDR, 2, "10.0.0.1", 24), 1, false, &c),
	    LS_ADDR_REMOVED);
	assert_true(tbl_addr_on(t, 2, a));
	/* the last: gone from the interface */
	assert_int_equal(apply(t, addr_msg(RTNL_DELADDR, 2, "10.0.0.1", 16), 1, false, &c),
	    LS_ADDR_REMOVED | LS_ADDR_LAST);
	assert_false(tbl_addr_on(t, 2, a));
	/* a delete of what is not there: nothing */
	assert_int_equal(apply(t, addr_msg(RTNL_DELADDR, 2, "10.0.0.1", 16), 1, false, &c), 0);
	/* an address before its link's message: the link is made */
	assert_int_equal(apply(t, addr_msg(RTNL_NEWADDR, 7, "10.7.0.1", 24), 1, false, &c),
	    LS_ADDR_ADDED);
	assert_non_null(tbl_iface(t, 7));
	tbl_free(t);
}

static void
test_pending_sysctl(void **state)
{
	struct tbl *t = tbl_new();
	struct tbl_iface *ifp;
	struct ls_change c;
	struct rtnl_msg m = link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0);

	(void)state;
	m.has_conf = true;
	m.arp_ignore = 0;
	m.arp_announce = 0;
	apply(t, m, 1, false, &c);
	ifp = tbl_iface(t, 2);
	assert_true(ifp->conf_known);
	/* we set 8; link messages queued before ours still say 0 */
	ifp->arp_ignore = 8;
	ifp->conf_pending = true;
	apply(t, m, 1, false, &c);
	assert_int_equal(ifp->arp_ignore, 8);
	assert_true(ifp->conf_pending);
	/* the kernel's echo of ours: believed again from here */
	m.arp_ignore = 8;
	apply(t, m, 1, false, &c);
	assert_false(ifp->conf_pending);
	/* someone rewrites it: seen */
	m.arp_ignore = 1;
	apply(t, m, 1, false, &c);
	assert_int_equal(ifp->arp_ignore, 1);
	/* a dump says what is, pending or not (a down link sends no echo) */
	ifp->arp_ignore = 8;
	ifp->conf_pending = true;
	m.arp_ignore = 2;
	apply(t, m, 1, true, &c);
	assert_int_equal(ifp->arp_ignore, 2);
	assert_false(ifp->conf_pending);
	tbl_free(t);
}

struct seen {
	int	gone[4], ngone;
	uint32_t removed[4];
	int	nremoved;
};

static void
on_swept(void *arg, const struct ls_change *c)
{
	struct seen *s = arg;

	if (c->what & LS_GONE) {
		assert_null(c->ifp);
		s->gone[s->ngone++] = c->ifindex;
	} else {
		assert_true(c->what & LS_ADDR_REMOVED);
		s->removed[s->nremoved++] = c->addr;
	}
}

static void
test_sweep(void **state)
{
	struct tbl *t = tbl_new();
	struct seen s = { { 0 }, 0, { 0 }, 0 };
	struct ls_change c;
	unsigned gen;
	uint32_t a;

	(void)state;
	gen = tbl_gen_begin(t);
	apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0), gen, true, &c);
	apply(t, link_msg(RTNL_NEWLINK, 3, "eth1", MAC9, 0), gen, true, &c);
	apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.1", 24), gen, true, &c);
	apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.5", 24), gen, true, &c);
	apply(t, addr_msg(RTNL_NEWADDR, 3, "10.1.0.1", 24), gen, true, &c);
	/* a re-dump that shows eth0 with one address, and no eth1 */
	gen = tbl_gen_begin(t);
	apply(t, link_msg(RTNL_NEWLINK, 2, "eth0", MAC0, 0), gen, true, &c);
	apply(t, addr_msg(RTNL_NEWADDR, 2, "10.0.0.1", 24), gen, true, &c);
	assert_int_equal(ls_sweep(t, gen, on_swept, &s), 0);
	inet_pton(AF_INET, "10.0.0.5", &a);
	assert_int_equal(s.ngone, 1);
	assert_int_equal(s.gone[0], 3);
	assert_null(tbl_iface(t, 3));
	assert_false(tbl_addr_on(t, 2, a));
	inet_pton(AF_INET, "10.0.0.1", &a);
	assert_true(tbl_addr_on(t, 2, a));
	/* 10.0.0.5 of eth0, and eth1's address goes with eth1 (either way) */
	assert_true(s.nremoved >= 1);
	tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_life),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_pending_sysctl),
		cmocka_unit_test(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
