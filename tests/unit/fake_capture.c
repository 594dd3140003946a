/* fake_capture.c — capture.h for unit tests: no sockets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <cmocka.h>

#include "capture.h"
#include "fakes.h"

struct frame {
	uint8_t		pkt[64];
	size_t		len;
	uint64_t	ts;
};

static struct frame in[FAKE_FRAMES];
static size_t nin, next_in;
static struct fake_sent queued[FAKE_FRAMES], sent[FAKE_FRAMES];
static size_t nqueued, nsent;

void
fake_cap_reset(void)
{
	nin = next_in = nqueued = nsent = 0;
}

void
fake_cap_push(const uint8_t *pkt, size_t len, uint64_t ts)
{
	assert_true(nin < FAKE_FRAMES && len <= sizeof(in[0].pkt));
	memcpy(in[nin].pkt, pkt, len);
	in[nin].len = len;
	in[nin].ts = ts;
	nin++;
}

size_t
fake_cap_nsent(void)
{
	return nsent;
}

const struct fake_sent *
fake_cap_sent(size_t i)
{
	return i < nsent ? &sent[i] : NULL;
}

size_t
fake_cap_nqueued(void)
{
	return nqueued;
}

struct cap *
cap_open(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return NULL;
}

void
cap_close(struct cap *c)
{
	(void)c;
}

int
cap_set_qdisc_bypass(struct cap *c, bool on)
{
	(void)c;
	(void)on;
	return 0;
}

int
cap_fd(const struct cap *c)
{
	(void)c;
	return -1;
}

int
cap_dispatch(struct cap *c, int budget, cap_fn *fn, void *arg)
{
	int n = 0;

	(void)c;
	while (next_in < nin && n < budget) {
		fn(in[next_in].pkt, in[next_in].len, in[next_in].ts, arg);
		next_in++;
		n++;
	}
	return n;
}

void
cap_send(struct cap *c, int ifindex, const uint8_t *frame, size_t len)
{
	(void)c;
	assert_true(nqueued < FAKE_FRAMES && len <= sizeof(queued[0].frame));
	queued[nqueued].ifindex = ifindex;
	memcpy(queued[nqueued].frame, frame, len);
	queued[nqueued].len = len;
	nqueued++;
}

int
cap_flush(struct cap *c)
{
	size_t i;

	(void)c;
	for (i = 0; i < nqueued; i++) {
		assert_true(nsent < FAKE_FRAMES);
		sent[nsent++] = queued[i];
	}
	nqueued = 0;
	return 0;
}

unsigned
cap_drops(struct cap *c)
{
	(void)c;
	return 0;
}

size_t
fake_frame(uint8_t *p, int ifindex, uint16_t op, const uint8_t sha[6], const char *sip,
    const char *tip)
{
	uint32_t ip;

	memset(p, 0, 64);
	p[0] = 0x08; p[1] = 0x06;			/* ETH_P_ARP */
	p[4] = (uint8_t)(ifindex >> 24); p[5] = (uint8_t)(ifindex >> 16);
	p[6] = (uint8_t)(ifindex >> 8); p[7] = (uint8_t)ifindex;
	p[9] = 1;					/* ARPHRD_ETHER */
	p[10] = PACKET_BROADCAST;
	p[11] = 6;
	memcpy(p + 12, sha, 6);
	p += 20;
	p[1] = 1;					/* hrd */
	p[2] = 0x08;					/* pro */
	p[4] = 6;
	p[5] = 4;
	p[7] = (uint8_t)op;
	memcpy(p + 8, sha, 6);
	inet_pton(AF_INET, sip, &ip);
	memcpy(p + 14, &ip, 4);
	if (op == 2)
		memset(p + 18, 0xff, 6);
	inet_pton(AF_INET, tip, &ip);
	memcpy(p + 24, &ip, 4);
	return 48;
}
