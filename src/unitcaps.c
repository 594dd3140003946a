/* unitcaps.c — what the installed unit would give the daemon, asked of
 * systemd over D-Bus (sd-bus): for arpownd -n, which runs as the admin in
 * a shell and holds every capability itself, so that a configuration the
 * service cannot honour (answer_path = kernel without the drop-in that
 * grants CAP_BPF) is refused before a restart finds out.  systemd merges
 * the unit and its drop-ins (after daemon-reload); nothing here parses a
 * unit file.  Without libsystemd, a system bus or the unit loaded, it
 * knows nothing and says so: the start still decides. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-bus.h>
#endif

#include "unitcaps.h"

#define UC_TIMEOUT_USEC	2000000		/* a bus that does not answer: unknown */

#ifdef HAVE_SYSTEMD
static int
get_t(sd_bus *bus, const char *path, const char *iface, const char *prop, uint64_t *v)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1", path, iface, prop,
	    &e, 't', v);
	sd_bus_error_free(&e);
	return r;
}

static int
get_s(sd_bus *bus, const char *path, const char *iface, const char *prop, char **v)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", path, iface, prop,
	    &e, v);
	sd_bus_error_free(&e);
	return r;
}

/* The system bus, or as root systemd's own socket when no D-Bus runs. */
static sd_bus *
bus_open(void)
{
	sd_bus *bus = NULL;

	if (sd_bus_open_system(&bus) >= 0)
		return bus;
	if (geteuid() != 0 || sd_bus_new(&bus) < 0)
		return NULL;
	if (sd_bus_set_address(bus, "unix:path=/run/systemd/private") < 0 ||
	    sd_bus_start(bus) < 0) {
		sd_bus_unref(bus);
		return NULL;
	}
	return bus;
}
#endif

int
uc_caps(const char *unit, uint64_t *caps)
{
#ifdef HAVE_SYSTEMD
	char *path = NULL, *load = NULL, *user = NULL;
	uint64_t amb = 0, bnd = 0;
	sd_bus *bus;
	int known = 0;

	if ((bus = bus_open()) == NULL)
		return 0;
	(void)sd_bus_set_method_call_timeout(bus, UC_TIMEOUT_USEC);
	if (sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path) < 0)
		goto out;
	if (get_s(bus, path, "org.freedesktop.systemd1.Unit", "LoadState", &load) < 0 ||
	    strcmp(load, "loaded") != 0)
		goto out;
	if (get_t(bus, path, "org.freedesktop.systemd1.Service", "AmbientCapabilities",
	    &amb) < 0 ||
	    get_t(bus, path, "org.freedesktop.systemd1.Service", "CapabilityBoundingSet",
	    &bnd) < 0 ||
	    get_s(bus, path, "org.freedesktop.systemd1.Service", "User", &user) < 0)
		goto out;
	/* another user keeps the ambient set alone; root keeps what the
	 * bounding set leaves */
	*caps = user[0] != '\0' && strcmp(user, "root") != 0 && strcmp(user, "0") != 0 ?
	    amb & bnd : bnd;
	known = 1;
out:
	free(path);
	free(load);
	free(user);
	sd_bus_flush_close_unref(bus);
	return known;
#else
	(void)unit;
	(void)caps;
	return 0;
#endif
}
