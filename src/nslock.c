/* nslock.c — one arpownd per network namespace.  Two, with two state
 * directories, would both answer every request, and the second would
 * record the first's 8 as an original.  An abstract AF_UNIX name is the
 * lock: abstract names live in the network namespace, and go with the
 * process, so a killed daemon never leaves it held. */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "nslock.h"

int
nsl_take(void)
{
	struct sockaddr_un sun;
	static const char name[] = "arpownd";
	int fd, e;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, sizeof(name) - 1);	/* sun_path[0] = 0 */
	if (bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof(name))) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
