/* policy.h — whether and from where to answer a request; pure. */
#ifndef ARPOWND_POLICY_H
#define ARPOWND_POLICY_H

#include "arp.h"
#include "table.h"

enum pol_mode {
	POL_OWNER = 0,	/* only addresses on the arrival interface (arp_ignore=1) */
	POL_SUBNET,	/* as owner, and the sender on that interface's subnet (=2) */
	POL_SYSTEM,	/* any host address on a managed interface (=0) */
	POL_OFF,	/* never answer */
	POL_MONITOR,	/* sysctls untouched, the kernel answers; arpownd watches */
	POL_NMODES
};

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

struct pub;
struct pub_entry;

struct pol_result {
	enum pol_verdict	 verdict;
	struct tbl_iface	*in;	/* arrival interface, NULL if unknown */
	struct tbl_iface	*owner;	/* holder of the target, NULL if none */
	const struct pub_entry	*pub;	/* publishing the target (or the sender) */
	const uint8_t		*mac;	/* POL_ANSWER: the MAC to answer with */
};

/* Decide what to do with a validated request, from the current table and
 * the published set (NULL: none). */
enum pol_verdict pol_decide(const struct tbl *t, const struct pub *pub,
    const struct arp_req *req, struct pol_result *res);

/* Would the kernel itself answer req, with the arrival interface at
 * arp_ignore (monitor mode: arpownd silent, the kernel's value in place)?
 * A model of arp_process(): the target one of the host's addresses, the
 * sender not, and arp_ignore's test on the arrival interface (3 is taken
 * as 0: address scopes are not tracked). */
bool pol_kernel_answers(const struct tbl *t, const struct arp_req *req, int arp_ignore);

/* Does arpownd answer in mode m (owner, subnet, system)? */
bool pol_answers(int m);
/* Stable names for logs, counters and the config file. */
const char *pol_verdict_str(enum pol_verdict v);
const char *pol_mode_str(enum pol_mode m);
/* Parse a mode name; -1 when it is not one. */
int pol_mode_parse(const char *s);

#endif
