/* offline.c — what root does while no daemon runs: --restore leaves each
 * interface a stopped (or killed) daemon changed in the kernel's strict
 * mode its record names, or gives back the originals it saved
 * (--restore=originals, a record that names no strict mode, or the unit
 * being disabled); --withdraw
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
#include <time.h>
#include <unistd.h>

#include "ifaceval.h"
#include "kanswer.h"
#include "log.h"
#include "nslock.h"
#include "offline.h"
#include "publish.h"
#include "pubjournal.h"
#include "rtnl.h"
#include "sysctl.h"
#include "util.h"
#include "statedir.h"
#include "statefile.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

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
	struct pjn *pj = NULL;
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
	/* the snapshot and its journal; saved as a new snapshot, the journal
	 * emptied (its records would otherwise apply again) */
	if ((pj = pjn_new(sd)) == NULL) {
		log_warnx("%s: out of memory", state_dir);
		code = EX_OSERR;
		goto out;
	}
	if (pjn_load(pj, &lines, &len, err, sizeof(err)) == -1) {
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
	    pjn_save(pj, lines, len) == -1) {
		log_warn("%s: saving the runtime-published addresses", state_dir);
		code = EX_IOERR;
		goto out;
	}
	log_info("withdrew %s/%u from %s: not published when arpownd starts",
	    log_ip(htonl(base)), plen, state_dir);
out:
	free(lines);
	pub_free(p);
	pjn_free(pj);
	sdir_close(sd);
	return code;
}

/* The leave= of o's record as root may act on it for the interface now:
 * the daemon, which writes the records, may have turned hostile.  The
 * kernel's strict modes (1, 2) leave the host answering, each address
 * from its own NIC; any other value (8: deaf for good once no daemon
 * runs; 0 or 3..7: the weak host) only when the configuration, read
 * here by root, gives it to that interface (mode = off, or system).
 * Otherwise the configuration's value: *c is loaded the first time. */
static int
checked_leave(const struct state_orig *o, const char *now, const struct rld_source *src,
    struct conf **c, bool *loaded)
{
	int want;

	if (o->leave == STATE_NONE || o->leave == IFM_ARP_IGNORE_OWNER ||
	    o->leave == IFM_ARP_IGNORE_SUBNET)
		return o->leave;
	if (!*loaded) {
		*loaded = true;
		if ((*c = rld_load_conf(src, NULL)) == NULL)
			log_warnx("the configuration cannot be read: the strict mode of "
			    "owner (arp_ignore 1) for a record that names %d", o->leave);
	}
	if ((want = ifm_leave_named(*c, now)) == o->leave)
		return o->leave;
	if (want == STATE_NONE)
		log_warnx("%s: its record leaves arp_ignore=%d, which the configuration "
		    "does not give it (stop_leaves = originals): its originals", now, o->leave);
	else
		log_warnx("%s: its record leaves arp_ignore=%d, which the configuration "
		    "does not give it: arp_ignore=%d", now, o->leave, want);
	return want;
}

/* What --restore sets on o's interface now[idx]: its strict value (the
 * record kept), or its originals (the record dropped). */
static int
put_back(struct rtnl *r, int idx, const char *now, struct state_orig *o, bool originals,
    bool *keep)
{
	*keep = !originals && o->leave != STATE_NONE && o->arp_ignore != STATE_NONE;
	if (*keep) {
		/* a clean stop left it so: nothing to write, nothing to say */
		if (current_ignore(now) == o->leave)
			return 0;
		if (rtnl_set_arp(r, idx, o->leave, -1) == -1)
			return -1;
		if (strcmp(now, o->name) != 0)
			log_info("%s (was %s): arp_ignore=%d, the kernel's strict mode "
			    "(the originals stay saved)", now, o->name, o->leave);
		else
			log_info("%s: arp_ignore=%d, the kernel's strict mode (the originals "
			    "stay saved)", now, o->leave);
		return 0;
	}
	if (rtnl_set_arp(r, idx, o->arp_ignore, o->arp_announce) == -1)
		return -1;
	if (strcmp(now, o->name) != 0)
		log_info("%s (was %s): restored arp_ignore=%d arp_announce=%d",
		    now, o->name, o->arp_ignore, o->arp_announce);
	else
		log_info("%s: restored arp_ignore=%d arp_announce=%d", now,
		    o->arp_ignore, o->arp_announce);
	return 0;
}

int
off_restore(const char *state_dir, const struct rld_source *src, bool originals)
{
	struct conf *c = NULL;
	bool loaded = false;
	char err[512], now[IF_NAMESIZE], note[128];
	struct sdir *sd;
	struct state st = { 0 };
	struct rtnl *r = NULL;
	struct state_orig *o;
	struct nsl_who holder, squat;
	char pid[24];
	int code = EX_OK, idx, lk;
	size_t i = 0, kept = 0, given = 0;
	const char *inv;
	double t0 = now_ms();
	bool keep;

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
	/* the unit's ExecStopPost after "systemctl disable --now" (or a
	 * shutdown): the admin is done with arpownd, nothing is to come.
	 * Its ExecStop (--stopping) asked systemd while the daemon still
	 * answered, and left a note for this stop: no bus round trip here,
	 * in the gap of a restart */
	sdir_note_take(sd, note, sizeof(note));
	inv = getenv("INVOCATION_ID");
	if (st.n == 0)
		goto out;
	if (!originals && inv != NULL && note[0] != '\0' && strcmp(note, inv) == 0) {
		log_info("the unit is being stopped for good: giving the originals back");
		originals = true;
	}
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
		/* from here on, the record's leave is one root has checked */
		if (idx != 0 && !originals)
			o->leave = checked_leave(o, now, src, &c, &loaded);
		if (idx == 0) {
			log_info("%s: gone, nothing to restore", o->name);
		} else if (strcmp(now, o->name) != 0 && !ifm_ours(o, current_ignore(now))) {
			/* a rename keeps our 8 (or what a stop left); another
			 * link given the ifindex has its own value */
			log_info("%s: gone, nothing to restore (%s has its ifindex now)",
			    o->name, now);
		} else if (put_back(r, idx, now, o, originals, &keep) == -1 && errno != ENODEV) {
			if (keep)
				log_warn("%s: cannot set arp_ignore=%d", now, o->leave);
			else
				log_warn("%s: cannot restore arp_ignore=%d arp_announce=%d",
				    now, o->arp_ignore, o->arp_announce);
			code = util_exit_code(errno);
			i++;
			continue;
		} else if (keep) {
			/* the name follows a rename: the record is still this link's */
			snprintf(o->name, sizeof(o->name), "%s", now);
			i++;
			kept++;
			continue;
		} else if (idx != 0)
			given++;
		state_del(&st, o);
	}
	/* what failed stays recorded for the next try */
	if (sdir_save(sd, &st) == -1) {
		log_warn("%s: cannot save what is left to restore", state_dir);
		code = EX_OSERR;
	}
	log_info("restore: %zu interfaces left in the kernel's strict mode, %zu given "
	    "their originals back, in %.0f ms", kept, given, now_ms() - t0);
out:
	conf_free(c);
	rtnl_close(r);
	state_clear(&st);
	sdir_close(sd);
	return code;
}
