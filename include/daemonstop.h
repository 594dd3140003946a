/* daemonstop.h — the daemon's stop: the interfaces given back to the
 * kernel first, then the capture drained; never deaf. */
#ifndef ARPOWND_DAEMONSTOP_H
#define ARPOWND_DAEMONSTOP_H

#include <stddef.h>

struct ev_loop;
struct phs;
struct pub;
struct ifm;
struct syn;
struct ans;
struct anr;
struct sdir;
struct tf;
struct ctl;
struct kan;

/* What the stop acts on: the daemon's, lent for the call. */
struct dstop_deps {
	struct ev_loop		*loop;
	struct phs		*ph;		/* the stop's steps, marked */
	const struct pub	*pub;		/* their requests kept for the next start */
	struct ifm		*ifm;
	struct syn		*syn;
	struct ans		*ans;
	struct anr		*anr;
	struct sdir		*sd;		/* what was announced, saved */
	struct tf		*tf;
};

/* Stop: the control socket and the kernel path closed (*ctl and *kan NULL
 * before the sysctls are written back), the sysctls back, the capture
 * drained, STATUS= and the log told; the interfaces that could not be
 * restored (each logged). */
size_t dstop_run(const struct dstop_deps *dd, struct ctl **ctl, struct kan **kan);

#endif
