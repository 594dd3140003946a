/* ctl.c — the control socket itself: listening, who may use it, and who
 * gets one of its slots; each connection's I/O is ctlconn.c's.  Accepting
 * never blocks and is bounded, so that no local client, slow or hostile,
 * can hold up the ARP path that shares this loop: at most CTL_CLIENTS
 * connections (the next is told to come back and closed).  Who gets a slot
 * when they are short is admit.c's: a cap per uid, slots kept for root, an
 * idle connection closed for a newcomer.
 *
 * Access: the socket is 0660, our uid and group CTL_GROUP; and every peer
 * is checked with SO_PEERCRED and SO_PEERGROUPS, so that a process that
 * passes the file mode some other way (CAP_DAC_OVERRIDE, an fd handed on)
 * is still only served when it is root, us, or in the group.  As chrony
 * keeps monitoring apart from control, the group may ask and only root,
 * us and CTL_ADMIN_GROUP may change (reload, announce, publish, withdraw):
 * watching a host's ARP is not moving its addresses. */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "admit.h"
#include "ctl.h"
#include "ctlconn.h"
#include "fdclose.h"
#include "log.h"
#include "util.h"

#define ACCEPT_BUDGET	32	/* connections taken per wakeup */
#define ACCEPT_PAUSE	1.0	/* seconds without accepting after EMFILE */

/* ---------------------------------------------------------------- setup */

/* A socket left by an earlier run goes (we hold the state dir's lock, so
 * nothing listens on it); anything else at the path stays and we refuse:
 * lstat, so a symbolic link is never followed to what it points at. */
static int
clear_path(const char *path, char *err, size_t errlen)
{
	struct stat sb;

	if (lstat(path, &sb) == -1) {
		if (errno == ENOENT)
			return 0;
		return util_seterr(err, errlen, -1, "%s: %s", path, strerror(errno));
	}
	if (!S_ISSOCK(sb.st_mode)) {
		errno = EEXIST;
		return util_seterr(err, errlen, -1,
		    "%s: exists and is not a socket (%s): not "
		    "starting; remove it", path, S_ISLNK(sb.st_mode) ? "a symbolic link" :
		    S_ISREG(sb.st_mode) ? "a regular file" : S_ISDIR(sb.st_mode) ?
		    "a directory" : "a special file");
	}
	if (unlink(path) == -1)
		return util_seterr(err, errlen, -1,
		    "%s: cannot remove the stale socket: %s", path,
		    strerror(errno));
	return 0;
}

struct ctl *
ctl_open(const char *dir, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct group *gr;
	struct ctl *c;
	mode_t old;
	int i, r;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		util_seterr(err, errlen, -1, "control socket: out of memory");
		return NULL;
	}
	c->fd = -1;
	for (i = 0; i < CTL_CLIENTS; i++) {
		c->cl[i].fd = -1;
		c->cl[i].passed = -1;
	}
	if (asprintf(&c->path, "%s/%s", dir, CTL_SOCKET) == -1) {
		c->path = NULL;
		util_seterr(err, errlen, -1, "control socket: out of memory");
		goto fail;
	}
	if (strlen(c->path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		util_seterr(err, errlen, -1,
		    "%s: longer than a socket's path may be (%zu bytes): "
		    "choose a shorter --state-dir", c->path, sizeof(sun.sun_path) - 1);
		goto fail;
	}
	memcpy(sun.sun_path, c->path, strlen(c->path) + 1);
	if (clear_path(c->path, err, errlen) == -1)
		goto fail;
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
		util_seterr(err, errlen, -1, "control socket: %s", strerror(errno));
		goto fail;
	}
	/* created 0600, opened to the group only once it is ours */
	old = umask(0177);
	r = bind(c->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (r == -1) {
		util_seterr(err, errlen, -1, "%s: %s", c->path, strerror(errno));
		goto fail;
	}
	c->uid = geteuid();
	c->gid = getegid();
	/* already ours (the packaged unit runs as user and group arpownd,
	 * and its SystemCallFilter= refuses chown): nothing to give */
	if ((gr = getgrnam(CTL_GROUP)) != NULL && gr->gr_gid != c->gid) {
		if (lchown(c->path, c->uid, gr->gr_gid) == 0)
			c->gid = gr->gr_gid;
		else
			log_warn("%s: cannot give it to group %s (gid %u), keeping gid %u",
			    c->path, CTL_GROUP, (unsigned)gr->gr_gid, (unsigned)c->gid);
	}
	if ((gr = getgrnam(CTL_ADMIN_GROUP)) != NULL) {
		c->admin_gid = gr->gr_gid;
		c->has_admin = true;
	}
	/* never through a link: root may be making it in the directory of the
	 * user it runs as (statedir.c), who could swap the path meanwhile */
	if (fchmodat(AT_FDCWD, c->path, 0660, AT_SYMLINK_NOFOLLOW) == -1 ||
	    listen(c->fd, CTL_CLIENTS) == -1) {
		util_seterr(err, errlen, -1, "%s: %s", c->path, strerror(errno));
		goto fail;
	}
	return c;
fail:
	ctl_close(c);
	return NULL;
}

/* ------------------------------------------------------------ accepting */

enum access { ACC_NONE, ACC_ASK, ACC_CHANGE };

/* What a peer may do: change (root, us, the admin group), ask (the
 * socket's group), or nothing; groups primary or supplementary. */
static enum access
access_of(const struct ctl *c, int fd, const struct ucred *cr)
{
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	bool ask = false, change = false;
	size_t i;

	if (cr->uid == 0 || cr->uid == c->uid || cr->uid == geteuid() ||
	    (c->has_admin && cr->gid == c->admin_gid))
		return ACC_CHANGE;
	ask = cr->gid == c->gid;
	/* SO_PEERGROUPS (Linux 4.13): ERANGE says how much room it needs */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == -1) {
		if (errno != ERANGE || (g = malloc(len)) == NULL)
			return ask ? ACC_ASK : ACC_NONE;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == -1) {
			free(g);
			return ask ? ACC_ASK : ACC_NONE;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++) {
		ask = ask || g[i] == c->gid;
		change = change || (c->has_admin && g[i] == c->admin_gid);
	}
	if (g != small)
		free(g);
	return change ? ACC_CHANGE : ask ? ACC_ASK : ACC_NONE;
}

/* Tell a connection we cannot serve why, if it listens; never waits. */
static void
turn_away(int fd, int code, const char *msg)
{
	struct ctlp_head h = { false, code, strlen(msg), "text" };
	char head[CTLP_HEAD_MAX];
	struct iovec iov[2];
	struct msghdr mh = { 0 };

	iov[0].iov_base = head;
	iov[0].iov_len = ctlp_head_format(&h, head);
	iov[1].iov_base = (void *)(uintptr_t)msg;
	iov[1].iov_len = h.length;
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	(void)sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	fdc_close(fd);	/* with what it sent, unread (fdclose.c) */
}

/* A slot for a peer of uid, by admit.c's rules: a free one, or the one of
 * an idle connection closed for it; NULL when none (the peer is told). */
static struct client *
admit(struct ctl *c, int fd, uid_t uid)
{
	struct adm_slot v[CTL_CLIENTS];
	struct client *k;
	char msg[160];
	size_t i;

	for (i = 0; i < CTL_CLIENTS; i++) {
		k = &c->cl[i];
		v[i] = (struct adm_slot){ k->fd != -1, k->uid, ctlc_idle(k), k->since };
	}
	switch (adm_decide(v, CTL_CLIENTS, uid, &i)) {
	case ADM_TAKE:
		return &c->cl[i];
	case ADM_EVICT:
		k = &c->cl[i];
		log_debug("control: uid %u (pid %ld) idle since %.1f s, closed for uid %u",
		    (unsigned)k->uid, (long)k->pid, ev_now(c->loop) - k->since,
		    (unsigned)uid);
		ctlc_drop(k);
		return k;
	case ADM_REFUSE_UID:
		snprintf(msg, sizeof(msg), "busy: uid %u has %d connections being served; "
		    "try again\n", (unsigned)uid, ADM_PER_UID);
		break;
	default:
		snprintf(msg, sizeof(msg), "busy: %d clients are being served; try "
		    "again\n", CTL_CLIENTS);
		break;
	}
	turn_away(fd, EX_TEMPFAIL, msg);
	return NULL;
}

static void
accept_one(struct ctl *c, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct client *k;
	enum access acc;
	char msg[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1) {
		log_warn("control: SO_PEERCRED");
		fdc_close(fd);
		return;
	}
	/* before admission: a stranger never costs anyone a slot */
	if ((acc = access_of(c, fd, &cr)) == ACC_NONE) {
		/* the same uid at most once per 10 s: log.c limits warnings */
		log_warnx("control: refused uid %u: only root, uid %u and group %u "
		    "may use %s", (unsigned)cr.uid, (unsigned)c->uid, (unsigned)c->gid,
		    c->path);
		snprintf(msg, sizeof(msg), "permission denied: uid %u is not root, uid %u "
		    "or in group %u\n", (unsigned)cr.uid, (unsigned)c->uid,
		    (unsigned)c->gid);
		turn_away(fd, EX_NOPERM, msg);
		return;
	}
	if ((k = admit(c, fd, cr.uid)) == NULL)
		return;
	ctlc_start(c, k, fd, cr.uid, cr.pid, acc == ACC_CHANGE);
}

static void
pause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl *c = w->data;

	(void)revents;
	ev_io_start(loop, &c->lw);
}

static void
listen_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl *c = w->data;
	int i, fd;

	(void)revents;
	for (i = 0; i < ACCEPT_BUDGET; i++) {
		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd != -1) {
			accept_one(c, fd);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* the connection stays queued and the socket readable:
			 * without a pause this callback would spin */
			log_warn("control: cannot accept, pausing %.0f s", ACCEPT_PAUSE);
			ev_io_stop(loop, &c->lw);
			ev_timer_set(&c->pause, ACCEPT_PAUSE, 0.);
			ev_timer_start(loop, &c->pause);
			return;
		}
		/* ECONNABORTED, EINTR, EPROTO: that one is gone, go on */
	}
}

void
ctl_start(struct ctl *c, struct ev_loop *loop, ctl_handler *fn, void *arg)
{
	c->loop = loop;
	c->fn = fn;
	c->arg = arg;
	ev_io_init(&c->lw, listen_cb, c->fd, EV_READ);
	ev_timer_init(&c->pause, pause_cb, ACCEPT_PAUSE, 0.);
	ctlc_init(c);
	c->lw.data = c->pause.data = c;
	ev_io_start(loop, &c->lw);
}

void
ctl_close(struct ctl *c)
{
	int i;

	if (c == NULL)
		return;
	for (i = 0; i < CTL_CLIENTS; i++)
		if (c->cl[i].fd != -1)
			ctlc_drop(&c->cl[i]);
	if (c->loop != NULL) {
		ev_io_stop(c->loop, &c->lw);
		ev_timer_stop(c->loop, &c->pause);
		ev_check_stop(c->loop, &c->serve);
		ev_idle_stop(c->loop, &c->spin);
	}
	if (c->fd != -1) {
		close(c->fd);
		/* dropped to a uid that cannot write the directory: the next
		 * start removes it (arpownctl meanwhile says "not running") */
		if (c->path != NULL && unlink(c->path) == -1 && errno != EACCES &&
		    errno != EPERM && errno != ENOENT)
			log_warn("%s", c->path);
	}
	free(c->path);
	free(c);
}
