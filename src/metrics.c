/* metrics.c — the counters in Prometheus's text exposition format
 * (version 0.0.4, what node_exporter's textfile collector and promtool
 * read): one function renders them, for arpownctl metrics and for the
 * file the daemon rewrites every metrics_interval.  Per-interface series
 * (about eight each) exist for the interfaces that are managed or have
 * counted something, and are what an operator alerts on; the reasons
 * behind them are series of all interfaces together. */
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
#include "publish.h"

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
typedef unsigned long long field_fn(const struct stats_if *s);

static unsigned long long f_received(const struct stats_if *s) { return s->received; }
static unsigned long long f_replies(const struct stats_if *s) { return s->replies; }
static unsigned long long f_announce(const struct stats_if *s) { return s->announcements; }
static unsigned long long f_conflicts(const struct stats_if *s) { return s->conflicts; }

/* Requests decided and not answered: every verdict but answered. */
static unsigned long long
f_refused(const struct stats_if *s)
{
	unsigned long long n = 0;
	int i;

	for (i = POL_ANSWER + 1; i < POL_NVERDICTS; i++)
		n += s->verdict[i];
	return n;
}

static unsigned long long
f_limited(const struct stats_if *s)
{
	return s->limited_sender + s->limited_total;
}

static unsigned long long
f_would(const struct stats_if *s)
{
	unsigned long long n = 0;
	int i;

	for (i = POL_ANSWER + 1; i < POL_NVERDICTS; i++)
		n += s->would_refuse[i];
	return n;
}

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
		fprintf(f, "} %llu\n", field(stats_of(ifs[i])));
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

/* What is configured: the modes, each interface's, the addresses. */
static void
config_series(const struct rpt_view *v, FILE *f, struct tbl_iface **ifs, size_t n)
{
	size_t i, by_mode[POL_NMODES] = { 0 }, addrs = 0;
	uint64_t published = 0;
	int m;

	for (i = 0; i < n; i++) {
		if (!ifs[i]->managed || ifs[i]->mode < 0 || ifs[i]->mode >= POL_NMODES)
			continue;
		by_mode[ifs[i]->mode]++;
		if (pol_answers(ifs[i]->mode))
			addrs += ifs[i]->naddrs;
	}
	head(f, "arpownd_interfaces", "gauge", "Interfaces arpownd manages, by mode: "
	    "owner, subnet and system are answered by arpownd; monitor only watched "
	    "(the kernel answers); off never answered");
	for (m = 0; m < POL_NMODES; m++)
		fprintf(f, "arpownd_interfaces{mode=\"%s\"} %zu\n",
		    pol_mode_str((enum pol_mode)m), by_mode[m]);
	head(f, "arpownd_interface_info", "gauge", "1 for each managed interface, "
	    "with its mode and the path that answers there (kernel or capture)");
	for (i = 0; i < n; i++) {
		if (!ifs[i]->managed)
			continue;
		fputs("arpownd_interface_info{", f);
		iface_label(f, ifs[i]);
		fprintf(f, ",mode=\"%s\",path=\"%s\"} 1\n", pol_mode_str(ifs[i]->mode),
		    rpt_answer_path(v, ifs[i]));
	}
	/* every family always (0 when the kernel path is not loaded): a
	 * series that comes and goes is hard to alert on */
	{
		const struct rpt_kpath *k = &v->kpath;

		gauge(f, "arpownd_kernel_path_loaded", "1 when the kernel answer path is "
		    "loaded (answer_path auto or kernel, and it loaded)", k->loaded ? 1 : 0);
		gauge(f, "arpownd_kernel_path_answering", "1 while the kernel answer path is "
		    "loaded and answers; 0 while a host address does not fit its maps (the "
		    "capture path answers everything), or when it is not loaded",
		    k->loaded && k->answering ? 1 : 0);
		gauge(f, "arpownd_kernel_path_capacity", "Address entries the kernel answer "
		    "path's maps were sized for at the start", (double)k->capacity);
		gauge(f, "arpownd_kernel_path_map_bytes", "The memory the kernel charges for "
		    "the kernel answer path's maps (sized from the table at the start)",
		    (double)k->map_bytes);
		head(f, "arpownd_kernel_path_unheld", "gauge", "What the kernel answer path's "
		    "maps have no room for, answered by the capture path meanwhile: "
		    "addresses, published ranges, interfaces (sender lists), kernel entries");
		fprintf(f, "arpownd_kernel_path_unheld{what=\"addresses\"} %llu\n",
		    (unsigned long long)k->unheld);
		fprintf(f, "arpownd_kernel_path_unheld{what=\"published_ranges\"} %llu\n",
		    (unsigned long long)k->unheld_published);
		fprintf(f, "arpownd_kernel_path_unheld{what=\"interfaces\"} %llu\n",
		    (unsigned long long)k->unheld_interfaces);
		fprintf(f, "arpownd_kernel_path_unheld{what=\"kernel_entries\"} %llu\n",
		    (unsigned long long)k->unheld_mirror);
	}
	gauge(f, "arpownd_addresses", "IPv4 address entries on the interfaces "
	    "arpownd answers on", (double)addrs);
	for (i = 0; v->pub != NULL && i < pub_count(v->pub); i++)
		published += rng_count(&pub_at(v->pub, i)->set);
	gauge(f, "arpownd_published_addresses", "Addresses published (configuration "
	    "and runtime)", (double)published);
}

void
met_render(const struct rpt_view *v, FILE *f)
{
	const struct stats *st = v->st;
	struct tbl_iface **ifs;
	size_t n;
	int j;

	ifs = rpt_sorted(v->tbl, &n);
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
	config_series(v, f, ifs, n);

	/* per interface: what an operator alerts on */
	per_iface(f, ifs, n, "arpownd_received_total", "ARP frames received, by "
	    "arrival interface", f_received);
	per_iface(f, ifs, n, "arpownd_replies_total", "ARP replies sent",
	    f_replies);
	per_iface(f, ifs, n, "arpownd_requests_refused_total", "Valid requests not "
	    "answered (the reasons, for all interfaces: arpownd_requests_total)",
	    f_refused);
	per_iface(f, ifs, n, "arpownd_rate_limited_total", "Answers withheld by "
	    "sender_rate or total_rate", f_limited);
	per_iface(f, ifs, n, "arpownd_announcements_total", "Announcement "
	    "(gratuitous ARP) frames sent", f_announce);
	per_iface(f, ifs, n, "arpownd_conflicts_total", "Claims by another host on "
	    "one of our addresses", f_conflicts);
	per_iface(f, ifs, n, "arpownd_would_refuse_total", "Monitor mode: requests "
	    "the kernel answered that owner mode would not", f_would);

	/* the reasons, for all interfaces together */
	head(f, "arpownd_requests_total", "counter", "Valid ARP requests decided "
	    "(not in monitor mode), by decision");
	for (j = 0; j < POL_NVERDICTS; j++)
		fprintf(f, "arpownd_requests_total{verdict=\"%s\"} %llu\n",
		    pol_verdict_str((enum pol_verdict)j), st->all.verdict[j]);
	head(f, "arpownd_invalid_total", "counter", "ARP frames malformed or not "
	    "for us to look at, by reason");
	for (j = ARP_OK + 1; j < ARP_NREASONS; j++)
		if (j != ARP_GRATUITOUS)
			fprintf(f, "arpownd_invalid_total{reason=\"%s\"} %llu\n",
			    arp_reason_str((enum arp_reason)j), st->all.invalid[j]);
	head(f, "arpownd_heard_total", "counter", "ARP frames that are not requests: "
	    "announcements (gratuitous ARP, ours and others') and replies");
	fprintf(f, "arpownd_heard_total{kind=\"announcement\"} %llu\n",
	    st->all.announcements_heard);
	fprintf(f, "arpownd_heard_total{kind=\"reply\"} %llu\n", st->all.replies_heard);
	counter(f, "arpownd_monitored_total", "Monitor mode: valid requests watched",
	    st->all.monitored);
	counter(f, "arpownd_defences_total", "Announcements sent in defence of an "
	    "address", st->all.defences);
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
	counter(f, "arpownd_announce_queued_total", "Announcement bursts queued (one "
	    "address, or every address of an interface)", st->announce_queued);
	gauge(f, "arpownd_announce_pending", "Announcement bursts waiting for their "
	    "turn under announce_rate", (double)v->announce_pending);
	counter(f, "arpownd_announce_dropped_total", "Announcement bursts dropped (the "
	    "schedule full) and defences announce_rate refused", st->announce_dropped);
	counter(f, "arpownd_announce_skipped_total", "Addresses a start did not "
	    "announce: the previous run had, from the same interface and MAC",
	    st->announce_skipped);
	counter(f, "arpownd_announce_refused_total", "Announce requests refused a "
	    "non-root peer with as many of its own pending as it may have",
	    st->announce_refused);
	counter(f, "arpownd_handover_answered_total", "Requests for published "
	    "addresses kept across the restart into this run and answered at its "
	    "start", st->handover_answered);
	counter(f, "arpownd_handover_dropped_total", "Requests for published "
	    "addresses the kernel could not keep while arpownd restarted into this "
	    "run (the kept queue full)", st->handover_dropped);
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
