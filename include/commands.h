/* commands.h — arpownctl's commands, one handler each (as chrony's
 * cmdmon), and the SIGUSR1 dump: reports are rendered from a view of the
 * daemon's state, actions go to the subsystem that owns them. */
#ifndef ARPOWND_COMMANDS_H
#define ARPOWND_COMMANDS_H

#include <stdio.h>
#include <sys/types.h>

#include "ctlproto.h"
#include "report.h"

struct anr;
struct cmd;
struct pop;
struct rld;
struct tbl;

/* What the commands work with; all outlive them. */
struct cmd_deps {
	struct tbl	*tbl;
	struct anr	*anr;
	struct pop	*pop;
	struct rld	*rld;
	rpt_view_fn	*view;		/* the daemon's state now */
	void		*view_arg;
	void		(*status)(void *arg);	/* STATUS= after publish, withdraw */
	void		*status_arg;
};

/* NULL on ENOMEM. */
struct cmd *cmd_new(const struct cmd_deps *d);
void cmd_free(struct cmd *c);
/* Answer req from uid (ctl_handler): the body onto out, 0 and *type, or a
 * sysexits code with the reason on out; fd: a file root passed with it, or -1. */
int cmd_handle(void *arg, const struct ctlp_req *req, uid_t uid, int fd, FILE *out,
    const char **type);
/* SIGUSR1: what status and counters say, one log entry (a line of JSON)
 * each, at notice. */
void cmd_dump(struct cmd *c);

#endif
