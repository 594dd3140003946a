/* notify.c — tell systemd about our state (sd_notify(3) protocol).  The
 * protocol is one datagram on an AF_UNIX socket; without libsystemd we
 * speak it ourselves, which is all libsystemd does for these messages. */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "log.h"
#include "notify.h"

#ifndef HAVE_SYSTEMD
static void
send_dgram(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	socklen_t len;
	size_t plen;
	int fd;

	if (path == NULL || (path[0] != '/' && path[0] != '@'))
		return;
	plen = strlen(path);
	if (plen >= sizeof(sun.sun_path))
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, plen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';		/* abstract namespace */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
	    (path[0] == '/'));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sun, len) == -1)
		log_debug("notify %s: %s", path, strerror(errno));
	close(fd);
}
#endif

void
notify_send(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
#ifdef HAVE_SYSTEMD
	(void)sd_notify(0, msg);
#else
	send_dgram(msg);
#endif
}

uint64_t
notify_watchdog_usec(void)
{
	const char *e = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (e == NULL)
		return 0;
	/* WATCHDOG_PID, when set, must be us: else the pings are another's */
	if (p != NULL && strtol(p, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0)
		return 0;
	return v;
}
