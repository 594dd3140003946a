/* progtest.c — the answer program itself (src/kpath/bpf/answer.bpf.c, the
 * daemon's skeleton) run frame by frame with BPF_PROG_TEST_RUN, nothing
 * attached: the maps are filled by the daemon's own code (kp_open and its
 * mirror of the kernel's links and addresses, the table from rtnetlink,
 * kpf_all's grants, kp_set_pub, kp_set_limits), so the test cannot drift
 * from the daemon's layouts.  Each frame's verdict is checked three ways:
 * the program's return and output frame (a request is always passed on
 * as it came), the one counter it moved (kp_counters), and the reply it
 * sent as a clone out of P0, read on P0's veth peer P1, byte for byte
 * against the kernel's own reply to the same frame (sent on P1 with the
 * program not attached).
 *
 * The program is attached to P0 as the daemon attaches it (which makes
 * P0's counters), and off it while the kernel answers.
 *
 * With --xdp the XDP program (arpownd_xdp, the same object and maps) is
 * run instead, with the same frames and the same expectations: its
 * verdict XDP_TX for an answer, the reply being the output frame itself
 * (compared with the same kernel reply), XDP_DROP for a limit's refusal,
 * XDP_PASS with the frame as it came for everything else.
 *
 * Usage: progtest [--xdp] P0 P1 Q0 (run by tests/integration/kpath/progtest.sh in
 * a network namespace of its own: P0 10.1.0.1/24 <-> P1, Q0 10.2.0.1/24
 * up, all managed).  Exit 0, 1 on a failed check, 77 when the program
 * cannot be loaded here. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "answer.skel.h"
#include "kpint.h"
#include "kpfeed.h"
#include "linksync.h"
#include "log.h"
#include "policy.h"
#include "ranges.h"
#include "rtnl.h"
#include "siphash.h"
#include "table.h"

#define MAXF	256

static int bad, P0, P1, Q0, sock_p1;
static bool XDP;		/* run arpownd_xdp, not arpownd_answer */
static struct kp *KP;
static struct tbl *T;
static uint8_t mac_p0[6];
static const uint8_t PUB_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x02, 0x00 };
static const uint8_t REQ_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x50 };

/* A frame to run, and what it is expected to get. */
struct frame {
	uint8_t		b[MAXF];
	size_t		len;
};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	bad++;
}

static uint32_t
ip(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a.s_addr;
}

/* A request as arpc sends one: broadcast, Ethernet/IPv4, the ARP sender's
 * MAC the Ethernet source; the knobs below bend one field at a time. */
struct req {
	const char	*sip, *tip;
	const uint8_t	*dst;		/* NULL: broadcast */
	const uint8_t	*sha;		/* NULL: REQ_MAC */
	const uint8_t	*src;		/* NULL: sha */
	uint16_t	hrd, pro, op;	/* 0: 1, 0x0800, 1 */
	uint8_t		hln, pln;	/* 0: 6, 4 */
	size_t		len;		/* 0: 42; else cut or padded (pad bytes 0xa5) */
	uint16_t	tag, tag2;	/* a VLAN tag's TPID (0x8100, 0x88a8), and an inner one */
};

static void
build(const struct req *r, struct frame *f)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t *sha = r->sha != NULL ? r->sha : REQ_MAC;
	uint8_t *p = f->b;
	uint32_t sip = ip(r->sip), tip = ip(r->tip);
	size_t full, want;

	memset(f->b, 0xa5, sizeof(f->b));
	memcpy(p, r->dst != NULL ? r->dst : bcast, 6);
	memcpy(p + 6, r->src != NULL ? r->src : sha, 6);
	p += 12;
	if (r->tag != 0) {
		*p++ = (uint8_t)(r->tag >> 8); *p++ = (uint8_t)r->tag; *p++ = 0; *p++ = 7;
		if (r->tag2 != 0) {
			*p++ = (uint8_t)(r->tag2 >> 8); *p++ = (uint8_t)r->tag2; *p++ = 0; *p++ = 9;
		}
	}
	*p++ = 0x08; *p++ = 0x06;
	*p++ = 0; *p++ = (uint8_t)(r->hrd ? r->hrd : 1);
	*p++ = (uint8_t)((r->pro ? r->pro : 0x0800) >> 8); *p++ = (uint8_t)(r->pro ? r->pro : 0x0800);
	*p++ = r->hln ? r->hln : 6;
	*p++ = r->pln ? r->pln : 4;
	*p++ = 0; *p++ = (uint8_t)(r->op ? r->op : 1);
	memcpy(p, sha, 6); p += 6;
	memcpy(p, &sip, 4); p += 4;
	memset(p, 0, 6); p += 6;
	memcpy(p, &tip, 4); p += 4;
	full = (size_t)(p - f->b);
	want = r->len != 0 ? r->len : full;
	f->len = want;
}

/* The kernel's reply (arp_send_dst) to a request from sha/sip for tip,
 * from mac: what the program must send, byte for byte. */
static void
kernel_reply(const uint8_t *sha, uint32_t sip, uint32_t tip, const uint8_t *mac, struct frame *f)
{
	uint8_t *p = f->b;

	memcpy(p, sha, 6); memcpy(p + 6, mac, 6); p += 12;
	*p++ = 0x08; *p++ = 0x06; *p++ = 0; *p++ = 1; *p++ = 0x08; *p++ = 0;
	*p++ = 6; *p++ = 4; *p++ = 0; *p++ = 2;
	memcpy(p, mac, 6); p += 6;
	memcpy(p, &tip, 4); p += 4;
	memcpy(p, sha, 6); p += 6;
	memcpy(p, &sip, 4); p += 4;
	f->len = 42;
}

/* The next ARP frame on P1 within ms, into *f; 0, or -1 when none came. */
static int
recv_p1(struct frame *f, int ms)
{
	struct pollfd pfd = { .fd = sock_p1, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	if ((n = recv(sock_p1, f->b, sizeof(f->b), 0)) < 0)
		return -1;
	f->len = (size_t)n;
	return 0;
}

static void
drain_p1(void)
{
	struct frame f;

	while (recv_p1(&f, 0) == 0)
		;
}

static bool P0_PROBES = true;

/* P0's settings and grants, by the daemon's feed (kpf_iface), with
 * 10.1.0.200 published there (the sender set's "ours" too). */
static struct rng OURS;

static int
feed_p0(void)
{
	struct tbl_iface *ifp = tbl_iface(T, P0);

	if (ifp == NULL)
		return -1;
	ifp->allow_probes = P0_PROBES;
	if (kpf_iface(KP, T, ifp, KP_IF_PROBES, &OURS) == -1 ||
	    kp_set_pub(KP, P0, ip("10.1.0.200"), 32, PUB_MAC) == -1) {
		fail("feed P0: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The kernel's own reply to f, sent on P1 (so arriving on P0, where no
 * program is attached); 0, or -1 when it sent none within 500 ms. */
static int
kernel_oracle(const struct frame *f, struct frame *out)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_ifindex = P1, .sll_halen = 6 };
	int t;

	char why[256];
	int rc = -1;

	/* the program off P0 meanwhile: the daemon's own detach and attach
	 * (which starts P0's counters afresh: run() reads them before each
	 * frame) */
	if (kp_detach(KP, P0) == -1)
		return -1;
	drain_p1();
	if (sendto(sock_p1, f->b, f->len, 0, (struct sockaddr *)&sa, sizeof(sa)) != (ssize_t)f->len)
		goto out;
	/* our own frame comes back on the socket first (PACKET_OUTGOING) */
	for (t = 0; t < 4 && rc == -1; t++) {
		if (recv_p1(out, 500) == -1)
			break;
		if (out->len >= 22 && out->b[21] == 2)
			rc = 0;
	}
out:
	/* attached again, and fed again as the daemon does after an attach */
	if (kp_attach(KP, P0, NULL, why, sizeof(why)) == -1 || feed_p0() == -1) {
		fail("attach P0 again: %s", why);
		return -1;
	}
	return rc;
}

static uint64_t C0[KP_NCOUNTERS];
static bool KEYED;		/* slot_of has this load's key */

static void
counters(uint64_t c[KP_NCOUNTERS])
{
	if (kp_counters(KP, P0, c) == -1)
		memset(c, 0, sizeof(uint64_t) * KP_NCOUNTERS);
}

/* Run f through the program on P0 (TC, or XDP): its verdict into
 * *retval; the counter that moved (exactly one, else -1); a reply into
 * *rep (rep->len 0: none): the clone read on P1 (TC), the output frame
 * of an XDP_TX (XDP). */
static int
run(const char *what, const struct frame *f, unsigned *retval, struct frame *rep)
{
	struct frame out;
	struct __sk_buff ctx = { .ifindex = (uint32_t)P0 };
	/* data_end: the frame's length, as the kernel wants it */
	struct xdp_md xctx = { .data_end = (uint32_t)f->len, .ingress_ifindex = (uint32_t)P0 };
	uint64_t c[KP_NCOUNTERS];
	int i, moved = -2;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = (uint32_t)f->len,
	    .data_out = out.b, .data_size_out = sizeof(out.b), .ctx_in = &ctx,
	    .ctx_size_in = sizeof(ctx), .repeat = 1);

	if (XDP) {
		o.ctx_in = &xctx;
		o.ctx_size_in = sizeof(xctx);
	}
	drain_p1();
	counters(C0);
	if (bpf_prog_test_run_opts(bpf_program__fd(XDP ? KP->skel->progs.arpownd_xdp :
	    KP->skel->progs.arpownd_answer), &o) != 0) {
		fail("%s: test run: %s", what, strerror(errno));
		return -3;
	}
	*retval = o.retval;
	if ((!XDP || o.retval == XDP_PASS) &&
	    (o.data_size_out != f->len || memcmp(out.b, f->b, f->len) != 0))
		fail("%s: the frame did not go on as it came (%u bytes out, %zu in)",
		    what, o.data_size_out, f->len);
	counters(c);
	for (i = 1; i < KP_NCOUNTERS; i++) {
		if (i == KP_C_EVENTS || i == KP_C_RING_DROPS || c[i] == C0[i])
			continue;
		moved = moved == -2 && c[i] == C0[i] + 1 ? i : -1;
	}
	rep->len = 0;
	if (XDP) {
		/* the verdict each outcome must have */
		unsigned want = moved == KP_C_ANSWERED ? XDP_TX : moved == KP_C_LIMITED_SENDER ||
		    moved == KP_C_LIMITED_TOTAL ? XDP_DROP : XDP_PASS;

		if (o.retval != want)
			fail("%s: XDP verdict %u, want %u", what, o.retval, want);
		if (o.retval == XDP_TX) {
			memcpy(rep->b, out.b, o.data_size_out);
			rep->len = o.data_size_out;
		}
		/* nothing may come out of P0 besides (no clone at XDP) */
		if (recv_p1(&out, 0) == 0)
			fail("%s: a frame came out of P0 from the XDP program", what);
		return moved;
	}
	if (recv_p1(rep, moved == KP_C_ANSWERED ? 500 : 20) == -1)
		rep->len = 0;
	return moved;
}

/* One frame: the counter want (-2: none, the program never looked), and
 * for an answer the reply from mac, compared with the kernel's when
 * oracle is set (the kernel answers it too: an address of the host). */
static void
expect(const char *what, const struct req *r, int want, const uint8_t *mac, int oracle)
{
	struct frame f, rep, k;
	unsigned rv;
	int got;

	build(r, &f);
	got = run(what, &f, &rv, &rep);
	if (!XDP && rv != (unsigned)TC_ACT_UNSPEC)
		fail("%s: verdict %d, not TC_ACT_UNSPEC", what, (int)rv);
	if (got != want) {
		fail("%s: counter %s, want %s", what, got >= 0 ? kp_counter_name(got) : "none/several",
		    want >= 0 ? kp_counter_name(want) : "none");
		return;
	}
	if (want != KP_C_ANSWERED) {
		if (rep.len != 0)
			fail("%s: a reply went out (%zu bytes)", what, rep.len);
		else
			printf("ok %s: passed on untouched (%s)\n", what,
			    want >= 0 ? kp_counter_name(want) : "not ARP to the program");
		return;
	}
	const uint8_t *sha = r->sha != NULL ? r->sha : REQ_MAC;

	kernel_reply(sha, ip(r->sip), ip(r->tip), mac, &k);
	if (rep.len != k.len || memcmp(rep.b, k.b, k.len) != 0) {
		fail("%s: the reply is not the kernel's (%zu bytes)", what, rep.len);
		return;
	}
	if (oracle) {
		struct frame kr;

		if (kernel_oracle(&f, &kr) == -1)
			fail("%s: the kernel did not answer the same frame", what);
		else if (kr.len != rep.len || memcmp(kr.b, rep.b, rep.len) != 0)
			fail("%s: the kernel's own reply differs from the program's", what);
	}
	printf("ok %s: answered, %s\n", what, oracle ? "byte for byte the kernel's reply" :
	    "the kernel's reply format");
}

/* The table as the daemon builds it (rtnetlink), every interface named
 * managed in mode; then kp_open and the daemon's feed. */
static void
on_msg(const struct rtnl_msg *m, void *arg)
{
	struct ls_change c;

	/* the kernel's facts written as the daemon writes them, by linksync */
	ls_apply(T, m, 0, true, &c);
	if (m->kind == RTNL_NEWLINK && c.ifp != NULL &&
	    (m->ifindex == P0 || m->ifindex == Q0)) {
		c.ifp->managed = true;
		c.ifp->mode = *(int *)arg;
		c.ifp->allow_probes = true;
	}
}

/* A fresh program and maps, fed as the daemon feeds them in mode, with
 * 10.1.0.200 published on P0 (its own MAC) and the given limits. */
static int
open_fed(int mode, long sender_rate, long total_rate, bool probes)
{
	struct rtnl *nl;
	char why[256];
	struct tbl_iface *ifp;

	if ((KP = kp_open(0, 0, why, sizeof(why))) == NULL) {
		printf("SKIP: kp_open: %s\n", why);
		exit(77);
	}
	kp_set_limits(KP, sender_rate, total_rate, 0);
	/* attached as the daemon attaches: that makes P0's counters; the
	 * frames are still run by hand, not sent */
	if (kp_attach(KP, P0, NULL, why, sizeof(why)) == -1) {
		fail("attach P0: %s", why);
		return -1;
	}
	if ((T = tbl_new()) == NULL || (nl = rtnl_open()) == NULL || rtnl_dump(nl, on_msg, &mode) == -1) {
		fail("cannot read the table");
		return -1;
	}
	rtnl_close(nl);
	P0_PROBES = probes;
	if (feed_p0() == -1)
		return -1;
	if ((ifp = tbl_iface(T, Q0)) != NULL && kpf_iface(KP, T, ifp, KP_IF_PROBES, NULL) == -1)
		fail("kpf_iface Q0: %s", strerror(errno));
	if (kpf_all(KP, T) == -1)
		fail("kpf_all: %s", strerror(errno));
	return 0;
}

static void
close_fed(void)
{
	kp_close(KP);
	tbl_free(T);
	KEYED = false;
	KP = NULL;
	T = NULL;
}

/* (a) bad_frames.sh's frames, and the odd ones the kernel still answers. */
static void
frames(void)
{
	static const uint8_t ffmac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const uint8_t zero[6] = { 0 };
	static const uint8_t other[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t esrc[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	const char *S = "10.1.0.50", *Tg = "10.1.0.1";
	const int INV = KP_C_PASS_INVALID;

	printf("# frames (owner mode)\n");
	expect("a plain request", &(struct req){ .sip = S, .tip = Tg }, KP_C_ANSWERED, mac_p0, 1);
	expect("unicast to P0's MAC", &(struct req){ .sip = S, .tip = Tg, .dst = mac_p0 },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("to a multicast MAC", &(struct req){ .sip = S, .tip = Tg, .dst = mcast },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("padded to 60 bytes", &(struct req){ .sip = S, .tip = Tg, .len = 60 },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("106 bytes, a trailer", &(struct req){ .sip = S, .tip = Tg, .len = 106 },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("hrd 6 (IEEE 802)", &(struct req){ .sip = S, .tip = Tg, .hrd = 6 },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("a probe (sender 0.0.0.0)", &(struct req){ .sip = "0.0.0.0", .tip = Tg },
	    KP_C_ANSWERED, mac_p0, 1);
	expect("a sender in 0/8 (0.0.0.1)", &(struct req){ .sip = "0.0.0.1", .tip = Tg },
	    KP_C_ANSWERED, mac_p0, 0);
	/* the TC program puts the request back, and keeps no more than 64
	 * bytes for it; XDP consumes it and answers any length */
	if (XDP) {
		expect("107 bytes", &(struct req){ .sip = S, .tip = Tg, .len = 107 },
		    KP_C_ANSWERED, mac_p0, 1);
		expect("250 bytes", &(struct req){ .sip = S, .tip = Tg, .len = 250 },
		    KP_C_ANSWERED, mac_p0, 1);
	} else
		expect("longer than 106 bytes", &(struct req){ .sip = S, .tip = Tg, .len = 107 },
		    KP_C_PASS_TRIM, NULL, 0);
	expect("truncated to 30", &(struct req){ .sip = S, .tip = Tg, .len = 30 }, INV, NULL, 0);
	expect("truncated to 21", &(struct req){ .sip = S, .tip = Tg, .len = 21 }, INV, NULL, 0);
	expect("truncated to 41", &(struct req){ .sip = S, .tip = Tg, .len = 41 }, INV, NULL, 0);
	expect("bad_hrd 0x20", &(struct req){ .sip = S, .tip = Tg, .hrd = 0x20 }, INV, NULL, 0);
	expect("bad_pro 0x86dd", &(struct req){ .sip = S, .tip = Tg, .pro = 0x86dd }, INV, NULL, 0);
	expect("bad_hln 8", &(struct req){ .sip = S, .tip = Tg, .hln = 8 }, INV, NULL, 0);
	expect("bad_pln 6", &(struct req){ .sip = S, .tip = Tg, .pln = 6 }, INV, NULL, 0);
	expect("a reply", &(struct req){ .sip = S, .tip = Tg, .op = 2 }, KP_C_PASS_REPLY, NULL, 0);
	expect("op 3", &(struct req){ .sip = S, .tip = Tg, .op = 3 }, INV, NULL, 0);
	expect("sender MAC broadcast", &(struct req){ .sip = S, .tip = Tg, .sha = ffmac }, INV, NULL, 0);
	expect("sender MAC multicast", &(struct req){ .sip = S, .tip = Tg, .sha = mcast }, INV, NULL, 0);
	expect("sender MAC zero", &(struct req){ .sip = S, .tip = Tg, .sha = zero }, INV, NULL, 0);
	expect("unicast to another MAC", &(struct req){ .sip = S, .tip = Tg, .dst = other }, INV, NULL, 0);
	expect("Ethernet source != ARP sender (the capture path's)",
	    &(struct req){ .sip = S, .tip = Tg, .src = esrc }, INV, NULL, 0);
	expect("martian sender 127.0.0.1", &(struct req){ .sip = "127.0.0.1", .tip = Tg }, INV, NULL, 0);
	expect("martian sender 224.0.0.1", &(struct req){ .sip = "224.0.0.1", .tip = Tg }, INV, NULL, 0);
	expect("martian sender 255.255.255.255", &(struct req){ .sip = "255.255.255.255", .tip = Tg },
	    INV, NULL, 0);
	expect("target 255.255.255.255", &(struct req){ .sip = S, .tip = "255.255.255.255" },
	    INV, NULL, 0);
	expect("target 224.0.0.5", &(struct req){ .sip = S, .tip = "224.0.0.5" }, INV, NULL, 0);
	expect("target 127.0.0.1", &(struct req){ .sip = S, .tip = "127.0.0.1" }, INV, NULL, 0);
	expect("target 0.0.0.0", &(struct req){ .sip = S, .tip = "0.0.0.0" }, INV, NULL, 0);
	expect("gratuitous", &(struct req){ .sip = "10.1.0.77", .tip = "10.1.0.77" },
	    KP_C_PASS_GRATUITOUS, NULL, 0);
	expect("conflict: sender 10.1.0.1 (ours)", &(struct req){ .sip = "10.1.0.1", .tip = "10.1.0.50" },
	    KP_C_PASS_OURS, NULL, 0);
	expect("conflict: sender 10.2.0.1 (Q0's)", &(struct req){ .sip = "10.2.0.1", .tip = Tg },
	    KP_C_PASS_OURS, NULL, 0);
	expect("conflict: sender 10.1.0.200 (published)",
	    &(struct req){ .sip = "10.1.0.200", .tip = Tg }, KP_C_PASS_OURS, NULL, 0);
	expect("802.1Q tagged", &(struct req){ .sip = S, .tip = Tg, .tag = 0x8100 }, -2, NULL, 0);
	expect("QinQ tagged", &(struct req){ .sip = S, .tip = Tg, .tag = 0x88a8, .tag2 = 0x8100 },
	    -2, NULL, 0);
}

/* (b) each mode, for owned, other-interface, published, unknown targets,
 * and a sender outside P0's subnets. */
static void
modes(void)
{
	static const char *const name[] = { "owner", "subnet", "system" };
	const int own[] = { POL_OWNER, POL_SUBNET, POL_SYSTEM };
	char w[128];
	int i;

	for (i = 0; i < 3; i++) {
		int m = own[i], sys = m == POL_SYSTEM, sub = m == POL_SUBNET;

		if (open_fed(m, 1000, 200000, true) == -1)
			return;
		printf("# mode %s\n", name[i]);
		snprintf(w, sizeof(w), "%s: P0's own address", name[i]);
		expect(w, &(struct req){ .sip = "10.1.0.50", .tip = "10.1.0.1" }, KP_C_ANSWERED, mac_p0, 1);
		snprintf(w, sizeof(w), "%s: Q0's address, asked on P0", name[i]);
		expect(w, &(struct req){ .sip = "10.1.0.50", .tip = "10.2.0.1" },
		    sys ? KP_C_ANSWERED : KP_C_PASS_NO_ENTRY, mac_p0, 1);
		snprintf(w, sizeof(w), "%s: published on P0", name[i]);
		expect(w, &(struct req){ .sip = "10.1.0.50", .tip = "10.1.0.200" },
		    sub ? KP_C_PASS_NOT_SUBNET : KP_C_ANSWERED, PUB_MAC, 0);
		snprintf(w, sizeof(w), "%s: an address nobody holds", name[i]);
		expect(w, &(struct req){ .sip = "10.1.0.50", .tip = "10.1.0.99" }, KP_C_PASS_NO_ENTRY, NULL, 0);
		snprintf(w, sizeof(w), "%s: a sender outside P0's subnets", name[i]);
		expect(w, &(struct req){ .sip = "10.9.0.5", .tip = "10.1.0.1" },
		    sub ? KP_C_PASS_NOT_SUBNET : KP_C_ANSWERED, mac_p0, 0);
		close_fed();
	}
	if (open_fed(POL_OWNER, 1000, 200000, false) == -1)
		return;
	printf("# owner, allow_probes = no\n");
	expect("a probe, not allowed", &(struct req){ .sip = "0.0.0.0", .tip = "10.1.0.1" },
	    KP_C_PASS_PROBE, NULL, 0);
	close_fed();
	if (open_fed(POL_MONITOR, 1000, 200000, true) == -1)
		return;
	printf("# monitor\n");
	expect("monitor: P0's own address", &(struct req){ .sip = "10.1.0.50", .tip = "10.1.0.1" },
	    KP_C_PASS_MODE, NULL, 0);
	close_fed();
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One request from sender (a, mac[5] = m) for 10.1.0.1, counted quietly:
 * the counter it moved. */
static int
one(uint32_t hs, uint8_t m)
{
	uint8_t sha[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, m };
	struct in_addr a = { .s_addr = htonl(hs) };
	struct frame f, rep;
	struct req r = { .tip = "10.1.0.1", .sha = sha };
	char s[16];
	unsigned rv;

	inet_ntop(AF_INET, &a, s, sizeof(s));
	r.sip = s;
	build(&r, &f);
	return run("a rate request", &f, &rv, &rep);
}

/* The sender slot the program files (hs, ..:01:m) under: the daemon's
 * key (kp_conf) through the shared siphash.h, as arp_limit computes it. */
static uint32_t
slot_of(uint32_t hs, uint8_t m)
{
	const uint8_t sha[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, m };
	static struct sip_key k;
	struct kp_conf cf;
	uint32_t zero = 0;

	if (!KEYED && bpf_map_lookup_elem(KP->fd_conf, &zero, &cf) == 0) {
		k.k0 = cf.slot_k0;
		k.k1 = cf.slot_k1;
		KEYED = true;
	}
	return (uint32_t)sip_hash_sender(&k, hs, sha) & (KP_SENDER_SLOTS - 1);
}

/* Run until the first refusal, at most max requests; how many were
 * answered before it, its counter into *why, the seconds it took. */
static int
burst(int max, int distinct, int *why, double *secs)
{
	double t0 = now_s();
	int n, c = -1;

	for (n = 0; n < max; n++) {
		c = distinct ? one(0x0a010100u + 20u + (uint32_t)n, (uint8_t)n) : one(0x0a010132u, 0x50);
		if (c != KP_C_ANSWERED)
			break;
	}
	*why = c;
	*secs = now_s() - t0;
	return n;
}

/* (c) sender_rate at its default (1000/s: a burst of 100), total_rate
 * lowered to 100/s (a burst of 10): refused past the burst, admitted
 * again once the bucket has refilled. */
static void
limits(void)
{
	double secs;
	int n, why, c;
	uint8_t m;
	uint32_t first;

	printf("# rates\n");
	if (open_fed(POL_OWNER, 1000, 200000, true) == -1)
		return;
	first = slot_of(0x0a010132u, 0x50);
	/* another sender, in another slot (the key is drawn at each load:
	 * one in 4096 would share the first's) */
	for (m = 0x51; slot_of(0x0a010133u, m) == first; m++)
		;
	n = burst(400, 0, &why, &secs);
	/* the bucket refills as the requests run: 1 a millisecond */
	if (why != KP_C_LIMITED_SENDER || n < 100 || n > 100 + (int)(secs * 1000) + 1)
		fail("sender_rate 1000: %d answered in %.1f ms, then %s", n, secs * 1e3,
		    why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok sender_rate 1000: %d answered in %.1f ms, then refused\n", n, secs * 1e3);
	if ((why = one(0x0a010133u, m)) != KP_C_ANSWERED)
		fail("another sender refused with the first's bucket empty (%s)",
		    why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok another sender: answered\n");
	usleep(20000);
	if ((why = one(0x0a010132u, 0x50)) != KP_C_ANSWERED)
		fail("the sender still refused 20 ms later (%s)", why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok the sender again 20 ms later: answered\n");
	close_fed();

	/* a sender is its slot: one that shares the first's (found by the
	 * daemon's key, through siphash.h as the program hashes) is held to
	 * the first's bucket.  sender_rate 10 (a burst of 10, a token each
	 * 100 ms): no token comes back between the two requests */
	if (open_fed(POL_OWNER, 10, 200000, true) == -1)
		return;
	first = slot_of(0x0a010132u, 0x50);
	for (c = 0; c < 65536 && slot_of(0x0a010200u + (uint32_t)(c >> 8), (uint8_t)c) != first; c++)
		;
	n = burst(40, 0, &why, &secs);
	if (why != KP_C_LIMITED_SENDER || n < 10 || n > 10 + (int)(secs * 10) + 1)
		fail("sender_rate 10: %d answered, then %s", n, why >= 0 ? kp_counter_name(why) : "?");
	else if (c < 65536 &&
	    (why = one(0x0a010200u + (uint32_t)(c >> 8), (uint8_t)c)) != KP_C_LIMITED_SENDER)
		fail("a sender in the first's slot not refused (%s)", why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok sender_rate 10: %d answered, then refused, and a sender sharing its slot\n", n);
	close_fed();

	if (open_fed(POL_OWNER, 1000, 100, true) == -1)
		return;
	n = burst(50, 1, &why, &secs);
	if (why != KP_C_LIMITED_TOTAL || n < 10 || n > 10 + (int)(secs * 100) + 1)
		fail("total_rate 100: %d senders answered in %.1f ms, then %s", n, secs * 1e3,
		    why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok total_rate 100: %d senders answered in %.1f ms, then refused\n", n, secs * 1e3);
	usleep(30000);
	if ((why = one(0x0a010140u, 0x60)) != KP_C_ANSWERED)
		fail("total_rate: still refused 30 ms later (%s)", why >= 0 ? kp_counter_name(why) : "?");
	else
		printf("ok total_rate: answered again 30 ms later\n");
	close_fed();
}

int
main(int argc, char **argv)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ARP) };
	const char *why;

	setvbuf(stdout, NULL, _IOLBF, 0);
	log_init(LOG_WARNING, true);
	if (argc > 1 && strcmp(argv[1], "--xdp") == 0) {
		XDP = true;
		argc--;
		argv++;
	}
	if (argc != 4 || (P0 = (int)if_nametoindex(argv[1])) == 0 ||
	    (P1 = (int)if_nametoindex(argv[2])) == 0 || (Q0 = (int)if_nametoindex(argv[3])) == 0) {
		fprintf(stderr, "usage: progtest [--xdp] P0 P1 Q0 (existing interfaces)\n");
		return 2;
	}
	sa.sll_ifindex = P1;
	if ((sock_p1 = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ARP))) == -1 ||
	    bind(sock_p1, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		perror("progtest: packet socket on P1");
		return 1;
	}
	if (rng_add_item(&OURS, "10.1.0.200", &why) == -1 || rng_finish(&OURS) == -1)
		return 1;
	if (open_fed(POL_OWNER, 1000, 200000, true) == -1)
		return 1;
	if (tbl_iface(T, P0) == NULL)
		return 1;
	memcpy(mac_p0, tbl_iface(T, P0)->mac, 6);
	frames();
	close_fed();
	modes();
	limits();
	rng_clear(&OURS);
	close(sock_p1);
	printf("%s: %d failed\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
