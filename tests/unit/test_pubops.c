/* test_pubops.c — arpownctl publish and withdraw against a real state
 * directory (a temporary one of ours): what is answered, what is kept,
 * what a restart builds, and every refusal's code. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <cmocka.h>

#include "conf.h"
#include "inforce.h"
#include "policy.h"
#include "pubjournal.h"
#include "pubops.h"
#include "statedir.h"
#include "statefile.h"
#include "table.h"

struct fx {
	char			 dir[64];
	struct sdir	*sd;
	struct tbl		*tbl;
	struct pub		*pub;
	struct pop		*pop;
};

static uint32_t
ip(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct pop_deps d;
	char err[256];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_pubops.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->sd = sdir_open(f->dir, SDIR_DAEMON, err, sizeof(err));
	assert_non_null(f->sd);
	f->tbl = tbl_new();
	assert_non_null(tbl_iface_add(f->tbl, 2));
	snprintf(tbl_iface(f->tbl, 2)->name, IF_NAMESIZE, "eth0");
	tbl_iface(f->tbl, 2)->managed = true;
	tbl_iface(f->tbl, 2)->mode = POL_OWNER;
	assert_int_equal(tbl_addr_add(f->tbl, 2, ip("10.0.0.1"), ip("10.0.0.1"), 24), 1);
	assert_non_null(tbl_iface_add(f->tbl, 3));
	snprintf(tbl_iface(f->tbl, 3)->name, IF_NAMESIZE, "eth1");
	tbl_iface(f->tbl, 3)->managed = true;
	tbl_iface(f->tbl, 3)->mode = POL_MONITOR;
	assert_non_null(tbl_iface_add(f->tbl, 4));
	snprintf(tbl_iface(f->tbl, 4)->name, IF_NAMESIZE, "eth[0]");
	tbl_iface(f->tbl, 4)->managed = true;
	tbl_iface(f->tbl, 4)->mode = POL_SUBNET;
	f->pub = pub_new();
	d = (struct pop_deps){ f->tbl, f->sd, NULL, NULL, NULL };
	inf_init_pub(f->pub);
	f->pop = pop_new(&d);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	pop_free(f->pop);
	inf_free();
	tbl_free(f->tbl);
	sdir_close(f->sd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The saved runtime lines, as a restart reads them. */
static char *
saved(struct fx *f)
{
	struct pjn *pj = pjn_new(f->sd);
	char *lines = NULL, err[256];
	size_t len;

	assert_non_null(pj);
	assert_int_equal(pjn_load(pj, &lines, &len, err, sizeof(err)), 0);
	pjn_free(pj);
	return lines;
}

static void
test_publish_withdraw(void **state)
{
	struct fx *f = *state;
	char err[320], *s;

	assert_int_equal(pop_publish(f->pop, ip("10.0.0.48"), 29, "eth0", false, err, sizeof(err)),
	    0);
	assert_non_null(pub_lookup(f->pub, ip("10.0.0.50"), "eth0"));
	assert_null(pub_lookup(f->pub, ip("10.0.0.50"), "eth1"));
	s = saved(f);
	assert_string_equal(s, "10.0.0.48/29 eth0\n");
	free(s);
	/* an overlap names who holds it */
	assert_int_equal(pop_publish(f->pop, ip("10.0.0.50"), 32, "eth0", false, err, sizeof(err)),
	    EX_DATAERR);
	assert_non_null(strstr(err, "10.0.0.50 is published by arpownctl publish already"));
	/* an interface's own address, never */
	assert_int_equal(pop_publish(f->pop, ip("10.0.0.0"), 30, "eth0", false, err, sizeof(err)),
	    EX_DATAERR);
	assert_non_null(strstr(err, "10.0.0.1 is an address of eth0"));
	/* withdraw: not answered once it returns, and not kept */
	assert_int_equal(pop_withdraw(f->pop, ip("10.0.0.48"), 29, err, sizeof(err)), 0);
	assert_null(pub_find(f->pub, ip("10.0.0.50")));
	s = saved(f);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(pop_withdraw(f->pop, ip("10.0.0.48"), 29, err, sizeof(err)),
	    EX_DATAERR);
	assert_non_null(strstr(err, "10.0.0.48/29: not published"));
}

/* Every refusal of the list, with its code and what it says. */
static void
test_refusals(void **state)
{
	static const struct {
		const char	*cidr, *ifname;
		uint8_t		 plen;
		bool		 force;
		int		 code;
		const char	*says;
	} v[] = {
		{ "10.0.0.50", "*", 32, false, EX_DATAERR, "*: no such interface (the name is "
		    "taken literally, never as a pattern); arpownd answers on: eth0 eth[0]" },
		{ "10.1.0.77", "eth[0-9]", 32, false, EX_DATAERR, "no such interface" },
		{ "10.0.0.51", "eht0", 32, false, EX_DATAERR, "eht0: no such interface" },
		{ "10.0.0.52", "eth1", 32, false, EX_DATAERR, "eth1: in mode monitor, where "
		    "arpownd does not answer" },
		{ "10.0.0.255", "eth0", 32, false, EX_DATAERR, "10.0.0.255 is the broadcast "
		    "address of 10.0.0.1/24 on eth0" },
		{ "10.0.0.128", "eth0", 25, false, EX_DATAERR, "10.0.0.255 is the broadcast" },
		{ "10.64.0.0", "eth0", 10, false, EX_DATAERR, "4194304 addresses, more than a "
		    "/16: publish it in the configuration, or again with --force" },
	};
	struct fx *f = *state;
	char err[320];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		err[0] = '\0';
		if (pop_publish(f->pop, ip(v[i].cidr), v[i].plen, v[i].ifname, v[i].force, err,
		    sizeof(err)) != v[i].code || strstr(err, v[i].says) == NULL)
			fail_msg("publish %s/%u %s: got \"%s\"", v[i].cidr, v[i].plen, v[i].ifname,
			    err);
	}
	assert_int_equal(pub_count(f->pub), 0);
	/* a name with pattern characters, taken literally, is fine */
	assert_int_equal(pop_publish(f->pop, ip("10.0.0.60"), 32, "eth[0]", false, err,
	    sizeof(err)), 0);
	assert_non_null(pub_lookup(f->pub, ip("10.0.0.60"), "eth[0]"));
	assert_null(pub_lookup(f->pub, ip("10.0.0.60"), "eth0"));
	/* with --force a /10 is taken, and not announced */
	assert_int_equal(pop_publish(f->pop, ip("10.64.0.0"), 10, "eth0", true, err,
	    sizeof(err)), 0);
	assert_false(pub_announced(pub_find(f->pub, ip("10.64.0.1"))));
	/* withdrawing an address inside a published range says so */
	assert_int_equal(pop_withdraw(f->pop, ip("10.64.1.2"), 32, err, sizeof(err)),
	    EX_NOINPUT);
	assert_non_null(strstr(err, "10.64.1.2 is inside 10.64.0.0/10, published by "
	    "arpownctl publish on eth0"));
	assert_non_null(pub_find(f->pub, ip("10.64.1.2")));
}

static void
test_restart_builds_saved(void **state)
{
	struct fx *f = *state;
	struct pop_deps d = { f->tbl, f->sd, NULL, NULL, NULL };
	struct conf *c = conf_defaults();
	struct pub *p;
	struct pop *o;
	char err[320], *s;

	assert_int_equal(pop_publish(f->pop, ip("10.0.0.48"), 29, "eth0", false, err, sizeof(err)),
	    0);
	assert_int_equal(pop_publish(f->pop, ip("10.0.1.7"), 32, "eth0", false, err, sizeof(err)), 0);
	/* a new start reads them back */
	o = pop_new(&d);
	p = pop_build(o, c, NULL);
	assert_non_null(p);
	assert_non_null(pub_lookup(p, ip("10.0.0.50"), "eth0"));
	assert_non_null(pub_lookup(p, ip("10.0.1.7"), "eth0"));
	pub_free(p);
	/* the configuration now publishes 10.0.1.0/24 itself: it wins, the
	 * saved entry is dropped and the state saved without it */
	c->pubs = calloc(1, sizeof(*c->pubs));
	c->npubs = 1;
	c->pubs[0].label = strdup("web");
	c->pubs[0].ifglob = strdup("eth0");
	assert_int_equal(rng_add(&c->pubs[0].set, ntohl(ip("10.0.1.0")),
	    ntohl(ip("10.0.1.255"))), 0);
	assert_int_equal(rng_finish(&c->pubs[0].set), 0);
	p = pop_build(o, c, NULL);
	assert_non_null(p);
	assert_non_null(pub_lookup(p, ip("10.0.1.7"), "eth0"));
	assert_false(pub_lookup(p, ip("10.0.1.7"), "eth0")->runtime);
	s = saved(f);
	assert_string_equal(s, "10.0.0.48/29 eth0\n");
	free(s);
	/* a reload with a section overlapping a runtime entry is refused */
	pub_free(p);
	assert_int_equal(rng_add(&c->pubs[0].set, ntohl(ip("10.0.0.48")),
	    ntohl(ip("10.0.0.48"))), 0);
	assert_int_equal(rng_finish(&c->pubs[0].set), 0);
	assert_null(pop_build(f->pop, c, f->pub));
	pop_free(o);
	conf_free(c);
}

/* The /16 a single publish may not pass without --force is counted over
 * every runtime entry: split into /24s it is not passed either. */
static void
test_host_wide_budget(void **state)
{
	struct fx *f = *state;
	char err[320], cidr[32];
	unsigned i;

	for (i = 0; i < 256; i++) {
		snprintf(cidr, sizeof(cidr), "10.%u.%u.0", 100 + i / 256, i % 256);
		if (pop_publish(f->pop, ip(cidr), 24, "eth0", false, err, sizeof(err)) != 0)
			fail_msg("publish %s/24 (number %u): %s", cidr, i + 1, err);
	}
	assert_int_equal(pub_runtime_count(f->pub), 65536);
	assert_int_equal(pop_publish(f->pop, ip("10.200.0.1"), 32, "eth0", false, err,
	    sizeof(err)), EX_DATAERR);
	assert_non_null(strstr(err, "1 more addresses would make 65537 published at run "
	    "time, more than 65536 (a /16) in all"));
	assert_null(pub_find(f->pub, ip("10.200.0.1")));
	/* a withdraw makes room; --force passes */
	assert_int_equal(pop_withdraw(f->pop, ip("10.100.0.0"), 24, err, sizeof(err)), 0);
	assert_int_equal(pop_publish(f->pop, ip("10.200.0.1"), 32, "eth0", false, err,
	    sizeof(err)), 0);
	assert_int_equal(pop_publish(f->pop, ip("10.201.0.0"), 24, "eth0", true, err,
	    sizeof(err)), 0);
	assert_int_equal(pub_runtime_count(f->pub), 65536 - 256 + 1 + 256);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_withdraw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_builds_saved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_wide_budget, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
