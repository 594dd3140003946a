/* fuzz_rtnl.c — libFuzzer: raw rtnetlink buffers through rtnl_parse, as
 * the event loop walks them (mnl_nlmsg_ok / mnl_nlmsg_next). */
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include "rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	struct rtnl_msg m;
	void *buf;
	int len = (int)size;

	if (size > 1 << 20 || (buf = aligned_alloc(8, (size + 7) & ~(size_t)7)) == NULL)
		return 0;
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
		}
	}
	free(buf);
	return 0;
}
