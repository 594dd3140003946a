/* stats.h — what arpownd counts, per arrival interface and in all; the
 * control socket and the metrics render these. */
#ifndef ARPOWND_STATS_H
#define ARPOWND_STATS_H

#include "arp.h"
#include "polverdict.h"

/*
 * Counted for the interface a frame arrived on (or sent from).  They add
 * up: every frame received is one of invalid, an announcement heard, a
 * reply heard, a request decided (verdict) or a request watched in monitor
 * mode; and verdict[POL_ANSWER] = replies + limited_sender + limited_total.
 */
struct stats_if {
	unsigned long long	received;		/* ARP frames seen */
	unsigned long long	invalid[ARP_NREASONS];	/* malformed, or not for us to
							 * look at ([ARP_NOT_REQUEST]:
							 * an op other than 1 or 2);
							 * [ARP_OK], [ARP_GRATUITOUS]
							 * unused */
	unsigned long long	announcements_heard;	/* gratuitous ARP (sender =
							 * target), ours or others' */
	unsigned long long	replies_heard;		/* other ARP replies */
	unsigned long long	verdict[POL_NVERDICTS];	/* decisions on valid requests
							 * (not in monitor mode) */
	unsigned long long	replies;		/* replies sent */
	unsigned long long	limited_sender;		/* answer refused by sender_rate */
	unsigned long long	limited_total;		/* answer refused by total_rate */
	unsigned long long	announcements;		/* announcement frames sent */
	unsigned long long	conflicts;		/* foreign claims on our addresses */
	unsigned long long	defences;		/* announcements sent in defence */
	unsigned long long	monitored;		/* monitor: valid requests watched */
	unsigned long long	would_refuse[POL_NVERDICTS];	/* monitor: the kernel
							 * answered, the policy would not */
};

/* The daemon's: every interface together (frames from unknown interfaces
 * too), and what belongs to no interface. */
struct stats {
	struct stats_if		all;
	unsigned long long	send_errors;
	unsigned long long	capture_errors;
	unsigned long long	learned;		/* neighbour entries added */
	unsigned long long	resyncs;		/* netlink re-dumps */
	/* announcements, host-wide: bursts (one address, or all of an
	 * interface's) queued; bursts dropped (the schedule full) and frames
	 * announce_rate refused a defence; addresses a start left out because
	 * the previous run had announced them as they still are; "announce"
	 * requests refused a non-root peer with ANN_PEER_PENDING pending */
	unsigned long long	announce_queued;
	unsigned long long	announce_dropped;
	unsigned long long	announce_skipped;
	unsigned long long	announce_refused;
	unsigned long long	handover_answered;	/* kept across the restart, answered */
	unsigned long long	handover_dropped;	/* the kernel could not keep them */
};

#endif
