/* ifaceval.c — the sysctl values the interface manager records and
 * leaves: which arp_ignore / arp_announce may stand as an original (never
 * arpownd's own 8), the kernel's defaults used instead, and what a stop
 * leaves per mode (stop_leaves).  Values only: no record is kept here, and
 * nothing is written (iface.c sets; offline.c and stopping.c ask). */
#include "config.h"

#include <syslog.h>

#include "ifaceval.h"
#include "log.h"
#include "msgid.h"
#include "policy.h"
#include "sysctl.h"

int
ifm_leave_for(const struct conf *c, int mode)
{
	if (c->stop_leaves == CONF_STOP_ORIGINALS)
		return STATE_NONE;
	/* the kernel's own test for what the mode answers: the same
	 * addresses, from the same NIC, none from another */
	switch (mode) {
	case POL_OWNER:
		return IFM_ARP_IGNORE_OWNER;
	case POL_SUBNET:
		return IFM_ARP_IGNORE_SUBNET;
	case POL_SYSTEM:
		return 0;	/* the weak host is what the mode answers */
	case POL_OFF:
		return IFM_ARP_IGNORE_NEVER;	/* never answered, as while running */
	default:
		return STATE_NONE;
	}
}

/* net.ipv4.conf.default.KEY, what a new interface gets; dflt when it is
 * unreadable or not below max. */
static int
kernel_default(const char *key, int max, int dflt)
{
	int v;

	if (sys_get("default", key, &v) == -1 || v < 0 || v >= max)
		return dflt;
	return v;
}

/* The original arp_ignore to record for ifp, which has no record.  An 8
 * would make a later stop "restore" deafness for good, and it may well be
 * ours (a record lost, another instance); a value outside 0..8 cannot be
 * given back meaningfully: record what a new interface gets instead, and
 * say so. */
int
ifm_original_ignore(const char *name, int v)
{
	struct log_ctx lc = { MSGID_SYSCTL, name, 0, 0, NULL };
	int d;

	if (v >= 0 && v < IFM_ARP_IGNORE_NEVER)
		return v;
	d = kernel_default("arp_ignore", IFM_ARP_IGNORE_NEVER, 0);
	log_ctx(LOG_WARNING, &lc, "%s: arp_ignore is %d and no original was saved for "
	    "it; recording %d (the default for new interfaces) so that stopping "
	    "never leaves it deaf", name, v, d);
	return d;
}

/* The same for arp_announce, whose values are 0..2. */
int
ifm_original_announce(const struct tbl_iface *ifp)
{
	struct log_ctx lc = { MSGID_SYSCTL, ifp->name, 0, 0, NULL };
	int d;

	if (ifp->arp_announce >= 0 && ifp->arp_announce <= 2)
		return ifp->arp_announce;
	d = kernel_default("arp_announce", 3, 0);
	log_ctx(LOG_WARNING, &lc, "%s: arp_announce is %d, outside 0..2; recording %d "
	    "(the default for new interfaces) as its original", ifp->name,
	    ifp->arp_announce, d);
	return d;
}

int
ifm_leave_named(const struct conf *c, const char *name)
{
	int mode;

	if (c == NULL)
		return IFM_ARP_IGNORE_OWNER;
	if (c->stop_leaves == CONF_STOP_ORIGINALS)
		return STATE_NONE;
	mode = conf_iface_mode(c, name);
	return mode < 0 ? IFM_ARP_IGNORE_OWNER : ifm_leave_for(c, mode);
}

bool
ifm_ours(const struct state_orig *rec, int v)
{
	return v == IFM_ARP_IGNORE_NEVER || (rec->leave != STATE_NONE && v == rec->leave);
}

/* Warn about conf/all: the kernel applies max(all, dev), we never write it. */
void
ifm_warn_conf_all(void)
{
	static const char *const keys[] = { "arp_ignore", "arp_announce" };
	size_t i;
	int v;

	for (i = 0; i < 2; i++)
		if (sys_get("all", keys[i], &v) == 0 && v > 0)
			log_warnx("net.ipv4.conf.all.%s is %d: the kernel applies it to "
			    "every interface, including the ones arpownd does not "
			    "manage; arpownd leaves it alone", keys[i], v);
}
