/* sdunit.h — what systemd says about the unit this process runs in (its
 * ExecStop, arpownd --stopping): is it being stopped for good? */
#ifndef ARPOWND_SDUNIT_H
#define ARPOWND_SDUNIT_H

#include <stdbool.h>
#include <stddef.h>

/* Is our unit being stopped for good: its job a stop (not a restart) and
 * its unit file disabled or masked ("systemctl disable --now", "mask
 * --now"), or the system shutting down?  The unit's name and why in
 * unit[len] when true; false when not run by systemd, or when the system
 * bus cannot tell within a second. */
bool sdu_leaving(char *unit, size_t len);

#endif
