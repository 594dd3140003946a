/* metrics.c — the counters in Prometheus's text exposition format
 * (version 0.0.4, what node_exporter's textfile collector and promtool
 * read): one function renders them, for arpownctl metrics and for the
 * file the daemon rewrites every metrics_interval.  Per-interface series
 * exist for the interfaces that are managed or have counted something. */
#include "config.h"

#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arp.h"
#include "jsonw.h"
#include "metrics.h"
#include "policy.h"

void
met_label_escape(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if ((n = jw_utf8_len(p + i, len - i)) == 0) {
			/* U+0080..U+00FF in UTF-8: a label must be UTF-8 */
			fputc(0xc0 | p[i] >> 6, f);
			fputc(0x80 | (p[i] & 0x3f), f);
			i++;
			continue;
		}
		if (p[i] == '\\')
			fputs("\\\\", f);
		else if (p[i] == '"')
			fputs("\\\"", f);
		else if (p[i] == '\n')
			fputs("\\n", f);
		else
			fwrite(p + i, 1, n, f);
		i += n;
	}
}

static void
head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
iface_label(FILE *f, const struct tbl_iface *ifp)
{
	fputs("interface=\"", f);
	met_label_escape(f, ifp->name, strnlen(ifp->name, sizeof(ifp->name)));
	fputc('"', f);
}

/* Which interfaces get series of their own. */
static bool
shown(const struct tbl_iface *ifp)
{
	return ifp->managed || ifp->stats != NULL;
}

static const struct stats_if zero;

static const struct stats_if *
stats_of(const struct tbl_iface *ifp)
{
	return ifp->stats != NULL ? ifp->stats : &zero;
}

/* Which counter of an interface's a series shows. */
typedef const unsigned long long *field_fn(const struct stats_if *s);

static const unsigned long long *f_received(const struct stats_if *s) { return &s->received; }
static const unsigned long long *f_replies(const struct stats_if *s) { return &s->replies; }
static const unsigned long long *f_announce(const struct stats_if *s) { return &s->announcements; }
static const unsigned long long *f_conflicts(const struct stats_if *s) { return &s->conflicts; }
static const unsigned long long *f_defences(const struct stats_if *s) { return &s->defences; }
static const unsigned long long *f_verdict(const struct stats_if *s) { return s->verdict; }
static const unsigned long long *f_would(const struct stats_if *s) { return s->would_refuse; }

/* A counter with the interface as its only label. */
static void
per_iface(FILE *f, struct tbl_iface **ifs, size_t n, const char *name,
    const char *help, field_fn *field)
{
	size_t i;

	head(f, name, "counter", help);
	for (i = 0; i < n; i++) {
		if (!shown(ifs[i]))
			continue;
		fprintf(f, "%s{", name);
		iface_label(f, ifs[i]);
		fprintf(f, "} %llu\n", *field(stats_of(ifs[i])));
	}
}

/* A counter per interface and verdict, verdicts from first on. */
static void
per_verdict(FILE *f, struct tbl_iface **ifs, size_t n, const char *name,
    const char *help, field_fn *field, int first)
{
	const unsigned long long *c;
	size_t i;
	int j;

	head(f, name, "counter", help);
	for (i = 0; i < n; i++) {
		if (!shown(ifs[i]))
			continue;
		c = field(stats_of(ifs[i]));
		for (j = first; j < POL_NVERDICTS; j++) {
			fprintf(f, "%s{", name);
			iface_label(f, ifs[i]);
			fprintf(f, ",verdict=\"%s\"} %llu\n",
			    pol_verdict_str((enum pol_verdict)j), c[j]);
		}
	}
}

static void
gauge(FILE *f, const char *name, const char *help, double v)
{
	head(f, name, "gauge", help);
	fprintf(f, "%s %.17g\n", name, v);
}

static void
counter(FILE *f, const char *name, const char *help, unsigned long long v)
{
	head(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, v);
}

void
met_render(const struct rpt_view *v, FILE *f)
{
	const struct stats *st = v->st;
	struct tbl_iface **ifs;
	size_t n, i, managed = 0, addrs = 0;
	int j;

	ifs = rpt_sorted(v->tbl, &n);
	for (i = 0; i < n; i++)
		if (ifs[i]->managed) {
			managed++;
			addrs += ifs[i]->naddrs;
		}
	gauge(f, "arpownd_up", "1 while arpownd runs; 0 in the file written at a "
	    "clean stop", v->up ? 1 : 0);
	head(f, "arpownd_build_info", "gauge", "The running version, as a label");
	fputs("arpownd_build_info{version=\"", f);
	met_label_escape(f, v->version, strlen(v->version));
	fputs("\"} 1\n", f);
	gauge(f, "arpownd_start_time_seconds", "When arpownd started, seconds "
	    "since the epoch", v->started);
	gauge(f, "arpownd_last_reload_success_timestamp_seconds", "When the running "
	    "configuration was accepted (start or reload), seconds since the epoch",
	    v->reload_ok);
	gauge(f, "arpownd_last_reload_successful", "0 when the last reload was "
	    "refused, else 1", v->reload_failed > v->reload_ok ? 0 : 1);
	gauge(f, "arpownd_managed_interfaces", "Interfaces arpownd answers for",
	    (double)managed);
	gauge(f, "arpownd_addresses", "IPv4 address entries on the managed "
	    "interfaces", (double)addrs);

	per_iface(f, ifs, n, "arpownd_received_total", "ARP frames received, by "
	    "arrival interface", f_received);
	per_verdict(f, ifs, n, "arpownd_requests_total", "Valid ARP requests, by "
	    "arrival interface and decision", f_verdict,
	    POL_ANSWER);
	per_iface(f, ifs, n, "arpownd_replies_total", "ARP replies sent",
	    f_replies);
	head(f, "arpownd_refused_total", "counter", "ARP frames not taken as "
	    "requests, by arrival interface and reason");
	for (i = 0; i < n; i++) {
		if (!shown(ifs[i]))
			continue;
		for (j = ARP_OK + 1; j < ARP_NREASONS; j++) {
			fputs("arpownd_refused_total{", f);
			iface_label(f, ifs[i]);
			fprintf(f, ",reason=\"%s\"} %llu\n", arp_reason_str((enum arp_reason)j),
			    stats_of(ifs[i])->refused[j]);
		}
	}
	per_iface(f, ifs, n, "arpownd_announcements_total", "Announcement "
	    "(gratuitous ARP) frames sent", f_announce);
	per_iface(f, ifs, n, "arpownd_conflicts_total", "Claims by another host on "
	    "one of our addresses", f_conflicts);
	per_iface(f, ifs, n, "arpownd_defences_total", "Announcements sent in "
	    "defence of an address", f_defences);
	per_verdict(f, ifs, n, "arpownd_would_refuse_total", "Monitor mode: "
	    "requests the kernel answered that the policy would not",
	    f_would, POL_ANSWER + 1);

	head(f, "arpownd_rate_limited_total", "counter", "Answers withheld by "
	    "sender_rate (kind=\"sender\") or total_rate (kind=\"total\")");
	fprintf(f, "arpownd_rate_limited_total{kind=\"sender\"} %llu\n",
	    st->all.limited_sender);
	fprintf(f, "arpownd_rate_limited_total{kind=\"total\"} %llu\n",
	    st->all.limited_total);
	counter(f, "arpownd_capture_drops_total", "Frames the kernel dropped "
	    "because arpownd read too slowly", v->capture_drops);
	counter(f, "arpownd_capture_errors_total", "Failed capture reads",
	    st->capture_errors);
	counter(f, "arpownd_send_errors_total", "Replies that could not be sent",
	    st->send_errors);
	counter(f, "arpownd_learned_total", "Requesters put into the neighbour "
	    "table", st->learned);
	counter(f, "arpownd_resyncs_total", "Full netlink re-reads after lost "
	    "events", st->resyncs);
	counter(f, "arpownd_conflict_logs_suppressed_total", "Conflicts not "
	    "logged because of the log limits", v->cfl != NULL ?
	    cfl_suppressed(v->cfl) : 0);
	free(ifs);
}

int
met_write_file(const char *path, const char *buf, size_t len)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	ssize_t w;
	int fd, e;

	/* not *.prom: node_exporter never reads the half-written file */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return errno = ENAMETOOLONG, -1;
	if (unlink(tmp) == -1 && errno != ENOENT)
		return -1;
	/* O_EXCL and O_NOFOLLOW: nothing someone put there is written through */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd == -1)
		return -1;
	/* readable by node_exporter whatever our umask (the unit's is 0077) */
	if (fchmod(fd, 0644) == -1)
		goto fail;
	while (off < len) {
		if ((w = write(fd, buf + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	return 0;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	(void)unlink(tmp);
	return errno = e, -1;
}
