/* test_kpfeed.c — from the table to the kernel path's grants: which
 * entries a grant depends on, system mode's holders, the mode, sender
 * sets as disjoint CIDRs (against a model), and what kpf_addr and
 * kpf_iface write (kpath.c's writers replaced by recorders here). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <cmocka.h>

#include "kpfeed.h"
#include "publish.h"
#include "policy.h"
#include "ranges.h"

/* ---- kpath.c's writers, recorded */
static struct {
	int		 answers, del_answers, locals, del_locals, ifaces, senders;
	int		 last_mode;
	unsigned	 last_flags;
	uint32_t	 last_addr;
	size_t		 last_n;
	struct kp_ifa	 last_refs[KP_NREF];
	size_t		 last_ncidr;
	bool		 last_allowlist;
	int		 fail_senders;
} rec;

int
kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{
	(void)kp;
	(void)ifindex;
	rec.answers++;
	rec.last_addr = addr;
	rec.last_n = n;
	memcpy(rec.last_refs, refs, n * sizeof(*refs));
	return 0;
}

int
kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{
	(void)kp;
	(void)ifindex;
	(void)addr;
	rec.del_answers++;
	return 0;
}

int
kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{
	(void)kp;
	(void)addr;
	(void)holders;
	(void)n;
	rec.locals++;
	return 0;
}

int
kp_del_local(struct kp *kp, uint32_t addr)
{
	(void)kp;
	(void)addr;
	rec.del_locals++;
	return 0;
}

int
kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags)
{
	(void)kp;
	(void)ifindex;
	(void)mac;
	(void)master;
	rec.ifaces++;
	rec.last_mode = mode;
	rec.last_flags = flags;
	return 0;
}

int
kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{
	(void)kp;
	(void)ifindex;
	(void)v;
	rec.senders++;
	rec.last_ncidr = n;
	rec.last_allowlist = allowlist;
	return rec.fail_senders ? -1 : 0;
}

static uint32_t
ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static struct tbl_iface *
iface(struct tbl *t, int idx, bool managed, int mode, unsigned flags)
{
	struct tbl_iface *ifp = tbl_iface_add(t, idx);

	assert_non_null(ifp);
	snprintf(ifp->name, sizeof(ifp->name), "eth%d", idx);
	ifp->managed = managed;
	ifp->mode = mode;
	ifp->flags = flags;
	ifp->allow_probes = true;
	return ifp;
}

/* The table of the tests: eth2 with 10.0.0.1/24 and /16, a /32 VIP,
 * a point-to-point entry, 192.168.1.1/24; eth3 down with 10.3.0.1/24. */
static struct tbl *
table(void)
{
	struct tbl *t = tbl_new();

	assert_non_null(t);
	iface(t, 2, true, POL_OWNER, IFF_UP);
	iface(t, 3, true, POL_OWNER, 0);
	iface(t, 4, false, POL_OWNER, IFF_UP);
	assert_int_equal(tbl_addr_add(t, 2, ip("10.0.0.1"), ip("10.0.0.1"), 24), 1);
	assert_int_equal(tbl_addr_add(t, 2, ip("10.0.0.1"), ip("10.0.0.1"), 16), 1);
	assert_int_equal(tbl_addr_add(t, 2, ip("10.0.0.5"), ip("10.0.0.5"), 32), 1);
	assert_int_equal(tbl_addr_add(t, 2, ip("10.0.0.9"), ip("192.168.0.2"), 32), 1);
	assert_int_equal(tbl_addr_add(t, 2, ip("192.168.1.1"), ip("192.168.1.1"), 24), 1);
	assert_int_equal(tbl_addr_add(t, 3, ip("10.3.0.1"), ip("10.3.0.1"), 24), 1);
	assert_int_equal(tbl_addr_add(t, 4, ip("10.4.0.1"), ip("10.4.0.1"), 24), 1);
	return t;
}

static int
find(const struct kp_ifa *v, size_t n, const char *local, uint8_t plen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].local == ip(local) && v[i].plen == plen)
			return v[i].kind;
	return -1;
}

static void
test_refs(void **state)
{
	struct tbl *t = table();
	struct tbl_iface *e2 = tbl_iface(t, 2);
	struct kp_ifa v[8];
	size_t n;

	(void)state;
	/* an address with two prefixes: both its own, both hold it; the
	 * other wide entries holding it are none (192.168/24 does not) */
	n = kpf_refs(t, e2, ip("10.0.0.1"), v, 8);
	assert_int_equal(n, 2);
	assert_int_equal(find(v, n, "10.0.0.1", 24), KP_REF_OWN | KP_REF_COVER);
	assert_int_equal(find(v, n, "10.0.0.1", 16), KP_REF_OWN | KP_REF_COVER);
	/* a /32 VIP: its own entry, then the subnets that hold it */
	n = kpf_refs(t, e2, ip("10.0.0.5"), v, 8);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].local, ip("10.0.0.5"));
	assert_int_equal(v[0].kind, KP_REF_OWN | KP_REF_COVER);
	assert_int_equal(find(v, n, "10.0.0.1", 24), KP_REF_COVER);
	assert_int_equal(find(v, n, "10.0.0.1", 16), KP_REF_COVER);
	/* a point-to-point entry: its own, not holding itself */
	n = kpf_refs(t, e2, ip("10.0.0.9"), v, 8);
	assert_int_equal(find(v, n, "10.0.0.9", 32), KP_REF_OWN);
	assert_int_equal(find(v, n, "10.0.0.1", 24), KP_REF_COVER);
	/* truncated: the own entries come first */
	n = kpf_refs(t, e2, ip("10.0.0.5"), v, 1);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].local, ip("10.0.0.5"));
	/* not on the interface */
	assert_int_equal(kpf_refs(t, e2, ip("10.3.0.1"), v, 8), 0);
	tbl_free(t);
}

static void
test_holders_mode(void **state)
{
	struct tbl *t = table();
	struct kp_ifa v[8];
	size_t n;

	(void)state;
	n = kpf_holders(t, ip("10.0.0.1"), v, 8);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].ifindex, 2);
	assert_int_equal(v[0].kind, KP_REF_OWN);
	/* down, unmanaged: no usable holder */
	assert_int_equal(kpf_holders(t, ip("10.3.0.1"), v, 8), 0);
	assert_int_equal(kpf_holders(t, ip("10.4.0.1"), v, 8), 0);
	assert_int_equal(kpf_mode(tbl_iface(t, 2)), KP_MODE_OWNER);
	assert_int_equal(kpf_mode(tbl_iface(t, 3)), KP_MODE_NONE);	/* down */
	assert_int_equal(kpf_mode(tbl_iface(t, 4)), KP_MODE_NONE);	/* unmanaged */
	tbl_iface(t, 2)->mode = POL_SUBNET;
	assert_int_equal(kpf_mode(tbl_iface(t, 2)), KP_MODE_SUBNET);
	tbl_iface(t, 2)->mode = POL_SYSTEM;
	assert_int_equal(kpf_mode(tbl_iface(t, 2)), KP_MODE_SYSTEM);
	tbl_iface(t, 2)->mode = POL_MONITOR;
	assert_int_equal(kpf_mode(tbl_iface(t, 2)), KP_MODE_NONE);
	tbl_iface(t, 2)->mode = POL_OFF;
	assert_int_equal(kpf_mode(tbl_iface(t, 2)), KP_MODE_NONE);
	assert_false(kpf_wide(ip("10.0.0.5"), ip("10.0.0.5"), 32));
	assert_true(kpf_wide(ip("10.0.0.1"), ip("10.0.0.1"), 24));
	assert_true(kpf_wide(ip("10.0.0.9"), ip("192.168.0.2"), 32));
	tbl_free(t);
}

static void
set_of(struct rng *r, const char *items)
{
	char buf[256], *tok, *save;
	const char *why;

	memset(r, 0, sizeof(*r));
	snprintf(buf, sizeof(buf), "%s", items);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		assert_int_equal(rng_add_item(r, tok, &why), 0);
	assert_int_equal(rng_finish(r), 0);
}

static uint8_t
model(const struct rng *a, const struct rng *d, const struct rng *o, const struct rng *sn,
    uint32_t h)
{
	uint32_t n = htonl(h);

	return (uint8_t)((a && rng_has(a, n) ? KP_SND_ALLOW : 0) | (d && rng_has(d, n) ? KP_SND_DENY : 0) |
	    (o && rng_has(o, n) ? KP_SND_OURS : 0) | (sn && rng_has(sn, n) ? KP_SND_SUBNET : 0));
}

/* Each probe address is in at most one CIDR, whose bits are the model's;
 * in none when the model says 0. */
static void
check_cidrs4(const struct rng *a, const struct rng *d, const struct rng *o, const struct rng *sn,
    size_t expect_n)
{
	struct kp_cidr v[512];
	size_t n = kpf_senders(a, d, o, sn, v, 512), i, k, hits;
	uint32_t probes[4096], h;
	uint8_t bits;

	if (expect_n != 0)
		assert_int_equal(n, expect_n);
	assert_true(n <= 512);
	for (i = 0; i < n; i++) {
		uint32_t mask = v[i].len == 0 ? 0 : 0xffffffffu << (32 - v[i].len);

		assert_int_equal(v[i].addr & ~mask, 0);	/* a network address */
		probes[2 * (i % 1024)] = v[i].addr;
		probes[2 * (i % 1024) + 1] = v[i].addr | ~mask;
	}
	srand(7);
	for (k = 2 * (n < 1024 ? n : 1024); k < 4096; k++)
		probes[k] = (uint32_t)rand() << 16 ^ (uint32_t)rand();
	for (k = 0; k < 4096; k++) {
		h = probes[k];
		for (i = 0, hits = 0, bits = 0; i < n; i++) {
			uint32_t mask = v[i].len == 0 ? 0 : 0xffffffffu << (32 - v[i].len);

			if ((h & mask) == v[i].addr) {
				hits++;
				bits = v[i].bits;
			}
		}
		assert_true(hits <= 1);
		assert_int_equal(bits, model(a, d, o, sn, h));
	}
}

static void
check_cidrs(const struct rng *a, const struct rng *d, const struct rng *o, size_t expect_n)
{
	check_cidrs4(a, d, o, NULL, expect_n);
}

static void
test_senders(void **state)
{
	struct rng a, d, o;

	(void)state;
	set_of(&a, "10.0.0.0/24 10.1.0.0/24");
	set_of(&d, "10.0.0.100");
	/* 0-99: /26 /27 /30; 100; 101, 102/31, 104/29, 112/28, 128/25; 10.1.0.0/24 */
	check_cidrs(&a, &d, NULL, 10);
	rng_clear(&a);
	rng_clear(&d);
	set_of(&a, "0.0.0.0/0");
	check_cidrs(&a, NULL, NULL, 1);
	set_of(&d, "255.255.255.255 0.0.0.0");
	check_cidrs(&a, &d, NULL, 0);
	set_of(&o, "10.128.0.0/12 10.2.3.4-10.2.3.77");
	check_cidrs(&a, &d, &o, 0);
	check_cidrs(NULL, NULL, &o, 0);
	rng_clear(&a);
	rng_clear(&d);
	rng_clear(&o);
	assert_int_equal(kpf_senders(NULL, NULL, NULL, NULL, NULL, 0), 0);
}

/* The subnets of an interface (what tbl_in_subnet asks), cut with the
 * sender lists: every sender tbl_in_subnet says is in one has the bit. */
static void
test_subnets(void **state)
{
	struct tbl *t = table();
	struct tbl_iface *e2 = tbl_iface(t, 2);
	struct rng sn, d;
	uint32_t probe[] = { ip("10.0.0.7"), ip("10.0.200.1"), ip("10.1.0.1"), ip("192.168.0.2"),
	    ip("192.168.0.3"), ip("192.168.1.77"), ip("10.0.0.100") };
	size_t i;

	(void)state;
	assert_int_equal(kpf_subnets(e2, &sn), 0);
	/* 10.0.0.0/16 (the /24 inside it), the peer 192.168.0.2, 192.168.1.0/24 */
	assert_int_equal(sn.n, 3);
	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		assert_int_equal(rng_has(&sn, probe[i]), tbl_in_subnet(t, e2, probe[i]));
	set_of(&d, "10.0.0.100");
	check_cidrs4(NULL, &d, NULL, &sn, 0);
	check_cidrs4(NULL, NULL, NULL, &sn, 0);
	rng_clear(&sn);
	rng_clear(&d);
	tbl_free(t);
}

/* Published entries as the program holds them: each range as the fewest
 * CIDRs, on the interfaces the entry names, with its MAC or none. */
static void
test_pub(void **state)
{
	struct tbl *t = table();
	struct pub *p = pub_new();
	struct pub_entry e;
	struct kpf_pub v[16];
	const char *why;
	char err[128];
	size_t n;

	(void)state;
	assert_non_null(p);
	assert_int_equal(pub_runtime_make(&e, 0x0a000100, 24, "eth2", &why), 0);
	assert_int_equal(pub_add(p, &e, err, sizeof(err)), 0);
	memset(&e, 0, sizeof(e));
	snprintf(e.label, sizeof(e.label), "range");
	snprintf(e.ifglob, sizeof(e.ifglob), "eth*");
	e.has_mac = true;
	memcpy(e.mac, "\x02\0\0\0\0\x50", 6);
	assert_int_equal(rng_add(&e.set, 0x0a000201, 0x0a000206), 0);
	assert_int_equal(rng_finish(&e.set), 0);
	assert_int_equal(pub_add(p, &e, err, sizeof(err)), 0);
	/* 10.0.1.0/24; 10.0.2.1/32 .2/31 .4/31 .6/32 */
	n = kpf_pub(p, tbl_iface(t, 2), v, 16);
	assert_int_equal(n, 5);
	assert_int_equal(v[0].addr, ip("10.0.1.0"));
	assert_int_equal(v[0].len, 24);
	assert_false(v[0].has_mac);
	assert_int_equal(v[0].ifindex, 2);
	assert_int_equal(v[1].addr, ip("10.0.2.1"));
	assert_int_equal(v[1].len, 32);
	assert_true(v[1].has_mac);
	assert_memory_equal(v[1].mac, "\x02\0\0\0\0\x50", 6);
	assert_int_equal(v[2].addr, ip("10.0.2.2"));
	assert_int_equal(v[2].len, 31);
	assert_int_equal(v[4].addr, ip("10.0.2.6"));
	/* counted, not written, past max */
	assert_int_equal(kpf_pub(p, tbl_iface(t, 2), v, 2), 5);
	/* eth3: the range alone (eth*), not eth2's /24 */
	assert_int_equal(kpf_pub(p, tbl_iface(t, 3), v, 16), 4);
	/* a /0 published: one CIDR */
	pub_free(p);
	p = pub_new();
	assert_int_equal(pub_runtime_make(&e, 0, 0, "eth2", &why), 0);
	assert_int_equal(pub_add(p, &e, err, sizeof(err)), 0);
	assert_int_equal(kpf_pub(p, tbl_iface(t, 2), v, 16), 1);
	assert_int_equal(v[0].len, 0);
	pub_free(p);
	tbl_free(t);
}

static void
test_writes(void **state)
{
	struct tbl *t = table();
	struct tbl_iface *e2 = tbl_iface(t, 2);
	struct rng d, sn;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(kpf_addr(NULL, t, 2, ip("10.0.0.5")), 0);
	assert_int_equal(rec.answers, 1);
	assert_int_equal(rec.locals, 1);
	assert_int_equal(rec.last_n, 3);
	/* gone from the table: withdrawn, and no longer ours */
	assert_int_equal(tbl_addr_del(t, 2, ip("10.0.0.5"), ip("10.0.0.5"), 32), 1);
	assert_int_equal(kpf_addr(NULL, t, 2, ip("10.0.0.5")), 0);
	assert_int_equal(rec.del_answers, 1);
	assert_int_equal(rec.del_locals, 1);
	/* an unmanaged holder: ours, but no grant there */
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(kpf_addr(NULL, t, 4, ip("10.4.0.1")), 0);
	assert_int_equal(rec.answers, 0);
	assert_int_equal(rec.del_answers, 1);
	assert_int_equal(rec.locals, 1);
	/* the interface: senders, then settings, then one grant per address */
	set_of(&d, "10.0.0.100");
	e2->deny = &d;
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(kpf_iface(NULL, t, e2, KP_IF_LEARN | KP_IF_PROBES, NULL), 0);
	assert_int_equal(rec.senders, 1);
	/* the deny list cut with the subnets */
	assert_int_equal(kpf_subnets(e2, &sn), 0);
	assert_int_equal(rec.last_ncidr, kpf_senders(NULL, &d, NULL, &sn, NULL, 0));
	rng_clear(&sn);
	assert_false(rec.last_allowlist);
	assert_int_equal(rec.ifaces, 1);
	assert_int_equal(rec.last_mode, KP_MODE_OWNER);
	assert_int_equal(rec.last_flags, KP_IF_LEARN | KP_IF_PROBES | KP_IF_SENDERS);
	assert_int_equal(rec.answers, 3);	/* 10.0.0.1 once, 10.0.0.9, 192.168.1.1 */
	/* allow_probes = no: probes stay the capture path's */
	e2->allow_probes = false;
	assert_int_equal(kpf_iface(NULL, t, e2, KP_IF_PROBES, NULL), 0);
	assert_int_equal(rec.last_flags, KP_IF_SENDERS);
	e2->allow_probes = true;
	/* senders not written: nothing answered there */
	rec.fail_senders = 1;
	assert_int_equal(kpf_iface(NULL, t, e2, 0, NULL), -1);
	assert_int_equal(rec.last_mode, KP_MODE_NONE);
	e2->deny = NULL;
	rng_clear(&d);
	tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_holders_mode),
		cmocka_unit_test(test_senders),
		cmocka_unit_test(test_subnets),
		cmocka_unit_test(test_pub),
		cmocka_unit_test(test_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
