/* daemon.h — start-up order, the event loop, and shutdown. */
#ifndef ARPOWND_DAEMON_H
#define ARPOWND_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

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
/* arpownd --withdraw: drop the runtime-published entry cidr from the state
 * dir of a daemon that is not running (keepalived's BACKUP while arpownd
 * was down must not be published again by its next start); sysexits. */
int daemon_withdraw_saved(const char *state_dir, const char *cidr);
struct daemon;
/* arpownctl publish ADDR[/LEN] IFACE: 0, or a sysexits code with why in err. */
int daemon_publish(struct daemon *d, const char *cidr, const char *ifname, char *err,
    size_t errlen);
/* arpownctl withdraw ADDR[/LEN]: 0 (never answered from now on), or a code. */
int daemon_withdraw(struct daemon *d, const char *cidr, char *err, size_t errlen);
/* Load the configuration as daemon_run would; NULL after err saw every error. */
struct conf *daemon_load_conf(const struct daemon_opts *o, conf_err_fn *err);

#endif
