/* rulestest.c — runs tests/tools/rules.bpf.o (include/rules.h built for
 * the BPF target) with BPF_PROG_TEST_RUN on every row of
 * tests/unit/rules_table.h, and checks each answer against the table and
 * against the C build of the same header.  Needs root (or CAP_BPF); no
 * namespace, nothing attached.  Usage: rulestest OBJ; exit 0, 1 on a
 * difference, 77 when the program cannot be loaded here. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rules.h"
#include "rulesprobe.h"
#include "../unit/rules_table.h"

static int prog_fd, bad;

/* The C build's answers: what the program computes, field by field. */
static void
c_answers(struct rules_probe *p)
{
	__u32 local = p->local, address = p->address;

	p->martian = rule_martian(p->h);
	p->next = rule_next_martian(p->h);
	p->mask = rule_mask(p->plen);
	p->mask_n = rule_mask_n(p->plen);
	p->bcast = rule_bcast(p->h, p->plen);
	p->in_prefix = rule_in_prefix_n(p->ip_n, p->prefix_n, p->plen);
	p->ifa_ok = rule_ifa_ends(p->have_l, p->have_a, &local, &address);
	p->out_local = local;
	p->out_address = address;
}

/* The program's answers to the inputs of *p, written into *p. */
static int
bpf_answers(struct rules_probe *p)
{
	unsigned char in[ETH_HLEN + sizeof(*p)], out[sizeof(in)];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = sizeof(in),
	    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

	memset(in, 0, ETH_HLEN);
	in[12] = 0x88;	/* an EtherType nobody handles (local experimental) */
	in[13] = 0xb5;
	memcpy(in + ETH_HLEN, p, sizeof(*p));
	if (bpf_prog_test_run_opts(prog_fd, &o) != 0 || o.retval != 0 /* TC_ACT_OK */ ||
	    o.data_size_out != sizeof(out)) {
		fprintf(stderr, "rulestest: test run: %s, retval %u\n", strerror(errno), o.retval);
		return -1;
	}
	memcpy(p, out + ETH_HLEN, sizeof(*p));
	return 0;
}

/* Run *in both ways; both must agree, and *want's checked fields too. */
static void
row(const char *what, const struct rules_probe *in, struct rules_probe *got)
{
	struct rules_probe c = *in;

	*got = *in;
	c_answers(&c);
	if (bpf_answers(got) == -1) {
		bad++;
		return;
	}
	if (memcmp(&c, got, sizeof(c)) != 0) {
		printf("FAIL %s: the BPF build answers differently from the C build\n", what);
		bad++;
	}
}

static void
check(const char *what, unsigned got, unsigned want)
{
	if (got != want) {
		printf("FAIL %s: %#x, want %#x\n", what, got, want);
		bad++;
	}
}

int
main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct rules_probe in, got;
	char what[96];
	size_t i, rows = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: rulestest OBJ\n");
		return 2;
	}
	libbpf_set_print(NULL);
	if ((obj = bpf_object__open_file(argv[1], NULL)) == NULL ||
	    (prog = bpf_object__find_program_by_name(obj, "rules_probe")) == NULL) {
		fprintf(stderr, "rulestest: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_object__load(obj) != 0) {
		printf("SKIP: cannot load %s here: %s\n", argv[1], strerror(errno));
		return 77;
	}
	prog_fd = bpf_program__fd(prog);

	for (i = 0; i < RT_NADDRS; i++, rows++) {
		memset(&in, 0, sizeof(in));
		in.h = rt_addrs[i].h;
		snprintf(what, sizeof(what), "martian(%s)", rt_addrs[i].name);
		row(what, &in, &got);
		check(what, got.martian, (unsigned)rt_addrs[i].martian);
		snprintf(what, sizeof(what), "next_martian(%s)", rt_addrs[i].name);
		check(what, got.next, rt_addrs[i].next);
	}
	for (i = 0; i < RT_NPREFIXES; i++, rows++) {
		const struct rt_prefix *p = &rt_prefixes[i];

		memset(&in, 0, sizeof(in));
		in.h = p->h;
		in.plen = p->plen;
		in.ip_n = htonl(p->ip);
		in.prefix_n = htonl(p->h);
		snprintf(what, sizeof(what), "prefix %#x/%u, ip %#x", p->h, p->plen, p->ip);
		row(what, &in, &got);
		check(what, got.mask, p->mask);
		check(what, got.mask_n, htonl(p->mask));
		check(what, got.bcast, p->bcast);
		check(what, got.in_prefix, (unsigned)p->in);
	}
	for (i = 0; i < RT_NIFAS; i++, rows++) {
		const struct rt_ifa *f = &rt_ifas[i];

		memset(&in, 0, sizeof(in));
		in.have_l = (__u32)f->have_l;
		in.have_a = (__u32)f->have_a;
		in.local = f->have_l ? f->local : 0;
		in.address = f->have_a ? f->address : 0;
		snprintf(what, sizeof(what), "ifa_ends(local %d, address %d)", f->have_l, f->have_a);
		row(what, &in, &got);
		check(what, got.ifa_ok, (unsigned)f->ok);
		if (f->ok) {
			check(what, got.out_local, f->want_local);
			check(what, got.out_address, f->want_address);
		}
	}
	bpf_object__close(obj);
	printf("%s: %zu rows, the BPF build and the C build of rules.h: %s\n", argv[1], rows,
	    bad ? "DIFFER" : "the same answers, the table's");
	return bad ? 1 : 0;
}
