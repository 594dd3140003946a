/* confglobal.c — the keys of [global] alone, the daemon-wide settings:
 * the sysctls a stop leaves (arp_announce, stop_leaves), learning, the
 * log, the user, the rate limits, the capture socket, the announcer's
 * pace, the metrics file.  Rows, parsers and printers as in confkeys.c,
 * which walks these rows after its own. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "confkeys.h"
#include "confkeysint.h"
#include "confvals.h"

static const char *const level_names[] = {
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};
static const char *const form_names[] = { NULL, "request", "reply", "both" };

/* ------------------------------------------------------------------ parsing */

static int
k_announce_count(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 100);

	if (n < 1)
		return *why = "must be a whole number of frames, 1 to 100", -1;
	d->c->announce_count = (unsigned)n;
	return 0;
}

static int
k_announce_interval(const struct ckey_dst *d, const char *v, const char **why)
{
	double secs = cval_seconds(v);

	if (secs < 0.1 || secs > 60)
		return *why = "must be seconds, 0.1 to 60 (e.g. 1.1)", -1;
	d->c->announce_interval = secs;
	return 0;
}

static int
k_announce_form(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "request") == 0)
		return d->c->announce_form = CONF_FORM_REQUEST, 0;
	if (strcmp(v, "reply") == 0)
		return d->c->announce_form = CONF_FORM_REPLY, 0;
	if (strcmp(v, "both") == 0)
		return d->c->announce_form = CONF_FORM_BOTH, 0;
	return *why = "must be one of request, reply, both", -1;
}

static int
k_announce_refresh(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 86400);

	if (n < 0)
		return *why = "must be a whole number of seconds, 0 (never) to 86400", -1;
	d->c->announce_refresh = (unsigned)n;
	return 0;
}

static int
k_arp_announce(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "keep") == 0)
		return d->c->arp_announce = CONF_ANNOUNCE_KEEP, 0;
	if (strlen(v) == 1 && v[0] >= '0' && v[0] <= '2')
		return d->c->arp_announce = v[0] - '0', 0;
	return *why = "must be one of keep, 0, 1, 2", -1;
}

static int
k_stop_leaves(const struct ckey_dst *d, const char *v, const char **why)
{
	if (strcmp(v, "strict") == 0)
		return d->c->stop_leaves = CONF_STOP_STRICT, 0;
	if (strcmp(v, "originals") == 0)
		return d->c->stop_leaves = CONF_STOP_ORIGINALS, 0;
	return *why = "must be strict or originals", -1;
}

static int
k_learn(const struct ckey_dst *d, const char *v, const char **why)
{
	if (cval_bool(v, &d->c->learn) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

static int
k_log_level(const struct ckey_dst *d, const char *v, const char **why)
{
	int l;

	for (l = LOG_ERR; l <= LOG_DEBUG; l++)
		if (strcmp(v, level_names[l]) == 0)
			return d->c->log_level = l, 0;
	return *why = "must be one of err, warning, notice, info, debug", -1;
}

static int
k_user(const struct ckey_dst *d, const char *v, const char **why)
{
	char *u;

	/* a name, a numeric uid, or uid:gid (no passwd entry needed) */
	if (*v == '\0' || strpbrk(v, " \t/") != NULL ||
	    (strchr(v, ':') != NULL && strspn(v, "0123456789:") != strlen(v)) ||
	    (strchr(v, ':') != NULL && (v[0] == ':' || strchr(v, ':') != strrchr(v, ':') ||
	    v[strlen(v) - 1] == ':')))
		return *why = "must be a user name, a uid, or uid:gid", -1;
	if ((u = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(d->c->user);
	d->c->user = u;
	return 0;
}

static int
k_rate(long *dst, const char *v, long max, const char **why)
{
	long n = cval_uint(v, max);

	if (n < 0)
		return *why = "must be a whole number (0 = no limit)", -1;
	*dst = n;
	return 0;
}

static int
k_sender_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	return k_rate(&d->c->sender_rate, v, 1000000, why);
}

static int
k_total_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	return k_rate(&d->c->total_rate, v, 100000000, why);
}

static int
k_announce_rate(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, 1000000);

	if (n < 0 || (n > 0 && n < 10))
		return *why = "must be a whole number of frames a second, 10 to 1000000 "
		    "(0 = not paced)", -1;
	d->c->announce_rate = n;
	return 0;
}

static int
k_busy_poll(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, CONF_BUSY_POLL_MAX);

	if (n < 0)
		return *why = "must be a whole number of microseconds, 0 to 2000", -1;
	d->c->busy_poll_us = n;
	return 0;
}

static int
k_qdisc_bypass(const struct ckey_dst *d, const char *v, const char **why)
{
	if (cval_bool(v, &d->c->qdisc_bypass) == -1)
		return *why = "must be yes or no", -1;
	return 0;
}

/*
 * An absolute path, and one that survives the trip through iniparser and
 * conf_print unchanged: iniparser cuts a value at ';' or '#', strips
 * quotes and surrounding blanks, so none of those may be in it.
 */
static int
k_metrics_file(const struct ckey_dst *d, const char *v, const char **why)
{
	const unsigned char *p;
	char *m = NULL;

	if (*v != '\0') {
		if (*v != '/' || v[strlen(v) - 1] == '/')
			return *why = "must be an absolute path to a file, or empty (off)", -1;
		for (p = (const unsigned char *)v; *p != '\0'; p++)
			if (*p <= ' ' || *p == 0x7f || strchr(";#\"'\\", *p) != NULL)
				return *why = "a path without white space, control "
				    "characters, quotes, backslashes, ';' or '#'", -1;
		if ((m = strdup(v)) == NULL)
			return *why = "out of memory", -1;
	}
	free(d->c->metrics_file);
	d->c->metrics_file = m;
	return 0;
}

static int
k_metrics_interval(const struct ckey_dst *d, const char *v, const char **why)
{
	long n = cval_uint(v, CONF_METRICS_INTERVAL_MAX);

	if (n < 1)
		return *why = "must be a whole number of seconds, 1 to 3600", -1;
	d->c->metrics_interval = n;
	return 0;
}

/* ------------------------------------------------------------------ printing */

static void
o_arp_announce(FILE *f, const char *name, const struct ckey_src *at)
{
	if (at->c->arp_announce == CONF_ANNOUNCE_KEEP)
		fprintf(f, "%s = keep\n", name);
	else
		fprintf(f, "%s = %d\n", name, at->c->arp_announce);
}

static void
o_stop_leaves(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name,
	    at->c->stop_leaves == CONF_STOP_ORIGINALS ? "originals" : "strict");
}

static void
o_learn(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, at->c->learn);
}

static void
o_log_level(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, level_names[at->c->log_level]);
}

static void
o_user(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, at->c->user);
}

static void
o_sender_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->sender_rate);
}

static void
o_total_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->total_rate);
}

static void
o_busy_poll(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->busy_poll_us);
}

static void
o_qdisc_bypass(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, at->c->qdisc_bypass);
}

static void
o_announce_count(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %u\n", name, at->c->announce_count);
}

static void
o_announce_interval(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %g\n", name, at->c->announce_interval);
}

static void
o_announce_form(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, form_names[at->c->announce_form]);
}

static void
o_announce_refresh(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %u\n", name, at->c->announce_refresh);
}

static void
o_announce_rate(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->announce_rate);
}

static void
o_metrics_file(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %s\n", name, at->c->metrics_file ? at->c->metrics_file : "");
}

static void
o_metrics_interval(FILE *f, const char *name, const struct ckey_src *at)
{
	fprintf(f, "%s = %ld\n", name, at->c->metrics_interval);
}

/* ------------------------------------------------------------------ the keys */

#define G	CKEY_GLOBAL

/* In the order conf_print writes them, after confkeys.c's keys[]. */
const struct ckey ckey_globals[] = {
	{ "arp_announce",	G,	k_arp_announce,		o_arp_announce },
	{ "stop_leaves",	G,	k_stop_leaves,		o_stop_leaves },
	{ "learn",		G,	k_learn,		o_learn },
	{ "log_level",		G,	k_log_level,		o_log_level },
	{ "user",		G,	k_user,			o_user },
	{ "sender_rate",	G,	k_sender_rate,		o_sender_rate },
	{ "total_rate",		G,	k_total_rate,		o_total_rate },
	{ "busy_poll_us",	G,	k_busy_poll,		o_busy_poll },
	{ "qdisc_bypass",	G,	k_qdisc_bypass,		o_qdisc_bypass },
	{ "announce_count",	G,	k_announce_count,	o_announce_count },
	{ "announce_interval",	G,	k_announce_interval,	o_announce_interval },
	{ "announce_form",	G,	k_announce_form,	o_announce_form },
	{ "announce_refresh",	G,	k_announce_refresh,	o_announce_refresh },
	{ "announce_rate",	G,	k_announce_rate,	o_announce_rate },
	{ "metrics_file",	G,	k_metrics_file,		o_metrics_file },
	{ "metrics_interval",	G,	k_metrics_interval,	o_metrics_interval },
};

#undef G

const size_t ckey_nglobals = sizeof(ckey_globals) / sizeof(ckey_globals[0]);
