/* sdunit.c — asks systemd, over the system bus, what becomes of the unit
 * this process runs in.  arpownd --restore runs as the unit's
 * ExecStopPost: a stop leaves the kernel's strict mode (stop_leaves), but
 * "systemctl disable --now" means the admin is done with arpownd, and
 * gets the originals back.  The unit file state alone cannot tell that
 * from a restart of a unit that was never enabled, nor the job alone from
 * a plain stop: both are asked.  Reads only; systemd's bus policy lets any
 * user call these. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
#endif

#include "log.h"
#include "sdunit.h"

#ifdef HAVE_SYSTEMD
#define DEST		"org.freedesktop.systemd1"
#define MANAGER		"org.freedesktop.systemd1.Manager"
#define BUS_TIMEOUT	1000000		/* µs: never hold up a stop for long */

/* The type of name's pending job ("stop", "restart", ...), malloc'd, or
 * NULL when it has none or the bus cannot say. */
static char *
job_type(sd_bus *bus, const char *name)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *p, *jp;
	char *path = NULL, *type = NULL;
	uint32_t id = 0;

	if (sd_bus_call_method(bus, DEST, "/org/freedesktop/systemd1", MANAGER, "GetUnit",
	    &e, &m, "s", name) < 0 || sd_bus_message_read(m, "o", &p) < 0 ||
	    (path = strdup(p)) == NULL)
		goto out;
	m = sd_bus_message_unref(m);
	if (sd_bus_get_property(bus, DEST, path, DEST ".Unit", "Job", &e, &m, "(uo)") < 0 ||
	    sd_bus_message_read(m, "(uo)", &id, &jp) < 0 || id == 0)
		goto out;
	(void)sd_bus_get_property_string(bus, DEST, jp, DEST ".Job", "JobType", &e, &type);
out:
	if (sd_bus_error_is_set(&e))
		log_debug("%s: the system bus: %s", name, e.message);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	free(path);
	return type;
}

/* "enabled", "disabled", "masked", ... of name's unit file, malloc'd, or NULL. */
static char *
file_state(sd_bus *bus, const char *name)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *s;
	char *r = NULL;

	if (sd_bus_call_method(bus, DEST, "/org/freedesktop/systemd1", MANAGER,
	    "GetUnitFileState", &e, &m, "s", name) >= 0 && sd_bus_message_read(m, "s", &s) >= 0)
		r = strdup(s);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	return r;
}

bool
sdu_leaving(char *unit, size_t len)
{
	char *name = NULL, *type = NULL, *state = NULL;
	sd_bus *bus = NULL;
	bool r = false;

	/* run by systemd, in a unit of its own */
	if (getenv("INVOCATION_ID") == NULL || sd_pid_get_unit(0, &name) < 0)
		return false;
	if (sd_bus_open_system(&bus) < 0) {
		log_debug("%s: no system bus: the stop leaves what the records say", name);
		goto out;
	}
	(void)sd_bus_set_method_call_timeout(bus, BUS_TIMEOUT);
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
	if ((type = job_type(bus, name)) == NULL || strcmp(type, "stop") != 0)
		goto out;
	if ((state = file_state(bus, name)) == NULL)
		goto out;
	r = strcmp(state, "disabled") == 0 || strncmp(state, "masked", 6) == 0;
	if (r)
		snprintf(unit, len, "%s (disabled)", name);
out:
	free(state);
	free(type);
	free(name);
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
