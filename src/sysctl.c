/* sysctl.c — the one reader of /proc/sys/net/ipv4/conf.  Writes go over
 * rtnetlink (rtnl.c), which needs no write access to /proc/sys; reads come
 * here, where the names that become path components are checked first: an
 * interface name is whatever a link is called, and "../.." must not lead
 * anywhere. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysctl.h"
#include "util.h"

#define SYS_CONF	"/proc/sys/net/ipv4/conf"

/* One path component: not empty, not "." or "..", no '/'. */
static bool
component_ok(const char *s)
{
	return *s != '\0' && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 &&
	    strchr(s, '/') == NULL;
}

int
sys_get(const char *ifname, const char *key, int *out)
{
	char path[128], buf[32], *end;
	FILE *f;
	long v;
	int e;

	/* "all" and "default" are names the kernel would accept too */
	if (!util_ifname_ok(ifname, strlen(ifname)) || !component_ok(key))
		return errno = EINVAL, -1;
	if ((size_t)snprintf(path, sizeof(path), SYS_CONF "/%s/%s", ifname, key) >=
	    sizeof(path))
		return errno = EINVAL, -1;
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		e = ferror(f) ? errno : EINVAL;
		fclose(f);
		return errno = e, -1;
	}
	fclose(f);
	/* the kernel writes "%d\n" */
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end != '\n' && *end != '\0') || errno != 0 ||
	    v < INT_MIN || v > INT_MAX)
		return errno = EINVAL, -1;
	*out = (int)v;
	return 0;
}
