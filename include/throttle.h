/* throttle.h — at most one log line per key per interval, and a cap on
 * the lines of one interval in all, in fixed memory; pure. */
#ifndef ARPOWND_THROTTLE_H
#define ARPOWND_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thr;

/* Room for about max keys; lines at most once per key per interval
 * seconds and cap per interval in all; NULL on ENOMEM. */
struct thr *thr_new(size_t max, double interval, unsigned cap);
void thr_free(struct thr *t);
/* May a line about key be logged at now?  A key's slot is never taken
 * by another key before its interval is over, so two keys that collide
 * cannot reset each other.  *quiet, when not NULL, is set to the lines
 * this key had suppressed since its last one. */
bool thr_allow(struct thr *t, uint64_t key, double now, unsigned *quiet);
/* Lines refused so far, all keys. */
unsigned long long thr_suppressed(const struct thr *t);

#endif
