/* ifaceval.h — the sysctl values the interface manager records and a
 * stop leaves: originals (never arpownd's own 8) and stop_leaves' value
 * per mode.  No state: for iface.c, stopping.c and offline.c alike. */
#ifndef ARPOWND_IFACEVAL_H
#define ARPOWND_IFACEVAL_H

#include <stdbool.h>

#include "conf.h"
#include "statefile.h"
#include "table.h"

#define IFM_ARP_IGNORE_NEVER	8	/* "do not reply for local addresses" */
#define IFM_ARP_IGNORE_OWNER	1	/* only for addresses on the arrival NIC */
#define IFM_ARP_IGNORE_SUBNET	2	/* and the sender on one of its subnets */

/* The arp_ignore a stop leaves for mode under c (stop_leaves), or
 * STATE_NONE: the originals. */
int ifm_leave_for(const struct conf *c, int mode);
/* The arp_ignore a stop leaves on the interface called name under c
 * (its mode's strict value), or STATE_NONE: the originals; c NULL (no
 * configuration could be read): owner's, arp_ignore 1. */
int ifm_leave_named(const struct conf *c, const char *name);
/* Is v a value arpownd itself set on rec's interface (8, or what a stop
 * left)?  Such a value is never an original. */
bool ifm_ours(const struct state_orig *rec, int v);
/* The original to record for arp_ignore v on name: v, or the kernel's
 * default (warned) when v is 8 or outside 0..8 (8 is never an original). */
int ifm_original_ignore(const char *name, int v);
/* The same for arp_announce (0..2) on ifp, which has no record. */
int ifm_original_announce(const struct tbl_iface *ifp);
/* Warn when net.ipv4.conf.all holds an ARP value above 0 (never written). */
void ifm_warn_conf_all(void);

#endif
