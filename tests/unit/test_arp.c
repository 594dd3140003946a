/* test_arp.c — arp_check and arp_build_reply against frames and a reply
 * captured from the Linux kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if_arp.h>
#include <cmocka.h>

#include "arp.h"

static const uint8_t CMAC[6] = { 0xd6, 0x13, 0x18, 0x81, 0x27, 0x77 };
static const uint8_t HMAC[6] = { 0x6a, 0x14, 0xc7, 0x32, 0x8a, 0x37 };

/* The kernel's reply to "who-has 10.9.0.1 tell 10.9.0.2" on a veth. */
static const uint8_t kernel_reply[42] = {
	0xd6, 0x13, 0x18, 0x81, 0x27, 0x77, 0x6a, 0x14, 0xc7, 0x32, 0x8a, 0x37,
	0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
	0x6a, 0x14, 0xc7, 0x32, 0x8a, 0x37, 0x0a, 0x09, 0x00, 0x01,
	0xd6, 0x13, 0x18, 0x81, 0x27, 0x77, 0x0a, 0x09, 0x00, 0x02,
};

struct fr {
	uint16_t	proto, hatype, hrd, pro, op;
	uint8_t		pkttype, halen, hln, pln;
	uint8_t		src[6], sha[6];
	const char	*sip, *tip;
	int		ifindex;
};

static struct fr
good(void)
{
	struct fr f = { 0x0806, 1, 1, 0x0800, 1, PACKET_BROADCAST, 6, 6, 4,
	    { 0 }, { 0 }, "10.9.0.2", "10.9.0.1", 7 };

	memcpy(f.src, CMAC, 6);
	memcpy(f.sha, CMAC, 6);
	return f;
}

/* DLT_LINUX_SLL2 header + ARP body; returns the length. */
static size_t
build(const struct fr *f, uint8_t *p)
{
	uint32_t ip;

	memset(p, 0, 64);
	p[0] = f->proto >> 8; p[1] = f->proto & 0xff;
	p[4] = (uint8_t)(f->ifindex >> 24); p[5] = (uint8_t)(f->ifindex >> 16);
	p[6] = (uint8_t)(f->ifindex >> 8); p[7] = (uint8_t)f->ifindex;
	p[8] = f->hatype >> 8; p[9] = f->hatype & 0xff;
	p[10] = f->pkttype; p[11] = f->halen;
	memcpy(p + 12, f->src, 6);
	p += 20;
	p[0] = f->hrd >> 8; p[1] = f->hrd & 0xff;
	p[2] = f->pro >> 8; p[3] = f->pro & 0xff;
	p[4] = f->hln; p[5] = f->pln;
	p[6] = f->op >> 8; p[7] = f->op & 0xff;
	memcpy(p + 8, f->sha, 6);
	inet_pton(AF_INET, f->sip, &ip);
	memcpy(p + 14, &ip, 4);
	memset(p + 18, 0xff, 6);
	inet_pton(AF_INET, f->tip, &ip);
	memcpy(p + 24, &ip, 4);
	return 48;
}

static enum arp_reason
check(const struct fr *f)
{
	uint8_t buf[64];
	struct arp_req r;

	return arp_check(buf, build(f, buf), &r);
}

static void
test_good_request(void **state)
{
	struct fr f = good();
	uint8_t buf[64];
	struct arp_req r;
	uint32_t ip;

	(void)state;
	assert_int_equal(arp_check(buf, build(&f, buf), &r), ARP_OK);
	assert_int_equal(r.ifindex, 7);
	assert_int_equal(r.pkttype, PACKET_BROADCAST);
	assert_memory_equal(r.sha, CMAC, 6);
	inet_pton(AF_INET, "10.9.0.2", &ip);
	assert_int_equal(r.sip, ip);
	inet_pton(AF_INET, "10.9.0.1", &ip);
	assert_int_equal(r.tip, ip);
	memset(buf + 48, 0, 16);	/* trailing padding is allowed */
	assert_int_equal(arp_check(buf, 64, &r), ARP_OK);
}

static void
test_truncated(void **state)
{
	struct fr f = good();
	uint8_t buf[64];
	struct arp_req r;
	size_t n, len = build(&f, buf);

	(void)state;
	for (n = 0; n < len; n++)
		assert_int_equal(arp_check(buf, n, &r), ARP_TRUNCATED);
}

struct bad {
	const char	*what;
	void		(*mod)(struct fr *);
	enum arp_reason	 want;
};

#define MOD(name, stmt) static void name(struct fr *f) { stmt; }
MOD(m_proto, f->proto = 0x0800)
MOD(m_hatype, f->hatype = 772)
MOD(m_halen, f->halen = 8)
MOD(m_otherhost, f->pkttype = PACKET_OTHERHOST)
MOD(m_outgoing, f->pkttype = PACKET_OUTGOING)
MOD(m_hrd, f->hrd = 0x20)
MOD(m_pro, f->pro = 0x86dd)
MOD(m_hln, f->hln = 8)
MOD(m_pln, f->pln = 6)
MOD(m_op2, f->op = 2)
MOD(m_op3, f->op = 3)
MOD(m_op0, f->op = 0)
MOD(m_sha_bcast, memset(f->sha, 0xff, 6); memset(f->src, 0xff, 6))
MOD(m_sha_mcast, f->sha[0] = 0x01; f->src[0] = 0x01)
MOD(m_sha_zero, memset(f->sha, 0, 6); memset(f->src, 0, 6))
MOD(m_sip_lo, f->sip = "127.0.0.1")
MOD(m_sip_mc, f->sip = "224.0.0.1")
MOD(m_sip_mc2, f->sip = "239.1.2.3")
MOD(m_sip_bc, f->sip = "255.255.255.255")
MOD(m_tip_zero, f->tip = "0.0.0.0")
MOD(m_tip_lo, f->tip = "127.0.0.5")
MOD(m_tip_mc, f->tip = "224.0.0.5")
MOD(m_tip_bc, f->tip = "255.255.255.255")
MOD(m_grat, f->sip = "10.9.0.1")

static const struct bad bad[] = {
	{ "not ARP", m_proto, ARP_BAD_LINK },
	{ "not Ethernet", m_hatype, ARP_BAD_LINK },
	{ "halen 8", m_halen, ARP_BAD_LINK },
	{ "to another host", m_otherhost, ARP_BAD_PKTTYPE },
	{ "outgoing", m_outgoing, ARP_BAD_PKTTYPE },
	{ "hrd 0x20", m_hrd, ARP_BAD_HRD },
	{ "pro IPv6", m_pro, ARP_BAD_PRO },
	{ "hln 8", m_hln, ARP_BAD_HLN },
	{ "pln 6", m_pln, ARP_BAD_PLN },
	{ "reply", m_op2, ARP_NOT_REQUEST },
	{ "rarp", m_op3, ARP_NOT_REQUEST },
	{ "op 0", m_op0, ARP_NOT_REQUEST },
	{ "broadcast sender", m_sha_bcast, ARP_BAD_SHA },
	{ "multicast sender", m_sha_mcast, ARP_BAD_SHA },
	{ "zero sender", m_sha_zero, ARP_BAD_SHA },
	{ "sip 127/8", m_sip_lo, ARP_MARTIAN_SIP },
	{ "sip 224/4", m_sip_mc, ARP_MARTIAN_SIP },
	{ "sip 239/8", m_sip_mc2, ARP_MARTIAN_SIP },
	{ "sip broadcast", m_sip_bc, ARP_MARTIAN_SIP },
	{ "tip 0.0.0.0", m_tip_zero, ARP_BAD_TIP },
	{ "tip 127/8", m_tip_lo, ARP_BAD_TIP },
	{ "tip multicast", m_tip_mc, ARP_BAD_TIP },
	{ "tip broadcast", m_tip_bc, ARP_BAD_TIP },
	{ "gratuitous", m_grat, ARP_GRATUITOUS },
};

static void
test_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fr f = good();

		bad[i].mod(&f);
		if (check(&f) != bad[i].want)
			fail_msg("%s: got %s, want %s", bad[i].what,
			    arp_reason_str(check(&f)), arp_reason_str(bad[i].want));
	}
}

MOD(g_host, f->pkttype = PACKET_HOST)
MOD(g_mcast, f->pkttype = PACKET_MULTICAST)
MOD(g_hrd6, f->hrd = 6)
MOD(g_probe, f->sip = "0.0.0.0")
MOD(g_classe, f->sip = "240.0.0.1")
/* since Linux 5.3 only 0.0.0.0 is zeronet: 0.0.0.1 is a sender like any */
MOD(g_zeronet8, f->sip = "0.0.0.1")
MOD(g_tip_zeronet8, f->tip = "0.1.2.3")
/* the kernel answers it, to the ARP sender (a bond's other slave, a relay) */
MOD(g_src_mismatch, f->src[5] ^= 1)

static void
test_good_variants(void **state)
{
	void (*mods[])(struct fr *) = { g_host, g_mcast, g_hrd6, g_probe, g_classe, g_zeronet8,
	    g_tip_zeronet8, g_src_mismatch };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		struct fr f = good();

		mods[i](&f);
		assert_int_equal(check(&f), ARP_OK);
	}
}

static void
test_reply_is_kernels(void **state)
{
	struct fr f = good();
	uint8_t buf[64], out[ARP_FRAME_LEN];
	struct arp_req r;

	(void)state;
	f.ifindex = 2;
	assert_int_equal(arp_check(buf, build(&f, buf), &r), ARP_OK);
	assert_int_equal(arp_build_reply(&r, HMAC, out), 42);
	assert_memory_equal(out, kernel_reply, 42);
	/* hrd 6 in the request: the kernel answers with the device type, 1 */
	f.hrd = 6;
	assert_int_equal(arp_check(buf, build(&f, buf), &r), ARP_OK);
	arp_build_reply(&r, HMAC, out);
	assert_memory_equal(out, kernel_reply, 42);
}

static void
test_probe_reply(void **state)
{
	struct fr f = good();
	uint8_t buf[64], out[ARP_FRAME_LEN];
	static const uint8_t zero[4];
	struct arp_req r;

	(void)state;
	f.sip = "0.0.0.0";
	assert_int_equal(arp_check(buf, build(&f, buf), &r), ARP_OK);
	arp_build_reply(&r, HMAC, out);
	assert_memory_equal(out, CMAC, 6);		/* unicast to the prober */
	assert_memory_equal(out + 32, CMAC, 6);		/* target MAC */
	assert_memory_equal(out + 38, zero, 4);		/* target IP 0.0.0.0 */
	assert_memory_equal(out + 22, HMAC, 6);		/* sender = us */
}

/* A reply is not answered, but its sender is checked and the fields are
 * there, so that a conflict in a reply is seen. */
static void
test_reply_fields(void **state)
{
	struct fr f = good();
	uint8_t buf[64];
	struct arp_req r;
	uint32_t ip;

	(void)state;
	f.op = 2;
	assert_int_equal(arp_check(buf, build(&f, buf), &r), ARP_NOT_REQUEST);
	assert_int_equal(r.op, 2);
	assert_memory_equal(r.sha, CMAC, 6);
	inet_pton(AF_INET, "10.9.0.2", &ip);
	assert_int_equal(r.sip, ip);
	/* a reply's sender is validated like a request's */
	f.sip = "127.0.0.1";
	assert_int_equal(check(&f), ARP_MARTIAN_SIP);
	f = good();
	f.op = 2;
	f.sha[0] = 1;
	memcpy(f.src, f.sha, 6);
	assert_int_equal(check(&f), ARP_BAD_SHA);
}

/* The two announcement forms, byte by byte, and what arp_check makes of
 * them when another host sends them (a conflict, if the address is ours). */
static void
test_announce(void **state)
{
	static const uint8_t want_req[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x6a, 0x14, 0xc7, 0x32, 0x8a, 0x37,
		0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
		0x6a, 0x14, 0xc7, 0x32, 0x8a, 0x37, 10, 9, 0, 50,
		0, 0, 0, 0, 0, 0, 10, 9, 0, 50,
	};
	uint8_t out[42], want_rep[42], sll[64];
	struct arp_req r;
	uint32_t ip;

	(void)state;
	inet_pton(AF_INET, "10.9.0.50", &ip);
	assert_int_equal(arp_build_announce(ARPOP_REQUEST, HMAC, ip, out), 42);
	assert_memory_equal(out, want_req, 42);
	memcpy(want_rep, want_req, 42);
	want_rep[21] = 2;
	memcpy(want_rep + 32, HMAC, 6);
	assert_int_equal(arp_build_announce(ARPOP_REPLY, HMAC, ip, out), 42);
	assert_memory_equal(out, want_rep, 42);
	/* as captured: SLL2 header, then the ARP body */
	memset(sll, 0, sizeof(sll));
	sll[0] = 0x08; sll[1] = 0x06; sll[7] = 3; sll[9] = 1;
	sll[10] = PACKET_BROADCAST; sll[11] = 6;
	memcpy(sll + 12, HMAC, 6);
	memcpy(sll + 20, want_req + 14, 28);
	assert_int_equal(arp_check(sll, 48, &r), ARP_GRATUITOUS);
	assert_int_equal(r.sip, ip);
	memcpy(sll + 20, want_rep + 14, 28);
	assert_int_equal(arp_check(sll, 48, &r), ARP_NOT_REQUEST);
	assert_int_equal(r.sip, ip);
	assert_int_equal(r.op, 2);
}

static void
test_names(void **state)
{
	int i, j;

	(void)state;
	for (i = 0; i < ARP_NREASONS; i++) {
		assert_string_not_equal(arp_reason_str(i), "?");
		for (j = 0; j < i; j++)
			assert_string_not_equal(arp_reason_str(i), arp_reason_str(j));
	}
	assert_string_equal(arp_reason_str(ARP_NREASONS), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_request),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_good_variants),
		cmocka_unit_test(test_reply_is_kernels),
		cmocka_unit_test(test_probe_reply),
		cmocka_unit_test(test_reply_fields),
		cmocka_unit_test(test_announce),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
