/* ctl.h — the control socket: <state dir>/control, a UNIX stream socket
 * for arpownctl; peers checked with SO_PEERCRED, never blocking, bounded. */
#ifndef ARPOWND_CTL_H
#define ARPOWND_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ctlproto.h"

#define CTL_SOCKET	"control"	/* in the state directory */
#define CTL_GROUP	"arpownd"	/* the socket's group, where it exists: may ask */
#define CTL_ADMIN_GROUP	"arpownd-admin"	/* may also change: reload, announce, publish, withdraw */
#define CTL_CLIENTS	16		/* connections served at once */
#define CTL_IDLE	5.0		/* seconds for a request, or for a reply's progress */
#define CTL_OUT_MAX	(8u << 20)	/* reply bytes waiting, all clients, before refusing */

struct ctl;
struct ev_loop;

/* Answer req from a peer of uid (SO_PEERCRED): write the body onto out
 * and return 0 with *type "json" or "text", or a sysexits code with the
 * message (text) on out.  fd is one root passed with the request
 * (SCM_RIGHTS), else -1; ctl closes it after. */
typedef int ctl_handler(void *arg, const struct ctlp_req *req, uid_t uid, int fd, FILE *out,
    const char **type);

/* Create and listen on dir/control: while root, before dropping
 * privileges; mode 0660, owner our uid, group CTL_GROUP where it exists,
 * else ours.  Its group may ask; root, our uid and CTL_ADMIN_GROUP may
 * also change (ctlp_changes).  A stale socket there is replaced, anything
 * else refused.  NULL with why in err. */
struct ctl *ctl_open(const char *dir, char *err, size_t errlen);
/* Serve on loop from now on, each request to fn. */
void ctl_start(struct ctl *c, struct ev_loop *loop, ctl_handler *fn, void *arg);
/* A copy, in a memfd, of the regular file fd when it is the file at path
 * (root passing the configuration we may not read); its fd, or -1 with
 * why in err. */
int ctl_passed_file(int fd, const char *path, char *err, size_t errlen);
/* Drop every connection, close the socket and remove it where we may. */
void ctl_close(struct ctl *c);

#endif
