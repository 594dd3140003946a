/* stopping.h — arpownd --stopping: the unit's ExecStop, as root, while the
 * daemon still answers (whether the stop is for good; the takeover of a
 * daemon that would give the weak-host originals back at its stop). */
#ifndef ARPOWND_STOPPING_H
#define ARPOWND_STOPPING_H

#include "daemon.h"

/* Ask, note, take over if need be ($MAINPID, $INVOCATION_ID); sysexits. */
int stp_run(const struct daemon_opts *o);

#endif
