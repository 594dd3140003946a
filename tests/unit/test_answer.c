/* test_answer.c — the frame path with its edges faked: a frame in, the
 * reply bytes, the counters, the learning and the defences out. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <ev.h>
#include <cmocka.h>

#include "announcer.h"
#include "answer.h"
#include "conf.h"
#include "conflict.h"
#include "fakes.h"
#include "inforce.h"
#include "limit.h"
#include "notes.h"
#include "policy.h"
#include "publish.h"
#include "rpf.h"
#include "stats.h"
#include "table.h"

static const uint8_t MAC0[6] = { 0x02, 0, 0, 0, 0, 0x10 };	/* eth0 */
static const uint8_t MAC1[6] = { 0x02, 0, 0, 0, 0, 0x11 };	/* eth1 */
static const uint8_t CMAC[6] = { 0x02, 0, 0, 0, 0, 0xc1 };	/* a client */
static const uint8_t FMAC[6] = { 0x02, 0, 0, 0, 0, 0xf1 };	/* a foreign host */

struct fx {
	struct ev_loop	*loop;
	struct tbl	*tbl;
	struct conf	*conf;
	struct pub	*pub;
	struct stats	 st;
	struct lim	 lim;
	struct cfl	*cfl;
	struct notes	*notes;
	struct anr	*anr;
	struct ans	*ans;
	int		 syncs;
};

static uint32_t
ip(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void
add_iface(struct tbl *t, int ifindex, const char *name, const uint8_t mac[6],
    const char *addr, int mode)
{
	struct tbl_iface *ifp = tbl_iface_add(t, ifindex);

	assert_non_null(ifp);
	snprintf(ifp->name, sizeof(ifp->name), "%s", name);
	memcpy(ifp->mac, mac, 6);
	ifp->type = ARPHRD_ETHER;
	ifp->flags = IFF_UP | IFF_RUNNING;
	ifp->conf_known = true;
	ifp->managed = true;
	ifp->mode = mode;
	ifp->announce = true;
	ifp->allow_probes = true;
	ifp->defend = CONF_DEFEND_ONCE;
	assert_int_equal(tbl_addr_add(t, ifindex, ip(addr), ip(addr), 24), 1);
}

static void
on_sync(void *arg)
{
	((struct fx *)arg)->syncs++;
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct anr_deps ad;
	struct ans_deps sd;

	assert_non_null(f);
	fake_cap_reset();
	fake_rtnl_reset();
	fake_rpf_reset();
	f->loop = ev_loop_new(EVFLAG_AUTO);
	f->tbl = tbl_new();
	add_iface(f->tbl, 2, "eth0", MAC0, "10.0.0.1", POL_OWNER);
	add_iface(f->tbl, 3, "eth1", MAC1, "10.0.0.2", POL_OWNER);
	f->conf = conf_defaults();
	f->conf->sender_rate = 0;
	f->conf->total_rate = 0;
	f->pub = pub_new();
	f->cfl = cfl_new(64);
	f->notes = note_new(f->tbl);
	ad = (struct anr_deps){ f->loop, f->tbl, NULL, &f->lim, &f->st };
	inf_init(f->conf);
	inf_init_pub(f->pub);
	f->anr = anr_new(&ad);
	sd = (struct ans_deps){ f->tbl, NULL, NULL, f->anr, f->notes, f->cfl, &f->lim, &f->st,
	    on_sync, f, (struct rpf *)f };	/* the fake does not look at it */
	f->ans = ans_new(&sd);
	assert_true(f->loop && f->conf && f->pub && f->cfl && f->notes && f->anr && f->ans);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	ans_free(f->ans);
	anr_free(f->anr);
	note_free(f->notes);
	cfl_free(f->cfl);
	inf_free();
	tbl_free(f->tbl);
	ev_loop_destroy(f->loop);
	free(f);
	return 0;
}

static void
push(int ifindex, uint16_t op, const uint8_t *sha, const char *sip, const char *tip,
    uint64_t ts)
{
	uint8_t p[64];

	fake_cap_push(p, fake_frame(p, ifindex, op, sha, sip, tip), ts);
}

/* The kernel's reply to who-has tip tell sip from sha, from mac. */
static void
expect_reply(const struct fake_sent *s, int ifindex, const uint8_t mac[6],
    const char *tip, const uint8_t sha[6], const char *sip)
{
	uint8_t want[42] = { 0 };
	uint32_t a;

	memcpy(want, sha, 6);
	memcpy(want + 6, mac, 6);
	want[12] = 0x08; want[13] = 0x06;
	want[15] = 1; want[16] = 0x08; want[18] = 6; want[19] = 4; want[21] = 2;
	memcpy(want + 22, mac, 6);
	a = ip(tip);
	memcpy(want + 28, &a, 4);
	memcpy(want + 32, sha, 6);
	a = ip(sip);
	memcpy(want + 38, &a, 4);
	assert_non_null(s);
	assert_int_equal(s->ifindex, ifindex);
	assert_int_equal(s->len, 42);
	assert_memory_equal(s->frame, want, 42);
}

static void
test_answered_from_owner(void **state)
{
	struct fx *f = *state;
	struct tbl_iface *eth0 = tbl_iface(f->tbl, 2);

	push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 1);
	expect_reply(fake_cap_sent(0), 2, MAC0, "10.0.0.1", CMAC, "10.0.0.9");
	assert_int_equal(f->st.all.received, 1);
	assert_int_equal(f->st.all.replies, 1);
	assert_int_equal(f->st.all.verdict[POL_ANSWER], 1);
	assert_int_equal(eth0->stats->replies, 1);
	/* the requester learned, as the kernel's neigh_event_ns() does */
	assert_int_equal(fake_rtnl_nlearn(), 1);
	assert_int_equal(fake_rtnl_learn(0)->ifindex, 2);
	assert_int_equal(fake_rtnl_learn(0)->ip, ip("10.0.0.9"));
	assert_memory_equal(fake_rtnl_learn(0)->mac, CMAC, 6);
	assert_true(f->syncs >= 1);
}

static void
test_other_interface_silent(void **state)
{
	struct fx *f = *state;

	/* eth1 hears the request for eth0's address: not answered there */
	push(3, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	push(3, 1, CMAC, "10.0.0.9", "10.0.0.2", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 1);
	expect_reply(fake_cap_sent(0), 3, MAC1, "10.0.0.2", CMAC, "10.0.0.9");
	assert_int_equal(f->st.all.verdict[POL_OTHER_IFACE], 1);
	assert_int_equal(f->st.all.received, 2);
}

static void
test_netlink_read_first(void **state)
{
	struct fx *f = *state;
	uint8_t p[64];
	size_t n = fake_frame(p, 2, 1, CMAC, "10.0.0.9", "10.0.0.1");

	/* a frame no newer than the last drain: no read needed */
	fake_rtnl_set_drained(500);
	ans_frame(f->ans, p, n, 400, 100.0);
	assert_int_equal(f->syncs, 0);
	/* newer: netlink is read before it is decided */
	ans_frame(f->ans, p, n, 600, 100.0);
	assert_int_equal(f->syncs, 1);
}

static void
test_sender_rate(void **state)
{
	struct fx *f = *state;
	int i;

	f->conf->sender_rate = 2;	/* burst: 10 */
	for (i = 0; i < 12; i++)
		push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 10);
	assert_int_equal(f->st.all.limited_sender, 2);
	/* a second later, two more tokens */
	for (i = 0; i < 3; i++)
		push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 101.0);
	assert_int_equal(fake_cap_nsent(), 12);
	assert_int_equal(f->st.all.limited_sender, 3);
	/* another sender has a bucket of its own */
	push(2, 1, CMAC, "10.0.0.8", "10.0.0.1", 1);
	ans_run(f->ans, 101.0);
	assert_int_equal(fake_cap_nsent(), 13);
}

/* rp_filter or arp_filter on the arrival interface: an answerable request
 * goes through the kernel's verdict (rpf.c, faked), before the limits;
 * without them, or for a probe, nothing is asked. */
static void
test_reverse_path(void **state)
{
	struct fx *f = *state;
	struct tbl_iface *eth0 = tbl_iface(f->tbl, 2);
	static const struct { int v; enum pol_verdict pv; } c[] = {
		{ RPF_RP_FILTER, POL_RP_FILTER }, { RPF_ARP_FILTER, POL_ARP_FILTER },
		{ RPF_UNCHECKED, POL_RP_UNCHECKED },
	};
	struct pub_entry e;
	const char *why;
	char err[128];
	size_t i;

	/* neither check on: the kernel's route is not asked */
	push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_rpf_nchecks(), 0);
	assert_int_equal(fake_cap_nsent(), 1);
	eth0->rp_check = true;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fake_rpf_set(c[i].v);
		push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
		ans_run(f->ans, 100.0);
		assert_int_equal(fake_cap_nsent(), 1);
		assert_int_equal(f->st.all.verdict[c[i].pv], 1);
		assert_int_equal(fake_rpf_dst(), ip("10.0.0.1"));
	}
	assert_int_equal(fake_rpf_nchecks(), 3);
	/* refused before the limits: no sender token spent */
	assert_int_equal(f->st.all.limited_sender, 0);
	/* a probe: the kernel's probe path routes nothing */
	push(2, 1, CMAC, "0.0.0.0", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_rpf_nchecks(), 3);
	assert_int_equal(fake_cap_nsent(), 2);
	/* the kernel says yes: answered */
	fake_rpf_set(RPF_OK);
	push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 3);
	/* a published address: asked as for the interface's own address */
	assert_int_equal(pub_runtime_make(&e, ntohl(ip("10.0.0.50")), 32, "eth0", &why), 0);
	assert_int_equal(pub_add(f->pub, &e, err, sizeof(err)), 0);
	fake_rpf_set(RPF_RP_FILTER);
	push(2, 1, CMAC, "10.0.0.9", "10.0.0.50", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 3);
	assert_int_equal(fake_rpf_dst(), ip("10.0.0.1"));
}

/*
 * A backlog is not a burst (issue 20): a client asking 1,000 times a
 * second, at the shipped sender_rate (1,000/s, a burst of 100), whose
 * requests were read a second late in one go (a stall, a restart), is
 * answered every time: each is charged when it arrived.  Charged at the
 * loop's time, the 1,000 were one burst and 900 were refused.
 */
static void
test_backlog_not_burst(void **state)
{
	struct fx *f = *state;
	const uint64_t t0 = 1700000000ull * 1000000000ull;
	int i;

	f->conf->sender_rate = CONF_DEFAULT_SENDER_RATE;
	f->conf->total_rate = CONF_DEFAULT_TOTAL_RATE;
	for (i = 0; i < 1000; i++)
		push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", t0 + (uint64_t)i * 1000000u);
	ans_run(f->ans, 1700000001.5);
	assert_int_equal(f->st.all.limited_sender, 0);
	assert_int_equal(fake_cap_nsent(), 1000);
	/* the same 1,000 sent in 10 ms: a burst, limited as one */
	fake_cap_reset();
	for (i = 0; i < 1000; i++)
		push(2, 1, CMAC, "10.0.0.8", "10.0.0.1", t0 + 3000000000ull + (uint64_t)i * 10000u);
	ans_run(f->ans, 1700000004.0);
	assert_true(fake_cap_nsent() >= 100 && fake_cap_nsent() <= 112);
	assert_int_equal(f->st.all.limited_sender, 1000 - fake_cap_nsent());
}

/* Frames that came after the loop woke (read in the same batch, or after
 * the process waited for a CPU): each charged when it came, not all at
 * the loop's time, which made them one burst. */
static void
test_after_wakeup_not_burst(void **state)
{
	struct fx *f = *state;
	const uint64_t t0 = 1700000000ull * 1000000000ull;
	int i;

	f->conf->sender_rate = CONF_DEFAULT_SENDER_RATE;
	f->conf->total_rate = CONF_DEFAULT_TOTAL_RATE;
	/* 300 ms of a client at 1,000/s, all after the loop's time */
	for (i = 1; i <= 300; i++)
		push(2, 1, CMAC, "10.0.0.9", "10.0.0.1", t0 + (uint64_t)i * 1000000u);
	ans_run(f->ans, 1700000000.0);
	assert_int_equal(f->st.all.limited_sender, 0);
	assert_int_equal(fake_cap_nsent(), 300);
}

/* The same for requests kept across a restart (handover.c): charged when
 * they came, not when the next start drains them. */
static void
test_handover_charged_at_arrival(void **state)
{
	struct fx *f = *state;
	const uint64_t t0 = 1700000000ull * 1000000000ull;
	struct pub_entry e;
	const char *why;
	char err[128];
	uint8_t p[64];
	size_t n;
	int i, answered = 0;

	assert_int_equal(pub_runtime_make(&e, ntohl(ip("10.0.0.50")), 32, "eth0", &why), 0);
	assert_int_equal(pub_add(f->pub, &e, err, sizeof(err)), 0);
	f->conf->sender_rate = CONF_DEFAULT_SENDER_RATE;
	n = fake_frame(p, 2, 1, CMAC, "10.0.0.9", "10.0.0.50");
	/* 600 requests over 0.6 s of a gap, drained at its end */
	for (i = 0; i < 600; i++)
		answered += ans_handover(f->ans, p, n, t0 + (uint64_t)i * 1000000u, 1700000000.7, false);
	assert_int_equal(answered, 600);
	assert_int_equal(f->st.all.limited_sender, 0);
	/* an owned address is the kernel's during the gap: not answered */
	n = fake_frame(p, 2, 1, CMAC, "10.0.0.9", "10.0.0.1");
	assert_false(ans_handover(f->ans, p, n, t0 + 650000000u, 1700000000.7, false));
}

static void
test_conflict_defended_once(void **state)
{
	struct fx *f = *state;
	const struct fake_sent *s;
	uint32_t a = ip("10.0.0.1");

	/* a foreign reply claims eth0's address: one defence, both forms */
	push(2, 2, FMAC, "10.0.0.1", "10.0.0.9", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(f->st.all.conflicts, 1);
	assert_int_equal(f->st.all.defences, 1);
	assert_int_equal(fake_cap_nsent(), 2);
	s = fake_cap_sent(0);
	assert_int_equal(s->ifindex, 2);
	assert_memory_equal(s->frame + 6, MAC0, 6);		/* from eth0 */
	assert_memory_equal(s->frame + 28, &a, 4);		/* sender ip */
	assert_memory_equal(s->frame + 38, &a, 4);		/* = target ip */
	/* it persists within the interval: given up, nothing sent */
	push(2, 2, FMAC, "10.0.0.1", "10.0.0.9", 1);
	ans_run(f->ans, 101.0);
	assert_int_equal(f->st.all.conflicts, 2);
	assert_int_equal(f->st.all.defences, 1);
	assert_int_equal(fake_cap_nsent(), 2);
	/* our own MAC is no claim */
	push(2, 2, MAC1, "10.0.0.1", "10.0.0.9", 1);
	ans_run(f->ans, 102.0);
	assert_int_equal(f->st.all.conflicts, 2);
}

static void
test_monitor_counts_what_kernel_answers(void **state)
{
	struct fx *f = *state;
	struct tbl_iface *eth1 = tbl_iface(f->tbl, 3);

	eth1->mode = POL_MONITOR;
	eth1->arp_ignore = 0;	/* the kernel answers on it for any address */
	push(3, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 0);
	assert_int_equal(f->st.all.would_refuse[POL_OTHER_IFACE], 1);
	/* at arp_ignore 1 the kernel itself refuses: nothing to say */
	eth1->arp_ignore = 1;
	push(3, 1, CMAC, "10.0.0.9", "10.0.0.1", 1);
	ans_run(f->ans, 100.0);
	assert_int_equal(f->st.all.would_refuse[POL_OTHER_IFACE], 1);
}

static void
test_malformed_refused(void **state)
{
	struct fx *f = *state;
	uint8_t p[64];
	size_t n = fake_frame(p, 2, 1, CMAC, "10.0.0.9", "10.0.0.1");

	p[20 + 4] = 5;	/* hln */
	fake_cap_push(p, n, 1);
	push(2, 1, CMAC, "10.0.0.9", "10.0.0.9", 1);	/* gratuitous */
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 0);
	assert_int_equal(f->st.all.invalid[ARP_BAD_HLN], 1);
	assert_int_equal(f->st.all.announcements_heard, 1);
	assert_int_equal(f->st.all.received, 2);
}

static void
test_published(void **state)
{
	struct fx *f = *state;
	static const uint8_t VMAC[6] = { 0x02, 0xee, 0, 0, 0, 0x50 };
	struct pub_entry e;
	const char *why;
	char err[128];

	assert_int_equal(pub_runtime_make(&e, ntohl(ip("10.0.0.48")), 29, "eth0", &why), 0);
	memcpy(e.mac, VMAC, 6);
	e.has_mac = true;
	assert_int_equal(pub_add(f->pub, &e, err, sizeof(err)), 0);
	push(2, 1, CMAC, "10.0.0.9", "10.0.0.50", 1);
	push(3, 1, CMAC, "10.0.0.9", "10.0.0.50", 1);	/* not published on eth1 */
	ans_run(f->ans, 100.0);
	assert_int_equal(fake_cap_nsent(), 1);
	expect_reply(fake_cap_sent(0), 2, VMAC, "10.0.0.50", CMAC, "10.0.0.9");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answered_from_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_interface_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netlink_read_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sender_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverse_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backlog_not_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_after_wakeup_not_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handover_charged_at_arrival, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict_defended_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monitor_counts_what_kernel_answers,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_published, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
