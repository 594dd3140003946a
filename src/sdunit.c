/* sdunit.c — asks systemd what becomes of the unit this process runs in.
 * arpownd --stopping runs as the unit's ExecStop: a stop leaves the
 * kernel's strict mode (stop_leaves), but "systemctl disable --now" means
 * the admin is done with arpownd, and gets the originals back (by the
 * ExecStopPost, --restore, which --stopping leaves a note for).  The unit file state alone cannot tell that
 * from a restart of a unit that was never enabled, nor the job alone from
 * a plain stop: both are asked.  Reads only; systemd's bus policy lets any
 * user call these. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-bus.h>
#endif

#include "log.h"
#include "sdunit.h"

#ifdef HAVE_SYSTEMD
#define DEST		"org.freedesktop.systemd1"
#define MANAGER		"org.freedesktop.systemd1.Manager"
#define UNIT		"org.freedesktop.systemd1.Unit"
#define BUS_TIMEOUT	1000000		/* µs: never hold up a stop for long */

/* The object path of the unit this process runs in, malloc'd, or NULL.
 * Asked of systemd by pid rather than read from /proc/self/cgroup
 * (sd_pid_get_unit): under the unit's ProtectProc=invisible the
 * cgroup root, which that reads from /proc/1, is hidden from us. */
static char *
own_unit(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *p;
	char *path = NULL;

	if (sd_bus_call_method(bus, DEST, "/org/freedesktop/systemd1", MANAGER, "GetUnitByPID",
	    &e, &m, "u", (uint32_t)getpid()) >= 0 && sd_bus_message_read(m, "o", &p) >= 0)
		path = strdup(p);
	if (sd_bus_error_is_set(&e))
		log_debug("the system bus: GetUnitByPID: %s", e.message);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	return path;
}

/* The type of the unit at path's pending job ("stop", "restart", ...),
 * malloc'd, or NULL when it has none or the bus cannot say. */
static char *
job_type(sd_bus *bus, const char *path)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *jp;
	char *type = NULL;
	uint32_t id = 0;

	if (sd_bus_get_property(bus, DEST, path, UNIT, "Job", &e, &m, "(uo)") < 0 ||
	    sd_bus_message_read(m, "(uo)", &id, &jp) < 0 || id == 0)
		goto out;
	(void)sd_bus_get_property_string(bus, DEST, jp, DEST ".Job", "JobType", &e, &type);
out:
	if (sd_bus_error_is_set(&e))
		log_debug("%s: the system bus: %s", path, e.message);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	return type;
}

/* As root, systemd's own socket (as systemctl uses it): no bus daemon in
 * between, and still there when the system shuts down, after dbus.service
 * has gone (the unit stops late: it is ordered before the network).
 * Otherwise, or when that fails, the system bus. */
static int
open_bus(sd_bus **bus)
{
	sd_bus *b = NULL;

	if (geteuid() == 0 && sd_bus_new(&b) >= 0) {
		if (sd_bus_set_address(b, "unix:path=/run/systemd/private") >= 0 &&
		    sd_bus_start(b) >= 0) {
			*bus = b;
			return 0;
		}
		sd_bus_unref(b);
	}
	return sd_bus_open_system(bus);
}

bool
sdu_leaving(char *unit, size_t len)
{
	char *path = NULL, *name = NULL, *type = NULL, *state = NULL;
	sd_bus *bus = NULL;
	bool r = false;

	/* run by systemd: the ExecStopPost of a unit */
	if (getenv("INVOCATION_ID") == NULL)
		return false;
	if (open_bus(&bus) < 0) {
		log_debug("no system bus: the stop leaves what the records say");
		goto out;
	}
	(void)sd_bus_set_method_call_timeout(bus, BUS_TIMEOUT);
	if ((path = own_unit(bus)) == NULL ||
	    sd_bus_get_property_string(bus, DEST, path, UNIT, "Id", NULL, &name) < 0)
		goto out;
	/* the system going down takes /run, and the originals saved there,
	 * with it: a network namespace that outlives it (a container's) must
	 * not keep values nobody can give back */
	if (sd_bus_get_property_string(bus, DEST, "/org/freedesktop/systemd1", MANAGER,
	    "SystemState", NULL, &state) >= 0 && strcmp(state, "stopping") == 0) {
		snprintf(unit, len, "%s (the system is shutting down)", name);
		r = true;
		goto out;
	}
	free(state);
	state = NULL;
	if ((type = job_type(bus, path)) == NULL || strcmp(type, "stop") != 0)
		goto out;
	if (sd_bus_get_property_string(bus, DEST, path, UNIT, "UnitFileState", NULL, &state) < 0)
		goto out;
	r = strcmp(state, "disabled") == 0 || strncmp(state, "masked", 6) == 0;
	if (r)
		snprintf(unit, len, "%s (%s)", name, state);
out:
	free(state);
	free(type);
	free(name);
	free(path);
	sd_bus_flush_close_unref(bus);
	return r;
}
#else
bool
sdu_leaving(char *unit, size_t len)
{
	(void)unit;
	(void)len;
	return false;
}
#endif
