/* handover.h — requests for published addresses that come while arpownd
 * restarts: an ARP socket that systemd's file descriptor store keeps
 * across the gap (the kernel, in its strict mode, answers the host's own
 * addresses then; nobody answers a published one), drained by the next
 * start.  Needs libsystemd and FileDescriptorStoreMax= >= 1. */
#ifndef ARPOWND_HANDOVER_H
#define ARPOWND_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pub;

#define HO_NAME		"arp-handover"	/* 0.1.0's FDNAME=: a plain socket */
#define HO_RING_NAME	"arp-handover-ring1"	/* this one's: the ring below */
#define HO_ALL_NAME	"arp-takeover-ring1"	/* the same ring, every request */

/* What a kept socket holds, and so what its drain answers. */
enum ho_kind {
	HO_NONE = 0,
	HO_PLAIN,		/* 0.1.0's: every ARP frame; the published answered */
	HO_PUBLISHED,		/* the requests for the published addresses */
	HO_ALL,			/* every request (--stopping's takeover): the
				 * owned ones answered too */
};
#define HO_MAX_AGE	3.0	/* s: older requests were given up by their senders */
/* The ring (TPACKET_V2): slots of 128 bytes (the header, the address and
 * the first 62 bytes of the frame: an ARP request whole), 32 to a page;
 * 65,536 requests, 50,000 a second for 1.3 s, in 8 MiB mapped once
 * (a queue of skbs would charge ~1 KiB each, and grow) */
#define HO_SLOT		128
#define HO_BLOCK	4096
#define HO_BLOCKS	2048
#define HO_SLOTS	(HO_BLOCKS * (HO_BLOCK / HO_SLOT))
/* at most this many published spans are told apart in the kernel's
 * filter; with more, every request is kept (and sorted out at drain) */
#define HO_FILTER_SPANS	256

/* At stop, before the sysctls change: open a socket that the kernel fills
 * with the ARP requests for p's addresses only (a classic BPF filter: no
 * reply, no announcement, no other target, no other traffic), give it to
 * systemd to keep; the fd, or -1 (not under systemd, no fd store, no
 * libsystemd, nothing published: nothing kept). */
int ho_keep(const struct pub *p);
/* The same ring for every request (no reply, no announcement), given to
 * systemd's store in the name of the unit's main process pid (root, the
 * unit's ExecStop: the daemon is about to go without a stop of its own);
 * the fd, or -1 with errno. */
int ho_keep_for(int pid);
/* At start: the socket the previous run left in the fd store (the last
 * one stored, when a run that failed early left older ones), or -1; *kind
 * says what it holds. */
int ho_take(enum ho_kind *kind);
/* One queued frame, as DLT_LINUX_SLL2 (capture.h's form), which arrived at
 * ts (CLOCK_REALTIME ns); true when it was answered. */
typedef bool ho_fn(const uint8_t *pkt, size_t caplen, uint64_t ts, void *arg);
/* What ho_drain read, for the log line. */
struct ho_tally {
	unsigned	frames;		/* read from the socket */
	unsigned	handed;		/* handed to fn */
	unsigned	answered;	/* of which answered */
	unsigned	late;		/* after `before`: the new capture's */
	unsigned	old;		/* older than HO_MAX_AGE: given up by their senders */
	unsigned	drops;		/* dropped by the kernel (PACKET_STATISTICS) */
	bool		stats;		/* drops could be read */
};
/* Hand fn the frames queued on fd that arrived before `before` (CLOCK_REALTIME
 * ns: the new capture sees the later ones) and within HO_MAX_AGE of now;
 * the kernel's count of the frames it dropped in *t. */
void ho_drain(int fd, enum ho_kind kind, uint64_t before, ho_fn *fn, void *arg,
    struct ho_tally *t);
/* Take it out of the fd store, and close it. */
void ho_release(int fd, enum ho_kind kind);

#endif
