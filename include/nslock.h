/* nslock.h — one arpownd per network namespace. */
#ifndef ARPOWND_NSLOCK_H
#define ARPOWND_NSLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* A socket that holds (or squats) the namespace's lock name. */
struct nsl_who {
	bool	found;		/* one was there */
	long	pid;		/* its process, 0 when none was found */
	long	uid;		/* the socket's owner; -1 when the kernel does not say */
	char	name[32];	/* its name, printable ("@arpownd...") */
};

/* Take this network namespace's lock: an fd to keep open while running
 * (it goes with the process, however it ends), or -1 with errno
 * (EADDRINUSE: another arpownd holds it, named in holder).  A name that
 * a user other than root holds is no lock: squat says who, and the lock
 * is taken all the same. */
int nsl_take(struct nsl_who *holder, struct nsl_who *squat);
/* w's pid as text, "unknown" when none was found (another /proc). */
const char *nsl_pid(const struct nsl_who *w, char *buf, size_t len);

#endif
