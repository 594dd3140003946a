/* polverdict.h — what policy.c decides for a request, as a type alone:
 * stats.h counts per verdict (layer 0) and cannot include policy.h, which
 * needs the table (layer 1). */
#ifndef ARPOWND_POLVERDICT_H
#define ARPOWND_POLVERDICT_H

enum pol_verdict {
	POL_ANSWER = 0,
	POL_UNKNOWN_IFACE,	/* arrival ifindex not in the table */
	POL_UNMANAGED,		/* the kernel answers there, not us */
	POL_MODE_OFF,
	POL_LINK_DOWN,
	POL_NOT_LOCAL,		/* not one of the host's addresses */
	POL_OTHER_IFACE,	/* owned by another interface */
	POL_NOT_SUBNET,		/* no subnet of the interface holds target and sender */
	POL_OWN_SENDER,		/* our own request, looped back by the segment */
	POL_CONFLICT,		/* someone else claims one of our addresses */
	POL_SENDER_DENIED,	/* outside allow_senders, or inside deny_senders */
	POL_PROBE_DENIED,	/* an RFC 5227 probe, and allow_probes = no */
	/* answerable, but the kernel's reverse-path checks refuse (rpf.c) */
	POL_RP_FILTER,		/* rp_filter: no route back to the sender (through it) */
	POL_ARP_FILTER,		/* arp_filter: the route to the sender leaves elsewhere */
	POL_RP_UNCHECKED,	/* a check was due and could not be made */
	POL_NVERDICTS
};

#endif
