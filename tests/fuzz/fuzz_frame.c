/* fuzz_frame.c — libFuzzer: a captured frame through validation, the
 * policy and, when answered, the reply builder, against a small table. */
#include <net/if.h>
#include <net/if_arp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "arp.h"
#include "policy.h"
#include "publish.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tbl *
table(void)
{
	static const struct { int ifindex, mode; bool managed; unsigned flags;
	    const char *addr; uint8_t plen; } v[] = {
		{ 1, POL_OWNER, false, IFF_UP | IFF_LOOPBACK, "10.0.0.50", 32 },
		{ 2, POL_OWNER, true, IFF_UP, "10.0.0.1", 24 },
		{ 3, POL_SUBNET, true, IFF_UP, "10.0.0.2", 24 },
		{ 4, POL_SYSTEM, true, IFF_UP, "10.1.0.1", 24 },
		{ 5, POL_OFF, true, IFF_UP, "10.2.0.1", 24 },
		{ 6, POL_OWNER, true, 0, "10.3.0.1", 24 },
		{ 7, POL_MONITOR, true, IFF_UP, "10.4.0.1", 24 },
	};
	static struct rng deny;
	struct tbl *t = tbl_new();
	const char *why;
	struct tbl_iface *ifp;
	uint32_t a;
	size_t i;

	for (i = 0; t != NULL && i < sizeof(v) / sizeof(v[0]); i++) {
		ifp = tbl_iface_add(t, v[i].ifindex);
		ifp->managed = v[i].managed;
		ifp->mode = v[i].mode;
		ifp->flags = v[i].flags;
		ifp->allow_probes = v[i].ifindex != 3;
		snprintf(ifp->name, sizeof(ifp->name), "eth%d", v[i].ifindex - 2);
		ifp->type = v[i].ifindex == 1 ? ARPHRD_LOOPBACK : ARPHRD_ETHER;
		memset(ifp->mac, v[i].ifindex, 6);
		ifp->mac[0] = 2;
		inet_pton(AF_INET, v[i].addr, &a);
		tbl_addr_add(t, v[i].ifindex, a, a, v[i].plen);
	}
	/* eth2 refuses 10.9.0.0/16 */
	if (rng_add_item(&deny, "10.9.0.0/16", &why) == 0 && rng_finish(&deny) == 0 &&
	    t != NULL)
		tbl_iface(t, 4)->deny = &deny;
	return t;
}

/* 10.0.0.50 and 10.5.0.0/16 published on eth*, one with a MAC of its own,
 * and 10.0.0.1 too (eth0 holds it: never answered as published). */
static struct pub *
published(void)
{
	static const char *const items[][2] = { { "10.0.0.50", "a" }, { "10.5.0.0/16", "b" },
	    { "10.0.0.1", "c" } };
	struct pub *p = pub_new();
	struct pub_entry e;
	char err[128];
	const char *why;
	size_t i;

	for (i = 0; p != NULL && i < 3; i++) {
		memset(&e, 0, sizeof(e));
		snprintf(e.label, sizeof(e.label), "%s", items[i][1]);
		snprintf(e.ifglob, sizeof(e.ifglob), "eth*");
		e.has_mac = i == 0;
		e.mac[0] = 2;
		e.mac[5] = 0x50;
		if (rng_add_item(&e.set, items[i][0], &why) == -1 || rng_finish(&e.set) == -1 ||
		    pub_add(p, &e, err, sizeof(err)) == -1)
			abort();
	}
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tbl *t;
	static struct pub *pub;
	uint8_t out[ARP_FRAME_LEN], *copy;
	struct pol_result res;
	struct arp_req req;

	if (t == NULL && ((t = table()) == NULL || (pub = published()) == NULL))
		abort();
	/* an exact-size copy so that ASan sees any read past caplen */
	if ((copy = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if (arp_check(copy, size, &req) == ARP_OK &&
	    pol_decide(t, pub, &req, &res) == POL_ANSWER) {
		if (res.in == NULL || (res.owner == NULL && res.pub == NULL) || res.mac == NULL)
			abort();
		/* an address an interface holds is never answered as published */
		if (res.pub != NULL && tbl_addr_owner(t, req.tip, NULL) != NULL)
			abort();
		/* owner and subnet answer only from the owner; a published
		 * address (held by no interface) only where its entry names */
		if (res.pub == NULL && res.in->mode != POL_SYSTEM && res.in != res.owner)
			abort();
		if (res.pub != NULL && (res.owner != NULL || !pub_entry_on(res.pub, res.in->name)))
			abort();
		/* never a denied sender, never a refused probe */
		if ((res.in->deny != NULL && req.sip != 0 && rng_has(res.in->deny, req.sip)) ||
		    (req.sip == 0 && !res.in->allow_probes))
			abort();
		if (arp_build_reply(&req, res.mac, out) != ARP_FRAME_LEN ||
		    memcmp(out, req.sha, 6) != 0)
			abort();
	}
	free(copy);
	return 0;
}
