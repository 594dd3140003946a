/* reload.h — the configuration read again (SIGHUP, arpownctl reload):
 * built and validated first, swapped in whole only when good (inforce.h),
 * which tells the features subscribed; the running one stays on any error. */
#ifndef ARPOWND_RELOAD_H
#define ARPOWND_RELOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "publish.h"
#include "status.h"

struct cap;
struct ifm;
struct kan;
struct pop;
struct rld;

/* Where the configuration comes from, and what the command line adds. */
struct rld_source {
	const char	*path;		/* the configuration file */
	bool		 explicit_path;	/* named with -c: its absence is an error */
	bool		 monitor;	/* --monitor: every interface watched, none answered */
	struct sst_forced forced;	/* with monitor: what set it, how to answer */
};

/* What a reload works with; all outlive the reloader.  The features
 * told of a new configuration are inforce.h's subscribers. */
struct rld_deps {
	struct rld_source src;
	struct ifm	*ifm;		/* rld_apply: the interfaces to it */
	struct pop	*pop;		/* the new published set built */
	struct cap	*cap;		/* rld_settle: qdisc_bypass */
	struct kan	*kan;		/* the kernel answer path, or NULL */
	void		(*status)(void *arg);	/* STATUS= once done */
	void		*status_arg;
	bool		 bpf_at_start;	/* CAP_BPF held at start: a restart could load the kernel path */
};

/* Load the configuration as a start does: the built-in defaults when it
 * is the default path and missing; under systemd, the copy of the default
 * path it passed as the credential "arpownd.conf" (LoadCredential=: a file
 * only root may read), named by its own path in every message; with the
 * checks the file cannot make alone (no published address on lo); and
 * --monitor applied.  NULL after err (NULL: the log) saw every error. */
struct conf *rld_load_conf(const struct rld_source *src, conf_err_fn *err);
/* Warn, through warn, about what c names that does not exist now: an
 * interfaces, match or [publish] interface glob that matches no
 * interface (it may come later: a warning, not an error), and a list
 * written with commas. */
void rld_lint(const struct conf *c, conf_err_fn *warn, void *arg);
/* The same into the log (the start). */
void rld_lint_log(const struct conf *c);
/* Turn qdisc_bypass as c says. */
void rld_capture(struct cap *cap, const struct conf *c);
/* (inf_fn) A reload's first step after the swap: every interface to the
 * new configuration; what waits for the next start (user, answer_path) said. */
void rld_apply(void *arg, const struct conf *oc, const struct pub *op);
/* (inf_fn) After the features: the log level, the capture's qdisc_bypass. */
void rld_settle(void *arg, const struct conf *oc, const struct pub *op);
/* A reloader; loaded: when the configuration in force was read (CLOCK_REALTIME). */
struct rld *rld_new(const struct rld_deps *d, double loaded);
void rld_free(struct rld *r);
/* Read the configuration again, from fd (one root passed, -1: the path);
 * the errors also onto out, and the warnings (a line each) onto warn,
 * when not NULL; 0, or EX_CONFIG.  Refused too: what this process cannot
 * honour now (answer_path = kernel without the kernel path loaded; a
 * metrics_file in a directory it cannot write). */
int rld_reload(struct rld *r, int fd, FILE *out, FILE *warn);
/* When the configuration in force was read; when a reload was last refused (0: never). */
void rld_times(const struct rld *r, double *loaded, double *failed);

#endif
