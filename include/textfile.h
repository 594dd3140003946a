/* textfile.h — the metrics file for node_exporter's textfile collector:
 * rewritten atomically every metrics_interval seconds. */
#ifndef ARPOWND_TEXTFILE_H
#define ARPOWND_TEXTFILE_H

#include "conf.h"
#include "report.h"

struct ev_loop;
struct tf;

/* A writer on loop rendering what view fills in; NULL on ENOMEM. */
struct tf *tf_new(struct ev_loop *loop, rpt_view_fn *view, void *arg);
void tf_free(struct tf *t);
/* The configuration in force from now on: (re)arm the timer, write now. */
void tf_reconf(struct tf *t, const struct conf *c);
/* The last write, at stop: arpownd_up 0. */
void tf_final(struct tf *t);

#endif
