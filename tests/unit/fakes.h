/* fakes.h — link-time fakes of the I/O edges (capture.h, rtnl.h, rpf.h) for the
 * unit tests of the features, as systemd's test-ipv4ll replaces its ARP
 * socket: frames queued in, frames sent recorded, netlink calls recorded. */
#ifndef ARPOWND_TEST_FAKES_H
#define ARPOWND_TEST_FAKES_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_FRAMES	1024

/* One frame the code under test sent (cap_send, then cap_flush). */
struct fake_sent {
	int	ifindex;
	uint8_t	frame[64];
	size_t	len;
};

/* capture.h's fake */
void fake_cap_reset(void);
/* Queue a captured frame for the next cap_dispatch. */
void fake_cap_push(const uint8_t *pkt, size_t len, uint64_t ts);
/* Frames flushed so far, and the i-th. */
size_t fake_cap_nsent(void);
const struct fake_sent *fake_cap_sent(size_t i);
/* Frames queued but not flushed. */
size_t fake_cap_nqueued(void);

/* rtnl.h's fake */
struct fake_learn {
	int	ifindex;
	uint32_t ip;
	uint8_t	mac[6];
};
struct fake_setarp {
	int	ifindex, arp_ignore, arp_announce;
};
void fake_rtnl_reset(void);
/* What rtnl_drained() says (CLOCK_REALTIME ns). */
void fake_rtnl_set_drained(uint64_t ns);
size_t fake_rtnl_nlearn(void);
const struct fake_learn *fake_rtnl_learn(size_t i);
size_t fake_rtnl_nsetarp(void);
const struct fake_setarp *fake_rtnl_setarp(size_t i);
/* Make rtnl_set_arp fail with err for ifindex (0: none). */
void fake_rtnl_fail(int ifindex, int err);

/* rpf.h's fake: rpf_check answers v (enum rpf_verdict) from now on */
void fake_rpf_reset(void);
void fake_rpf_set(int v);
/* rpf_check calls so far, and the last one's dst (the route asked for) */
size_t fake_rpf_nchecks(void);
uint32_t fake_rpf_dst(void);

/* A DLT_LINUX_SLL2 ARP frame into p (64 bytes); its length.  Addresses
 * as dotted quads; op 1 request, 2 reply. */
size_t fake_frame(uint8_t *p, int ifindex, uint16_t op, const uint8_t sha[6],
    const char *sip, const char *tip);

#endif
