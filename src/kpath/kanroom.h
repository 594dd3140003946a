/* kanroom.h — what the kernel answer path's maps have no room for: the
 * writes a full map refused, tried again when there is room, and said
 * (the journal when it starts and ends, status and the metrics). */
#ifndef ARPOWND_KANROOM_H
#define ARPOWND_KANROOM_H

#include <stdbool.h>

struct ev_loop;
struct kanroom;
struct kp;
struct rpt_kpath;
struct tbl;

/* Write again what did not fit besides the grants: the interfaces whose
 * settings did not, the published ranges; all: every grant (the mirror
 * was read again). */
typedef void kanroom_fn(void *arg, bool all);

struct kanroom *kanroom_new(struct ev_loop *loop, struct kp *kp, const struct tbl *t,
    kanroom_fn *again, void *arg);
/* Stop the timer and free; NULL is fine. */
void kanroom_free(struct kanroom *r);
/* After writes: try again at once when room was made, keep trying every
 * KANROOM_TICK while anything is out, say when that starts or ends. */
void kanroom_check(struct kanroom *r);
/* The numbers, for status and the metrics. */
void kanroom_view(struct kanroom *r, struct rpt_kpath *out);

#define KANROOM_TICK	1.0	/* s: tried again at least this often */
#define KANROOM_BATCH	1024	/* grants tried again in one go, at most */

#endif
