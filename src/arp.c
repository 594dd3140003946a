/* arp.c — validate ARP requests and build the kernel's reply; pure. */
#include "config.h"

#include <linux/if_packet.h>
#include <net/if_arp.h>
#include <net/ethernet.h>
#include <netinet/if_ether.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "arp.h"
#include "rules.h"

/* Offsets in a DLT_LINUX_SLL2 header (libpcap's pcap/sll.h). */
#define SLL2_PROTO	0
#define SLL2_IFINDEX	4
#define SLL2_HATYPE	8
#define SLL2_PKTTYPE	10
#define SLL2_HALEN	11
#define SLL2_ADDR	12

#define ARP_HDR_LEN	8	/* hrd, pro, hln, pln, op */
#define ARP_BODY_LEN	28	/* for hln 6, pln 4 */

_Static_assert(sizeof(struct ether_header) + sizeof(struct ether_arp) == ARP_FRAME_LEN,
    "an Ethernet/IPv4 ARP frame is 42 bytes");

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32n(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));	/* stays in network order */
	return v;
}

static int
mac_is_zero(const uint8_t *m)
{
	return (m[0] | m[1] | m[2] | m[3] | m[4] | m[5]) == 0;
}

/* Multicast bit set covers broadcast too. */
static int
mac_is_group(const uint8_t *m)
{
	return m[0] & 1;
}

/* The kernel's martians (rules.h), for an address in network order. */
static int
ip_is_martian(uint32_t n)
{
	return rule_martian(ntohl(n));
}

int
arp_ifindex(const uint8_t *pkt, size_t caplen)
{
	uint32_t v;

	if (caplen < SLL2_IFINDEX + 4)
		return 0;
	memcpy(&v, pkt + SLL2_IFINDEX, 4);
	v = ntohl(v);
	return v > INT32_MAX ? 0 : (int)v;
}

enum arp_reason
arp_check(const uint8_t *pkt, size_t caplen, struct arp_req *req)
{
	const uint8_t *a;

	memset(req, 0, sizeof(*req));	/* op 0 until the body is read */
	if (caplen < ARP_SLL2_LEN)
		return ARP_TRUNCATED;
	if (get16(pkt + SLL2_PROTO) != ETH_P_ARP ||
	    get16(pkt + SLL2_HATYPE) != ARPHRD_ETHER ||
	    pkt[SLL2_HALEN] != ARP_ETH_LEN)
		return ARP_BAD_LINK;
	/* OTHERHOST: sent to another host's MAC; OUTGOING: our own. */
	if (pkt[SLL2_PKTTYPE] != PACKET_HOST &&
	    pkt[SLL2_PKTTYPE] != PACKET_BROADCAST &&
	    pkt[SLL2_PKTTYPE] != PACKET_MULTICAST)
		return ARP_BAD_PKTTYPE;

	a = pkt + ARP_SLL2_LEN;
	caplen -= ARP_SLL2_LEN;
	if (caplen < ARP_HDR_LEN)
		return ARP_TRUNCATED;
	/* The kernel accepts Ethernet and IEEE 802 on Ethernet devices. */
	if (get16(a) != ARPHRD_ETHER && get16(a) != ARPHRD_IEEE802)
		return ARP_BAD_HRD;
	if (get16(a + 2) != ETH_P_IP)
		return ARP_BAD_PRO;
	if (a[4] != ARP_ETH_LEN)
		return ARP_BAD_HLN;
	if (a[5] != 4)
		return ARP_BAD_PLN;
	if (get16(a + 6) != ARPOP_REQUEST && get16(a + 6) != ARPOP_REPLY)
		return ARP_NOT_REQUEST;
	if (caplen < ARP_BODY_LEN)
		return ARP_TRUNCATED;

	req->ifindex = arp_ifindex(pkt, caplen + ARP_SLL2_LEN);
	req->pkttype = pkt[SLL2_PKTTYPE];
	req->op = get16(a + 6);
	memcpy(req->sha, a + 8, ARP_ETH_LEN);
	req->sip = get32n(a + 14);
	memcpy(req->tha, a + 18, ARP_ETH_LEN);
	req->tip = get32n(a + 24);

	/* The kernel answers these, to the group or zero MAC: not we.  A
	 * broadcast reply would go to the whole segment, and learning the
	 * requester would put a group MAC into the neighbour table. */
	if (mac_is_zero(req->sha) || mac_is_group(req->sha))
		return ARP_BAD_SHA;
	/* An Ethernet source other than the ARP sender (a balance-alb bond
	 * sending on another slave, a relay) is answered, as the kernel does:
	 * to the ARP sender's MAC, which is whom the request speaks for. */
	/* sip 0.0.0.0 is an RFC 5227 probe, answered like the kernel does. */
	if (req->sip != 0 && ip_is_martian(req->sip))
		return ARP_MARTIAN_SIP;
	if (req->op != ARPOP_REQUEST)
		return ARP_NOT_REQUEST;	/* a reply: its sender may be a conflict */
	if (ip_is_martian(req->tip))
		return ARP_BAD_TIP;
	if (req->sip == req->tip)
		return ARP_GRATUITOUS;
	return ARP_OK;
}

/* The one frame both builders make: Ethernet, then RFC 826's body for
 * Ethernet/IPv4, filled by field name (netinet/if_ether.h's ether_arp, as
 * n-acd and sd-ipv4acd do), 42 bytes: the driver pads to 60. */
static size_t
frame(uint8_t out[static ARP_FRAME_LEN], const uint8_t *dst, const uint8_t *src,
    uint16_t op, const uint8_t *sha, uint32_t sip, const uint8_t *tha, uint32_t tip)
{
	struct ether_header eh;
	struct ether_arp ea;

	memcpy(eh.ether_dhost, dst, ETH_ALEN);
	memcpy(eh.ether_shost, src, ETH_ALEN);
	eh.ether_type = htons(ETH_P_ARP);
	/* the device's hardware type (Ethernet) even for an IEEE 802 request */
	ea.arp_hrd = htons(ARPHRD_ETHER);
	ea.arp_pro = htons(ETH_P_IP);
	ea.arp_hln = ETH_ALEN;
	ea.arp_pln = 4;
	ea.arp_op = htons(op);
	memcpy(ea.arp_sha, sha, ETH_ALEN);
	memcpy(ea.arp_spa, &sip, 4);
	memcpy(ea.arp_tha, tha, ETH_ALEN);
	memcpy(ea.arp_tpa, &tip, 4);
	memcpy(out, &eh, sizeof(eh));
	memcpy(out + sizeof(eh), &ea, sizeof(ea));
	return sizeof(eh) + sizeof(ea);
}

size_t
arp_build_reply(const struct arp_req *req, const uint8_t mac[static ARP_ETH_LEN],
    uint8_t out[static ARP_FRAME_LEN])
{
	/* Exactly arp_send_dst(ARPOP_REPLY, ETH_P_ARP, sip, dev, tip, sha,
	 * dev_addr, sha) in net/ipv4/arp.c */
	return frame(out, req->sha, mac, ARPOP_REPLY, mac, req->tip, req->sha, req->sip);
}

size_t
arp_build_announce(uint16_t op, const uint8_t mac[static ARP_ETH_LEN], uint32_t addr,
    uint8_t out[static ARP_FRAME_LEN])
{
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[ETH_ALEN];

	/* The request is what the kernel sends for arp_notify (and RFC 5227
	 * calls an announcement); the reply is arping -A's.  Switches and
	 * hosts differ in which they learn from, hence announce_form. */
	return frame(out, bcast, mac, op, mac, addr, op == ARPOP_REPLY ? mac : zero, addr);
}

static const char *const reason_names[ARP_NREASONS] = {
	[ARP_OK] = "ok",
	[ARP_TRUNCATED] = "truncated",
	[ARP_BAD_LINK] = "bad_link",
	[ARP_BAD_PKTTYPE] = "not_for_us",
	[ARP_BAD_HRD] = "bad_hrd",
	[ARP_BAD_PRO] = "bad_pro",
	[ARP_BAD_HLN] = "bad_hln",
	[ARP_BAD_PLN] = "bad_pln",
	[ARP_NOT_REQUEST] = "not_request",
	[ARP_BAD_SHA] = "bad_sender_mac",
	[ARP_MARTIAN_SIP] = "martian_sender",
	[ARP_BAD_TIP] = "bad_target",
	[ARP_GRATUITOUS] = "gratuitous",
};

const char *
arp_reason_str(enum arp_reason r)
{
	if ((unsigned)r >= ARP_NREASONS)
		return "?";
	return reason_names[r];
}

