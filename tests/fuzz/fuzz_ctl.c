/* fuzz_ctl.c — libFuzzer: the control protocol's parser on arbitrary
 * lines, and the reply header reader.  Whatever a request parses to must
 * hold only what the parser promises (a valid interface name, a prefix
 * length of 1 to 32 with no host bits set); every message is printable
 * text; a header read back must write out the same. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctlproto.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_request(const char *line, size_t len)
{
	struct ctlp_req r;
	char err[256];
	uint32_t mask;
	size_t i;

	memset(err, 'x', sizeof(err));
	if (ctlp_parse(line, len, &r, err, sizeof(err)) != 0) {
		if (memchr(err, '\0', sizeof(err)) == NULL)
			abort();
		for (i = 0; err[i]; i++)
			if ((unsigned char)err[i] < ' ' || (unsigned char)err[i] >= 0x7f)
				abort();	/* a message must be safe to print */
		return;
	}
	if (r.cmd >= CTLP_NCMDS)
		abort();
	if (r.has_ifname && !util_ifname_ok(r.ifname, strlen(r.ifname)))
		abort();
	if (r.has_addr) {
		if (r.plen < 1 || r.plen > 32)
			abort();
		mask = r.plen == 32 ? 0xffffffffu : ~(0xffffffffu >> r.plen);
		if ((ntohl(r.addr) & ~mask) != 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl;
	char buf[CTLP_HEAD_MAX];
	struct ctlp_head h, back;
	size_t n;

	/* the daemon hands the parser one line at a time */
	while (size > 0) {
		nl = memchr(p, '\n', size);
		n = nl ? (size_t)(nl - p) : size;
		check_request(p, n);
		if (ctlp_head_parse(p, n, &h) == 0) {
			n = ctlp_head_format(&h, buf);
			if (n == 0 || ctlp_head_parse(buf, n - 1, &back) != 0 ||
			    memcmp(&h, &back, sizeof(h)) != 0)
				abort();
			n = nl ? (size_t)(nl - p) : size;
		}
		if (nl == NULL)
			break;
		size -= n + 1;
		p += n + 1;
	}
	return 0;
}
