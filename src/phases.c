/* phases.c — the timeline of a start or a stop: pure, the time passed in.
 * A restart's gap is the old process's stop, systemd's ExecStopPost and the
 * new process's start, each a few steps; the steps' times in one line per
 * start and per stop let a test (tests/system/restart.sh) and an admin see
 * which step the gap is spent in without turning on debug logging, which
 * under load would log every request. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "phases.h"

void
phs_begin(struct phs *p, double now)
{
	memset(p, 0, sizeof(*p));
	p->t0 = now;
}

void
phs_mark(struct phs *p, const char *what, double now)
{
	if (p->n == PHS_MAX)
		return;
	p->what[p->n] = what;
	p->t[p->n++] = now;
}

char *
phs_format(const struct phs *p, char *buf, size_t len)
{
	size_t i, off = 0;
	int r;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < p->n && off < len; i++) {
		r = snprintf(buf + off, len - off, "%s%s +%.0f ms", i ? ", " : "", p->what[i],
		    (p->t[i] - p->t0) * 1e3);
		if (r < 0)
			break;
		off += (size_t)r;
	}
	return buf;
}

double
phs_total_ms(const struct phs *p)
{
	return p->n ? (p->t[p->n - 1] - p->t0) * 1e3 : 0;
}
