/* daemonint.h — what the daemon's files share (daemon.c: the loop and
 * its watchers, run and teardown; daemonstart.c: the start's steps up to
 * the loop).  Private: only they include it. */
#ifndef ARPOWND_DAEMONINT_H
#define ARPOWND_DAEMONINT_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "handover.h"
#include "limit.h"
#include "phases.h"
#include "stats.h"
#include "status.h"

#define DMN_NSIGNALS	12	/* daemon.c's handled[] */

struct daemon_opts;
struct state;

struct daemon {
	const struct daemon_opts *opts;
	struct ev_loop		*loop;
	/* state, shared by the features */
	struct tbl		*tbl;
	struct stats		 st;		/* counters, in all */
	struct lim		 lim;		/* rate limits */
	struct cfl		*cfl;		/* conflicts seen */
	/* edges */
	struct rtnl		*rtnl;
	struct rpf		*rpf;		/* rp_filter, arp_filter: the kernel's routing */
	struct cap		*cap;
	struct sdir	*sd;		/* lock and saved originals */
	struct ctl		*ctl;
	int			 nslock;	/* one instance per network namespace */
	int			 handover;	/* a previous run's gap (handover.h), or -1 */
	enum ho_kind		 handover_kind;	/* what it holds */
	uint64_t		 cap_live;	/* the capture went live, CLOCK_REALTIME ns */
	/* features */
	struct ifm		*ifm;		/* interfaces and their sysctls */
	struct syn		*syn;		/* netlink to the table */
	struct notes		*notes;
	struct anr		*anr;		/* announcements */
	struct ans		*ans;		/* the frame path */
	struct pop		*pop;		/* runtime publish */
	struct tf		*tf;		/* metrics file */
	struct kan		*kan;		/* the kernel answer path, or NULL */
	struct rld		*rld;
	struct cmd		*cmd;
	/* STATUS= as last sent */
	bool			 status_sent;
	struct sst		 status;
	struct sst_forced	 forced;	/* what --monitor came from, how to answer */
	bool			 bpf_at_start;	/* CAP_BPF held at start: the kernel path could load */
	double			 started_at;	/* READY, CLOCK_REALTIME */
	double			 conf_loaded;	/* the configuration read at start */
	int			 exit_code;
	struct phs		 ph;		/* the steps of the start, then the stop */
	ev_io			 rtnl_w, cap_w, rpf_w;
	ev_signal		 sigw[DMN_NSIGNALS];	/* the signals of daemon.c's handled[] */
	ev_timer		 watchdog, check;
};

/* Steps 1-3: the lock, the state directory and the control socket while
 * root, the saved originals, the kernel path loaded; then root dropped.
 * EX_OK, or the exit code (logged). */
int dmn_start_root(struct daemon *d, struct state *st);
/* Steps 4-7: the links known, the capture live, the announcer and
 * runtime publishing made, the published set in force; EX_OK or the exit
 * code (logged).  The kernel still answers everything. */
int dmn_start_net(struct daemon *d, struct state *st);
/* What the last run announced, for the start's bursts to leave out. */
void dmn_prev_announced(struct daemon *d);
/* The requests a previous run's gap kept, answered now (before READY). */
void dmn_handover(struct daemon *d);

#endif
