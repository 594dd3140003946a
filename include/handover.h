/* handover.h — requests for published addresses that come while arpownd
 * restarts: an ARP socket that systemd's file descriptor store keeps
 * across the gap (nobody else answers a published address), drained by
 * the next start.  Needs libsystemd and FileDescriptorStoreMax= >= 1. */
#ifndef ARPOWND_HANDOVER_H
#define ARPOWND_HANDOVER_H

#include <stddef.h>
#include <stdint.h>

#define HO_NAME		"arp-handover"	/* its FDNAME= */
#define HO_MAX_AGE	3.0	/* s: older requests were given up by their senders */
#define HO_FRAMES	4096	/* drained at most */

/* At stop, before the sysctls go back: open an ARP socket on every
 * interface and give it to systemd to keep; 0, or -1 (not under systemd,
 * no fd store, no libsystemd: nothing kept). */
int ho_keep(void);
/* At start: the socket the previous run left in the fd store (the last
 * one stored, when a run that failed early left older ones), or -1. */
int ho_take(void);
/* One queued frame, as DLT_LINUX_SLL2 (capture.h's form). */
typedef void ho_fn(const uint8_t *pkt, size_t caplen, void *arg);
/* What ho_drain read, for the log line. */
struct ho_tally {
	int	frames;		/* read from the socket */
	int	late;		/* after `before`: the new capture's */
	int	old;		/* older than HO_MAX_AGE: given up by their senders */
};
/* Hand fn the frames queued on fd that arrived before `before` (CLOCK_REALTIME
 * ns: the new capture sees the later ones) and within HO_MAX_AGE of now;
 * the number handed, and in *t what else was read. */
int ho_drain(int fd, uint64_t before, ho_fn *fn, void *arg, struct ho_tally *t);
/* Take it out of the fd store, and close it. */
void ho_release(int fd);

#endif
