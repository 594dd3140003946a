/* metrics.h — the counters as Prometheus text, for arpownctl metrics and
 * for node_exporter's textfile collector. */
#ifndef ARPOWND_METRICS_H
#define ARPOWND_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

/* The metrics, text exposition format 0.0.4, onto f; pure. */
void met_render(const struct rpt_view *v, FILE *f);
/* s (len bytes) as a label value's contents: UTF-8 as jw_escape makes it
 * (any other byte b as U+00b), backslash, quote and newline escaped. */
void met_label_escape(FILE *f, const char *s, size_t len);
/* Replace path with len bytes of buf atomically (a temporary file in the
 * same directory, then rename): a reader sees the old or the new, never
 * half; 0, or -1 with errno. */
int met_write_file(const char *path, const char *buf, size_t len);

#endif
