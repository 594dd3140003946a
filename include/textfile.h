/* textfile.h — the metrics file for node_exporter's textfile collector:
 * rewritten atomically every metrics_interval seconds. */
#ifndef ARPOWND_TEXTFILE_H
#define ARPOWND_TEXTFILE_H

#include <stddef.h>

#include "conf.h"
#include "publish.h"
#include "report.h"

struct ev_loop;
struct tf;

/* A writer on loop rendering what view fills in; NULL on ENOMEM. */
struct tf *tf_new(struct ev_loop *loop, rpt_view_fn *view, void *arg);
void tf_free(struct tf *t);
/* Start writing, as the configuration in force says (inforce.h): arm the
 * timer, write now. */
void tf_start(struct tf *t);
/* (inf_fn) A new configuration in force: the timer again, write now. */
void tf_reconf(void *arg, const struct conf *oc, const struct pub *op);
/* Can this process write file's directory now (a metrics_file a reload
 * asks for)?  0, or -1 with why and what to do in why. */
int tf_writable(const char *file, char *why, size_t len);
/* The last write, at stop: arpownd_up 0. */
void tf_final(struct tf *t);

#endif
