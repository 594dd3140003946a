/* fuzz_rtnl.c — libFuzzer: raw rtnetlink buffers through rtnl_parse, as
 * the event loop walks them (mnl_nlmsg_ok / mnl_nlmsg_next), and what
 * parses into the table through linksync, a sweep at the end. */
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include "linksync.h"
#include "rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
sweep_cb(void *arg, const struct ls_change *c)
{
	(void)arg;
	(void)c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	struct ls_change c;
	struct rtnl_msg m;
	struct tbl *t;
	unsigned gen;
	size_t ni, na;
	void *buf;
	int len = (int)size;

	if (size > 1 << 20 || (buf = aligned_alloc(8, (size + 7) & ~(size_t)7)) == NULL)
		return 0;
	if ((t = tbl_new()) == NULL) {
		free(buf);
		return 0;
	}
	gen = tbl_gen_begin(t);
	memcpy(buf, data, size);
	/* mnl_nlmsg_ok() casts nlmsg_len to int, so a length of 2^31 or more
	 * passes it; the kernel never sends one, and only the kernel or a
	 * CAP_NET_ADMIN process can write to an rtnetlink socket.  The
	 * harness checks the length unsigned and fuzzes what we parse. */
	for (nlh = buf; len >= (int)sizeof(*nlh) && nlh->nlmsg_len <= (unsigned)len &&
	    mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (rtnl_parse(nlh, &m) == 0 && m.kind != RTNL_IGNORE) {
			if (m.ifindex <= 0 || strlen(m.name) >= IF_NAMESIZE || m.plen > 32)
				abort();
			ls_apply(t, &m, gen, (size & 1) != 0, &c);
			if ((c.what & LS_GONE) && tbl_iface(t, m.ifindex) != NULL)
				abort();
			if ((c.what & LS_ADDR_LAST) && tbl_addr_on(t, m.ifindex, m.addr))
				abort();
		}
	}
	/* a re-dump that showed nothing: everything is swept */
	(void)ls_sweep(t, tbl_gen_begin(t), sweep_cb, NULL);
	tbl_count(t, &ni, &na);
	if (ni != 0 || na != 0)
		abort();
	tbl_free(t);
	free(buf);
	return 0;
}
