/* textfile.c — the metrics for node_exporter's textfile collector: the
 * same text as "arpownctl metrics" (metrics.c renders both), written to
 * metrics_file through a temporary file and a rename on a timer, so a
 * reader never sees half of it. */
#include "config.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inforce.h"
#include "log.h"
#include "metrics.h"
#include "textfile.h"

#define TF_WARN_EVERY	3600.0	/* s: one warning an hour for a failure that stays */

struct tf {
	struct ev_loop		*loop;
	rpt_view_fn		*view;
	void			*arg;
	bool			 on;		/* started: written from now on */
	ev_timer		 w;
	int			 last_err;	/* errno of the last failure, 0: it worked */
	double			 warned;	/* when that was last said */
	unsigned		 quiet;		/* failures not said since */
};

/* What to do about a directory arpownd cannot write, under the unit. */
#define TF_HINT_ROFS	": under the systemd unit a directory is writable only when it " \
	"is listed in ReadWritePaths= (the shipped unit lists /var/lib/prometheus/" \
	"node-exporter; others: systemctl edit arpownd) and existed when arpownd " \
	"started: systemctl restart arpownd"
#define TF_HINT_ACCES	": the user arpownd must be able to write it (chgrp arpownd " \
	"DIR; chmod 0775 DIR)"

/* A failure that stays is said once an hour, with what to do: 5,760
 * identical lines a day tell an admin nothing more than one. */
static void
failed(struct tf *t, int e)
{
	double now = ev_now(t->loop);
	const char *hint = "";

	if (e == t->last_err && now - t->warned < TF_WARN_EVERY) {
		t->quiet++;
		return;
	}
	if (e == EROFS)
		hint = TF_HINT_ROFS;
	else if (e == EACCES || e == EPERM)
		hint = TF_HINT_ACCES;
	log_warnx("%s: cannot write the metrics: %s%s%s", inf_conf()->metrics_file,
	    strerror(e), hint, t->quiet > 0 ? " (the same failure since the last "
	    "warning, not repeated)" : "");
	t->last_err = e;
	t->warned = now;
	t->quiet = 0;
}

int
tf_writable(const char *file, char *why, size_t len)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	size_t n = slash != NULL ? (size_t)(slash - file) : 0;
	int e;

	if (n == 0 || n >= sizeof(dir)) {
		snprintf(why, len, "%s: not a file in a directory", file);
		return -1;
	}
	memcpy(dir, file, n);
	dir[n] = '\0';
	/* as this process: the unit's user, in the unit's mount namespace,
	 * where a directory made after the start is read-only */
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0)
		return 0;
	e = errno;
	snprintf(why, len, "metrics_file = %s: its directory %s: %s%s", file, dir, strerror(e),
	    e == EROFS ? TF_HINT_ROFS : e == EACCES || e == EPERM ? TF_HINT_ACCES : "");
	return -1;
}

static void
write_now(struct tf *t, bool up)
{
	struct rpt_view v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!t->on || inf_conf()->metrics_file == NULL)
		return;
	t->view(t->arg, &v);
	v.up = up;
	if ((f = open_memstream(&buf, &len)) == NULL) {
		failed(t, errno);
		return;
	}
	met_render(&v, f);
	if (fclose(f) != 0 || met_write_file(inf_conf()->metrics_file, buf, len) == -1)
		failed(t, errno);
	else if (t->last_err != 0) {
		log_notice("%s: the metrics are written again", inf_conf()->metrics_file);
		t->last_err = 0;
	}
	free(buf);
}

static void
timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	write_now(w->data, true);
}

struct tf *
tf_new(struct ev_loop *loop, rpt_view_fn *view, void *arg)
{
	struct tf *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->loop = loop;
	t->view = view;
	t->arg = arg;
	ev_timer_init(&t->w, timer_cb, 0., 0.);
	t->w.data = t;
	return t;
}

void
tf_free(struct tf *t)
{
	if (t == NULL)
		return;
	ev_timer_stop(t->loop, &t->w);
	free(t);
}

/* (Re)arm the timer as the configuration in force says, and write now. */
static void
arm(struct tf *t)
{
	const struct conf *c = inf_conf();

	t->on = true;
	ev_timer_stop(t->loop, &t->w);
	if (c->metrics_file == NULL)
		return;
	ev_timer_set(&t->w, (double)c->metrics_interval, (double)c->metrics_interval);
	ev_timer_start(t->loop, &t->w);
	write_now(t, true);
}

void
tf_start(struct tf *t)
{
	arm(t);
}

void
tf_reconf(void *arg, const struct conf *oc, const struct pub *op)
{
	(void)oc;
	(void)op;
	arm(arg);
}

void
tf_final(struct tf *t)
{
	write_now(t, false);
}
