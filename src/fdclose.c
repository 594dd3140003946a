/* fdclose.c — the one thread besides the loop: it closes what peers other
 * than root handed the daemon.  A file is released by the last close, on
 * the thread that makes it, and a release may wait: a TCP socket with
 * SO_LINGER for its FIN to go out (for ever, when its peer never reads),
 * a UNIX socket for the files in flight in it, a serial line for its
 * output to drain.  A member of the group arpownd could pass such a file
 * with "status" (or leave it queued on a connection the daemon then
 * closes) and close its own copy: the daemon's close was the last, and
 * its loop, which answers ARP, stopped until the watchdog killed it.  No
 * option refuses SCM_RIGHTS before Linux 6.16 (SO_PASSRIGHTS), and the
 * kernel releases what it cannot deliver on the receiver's thread too:
 * so the descriptors go to this thread through a pipe and it closes
 * them, waiting as long as it must.  Linger is turned off first, which
 * defuses the common case, so that this thread is rarely held at all. */
#include "config.h"

#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "fdclose.h"

#define FDC_JOIN_WAIT	0.5	/* seconds fdc_stop waits for what is queued */

static int closer_wr = -1;
static pthread_t closer;

static void *
closer_main(void *arg)
{
	int rd = (int)(intptr_t)arg, fd;
	ssize_t r;

	for (;;) {
		r = read(rd, &fd, sizeof(fd));
		if (r == (ssize_t)sizeof(fd))
			(void)close(fd);
		else if (r == -1 && errno == EINTR)
			continue;
		else
			break;	/* the write end is gone: fdc_stop */
	}
	close(rd);
	return NULL;
}

int
fdc_start(void)
{
	sigset_t all, old;
	int p[2], e;

	if (closer_wr != -1)
		return 0;
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	/* a full pipe (16,384 closes held up) is closed here instead */
	if (fcntl(p[1], F_SETFL, O_NONBLOCK) == -1)
		goto fail;
	/* every signal is the loop's (libev's watchers) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&closer, NULL, closer_main, (void *)(intptr_t)p[0]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		errno = e;
		goto fail;
	}
	closer_wr = p[1];
	return 0;
fail:
	e = errno;
	close(p[0]);
	close(p[1]);
	errno = e;
	return -1;
}

void
fdc_close(int fd)
{
	struct linger off = { 0, 0 };
	int e = errno;

	if (fd < 0)
		return;
	/* ENOTSOCK for the others: nothing to defuse there */
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof(off));
	if (closer_wr == -1 || write(closer_wr, &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		(void)close(fd);
	errno = e;
}

void
fdc_stop(void)
{
	struct timespec until;

	if (closer_wr == -1)
		return;
	close(closer_wr);
	closer_wr = -1;
	/* what is queued is closed first; a close held up longer is left to
	 * the exit, which ends the thread */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)(FDC_JOIN_WAIT * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	(void)pthread_timedjoin_np(closer, NULL, &until);
}
