/* arp.h — ARP request validation and reply building; pure, no I/O. */
#ifndef ARPOWND_ARP_H
#define ARPOWND_ARP_H

#include <stddef.h>
#include <stdint.h>

#define ARP_ETH_LEN	6
/* Ethernet header + RFC 826 body for Ethernet/IPv4.  The kernel sends
 * exactly this many bytes and lets the driver pad to 60, so do we. */
#define ARP_FRAME_LEN	42
#define ARP_SLL2_LEN	20	/* DLT_LINUX_SLL2 header */

/* Why a frame was not taken as a request; ARP_OK when it was. */
enum arp_reason {
	ARP_OK = 0,
	ARP_TRUNCATED,		/* shorter than the headers it claims */
	ARP_BAD_LINK,		/* not Ethernet, or not ETH_P_ARP */
	ARP_BAD_PKTTYPE,	/* outgoing, or addressed to another host */
	ARP_BAD_HRD,		/* hardware type not 1 or 6 */
	ARP_BAD_PRO,		/* protocol not IPv4 */
	ARP_BAD_HLN,		/* hardware length not 6 */
	ARP_BAD_PLN,		/* protocol length not 4 */
	ARP_NOT_REQUEST,	/* op other than 1 (a reply: fields filled, sender checked) */
	ARP_BAD_SHA,		/* sender MAC broadcast, multicast or zero */
	ARP_MARTIAN_SIP,	/* sender IP multicast, broadcast, 127/8 */
	ARP_BAD_TIP,		/* target IP multicast, broadcast, 127/8, 0.0.0.0 */
	ARP_GRATUITOUS,		/* sender IP == target IP: an announcement */
	ARP_NREASONS
};

/* A validated request; addresses in network byte order. */
struct arp_req {
	int		ifindex;	/* interface the frame arrived on */
	uint8_t		pkttype;	/* PACKET_HOST, PACKET_BROADCAST ... */
	uint16_t	op;		/* ARPOP_REQUEST, or ARPOP_REPLY */
	uint8_t		sha[ARP_ETH_LEN];
	uint8_t		tha[ARP_ETH_LEN];
	uint32_t	sip;
	uint32_t	tip;
};

/* Decode a DLT_LINUX_SLL2 frame of caplen bytes into req; says why not.
 * A reply comes back as ARP_NOT_REQUEST with req filled, once its sender
 * passed the same checks as a request's (conflicts are seen in replies). */
enum arp_reason arp_check(const uint8_t *pkt, size_t caplen, struct arp_req *req);

/* The arrival ifindex of a DLT_LINUX_SLL2 frame, 0 when too short to say. */
int arp_ifindex(const uint8_t *pkt, size_t caplen);

/* Build the kernel's reply to req from mac into out; returns its length. */
size_t arp_build_reply(const struct arp_req *req, const uint8_t mac[static ARP_ETH_LEN],
    uint8_t out[static ARP_FRAME_LEN]);

/* Build a gratuitous ARP for addr from mac into out, op ARPOP_REQUEST (an
 * RFC 5227 announcement: sender = target = addr, target MAC zero) or
 * ARPOP_REPLY (target MAC = mac), to the broadcast address; its length. */
size_t arp_build_announce(uint16_t op, const uint8_t mac[static ARP_ETH_LEN], uint32_t addr,
    uint8_t out[static ARP_FRAME_LEN]);

/* A short stable name for a reason, for logs and counters. */
const char *arp_reason_str(enum arp_reason r);

#endif
