/* kanswer.h — the kernel answer path in the daemon: loaded before the
 * privilege drop where the configuration asks for it (answer_path), fed
 * from the table at the moment the table changes, its events (learning,
 * probes) and counters brought into the daemon's; the capture path stays
 * complete behind it. */
#ifndef ARPOWND_KANSWER_H
#define ARPOWND_KANSWER_H

#include <stdbool.h>

#include "conf.h"
#include "linksync.h"
#include "publish.h"
#include "table.h"

struct ev_loop;
struct kan;
struct lim;
struct notes;
struct rpt_kpath;
struct rtnl;
struct stats;

/* What the kernel path works with, from kan_start on; all outlive it. */
struct kan_deps {
	struct ev_loop	*loop;
	struct tbl	*tbl;
	struct rtnl	*rtnl;		/* learning */
	struct notes	*notes;		/* probe notices */
	struct stats	*st;
};

#ifndef EXAMPLESDIR
#define EXAMPLESDIR	"/usr/share/doc/arpownd/examples"	/* configure's docdir */
#endif
/* What gives the service CAP_BPF, for the messages that say it has none:
 * the drop-in, where the package puts it and where the source has it. */
#define KAN_DROPIN_HINT	"install the drop-in kernel-path.conf (" EXAMPLESDIR \
	"/kernel-path.conf, or contrib/systemd/kernel-path.conf in the source) as " \
	"/etc/systemd/system/arpownd.service.d/kernel-path.conf, then systemctl " \
	"daemon-reload and systemctl restart arpownd"

/* Does c ask for the kernel path anywhere (answer_path auto or kernel)? */
bool kan_wanted(const struct conf *c);
/* Does c require it (answer_path = kernel anywhere: no answering without it)? */
bool kan_required(const struct conf *c);
/* The path c requires, for a message: "kernel" where any section asks
 * for it, else "xdp". */
const char *kan_required_name(const struct conf *c);
/* Before the privilege drop (loading needs CAP_BPF): load it, sized for
 * the namespace; NULL when c does not want it, or it cannot load: with
 * auto, logged once with why, and the capture path answers; with kernel,
 * *fatal is set and why is in err (naming the drop-in when this process
 * has no CAP_BPF): a configuration this service cannot honour. */
struct kan *kan_open(const struct conf *c, bool *fatal, char *err, size_t errlen);
/* After the first dump, on the loop: attach to the interfaces that use
 * it, write every grant, watch its events. */
void kan_start(struct kan *k, const struct kan_deps *d, const struct conf *c,
    const struct pub *p);
/* After kan_start: an interface with answer_path = xdp that another XDP
 * program holds (never replaced), as a configuration error into err;
 * false when there is none.  The start does not go on (78). */
bool kan_refused(const struct kan *k, char *err, size_t errlen);
/* Before a reload swaps nc in: an interface nc puts on answer_path = xdp
 * where another XDP program is (never replaced), as a configuration error
 * naming both into err; false when there is none (or no kernel path). */
bool kan_xdp_conflict(struct kan *k, const struct conf *nc, char *err, size_t errlen);
/* Detach from every interface and unload (the stop, before the sysctls
 * go back: the capture path answers meanwhile); NULL is fine. */
void kan_close(struct kan *k);
/* (inf_fn) A new configuration in force (inforce.h): limits, learning,
 * each interface's answer_path, ACLs. */
void kan_reconf(void *arg, const struct conf *oc, const struct pub *op);
/* (inf_fn) The published set in force, new (a reload: op the old one) or
 * changed in place (publish, withdraw: op NULL): its grants written, the
 * stale ones taken back before this returns. */
void kan_set_pub(void *arg, const struct conf *oc, const struct pub *op);
/* ifp became managed, changed mode or settings, or its link changed:
 * attached or detached, its grants written again. */
void kan_iface(struct kan *k, struct tbl_iface *ifp);
/* A change linksync reported (a link gone, an address added or removed). */
void kan_change(struct kan *k, const struct ls_change *c);
/* Bring the program's counters into the daemon's (before a report). */
void kan_fold(struct kan *k);
/* What status and the metrics say of it (out->loaded false: not loaded). */
void kan_view(struct kan *k, struct rpt_kpath *out);
/* Remove any arpownd filter a killed daemon left (at a start, under the
 * namespace's lock, and for --restore), saying so in one line; how many. */
int kan_purge(void);

#endif
