/* ctlconn.h — what the listening socket (ctl.c) and one connection's I/O
 * (ctlconn.c) share: the socket's state and its table of clients.  Only
 * ctl*.c include it; everyone else sees struct ctl opaque, through ctl.h. */
#ifndef ARPOWND_CTLCONN_H
#define ARPOWND_CTLCONN_H

#include <sys/types.h>
#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "ctl.h"

struct client {
	struct ctl	*c;
	int		 fd;		/* -1: free slot */
	ev_io		 rw, ww;
	ev_timer	 idle;
	uid_t		 uid;
	pid_t		 pid;
	double		 since;		/* last activity: accepted, read, answered */
	bool		 root;		/* may pass an fd */
	bool		 may_change;	/* root, us, CTL_ADMIN_GROUP: ctlp_changes commands */
	bool		 eof;		/* the peer has sent all it will */
	bool		 closing;	/* close once the reply is out */
	bool		 ready;		/* a request waits for serve_cb */
	int		 passed;	/* an fd passed by root, or -1 */
	char		 head[CTLP_HEAD_MAX];
	size_t		 headlen;
	char		*body;		/* the reply being sent, or NULL */
	size_t		 bodylen;
	size_t		 sent;		/* of headlen + bodylen */
	size_t		 inlen;
	char		 in[CTLP_LINE_MAX];	/* last: ctlc_start clears the rest */
};

struct ctl {
	char		*path;
	int		 fd;
	uid_t		 uid;		/* the socket's owner */
	gid_t		 gid;		/* and group: may ask */
	gid_t		 admin_gid;	/* CTL_ADMIN_GROUP's, when has_admin: may change */
	bool		 has_admin;
	struct ev_loop	*loop;
	ev_io		 lw;
	ev_timer	 pause;		/* accept again after fd exhaustion */
	ev_check	 serve;		/* one request answered per loop iteration */
	ev_idle		 spin;		/* while requests wait: poll, never sleep */
	int		 next;		/* the client serve_cb looks at first */
	ctl_handler	*fn;
	void		*arg;
	size_t		 pending;	/* reply bytes not yet sent, all clients */
	struct client	 cl[CTL_CLIENTS];
};

/* Set up c's serve and spin watchers (not started): ctl_start, once. */
void ctlc_init(struct ctl *c);
/* Serve the admitted peer (uid, pid) on fd from the free slot k; may_change
 * when it may send the commands that change the daemon's state. */
void ctlc_start(struct ctl *c, struct client *k, int fd, uid_t uid, pid_t pid,
    bool may_change);
/* Close k's connection, whatever it was doing; its slot is free. */
void ctlc_drop(struct client *k);
/* Waiting for a request, nothing of one read, nothing owed to it. */
bool ctlc_idle(const struct client *k);

#endif
