/* test_policy.c — pol_decide over the seed's host, table-driven. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <cmocka.h>

#include "policy.h"
#include "publish.h"

/* ifindex 1 lo (10.0.0.50 VIP), 2 eth0 10.0.0.1/24 192.168.1.1/24
 * 10.0.0.8/32, 3 eth1 10.0.0.2/24, 4 eth2 10.1.0.1/24 and 172.16.5.5 peer
 * 172.16.9.9/32, 5 eth3 10.2.0.1/24 (unmanaged), 6 eth4 down 10.3.0.1/24,
 * 7 eth5 mode off 10.4.0.1/24 */
static struct tbl *
host(int mode0, int mode1, int mode2)
{
	static const struct { int ifindex; const char *addr; uint8_t plen;
	    bool managed; unsigned flags; const char *peer; } v[] = {
		{ 1, "10.0.0.50", 32, false, IFF_UP | IFF_LOOPBACK, NULL },
		{ 2, "10.0.0.1", 24, true, IFF_UP, NULL },
		{ 2, "192.168.1.1", 24, true, IFF_UP, NULL },
		{ 2, "10.0.0.8", 32, true, IFF_UP, NULL },
		{ 4, "172.16.5.5", 32, true, IFF_UP, "172.16.9.9" },
		{ 3, "10.0.0.2", 24, true, IFF_UP, NULL },
		{ 4, "10.1.0.1", 24, true, IFF_UP, NULL },
		{ 5, "10.2.0.1", 24, false, IFF_UP, NULL },
		{ 6, "10.3.0.1", 24, true, 0, NULL },
		{ 7, "10.4.0.1", 24, true, IFF_UP, NULL },
	};
	int modes[8] = { 0, POL_OWNER, mode0, mode1, mode2, POL_OWNER, POL_OWNER, POL_OFF };
	struct tbl *t = tbl_new();
	struct tbl_iface *ifp;
	uint32_t a, p;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ifp = tbl_iface_add(t, v[i].ifindex);
		ifp->managed = v[i].managed;
		ifp->flags = v[i].flags;
		ifp->allow_probes = true;
		ifp->mode = modes[v[i].ifindex];
		ifp->type = v[i].ifindex == 1 ? ARPHRD_LOOPBACK : ARPHRD_ETHER;
		memset(ifp->mac, 0, 6);
		ifp->mac[0] = 2;
		ifp->mac[5] = (uint8_t)v[i].ifindex;
		inet_pton(AF_INET, v[i].addr, &a);
		p = a;
		if (v[i].peer != NULL)
			inet_pton(AF_INET, v[i].peer, &p);
		assert_int_equal(tbl_addr_add(t, v[i].ifindex, a, p, v[i].plen), 1);
	}
	return t;
}

struct c {
	const char	*what;
	int		 modes[3];	/* eth0, eth1, eth2 */
	int		 ifindex;	/* arrival */
	const char	*sip, *tip;
	uint8_t		 sha_last;	/* 0x64: a stranger; 2..7: one of our NICs */
	enum pol_verdict want;
	int		 owner;		/* expected res.owner ifindex, 0 = none */
};

#define O POL_OWNER
#define S POL_SUBNET
#define Y POL_SYSTEM
#define M POL_MONITOR
static const struct c cases[] = {
	/* the seed: two NICs on one segment */
	{ "eth0 asked for its own", { O, O, O }, 2, "10.0.0.100", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	{ "eth1 asked for eth0's", { O, O, O }, 3, "10.0.0.100", "10.0.0.1", 0x64, POL_OTHER_IFACE, 2 },
	{ "eth1 asked for its own", { O, O, O }, 3, "10.0.0.100", "10.0.0.2", 0x64, POL_ANSWER, 3 },
	/* the firewall */
	{ "outside asks for inside", { O, O, O }, 4, "10.1.0.100", "10.0.0.1", 0x64, POL_OTHER_IFACE, 2 },
	{ "outside asks for eth2's", { O, O, O }, 4, "10.1.0.100", "10.1.0.1", 0x64, POL_ANSWER, 4 },
	{ "not ours at all", { O, O, O }, 2, "10.0.0.100", "10.0.0.99", 0x64, POL_NOT_LOCAL, 0 },
	{ "lo VIP, owner", { O, O, O }, 2, "10.0.0.100", "10.0.0.50", 0x64, POL_OTHER_IFACE, 1 },
	{ "lo VIP, system", { Y, O, O }, 2, "10.0.0.100", "10.0.0.50", 0x64, POL_OTHER_IFACE, 0 },
	/* subnet */
	{ "subnet: sender inside", { S, O, O }, 2, "10.0.0.100", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	{ "subnet: sender outside", { S, O, O }, 2, "172.31.1.1", "10.0.0.1", 0x64, POL_NOT_SUBNET, 2 },
	{ "subnet: probe", { S, O, O }, 2, "0.0.0.0", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	{ "owner: sender outside", { O, O, O }, 2, "172.31.1.1", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	/* arp_ignore=2 as the kernel has it: one subnet must hold both */
	{ "subnet: sender in eth0's other subnet", { S, O, O }, 2, "192.168.1.50", "10.0.0.1", 0x64, POL_NOT_SUBNET, 2 },
	{ "subnet: that subnet's own address", { S, O, O }, 2, "192.168.1.50", "192.168.1.1", 0x64, POL_ANSWER, 2 },
	{ "subnet: /32 inside another entry's /24", { S, O, O }, 2, "10.0.0.100", "10.0.0.8", 0x64, POL_ANSWER, 2 },
	/* arp_ignore=1: a p-t-p address outside its peer's subnet is refused */
	{ "owner: p-t-p address", { O, O, O }, 4, "10.1.0.100", "172.16.5.5", 0x64, POL_NOT_SUBNET, 4 },
	{ "owner: p-t-p address, probe", { O, O, O }, 4, "0.0.0.0", "172.16.5.5", 0x64, POL_NOT_SUBNET, 4 },
	/* system */
	{ "system: eth2 for eth0's", { O, O, Y }, 4, "10.1.0.100", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	{ "system: unmanaged holder", { O, O, Y }, 4, "10.1.0.100", "10.2.0.1", 0x64, POL_OTHER_IFACE, 0 },
	{ "system: down holder", { O, O, Y }, 4, "10.1.0.100", "10.3.0.1", 0x64, POL_OTHER_IFACE, 0 },
	{ "system: off holder", { O, O, Y }, 4, "10.1.0.100", "10.4.0.1", 0x64, POL_OTHER_IFACE, 0 },
	{ "system: not local", { O, O, Y }, 4, "10.1.0.100", "10.9.9.9", 0x64, POL_NOT_LOCAL, 0 },
	/* arrival interface */
	{ "unknown ifindex", { O, O, O }, 99, "10.0.0.100", "10.0.0.1", 0x64, POL_UNKNOWN_IFACE, 0 },
	{ "unmanaged arrival", { O, O, O }, 5, "10.2.0.100", "10.2.0.1", 0x64, POL_UNMANAGED, 0 },
	{ "down arrival", { O, O, O }, 6, "10.3.0.100", "10.3.0.1", 0x64, POL_LINK_DOWN, 0 },
	{ "mode off", { O, O, O }, 7, "10.4.0.100", "10.4.0.1", 0x64, POL_MODE_OFF, 0 },
	/* senders using our addresses: checked before the target */
	{ "stranger claims eth1's", { O, O, O }, 2, "10.0.0.2", "10.0.0.1", 0x64, POL_CONFLICT, 0 },
	{ "stranger claims lo VIP", { O, O, O }, 2, "10.0.0.50", "10.0.0.1", 0x64, POL_CONFLICT, 0 },
	{ "our eth1 asks, eth0 hears", { O, O, O }, 2, "10.0.0.2", "10.0.0.1", 3, POL_OWN_SENDER, 0 },
	{ "probe is no conflict", { O, O, O }, 2, "0.0.0.0", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	/* monitor: what owner mode would say (the daemon sends nothing) */
	{ "monitor: as owner, own", { M, O, O }, 2, "10.0.0.100", "10.0.0.1", 0x64, POL_ANSWER, 2 },
	{ "monitor: as owner, other's", { O, M, O }, 3, "10.0.0.100", "10.0.0.1", 0x64, POL_OTHER_IFACE, 2 },
};

static void
test_cases(void **state)
{
	struct pol_result res;
	struct arp_req req;
	enum pol_verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct c *c = &cases[i];
		struct tbl *t = host(c->modes[0], c->modes[1], c->modes[2]);

		memset(&req, 0, sizeof(req));
		req.ifindex = c->ifindex;
		req.sha[0] = 2;
		req.sha[5] = c->sha_last;
		inet_pton(AF_INET, c->sip, &req.sip);
		inet_pton(AF_INET, c->tip, &req.tip);
		v = pol_decide(t, NULL, &req, &res);
		if (v != c->want)
			fail_msg("%s: got %s, want %s", c->what, pol_verdict_str(v),
			    pol_verdict_str(c->want));
		assert_int_equal(res.verdict, v);
		if (c->owner && (res.owner == NULL || res.owner->ifindex != c->owner))
			fail_msg("%s: owner %d, want %d", c->what,
			    res.owner ? res.owner->ifindex : 0, c->owner);
		if (v == POL_ANSWER && c->modes[0] != Y && c->modes[2] != Y)
			assert_ptr_equal(res.in, res.owner);
		tbl_free(t);
	}
}

/* The kernel's own answer, by arp_ignore, on the seed's host: the model
 * monitor mode compares arpownd's policy with. */
/* allow_senders / deny_senders (deny wins) and allow_probes on eth0. */
static void
test_acl(void **state)
{
	static const struct { const char *allow, *deny; bool probes; const char *sip;
	    enum pol_verdict want; } v[] = {
		{ NULL, NULL, true, "10.0.0.100", POL_ANSWER },
		{ "10.0.0.0/25", NULL, true, "10.0.0.100", POL_ANSWER },
		{ "10.0.0.0/26", NULL, true, "10.0.0.100", POL_SENDER_DENIED },
		{ NULL, "10.0.0.100", true, "10.0.0.100", POL_SENDER_DENIED },
		{ NULL, "10.0.0.101", true, "10.0.0.100", POL_ANSWER },
		{ "10.0.0.0/24", "10.0.0.96-10.0.0.127", true, "10.0.0.100", POL_SENDER_DENIED },
		{ NULL, "0.0.0.0/0", true, "10.0.0.100", POL_SENDER_DENIED },
		/* probes: allow_probes decides, not the lists (no sender) */
		{ NULL, "0.0.0.0/0", true, "0.0.0.0", POL_ANSWER },
		{ NULL, NULL, false, "0.0.0.0", POL_PROBE_DENIED },
		{ NULL, NULL, false, "10.0.0.100", POL_ANSWER },
	};
	struct pol_result res;
	struct arp_req req;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tbl *t = host(POL_OWNER, POL_OWNER, POL_OWNER);
		struct tbl_iface *eth0 = tbl_iface(t, 2);
		struct rng allow, deny;
		const char *why;

		memset(&allow, 0, sizeof(allow));
		memset(&deny, 0, sizeof(deny));
		if (v[i].allow) {
			assert_int_equal(rng_add_item(&allow, v[i].allow, &why), 0);
			rng_finish(&allow);
			eth0->allow = &allow;
		}
		if (v[i].deny) {
			assert_int_equal(rng_add_item(&deny, v[i].deny, &why), 0);
			rng_finish(&deny);
			eth0->deny = &deny;
		}
		eth0->allow_probes = v[i].probes;
		memset(&req, 0, sizeof(req));
		req.ifindex = 2;
		req.sha[0] = 2;
		req.sha[5] = 0x64;
		inet_pton(AF_INET, v[i].sip, &req.sip);
		inet_pton(AF_INET, "10.0.0.1", &req.tip);
		if (pol_decide(t, NULL, &req, &res) != v[i].want)
			fail_msg("case %zu: got %s, want %s", i, pol_verdict_str(res.verdict),
			    pol_verdict_str(v[i].want));
		rng_clear(&allow);
		rng_clear(&deny);
		tbl_free(t);
	}
}

/* Published addresses: answered on their interface only, with the entry's
 * MAC or the interface's; never an address an interface holds; the
 * sender check covers them too. */
static void
test_published(void **state)
{
	static const uint8_t VMAC[6] = { 0x02, 0xee, 0, 0, 0, 0x50 };
	static const struct { int ifindex; const char *sip, *tip; const uint8_t *sha;
	    enum pol_verdict want; bool vmac; } v[] = {
		{ 2, "10.0.0.100", "10.0.0.55", NULL, POL_ANSWER, true },	/* [a] on eth0 */
		{ 3, "10.0.0.100", "10.0.0.55", NULL, POL_OTHER_IFACE, false },	/* not on eth1 */
		{ 4, "10.1.0.100", "10.0.9.3", NULL, POL_ANSWER, false },	/* [b] on eth*, no mac */
		{ 3, "10.0.0.100", "10.0.9.3", NULL, POL_ANSWER, false },
		{ 2, "10.0.0.100", "10.0.0.2", NULL, POL_OTHER_IFACE, false },	/* eth1 holds it */
		{ 2, "10.0.0.100", "10.0.0.56", NULL, POL_NOT_LOCAL, false },
		/* lo holds 10.0.0.50: not published, though [c] says so */
		{ 2, "10.0.0.100", "10.0.0.50", NULL, POL_OTHER_IFACE, false },
		/* a stranger using a published address: a conflict; its own MAC: ours */
		{ 2, "10.0.0.55", "10.0.0.1", NULL, POL_CONFLICT, false },
		{ 2, "10.0.0.55", "10.0.0.1", VMAC, POL_OWN_SENDER, false },
		{ 2, "0.0.0.0", "10.0.0.55", NULL, POL_ANSWER, true },		/* a probe */
	};
	struct pub *pub = pub_new();
	struct pub_entry e;
	struct pol_result res;
	struct arp_req req;
	char err[128];
	const char *why;
	size_t i;

	(void)state;
	memset(&e, 0, sizeof(e));
	strcpy(e.label, "a");
	strcpy(e.ifglob, "eth0");
	memcpy(e.mac, VMAC, 6);
	e.has_mac = true;
	assert_int_equal(rng_add_item(&e.set, "10.0.0.55", &why), 0);
	assert_int_equal(rng_add_item(&e.set, "10.0.0.2", &why), 0);	/* eth1 holds it */
	assert_int_equal(rng_add_item(&e.set, "10.0.0.50", &why), 0);	/* lo holds it */
	rng_finish(&e.set);
	assert_int_equal(pub_add(pub, &e, err, sizeof(err)), 0);
	memset(&e, 0, sizeof(e));
	strcpy(e.label, "b");
	strcpy(e.ifglob, "eth*");
	assert_int_equal(rng_add_item(&e.set, "10.0.9.0/24", &why), 0);
	rng_finish(&e.set);
	assert_int_equal(pub_add(pub, &e, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tbl *t = host(POL_OWNER, POL_OWNER, POL_OWNER);

		tbl_iface(t, 2)->mac[5] = 2;
		strcpy(tbl_iface(t, 2)->name, "eth0");
		strcpy(tbl_iface(t, 3)->name, "eth1");
		strcpy(tbl_iface(t, 4)->name, "eth2");
		memset(&req, 0, sizeof(req));
		req.ifindex = v[i].ifindex;
		if (v[i].sha)
			memcpy(req.sha, v[i].sha, 6);
		else {
			req.sha[0] = 2;
			req.sha[5] = 0x64;
		}
		inet_pton(AF_INET, v[i].sip, &req.sip);
		inet_pton(AF_INET, v[i].tip, &req.tip);
		if (pol_decide(t, pub, &req, &res) != v[i].want)
			fail_msg("case %zu (%s for %s on %d): got %s, want %s", i, v[i].sip,
			    v[i].tip, v[i].ifindex, pol_verdict_str(res.verdict),
			    pol_verdict_str(v[i].want));
		if (res.verdict == POL_ANSWER)
			assert_memory_equal(res.mac, v[i].vmac ? VMAC : res.in->mac, 6);
		tbl_free(t);
	}
	pub_free(pub);
}

static void
test_kernel_model(void **state)
{
	static const struct { int ign, ifindex; const char *sip, *tip; bool answers; } v[] = {
		{ 0, 3, "10.0.0.100", "10.0.0.1", true },	/* weak host: eth1 for eth0's */
		{ 0, 4, "10.1.0.100", "10.0.0.1", true },	/* the firewall probe */
		{ 0, 4, "10.1.0.100", "10.0.0.50", true },	/* the lo VIP, too */
		{ 0, 4, "10.1.0.100", "10.9.9.9", false },	/* not local */
		{ 0, 2, "10.0.0.2", "10.0.0.1", false },	/* a local sender */
		{ 1, 3, "10.0.0.100", "10.0.0.1", false },
		{ 1, 2, "10.0.0.100", "10.0.0.1", true },
		{ 1, 4, "10.1.0.100", "172.16.5.5", false },	/* p-t-p outside its peer */
		{ 2, 2, "192.168.1.50", "10.0.0.1", false },
		{ 2, 2, "192.168.1.50", "192.168.1.1", true },
		{ 2, 2, "0.0.0.0", "10.0.0.1", true },		/* a probe */
		{ 8, 2, "10.0.0.100", "10.0.0.1", false },
		{ 0, 6, "10.3.0.100", "10.3.0.1", false },	/* the link is down */
		{ 0, 99, "10.0.0.100", "10.0.0.1", false },	/* unknown interface */
	};
	struct tbl *t = host(POL_OWNER, POL_OWNER, POL_OWNER);
	struct arp_req req;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&req, 0, sizeof(req));
		req.ifindex = v[i].ifindex;
		req.sha[0] = 2;
		req.sha[5] = 0x64;
		inet_pton(AF_INET, v[i].sip, &req.sip);
		inet_pton(AF_INET, v[i].tip, &req.tip);
		if (pol_kernel_answers(t, &req, v[i].ign) != v[i].answers)
			fail_msg("arp_ignore %d, ifindex %d, %s asks for %s: want %d",
			    v[i].ign, v[i].ifindex, v[i].sip, v[i].tip, v[i].answers);
	}
	tbl_free(t);
}

static void
test_names(void **state)
{
	int m, i, j;

	(void)state;
	for (m = 0; m < POL_NMODES; m++)
		assert_int_equal(pol_mode_parse(pol_mode_str(m)), m);
	assert_int_equal(pol_mode_parse("Owner"), -1);
	assert_int_equal(pol_mode_parse(""), -1);
	assert_string_equal(pol_mode_str(POL_NMODES), "?");
	for (i = 0; i < POL_NVERDICTS; i++)
		for (j = 0; j < i; j++)
			assert_string_not_equal(pol_verdict_str(i), pol_verdict_str(j));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_acl),
		cmocka_unit_test(test_published),
		cmocka_unit_test(test_kernel_model),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
