/* daemon.h — start-up order, the event loop, and shutdown. */
#ifndef ARPOWND_DAEMON_H
#define ARPOWND_DAEMON_H

#include <stdbool.h>

#include "conf.h"

struct daemon_opts {
	const char	*conf_path;
	bool		 conf_explicit;	/* named with -c: absence is an error */
	const char	*state_dir;
	bool		 debug;
};

/* Run until SIGTERM/SIGINT; returns a sysexits code. */
int daemon_run(const struct daemon_opts *o);
/* Restore every sysctl saved in state_dir and remove the record; exit code. */
int daemon_restore(const char *state_dir);
/* Load the configuration as daemon_run would; NULL after err saw every error. */
struct conf *daemon_load_conf(const struct daemon_opts *o, conf_err_fn *err);

#endif
