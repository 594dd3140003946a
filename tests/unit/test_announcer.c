/* test_announcer.c — announcements with the capture faked: which frames
 * go out from which interface, the per-turn budget, total_rate's share
 * kept for replies, and the interfaces that must stay silent. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <ev.h>
#include <cmocka.h>

#include "announcer.h"
#include "conf.h"
#include "fakes.h"
#include "inforce.h"
#include "limit.h"
#include "policy.h"
#include "publish.h"
#include "stats.h"
#include "table.h"

static const uint8_t MAC0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC1[6] = { 0x02, 0, 0, 0, 0, 0x11 };

struct fx {
	struct ev_loop	*loop;
	struct tbl	*tbl;
	struct conf	*conf;
	struct pub	*pub;
	struct stats	 st;
	struct lim	 lim;
	struct anr	*anr;
};

static uint32_t
ip(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static struct tbl_iface *
add_iface(struct tbl *t, int ifindex, const char *name, const uint8_t mac[6])
{
	struct tbl_iface *ifp = tbl_iface_add(t, ifindex);

	assert_non_null(ifp);
	snprintf(ifp->name, sizeof(ifp->name), "%s", name);
	memcpy(ifp->mac, mac, 6);
	ifp->type = ARPHRD_ETHER;
	ifp->flags = IFF_UP | IFF_RUNNING;
	ifp->managed = true;
	ifp->mode = POL_OWNER;
	ifp->announce = true;
	return ifp;
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct anr_deps d;

	assert_non_null(f);
	fake_cap_reset();
	f->loop = ev_loop_new(EVFLAG_AUTO);
	f->tbl = tbl_new();
	add_iface(f->tbl, 2, "eth0", MAC0);
	add_iface(f->tbl, 3, "eth1", MAC1);
	assert_int_equal(tbl_addr_add(f->tbl, 2, ip("10.0.0.1"), ip("10.0.0.1"), 24), 1);
	assert_int_equal(tbl_addr_add(f->tbl, 3, ip("10.0.0.2"), ip("10.0.0.2"), 24), 1);
	f->conf = conf_defaults();
	f->conf->announce_count = 1;
	f->conf->total_rate = 0;
	f->pub = pub_new();
	d = (struct anr_deps){ f->loop, f->tbl, NULL, &f->lim, &f->st };
	inf_init(f->conf);
	inf_init_pub(f->pub);
	f->anr = anr_new(&d);
	assert_non_null(f->anr);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	anr_free(f->anr);
	inf_free();
	tbl_free(f->tbl);
	ev_loop_destroy(f->loop);
	free(f);
	return 0;
}

/* Frames sent from ifindex announcing addr (sender = target = addr). */
static int
frames(int ifindex, uint32_t addr)
{
	size_t i;
	int n = 0;

	for (i = 0; i < fake_cap_nsent(); i++) {
		const struct fake_sent *s = fake_cap_sent(i);

		if (s->ifindex == ifindex && memcmp(s->frame + 28, &addr, 4) == 0 &&
		    memcmp(s->frame + 38, &addr, 4) == 0)
			n++;
	}
	return n;
}

/* Let the loop's clock pass t seconds. */
static void
pass(struct fx *f, double t)
{
	ev_sleep(t);
	ev_now_update(f->loop);
}

static void
test_both_forms_from_the_owner(void **state)
{
	struct fx *f = *state;
	const struct fake_sent *s;

	anr_start(f->anr, 2, 0);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 2);
	assert_int_equal(frames(2, ip("10.0.0.1")), 2);
	s = fake_cap_sent(0);
	/* the RFC 5227 announcement: a request to broadcast, target MAC zero */
	assert_memory_equal(s->frame, "\xff\xff\xff\xff\xff\xff", 6);
	assert_memory_equal(s->frame + 6, MAC0, 6);
	assert_int_equal(s->frame[21], 1);
	assert_memory_equal(s->frame + 32, "\0\0\0\0\0\0", 6);
	/* then the gratuitous reply, target MAC ours */
	s = fake_cap_sent(1);
	assert_int_equal(s->frame[21], 2);
	assert_memory_equal(s->frame + 32, MAC0, 6);
	assert_int_equal(f->st.all.announcements, 2);
	assert_int_equal(tbl_iface(f->tbl, 2)->stats->announcements, 2);
}

static void
test_silent_interfaces(void **state)
{
	struct fx *f = *state;
	struct tbl_iface *eth1 = tbl_iface(f->tbl, 3);

	/* a link that is down: the burst is dropped, link-up announces again */
	eth1->flags = IFF_UP;
	anr_start(f->anr, 3, 0);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 0);
	eth1->flags = IFF_UP | IFF_RUNNING;
	/* monitor, off, announce = no: never */
	eth1->mode = POL_MONITOR;
	anr_start(f->anr, 3, 0);
	eth1->mode = POL_OFF;
	anr_start(f->anr, 3, ip("10.0.0.2"));
	anr_run(f->anr);
	eth1->mode = POL_OWNER;
	eth1->announce = false;
	anr_start(f->anr, 3, 0);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 0);
	/* an address not its own is never announced from it */
	eth1->announce = true;
	anr_start(f->anr, 3, ip("10.0.0.1"));
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 0);
	/* the interface manager's word: given back, its burst goes */
	anr_start(f->anr, 3, 0);
	eth1->managed = false;
	anr_ifm_event(f->anr, eth1);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 0);
}

static void
test_budget_per_turn(void **state)
{
	struct fx *f = *state;
	uint32_t h;
	int i, total = 0;

	/* 300 addresses, both forms: 600 frames, at most 512 a turn (the
	 * host's announce_rate off, to see the turn's own cap) */
	f->conf->announce_rate = 0;
	for (h = 0; h < 300; h++)
		assert_int_equal(tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h),
		    htonl(0x0a010000 + h), 16), 1);
	anr_start(f->anr, 2, 0);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), ANR_RUN_FRAMES);
	for (i = 0; i < 10 && fake_cap_nsent() < 602; i++) {
		pass(f, 0.02);
		anr_run(f->anr);
	}
	total = (int)fake_cap_nsent();
	assert_int_equal(total, 602);	/* 301 addresses, each once, both forms */
	assert_int_equal(frames(2, ip("10.0.0.1")), 2);
}

static void
test_total_rate_leaves_half_for_replies(void **state)
{
	struct fx *f = *state;
	uint32_t h;

	f->conf->total_rate = 100;	/* burst 10: announcements take down to 5 */
	f->conf->announce_rate = 0;
	for (h = 0; h < 20; h++)
		tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h), htonl(0x0a010000 + h), 16);
	anr_start(f->anr, 2, 0);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 4);	/* two addresses, both forms */
	/* the replies still have the other half */
	assert_true(lim_take(&f->lim.total, 100, ev_now(f->loop)));
}

static void
test_request_owner_or_published(void **state)
{
	struct fx *f = *state;
	struct pub_entry e;
	const char *ifname = "x", *why;
	char err[128];

	assert_int_equal(anr_request(f->anr, ip("10.0.0.2"), 0, &ifname), ANR_ASKED);
	assert_string_equal(ifname, "eth1");
	assert_int_equal(anr_request(f->anr, ip("10.9.9.9"), 0, &ifname), ANR_NONE);
	assert_int_equal(pub_runtime_make(&e, ntohl(ip("10.0.0.50")), 32, "eth*", &why), 0);
	e.literal = false;	/* as a [publish] section's glob */
	assert_int_equal(pub_add(f->pub, &e, err, sizeof(err)), 0);
	assert_int_equal(anr_request(f->anr, ip("10.0.0.50"), 0, &ifname), ANR_ASKED);
	assert_null(ifname);
	anr_run(f->anr);
	/* from every interface the entry names */
	assert_int_equal(frames(2, ip("10.0.0.50")), 2);
	assert_int_equal(frames(3, ip("10.0.0.50")), 2);
	/* a published address an interface now holds is that interface's only */
	assert_int_equal(tbl_addr_add(f->tbl, 3, ip("10.0.0.50"), ip("10.0.0.50"), 24), 1);
	fake_cap_reset();
	anr_entry(f->anr, pub_find(f->pub, ip("10.0.0.50")));
	anr_run(f->anr);
	assert_int_equal(frames(2, ip("10.0.0.50")), 0);
}

/* "announce" from a non-root peer: ANN_PEER_PENDING of its bursts
 * pending, then refused (counted); a published address needs one per
 * interface, all or none; root is not held to it. */
static void
test_request_peer_bound(void **state)
{
	struct fx *f = *state;
	struct pub_entry e;
	const char *ifname, *why;
	char err[128];
	size_t n;
	int i;

	assert_int_equal(pub_runtime_make(&e, ntohl(ip("10.0.1.0")), 24, "eth*", &why), 0);
	e.literal = false;
	assert_int_equal(pub_add(f->pub, &e, err, sizeof(err)), 0);
	assert_int_equal(anr_request(f->anr, ip("10.0.0.2"), 1000, &ifname), ANR_ASKED);
	/* 7 addresses from two interfaces each: 15 pending */
	for (i = 1; i <= 7; i++)
		assert_int_equal(anr_request(f->anr, htonl(0x0a000100 + i), 1000, &ifname),
		    ANR_ASKED);
	n = anr_pending(f->anr);
	assert_int_equal(n, 2 * 7 + 1);
	/* room for one more: not two, none of them queued */
	assert_int_equal(anr_request(f->anr, ip("10.0.1.8"), 1000, &ifname), ANR_BUSY);
	assert_int_equal(anr_pending(f->anr), n);
	assert_int_equal(f->st.announce_refused, 1);
	/* another peer, and root, are not held to 1000's bound */
	assert_int_equal(anr_request(f->anr, ip("10.0.1.8"), 1001, &ifname), ANR_ASKED);
	for (i = 9; i <= 40; i++)
		assert_int_equal(anr_request(f->anr, htonl(0x0a000100 + i), 0, &ifname),
		    ANR_ASKED);
	assert_int_equal(f->st.announce_refused, 1);
	/* sent: 1000 may ask again */
	for (i = 0; i < 40 && anr_pending(f->anr) > 0; i++) {
		anr_run(f->anr);
		pass(f, 0.02);
	}
	assert_int_equal(anr_pending(f->anr), 0);
	assert_int_equal(anr_request(f->anr, ip("10.0.1.8"), 1000, &ifname), ANR_ASKED);
}

/* announce_rate: one budget for the host, the interfaces taking turns;
 * a start's burst is each address once. */
static void
test_announce_rate_fair(void **state)
{
	struct fx *f = *state;
	uint32_t h;
	size_t sent0, sent1;
	double t0;
	int i;

	f->conf->announce_rate = 1000;	/* a burst of 50 frames, then 950/s */
	f->conf->announce_count = 3;
	for (h = 0; h < 200; h++) {
		tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h), htonl(0x0a010000 + h), 16);
		tbl_addr_add(f->tbl, 3, htonl(0x0a020000 + h), htonl(0x0a020000 + h), 16);
	}
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 2));
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 3));
	t0 = ev_now(f->loop);
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 50);
	/* turn by turn: one address of each */
	assert_int_equal(fake_cap_sent(0)->ifindex, fake_cap_sent(1)->ifindex);
	assert_int_not_equal(fake_cap_sent(1)->ifindex, fake_cap_sent(2)->ifindex);
	for (i = 0; i < 5; i++) {
		pass(f, 0.05);
		anr_run(f->anr);
	}
	sent0 = sent1 = 0;
	for (h = 0; h < fake_cap_nsent(); h++)
		if (fake_cap_sent(h)->ifindex == 2)
			sent0++;
		else
			sent1++;
	/* about 50 + 950 * 0.25 s, never more than the rate allows */
	assert_true(fake_cap_nsent() <= 50 + 950 * (ev_now(f->loop) - t0) + 2);
	assert_true(fake_cap_nsent() >= 100);
	assert_true(sent0 + 2 >= sent1 && sent1 + 2 >= sent0);
	assert_int_equal(f->st.announce_queued, 2);
	assert_int_equal(anr_pending(f->anr), 2);
	/* each address once at start: the frames of 10.1.0.0 are its two forms */
	assert_int_equal(frames(2, htonl(0x0a010000)), 2);
}

/* A moved address goes ahead of a start's backlog. */
static void
test_moved_first(void **state)
{
	struct fx *f = *state;
	uint32_t h;

	f->conf->announce_rate = 1000;
	for (h = 0; h < 200; h++)
		tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h), htonl(0x0a010000 + h), 16);
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 2));
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 50);
	tbl_addr_add(f->tbl, 3, ip("10.0.0.77"), ip("10.0.0.77"), 24);
	anr_start(f->anr, 3, ip("10.0.0.77"));
	pass(f, 0.01);
	anr_run(f->anr);
	assert_true(fake_cap_nsent() > 50);
	assert_int_equal(fake_cap_sent(50)->ifindex, 3);
	assert_int_equal(frames(3, ip("10.0.0.77")), 2);
}

/* What the previous run announced as it still is, a start leaves out;
 * what it did not, or with another MAC, it announces; after the start,
 * an interface managed is announced in full. */
static void
test_start_skips_previous(void **state)
{
	struct fx *f = *state;
	static const char prev[] =
	    "eth0 02:00:00:00:00:10 a000001 a010000-a010009\n"
	    "eth1 02:00:00:00:00:99 a000002\n";
	uint32_t h;

	f->conf->announce_rate = 0;
	for (h = 0; h < 20; h++)
		tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h), htonl(0x0a010000 + h), 16);
	anr_prev(f->anr, prev, sizeof(prev) - 1);
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 2));
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 3));
	anr_run(f->anr);
	assert_int_equal(frames(2, ip("10.0.0.1")), 0);
	assert_int_equal(frames(2, htonl(0x0a010009)), 0);
	assert_int_equal(frames(2, htonl(0x0a01000a)), 2);
	assert_int_equal(frames(3, ip("10.0.0.2")), 2);		/* another MAC then */
	assert_int_equal(fake_cap_nsent(), 2 * 11);
	assert_int_equal(f->st.announce_skipped, 11);
	/* and what this run says it announced: all of it, the skipped too */
	{
		size_t len;
		char *rec = anr_record(f->anr, &len);

		assert_non_null(rec);
		assert_string_equal(rec, "eth0 02:00:00:00:00:10 a000001 a010000-a010013\n"
		    "eth1 02:00:00:00:00:11 a000002\n");
		free(rec);
	}
	anr_started(f->anr);
	fake_cap_reset();
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 2));
	anr_run(f->anr);
	assert_int_equal(frames(2, ip("10.0.0.1")), 2);
}

/* What is still waiting is not in the record: not yet announced. */
static void
test_record_leaves_pending_out(void **state)
{
	struct fx *f = *state;
	size_t len;
	char *rec;
	uint32_t h;

	f->conf->announce_rate = 400;	/* 20 frames now: 10 addresses */
	for (h = 0; h < 30; h++)
		tbl_addr_add(f->tbl, 2, htonl(0x0a010000 + h), htonl(0x0a010000 + h), 16);
	anr_ifm_event(f->anr, tbl_iface(f->tbl, 2));
	anr_run(f->anr);
	assert_int_equal(fake_cap_nsent(), 20);
	anr_start(f->anr, 3, ip("10.0.0.2"));	/* waiting: the budget is gone */
	rec = anr_record(f->anr, &len);
	assert_non_null(rec);
	/* eth0: 10.0.0.1 first (its own entry), then nine of 10.1.0.x; eth1's
	 * only address waits */
	assert_string_equal(rec, "eth0 02:00:00:00:00:10 a000001 a010000-a010008\n");
	free(rec);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_both_forms_from_the_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_interfaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_announce_rate_fair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_skips_previous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_leaves_pending_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_per_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total_rate_leaves_half_for_replies, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_request_peer_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_owner_or_published, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
