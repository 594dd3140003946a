/* offline.c — what root does while no daemon runs: --restore puts back
 * the sysctl originals a stopped (or killed) daemon saved; --withdraw
 * takes a runtime-published entry out of the state directory, so that the
 * next start does not answer for what another host now holds.  Both take
 * the state directory's lock: never behind a running daemon's back. */
#include "config.h"

#include <net/if.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "iface.h"
#include "kanswer.h"
#include "log.h"
#include "nslock.h"
#include "offline.h"
#include "publish.h"
#include "rtnl.h"
#include "sysctl.h"
#include "util.h"
#include "statedir.h"
#include "statefile.h"

/* net.ipv4.conf.NAME.arp_ignore, or -1 when it cannot be read. */
static int
current_ignore(const char *name)
{
	int v;

	return sys_get(name, "arp_ignore", &v) == 0 ? v : -1;
}

int
off_withdraw(const char *state_dir, const char *cidr)
{
	char err[512], *lines = NULL;
	struct sdir *sd;
	struct pub *p = NULL;
	const char *why;
	uint32_t base;
	uint8_t plen;
	size_t len;
	int code = EX_OK;

	if (pub_parse_cidr(cidr, &base, &plen, &why) == -1) {
		log_warnx("%s: %s", cidr, why);
		return EX_USAGE;
	}
	/* the lock: never behind a running daemon's back */
	if ((sd = sdir_open(state_dir, SDIR_RESTORE, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK) {
			log_warnx("%s: arpownd is running; use arpownctl withdraw", err);
			return EX_TEMPFAIL;
		}
		log_warnx("%s", err);
		return util_exit_code(errno);
	}
	if (sdir_published_load(sd, &lines, &len, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		code = EX_DATAERR;
		goto out;
	}
	if ((p = pub_new()) == NULL ||
	    pub_parse_runtime(p, lines, len, NULL, NULL, err, sizeof(err)) == -1) {
		log_warnx("%s: runtime-published addresses: %s", state_dir,
		    p == NULL ? "out of memory" : err);
		code = p == NULL ? EX_OSERR : EX_DATAERR;
		goto out;
	}
	if (pub_withdraw(p, base, plen) == 0) {
		const struct pub_entry *e = pub_find(p, htonl(base));

		if (e == NULL) {
			log_warnx("%s: not published by arpownctl publish", cidr);
			code = EX_DATAERR;
		} else {
			log_warnx("%s: not an entry of its own: it is inside %s/%u, published "
			    "by arpownctl publish on %s; withdraw that", cidr,
			    log_ip(htonl(e->base)), e->plen, e->ifglob);
			code = EX_NOINPUT;
		}
		goto out;
	}
	free(lines);
	if ((lines = pub_format_runtime(p, &len)) == NULL ||
	    sdir_published_save(sd, lines, len) == -1) {
		log_warn("%s: saving the runtime-published addresses", state_dir);
		code = EX_IOERR;
		goto out;
	}
	log_info("withdrew %s/%u from %s: not published when arpownd starts",
	    log_ip(htonl(base)), plen, state_dir);
out:
	free(lines);
	pub_free(p);
	sdir_close(sd);
	return code;
}

int
off_restore(const char *state_dir)
{
	char err[512], now[IF_NAMESIZE];
	struct sdir *sd;
	struct state st = { 0 };
	struct rtnl *r = NULL;
	struct state_orig *o;
	struct nsl_who holder, squat;
	char pid[24];
	int code = EX_OK, idx, lk;
	size_t i = 0;

	if ((sd = sdir_open(state_dir, SDIR_RESTORE, err, sizeof(err))) == NULL) {
		if (errno == EWOULDBLOCK)
			log_warnx("%s: arpownd is running; stop it instead", err);
		else
			log_warnx("%s", err);
		return errno == EWOULDBLOCK ? EX_OSERR : util_exit_code(errno);
	}
	/* a killed daemon's kernel answer path filters go first (they answer
	 * nothing once the daemon is gone, but are not to stay); not while an
	 * arpownd runs in this namespace with another state directory: the
	 * filters are its own.  The namespace's lock held through the purge:
	 * no daemon starts and attaches in between. */
	if ((lk = nsl_take(&holder, &squat)) != -1) {
		if (squat.found)
			log_notice("%s is held by uid %ld (pid %s), not root: no "
			    "arpownd; purging all the same", squat.name, squat.uid,
			    nsl_pid(&squat, pid, sizeof(pid)));
		(void)kan_purge();
		close(lk);
	} else if (errno == EADDRINUSE)
		log_notice("an arpownd runs in this network namespace (another state "
		    "directory; pid %s): its kernel answer path filters stay",
		    nsl_pid(&holder, pid, sizeof(pid)));
	else
		(void)kan_purge();
	if (sdir_load(sd, &st, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		code = EX_OSERR;
		goto out;
	}
	if (st.n == 0)
		goto out;
	if ((r = rtnl_open()) == NULL) {
		log_warn("rtnetlink");
		code = util_exit_code(errno);
		goto out;
	}
	while (i < st.n) {
		o = &st.v[i];
		/* never "restore" an 8 (what the version before 0.2 could save) */
		if (o->arp_ignore == IFM_ARP_IGNORE_NEVER)
			o->arp_ignore = ifm_original_ignore(o->name, o->arp_ignore);
		/* the ifindex is the interface; a v1 record has only a name */
		if (o->ifindex > 0)
			idx = if_indextoname((unsigned)o->ifindex, now) != NULL ? o->ifindex : 0;
		else if ((idx = (int)if_nametoindex(o->name)) != 0)
			memcpy(now, o->name, sizeof(now));
		if (idx == 0) {
			log_info("%s: gone, nothing to restore", o->name);
		} else if (strcmp(now, o->name) != 0 &&
		    current_ignore(now) != IFM_ARP_IGNORE_NEVER) {
			/* a rename keeps our 8; another link given the ifindex
			 * has its own value */
			log_info("%s: gone, nothing to restore (%s has its ifindex now)",
			    o->name, now);
		} else if (rtnl_set_arp(r, idx, o->arp_ignore, o->arp_announce) == -1 &&
		    errno != ENODEV) {
			log_warn("%s: cannot restore arp_ignore=%d arp_announce=%d",
			    now, o->arp_ignore, o->arp_announce);
			code = util_exit_code(errno);
			i++;
			continue;
		} else if (strcmp(now, o->name) != 0)
			log_info("%s (was %s): restored arp_ignore=%d arp_announce=%d",
			    now, o->name, o->arp_ignore, o->arp_announce);
		else
			log_info("%s: restored arp_ignore=%d arp_announce=%d", now,
			    o->arp_ignore, o->arp_announce);
		state_del(&st, o);
	}
	/* what failed stays recorded for the next try */
	if (sdir_save(sd, &st) == -1) {
		log_warn("%s: cannot save what is left to restore", state_dir);
		code = EX_OSERR;
	}
out:
	rtnl_close(r);
	state_clear(&st);
	sdir_close(sd);
	return code;
}
