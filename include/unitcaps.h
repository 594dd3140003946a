/* unitcaps.h — the capabilities an installed systemd unit gives its
 * service, asked of systemd (arpownd -n). */
#ifndef ARPOWND_UNITCAPS_H
#define ARPOWND_UNITCAPS_H

#include <stdint.h>

#define UC_UNIT		"arpownd.service"	/* the shipped unit */

/* 1 with *caps the unit's service would hold (a mask of 1 << CAP_*), as
 * systemd has it loaded now; 0 when that cannot be known (no libsystemd,
 * no bus, no such unit loaded). */
int uc_caps(const char *unit, uint64_t *caps);

#endif
