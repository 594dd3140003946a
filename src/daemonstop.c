/* daemonstop.c — the daemon's stop, in its order: the requests for
 * published addresses kept for the next start, the control socket and
 * the kernel path closed, what was announced saved, then every interface
 * given back to the kernel, and only then the capture drained and closed:
 * never a moment where nobody answers.  daemon.c calls it once the loop
 * has ended; each step's work lives in its module. */
#include "config.h"

#include <ev.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "announcer.h"
#include "answer.h"
#include "ctl.h"
#include "daemonstop.h"
#include "handover.h"
#include "iface.h"
#include "kanswer.h"
#include "log.h"
#include "msgid.h"
#include "notify.h"
#include "phases.h"
#include "statedir.h"
#include "sync.h"
#include "textfile.h"

#define DRAIN_MAX		0.1	/* s: the stop drain, bounded under a flood */

/*
 * Give every interface back to the kernel, then answer the requests the
 * capture still holds.  Those arrived while the kernel was silent (it
 * was until its sysctls were written back): nobody else will answer
 * them, and a client would wait a second before it asks again.  Frames
 * that came after the restore get two identical replies, the kernel's
 * and ours, as they did before arpownd started.
 *
 * The drain decides with the interfaces as they were while silent
 * (marked managed again, in the table only: their records are gone) and
 * with the sync stopped, so that no netlink event read on the way makes
 * an interface managed again or starts an announcement.
 */
static size_t
stop_restore(const struct dstop_deps *dd)
{
	size_t left, n;
	int *v;

	/* out of memory: restore all the same, no drain */
	v = ifm_managed_now(dd->ifm, &n);
	left = ifm_restore_all(dd->ifm, false);
	phs_mark(dd->ph, "sysctls written", ev_time());
	syn_stopping(dd->syn);
	ifm_drain_mark(dd->ifm, v, n, true);
	ans_drain(dd->ans, ev_now(dd->loop), DRAIN_MAX);
	phs_mark(dd->ph, "capture drained", ev_time());
	ifm_drain_mark(dd->ifm, v, n, false);
	free(v);
	return left;
}

/* What this run announced, for the next start (a restart that moved
 * nothing announces nothing again).  A failure costs that start one
 * announcement per address, no more. */
static void
save_announced(const struct dstop_deps *dd)
{
	char *lines;
	size_t len;

	if ((lines = anr_record(dd->anr, &len)) == NULL ||
	    sdir_announced_save(dd->sd, lines, len) == -1)
		log_warn("state directory: what was announced not kept; the next start "
		    "announces every address once");
	free(lines);
}

/* The stop, started: the sysctls back, the capture drained. */
size_t
dstop_run(const struct dstop_deps *dd, struct ctl **ctl, struct kan **kan)
{
	struct log_ctx lc = { MSGID_STOP, NULL, 0, 0, NULL };
	size_t left;
	int keep = -1;

	notify_send("STOPPING=1\nSTATUS=stopping: giving the interfaces back to the kernel");
	/* nobody answers a published address until the next start: what
	 * comes meanwhile is kept for it, where systemd keeps fds */
	keep = ho_keep(dd->pub);
	phs_mark(dd->ph, "kept socket stored", ev_time());
	ctl_close(*ctl);
	save_announced(dd);
	/* the kernel path first: its maps are the table's, and the capture,
	 * still open, answers until the sysctls are back */
	kan_close(*kan);
	*kan = NULL;
	*ctl = NULL;
	phs_mark(dd->ph, "kernel path closed", ev_time());
	/* restore first, then answer what the capture holds, then close it:
	 * never deaf; every record, managed or not, whose interface exists */
	if ((left = stop_restore(dd)) == 0 && ifm_nrecords(dd->ifm) > 0) {
		log_ctx(LOG_NOTICE, &lc, "stopped; the kernel answers ARP in its strict "
		    "mode on %zu interfaces (their originals saved: arpownd "
		    "--restore=originals gives them back)", ifm_nrecords(dd->ifm));
		notify_send("STATUS=stopped; the kernel answers ARP, from the owning "
		    "interface only (stop_leaves = strict)");
	} else if (left == 0) {
		log_ctx(LOG_NOTICE, &lc, "stopped; every sysctl restored");
		notify_send("STATUS=stopped; every sysctl restored, the kernel answers ARP");
	} else {
		notify_send("STATUS=stopped; %zu interfaces could not be restored: run "
		    "arpownd --restore", left);
		log_ctx(LOG_ERR, &lc, "stopped; %zu interfaces could not be restored (each "
		    "named above), run arpownd --restore", left);
	}
	tf_final(dd->tf);
	if (keep != -1)
		close(keep);	/* systemd holds its own */
	return left;
}
