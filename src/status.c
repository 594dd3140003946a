/* status.c — the STATUS= line systemctl status shows.  Sent when what it
 * says changed, not a datagram per netlink wake-up.  Monitor mode is
 * named apart: arpownd answers nothing there, and a host left in it must
 * not look protected; when --monitor forces it, with the one command that
 * makes arpownd answer (editing arpownd.conf would not). */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "notify.h"
#include "policy.h"
#include "publish.h"
#include "ranges.h"
#include "status.h"
#include "table.h"

static int
tally_cb(struct tbl_iface *ifp, void *arg)
{
	struct sst *s = arg;

	if (!ifp->managed)
		return 0;
	if (pol_answers(ifp->mode)) {
		s->answering++;
		s->addrs += ifp->naddrs;
	} else if (ifp->mode == POL_MONITOR)
		s->monitor++;
	return 0;
}

void
sst_tally(const struct tbl *t, const struct pub *p, struct sst *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	tbl_iface_each(t, tally_cb, s);
	for (i = 0; p != NULL && i < pub_count(p); i++)
		s->published += rng_count(&pub_at(p, i)->set);
}

/* The words of options, one by one: is --monitor the only one? */
static bool
only_monitor(const char *options)
{
	const char *p = options + strspn(options, " \t");
	size_t n = strcspn(p, " \t");

	return n == 9 && strncmp(p, "--monitor", 9) == 0 && p[n + strspn(p + n, " \t")] == '\0';
}

void
sst_forced(bool monitor, const char *options, struct sst_forced *f)
{
	f->by = f->to_answer = NULL;
	if (!monitor)
		return;
	if (options != NULL && strstr(options, "--monitor") != NULL) {
		/* the unit's EnvironmentFile= put it on the command line */
		f->by = "--monitor in ARPOWND_OPTIONS (" SST_DEFAULTS_FILE ")";
		f->to_answer = only_monitor(options) ?
		    "rm " SST_DEFAULTS_FILE " && systemctl restart arpownd" :
		    "remove --monitor from ARPOWND_OPTIONS in " SST_DEFAULTS_FILE
		    ", then systemctl restart arpownd";
	} else {
		f->by = "--monitor on the command line";
		f->to_answer = "start arpownd again without --monitor";
	}
}

char *
sst_format(const struct sst *s, const char *to_answer, char *buf, size_t len)
{
	char mon[224] = "", pub[64] = "";

	if (s->monitor > 0 && to_answer != NULL)
		snprintf(mon, sizeof(mon), "; %zu in monitor mode (the kernel answers "
		    "there); to answer: %s", s->monitor, to_answer);
	else if (s->monitor > 0)
		snprintf(mon, sizeof(mon), "; %zu in monitor mode (the kernel answers "
		    "there)", s->monitor);
	if (s->published > 0)
		snprintf(pub, sizeof(pub), "; %" PRIu64 " published", s->published);
	snprintf(buf, len, "answering ARP on %zu interface%s for %zu address%s%s%s",
	    s->answering, s->answering == 1 ? "" : "s", s->addrs, s->addrs == 1 ? "" : "es",
	    mon, pub);
	return buf;
}

void
sst_report(const struct tbl *t, const struct pub *p, const char *to_answer,
    struct sst *last, bool *sent)
{
	struct sst s;
	char line[384];

	sst_tally(t, p, &s);
	if (*sent && s.answering == last->answering && s.monitor == last->monitor &&
	    s.addrs == last->addrs && s.published == last->published)
		return;
	*sent = true;
	*last = s;
	notify_send("STATUS=%s", sst_format(&s, to_answer, line, sizeof(line)));
}
