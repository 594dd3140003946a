/* offline.h — root's commands for when no daemon runs (the unit's
 * ExecStopPost, keepalived's notify while arpownd is down). */
#ifndef ARPOWND_OFFLINE_H
#define ARPOWND_OFFLINE_H

#include <stdbool.h>

#include "reload.h"

/* arpownd --restore: each interface saved in state_dir left in the strict
 * mode its record names (the record kept), or, with originals (or no
 * strict mode recorded, or the unit being disabled), its originals put
 * back and its record dropped; what fails stays for the next try.  A
 * strict mode other than 1 or 2 is believed only when the configuration
 * at src gives it too; sysexits. */
int off_restore(const char *state_dir, const struct rld_source *src, bool originals);
/* arpownd --withdraw: drop the runtime-published entry cidr from the state
 * dir of a daemon that is not running (keepalived's BACKUP while arpownd
 * was down must not be published again by its next start); sysexits. */
int off_withdraw(const char *state_dir, const char *cidr);

#endif
