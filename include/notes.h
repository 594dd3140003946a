/* notes.h — the operator's lines about requests and claims: what was
 * refused and why, probes, what monitor mode saw, conflicts; each with its
 * MESSAGE_ID, and the frequent kinds throttled per (sender, target). */
#ifndef ARPOWND_NOTES_H
#define ARPOWND_NOTES_H

#include <stdbool.h>

#include "arp.h"
#include "policy.h"
#include "table.h"

#define NOTE_KEYS	4096	/* (sender, target) pairs remembered */
#define NOTE_INTERVAL	10.0	/* seconds between two lines for one pair */
#define NOTE_LINES	20	/* such lines per interval, in all */

struct notes;

/* The throttles, over the table t (subnets decide what is news); NULL on ENOMEM. */
struct notes *note_new(const struct tbl *t);
void note_free(struct notes *n);
/* A request refused because the target is elsewhere or the sender outside
 * the subnets: someone asking from one network for another's (info). */
void note_refusal(struct notes *n, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v, double now);
/* An RFC 5227 probe for one of our addresses (notice). */
void note_probe(struct notes *n, const struct arp_req *req, const struct tbl_iface *in,
    double now);
/* monitor: the kernel answered what owner mode would refuse (info). */
void note_monitor(struct notes *n, const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v, const struct tbl_iface *in, double now);
/* debug: a request answered, or not and why. */
void note_answered(const struct arp_req *req, const struct tbl_iface *in);
void note_not_answered(const struct arp_req *req, const struct pol_result *res,
    enum pol_verdict v);
/* A foreign claim on an address of ours (holder: another interface that
 * holds it, or NULL); more: claims were not reported since the last line.
 * The conflict tracker throttles these (conflict.h). */
void note_claim(const struct arp_req *req, const struct tbl_iface *in,
    const struct tbl_iface *holder, bool more);
/* Our defence of that address went out. */
void note_defended(const struct arp_req *req, const struct tbl_iface *in);
/* The claim persisted after the defence: given up (defend = once). */
void note_gave_up(const struct arp_req *req, const struct tbl_iface *in);

#endif
