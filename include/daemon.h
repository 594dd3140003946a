/* daemon.h — start-up order, the event loop, and shutdown. */
#ifndef ARPOWND_DAEMON_H
#define ARPOWND_DAEMON_H

#include <stdbool.h>

struct daemon_opts {
	const char	*conf_path;
	bool		 conf_explicit;	/* named with -c: absence is an error */
	const char	*state_dir;
	bool		 debug;
	bool		 monitor;	/* --monitor: watch every interface, answer none */
};

/* Run until SIGTERM/SIGINT; returns a sysexits code. */
int daemon_run(const struct daemon_opts *o);

#endif
