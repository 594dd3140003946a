/* offline.h — root's commands for when no daemon runs (the unit's
 * ExecStopPost, keepalived's notify while arpownd is down). */
#ifndef ARPOWND_OFFLINE_H
#define ARPOWND_OFFLINE_H

/* arpownd --restore: every sysctl saved in state_dir put back, and its
 * record dropped (what fails stays for the next try); sysexits. */
int off_restore(const char *state_dir);
/* arpownd --withdraw: drop the runtime-published entry cidr from the state
 * dir of a daemon that is not running (keepalived's BACKUP while arpownd
 * was down must not be published again by its next start); sysexits. */
int off_withdraw(const char *state_dir, const char *cidr);

#endif
