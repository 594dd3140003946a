/* report.h — what the daemon says about itself: status, interfaces,
 * counters and conflicts as JSON (the control socket, SIGUSR1); pure
 * renderers over a view of the state (metrics.h renders the metrics). */
#ifndef ARPOWND_REPORT_H
#define ARPOWND_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "conflict.h"
#include "publish.h"
#include "statefile.h"
#include "stats.h"
#include "status.h"
#include "table.h"

#define RPT_SCHEMA	2	/* the JSON schema's version, in every document */

/* The kernel answer path, as a report says it. */
struct rpt_kpath {
	bool		loaded;
	bool		answering;	/* false: a marker did not fit, it answers nothing */
	uint64_t	capacity;	/* address entries its maps were sized for */
	uint64_t	map_bytes;	/* the kernel's memory for its maps */
	uint64_t	unheld;		/* addresses whose grant or marker did not fit */
	uint64_t	unheld_published; /* published CIDRs that did not fit */
	uint64_t	unheld_interfaces; /* interfaces whose sender sets did not fit */
	uint64_t	unheld_mirror;	/* kernel address entries its mirror has no room for */
	uint32_t	example;	/* one address it cannot hold (network order), 0 none */
};

/* A snapshot the daemon fills in; times are CLOCK_REALTIME seconds. */
struct rpt_view {
	const char		*version;
	long			 pid;
	double			 now;
	double			 started;
	const char		*conf_path;	/* NULL: the built-in defaults */
	double			 conf_loaded;	/* the running configuration read */
	double			 reload_ok;	/* last accepted load (start, reload) */
	double			 reload_failed;	/* last refused reload, 0 = never */
	const struct conf	*conf;
	const struct tbl	*tbl;
	const struct cfl	*cfl;
	const struct stats	*st;
	unsigned long long	 capture_drops;
	size_t			 announce_pending;	/* bursts waiting */
	/* the originals saved for an interface (iface.c), or NULL */
	const struct state_orig *(*orig)(void *arg, int ifindex);
	void			*orig_arg;
	const struct pub	*pub;		/* published addresses, or NULL */
	struct sst_forced	 forced;	/* --monitor: why, and how to answer */
	bool			 up;		/* false in the last metrics at stop */
	const char		*only;		/* interfaces, counters: this one's alone */
	uint32_t		 only_addr;	/* published: the entry of this one alone */
	struct rpt_kpath	 kpath;		/* the kernel answer path */
};

/* Fills a view of the daemon's state as it is now (the daemon's). */
typedef void rpt_view_fn(void *arg, struct rpt_view *v);

/* Each writes one JSON document (schema in arpownd(8)) onto f. */
void rpt_status(const struct rpt_view *v, FILE *f);
void rpt_interfaces(const struct rpt_view *v, FILE *f);
void rpt_counters(const struct rpt_view *v, FILE *f);
void rpt_conflicts(const struct rpt_view *v, FILE *f);
void rpt_published(const struct rpt_view *v, FILE *f);
/* Does the kernel answer path answer on ifp now (attached, its settings
 * in, and the program answering at all)? */
/* Who answers on managed ifp: "xdp", "kernel" (the program at TC) or "capture". */
const char *rpt_answer_path(const struct rpt_view *v, const struct tbl_iface *ifp);
bool rpt_kernel_answers(const struct rpt_view *v, const struct tbl_iface *ifp);
/* The interfaces of the table sorted by ifindex, malloc'd, *n set; NULL
 * when there are none or on ENOMEM (the metrics use it too). */
struct tbl_iface **rpt_sorted(const struct tbl *t, size_t *n);

#endif
