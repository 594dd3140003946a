/* capture.h — ARP frames in (libpcap on "any") and out (AF_PACKET). */
#ifndef ARPOWND_CAPTURE_H
#define ARPOWND_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The hash the kernel answer path gives a request it decided (answered,
 * or refused by a limit) and passed on as for another host: the capture
 * drops such frames in the kernel (kpath_abi.h's KP_DECIDED_HASH). */
#define CAP_DECIDED_HASH	0x6172706fu	/* "arpo" */

struct cap;
/* One frame, and when the kernel received it (CLOCK_REALTIME ns). */
typedef void cap_fn(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg);

/* Open the capture and the send socket; NULL with a message in err. */
struct cap *cap_open(char *err, size_t errlen);
void cap_close(struct cap *c);
/* Replies past the qdisc and the packet taps (tcpdump) or not; 0 or -1. */
int cap_set_qdisc_bypass(struct cap *c, bool on);
/* The capture's selectable fd. */
int cap_fd(const struct cap *c);
/* Hand up to budget pending frames (DLT_LINUX_SLL2) to fn; count or -1. */
int cap_dispatch(struct cap *c, int budget, cap_fn *fn, void *arg);
/* Queue a frame (at most ARP_FRAME_LEN bytes) to go out of ifindex;
 * sent by cap_flush, or at once when the queue is full. */
void cap_send(struct cap *c, int ifindex, const uint8_t *frame, size_t len);
/* Send what is queued in one sendmmsg; the number that failed (errno set). */
int cap_flush(struct cap *c);
/* Frames the kernel dropped because we were too slow (pcap_stats). */
unsigned cap_drops(struct cap *c);

#endif
