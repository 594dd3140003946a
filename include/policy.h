/* policy.h — whether and from where to answer a request; pure. */
#ifndef ARPOWND_POLICY_H
#define ARPOWND_POLICY_H

#include "arp.h"
#include "polverdict.h"
#include "table.h"

enum pol_mode {
	POL_OWNER = 0,	/* only addresses on the arrival interface (arp_ignore=1) */
	POL_SUBNET,	/* as owner, and the sender on that interface's subnet (=2) */
	POL_SYSTEM,	/* any host address on a managed interface (=0) */
	POL_OFF,	/* never answer */
	POL_MONITOR,	/* sysctls untouched, the kernel answers; arpownd watches */
	POL_NMODES
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
