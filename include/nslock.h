/* nslock.h — one arpownd per network namespace. */
#ifndef ARPOWND_NSLOCK_H
#define ARPOWND_NSLOCK_H

/* Take this network namespace's lock: an fd to keep open while running
 * (it goes with the process, however it ends), or -1 with errno
 * (EADDRINUSE: another arpownd holds it). */
int nsl_take(void);

#endif
