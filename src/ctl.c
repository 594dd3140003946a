/* ctl.c — the control socket's I/O edge.  Everything is non-blocking and
 * bounded, so that no local client, slow or hostile, can hold up the ARP
 * path that shares this loop: at most CTL_CLIENTS connections (the next is
 * told to come back and closed), a request line of at most CTLP_LINE_MAX
 * bytes, CTL_IDLE seconds for a request to arrive whole (partial bytes do
 * not extend it: no slowloris) and for a reply to make progress, and at
 * most CTL_OUT_MAX bytes of replies waiting to be read before new requests
 * are refused with EX_TEMPFAIL.  A client is read only while its previous
 * reply is out: one that never reads holds one reply, never more.  Who
 * gets a slot when they are short is admit.c's: a cap per uid, slots kept
 * for root, an idle connection closed for a newcomer.
 *
 * Access: the socket is 0660, our uid and group CTL_GROUP; and every peer
 * is checked with SO_PEERCRED and SO_PEERGROUPS, so that a process that
 * passes the file mode some other way (CAP_DAC_OVERRIDE, an fd handed on)
 * is still only served when it is root, us, or in the group. */
#include "config.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <errno.h>
#include <ev.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "admit.h"
#include "ctl.h"
#include "log.h"
#include "util.h"

#define ACCEPT_BUDGET	32	/* connections taken per wakeup */
#define ACCEPT_PAUSE	1.0	/* seconds without accepting after EMFILE */
#define PASSED_FDS	4	/* room for fds in one message; more are closed */

struct client {
	struct ctl	*c;
	int		 fd;		/* -1: free slot */
	ev_io		 rw, ww;
	ev_timer	 idle;
	uid_t		 uid;
	pid_t		 pid;
	double		 since;		/* last activity: accepted, read, answered */
	bool		 root;		/* may pass an fd */
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
	char		 in[CTLP_LINE_MAX];	/* last: accept_one clears the rest */
};

struct ctl {
	char		*path;
	int		 fd;
	uid_t		 uid;		/* the socket's owner */
	gid_t		 gid;		/* and group */
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
	if (chmod(c->path, 0660) == -1 || listen(c->fd, CTL_CLIENTS) == -1) {
		util_seterr(err, errlen, -1, "%s: %s", c->path, strerror(errno));
		goto fail;
	}
	return c;
fail:
	ctl_close(c);
	return NULL;
}

/* ------------------------------------------------------------- clients */

static void
client_drop(struct client *k)
{
	struct ctl *c = k->c;

	ev_io_stop(c->loop, &k->rw);
	ev_io_stop(c->loop, &k->ww);
	ev_timer_stop(c->loop, &k->idle);
	if (k->body != NULL || k->headlen > 0)
		c->pending -= k->headlen + k->bodylen - k->sent;
	free(k->body);
	k->body = NULL;
	k->headlen = k->bodylen = k->sent = 0;
	if (k->passed != -1)
		close(k->passed);
	k->passed = -1;
	close(k->fd);
	k->fd = -1;
}

/* Give the client CTL_IDLE seconds (from now) for what it owes next. */
static void
client_deadline(struct client *k)
{
	ev_timer_stop(k->c->loop, &k->idle);
	ev_timer_set(&k->idle, CTL_IDLE, 0.);
	ev_timer_start(k->c->loop, &k->idle);
}

/* Send what is left of the reply; true when it is all out. */
static bool
client_flush(struct client *k)
{
	struct msghdr mh = { 0 };
	struct iovec iov[2];
	size_t total = k->headlen + k->bodylen;
	ssize_t w;
	int n;

	while (k->sent < total) {
		n = 0;
		if (k->sent < k->headlen) {
			iov[n].iov_base = k->head + k->sent;
			iov[n++].iov_len = k->headlen - k->sent;
		}
		if (k->bodylen > 0) {
			size_t off = k->sent > k->headlen ? k->sent - k->headlen : 0;

			iov[n].iov_base = k->body + off;
			iov[n++].iov_len = k->bodylen - off;
		}
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)n;
		/* MSG_NOSIGNAL: a client that went away is no SIGPIPE for us */
		if ((w = sendmsg(k->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return false;
			k->closing = true;	/* EPIPE, ECONNRESET: nobody to tell */
			k->c->pending -= total - k->sent;
			k->sent = total;
			break;
		}
		k->sent += (size_t)w;
		k->c->pending -= (size_t)w;
		client_deadline(k);	/* progress */
	}
	free(k->body);
	k->body = NULL;
	k->headlen = k->bodylen = k->sent = 0;
	k->since = ev_now(k->c->loop);
	return true;
}

/* Queue a reply (body malloc'd or NULL, now ours) and start sending it. */
static void
client_reply(struct client *k, int code, const char *type, char *body, size_t len)
{
	struct ctlp_head h = { code == 0, code, len, "" };

	snprintf(h.type, sizeof(h.type), "%s", type);
	k->headlen = ctlp_head_format(&h, k->head);
	k->body = body;
	k->bodylen = len;
	k->sent = 0;
	k->c->pending += k->headlen + len;
	ev_io_stop(k->c->loop, &k->rw);		/* one reply at a time */
	if (client_flush(k)) {
		ev_io_stop(k->c->loop, &k->ww);
		return;
	}
	ev_io_start(k->c->loop, &k->ww);
}

static void client_err(struct client *k, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
client_err(struct client *k, int code, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		k->closing = true;
		client_reply(k, EX_TEMPFAIL, "text", NULL, 0);
		return;
	}
	client_reply(k, code, "text", msg, (size_t)n);
}

/* One request line (newline excluded) in, one reply out. */
static void
client_request(struct client *k, const char *line, size_t len)
{
	struct ctl *c = k->c;
	const char *type = "text";
	struct ctlp_req req;
	char err[256], *body = NULL;
	size_t blen = 0;
	int code, fd = k->passed;
	FILE *f;

	k->passed = -1;
	if ((code = ctlp_parse(line, len, &req, err, sizeof(err))) != 0) {
		if (fd != -1)
			close(fd);
		client_err(k, code, "%s\n", err);
		return;
	}
	if (c->pending >= CTL_OUT_MAX) {
		if (fd != -1)
			close(fd);
		client_err(k, EX_TEMPFAIL, "busy: %zu bytes of replies wait to be read; "
		    "try again\n", c->pending);
		return;
	}
	if ((f = open_memstream(&body, &blen)) == NULL) {
		if (fd != -1)
			close(fd);
		client_err(k, EX_TEMPFAIL, "out of memory; try again\n");
		return;
	}
	code = c->fn(c->arg, &req, fd, f, &type);
	if (fd != -1)
		close(fd);
	if (fclose(f) != 0) {
		free(body);
		client_err(k, EX_TEMPFAIL, "out of memory; try again\n");
		return;
	}
	client_reply(k, code, type, body, blen);
}

/* Has k something to be answered (a line, an overlong one, a last one)? */
static bool
client_has_request(const struct client *k)
{
	return memchr(k->in, '\n', k->inlen) != NULL || k->inlen == sizeof(k->in) ||
	    (k->eof && k->inlen > 0);
}

/*
 * What next for k, once bytes came in or its reply went out: reading on,
 * or in the queue for an answer, or gone.  Requests are answered by
 * serve_cb, one per loop iteration in all, so that a dozen clients asking
 * for big documents at once cannot hold the capture up for all of them
 * in one go: between two answers the loop polls the capture again.
 */
static void
client_next(struct client *k)
{
	struct ctl *c = k->c;

	if (k->fd == -1 || k->headlen > 0)
		return;			/* gone, or the write watcher carries on */
	if (!k->closing && client_has_request(k)) {
		ev_io_stop(c->loop, &k->rw);
		k->ready = true;
		ev_check_start(c->loop, &c->serve);
		ev_idle_start(c->loop, &c->spin);	/* no sleeping meanwhile */
		return;
	}
	if (k->closing || k->eof) {
		client_drop(k);
		return;
	}
	ev_io_start(c->loop, &k->rw);
}

/* Answer k's first request. */
static void
client_serve(struct client *k)
{
	char *nl;
	size_t n;

	if ((nl = memchr(k->in, '\n', k->inlen)) == NULL) {
		n = k->inlen;
		k->inlen = 0;
		k->closing = true;
		if (n == sizeof(k->in))
			client_err(k, EX_USAGE, "request longer than %d bytes\n",
			    CTLP_LINE_MAX - 1);
		else	/* a last request without its newline (printf | nc) */
			client_request(k, k->in, n);
	} else {
		n = (size_t)(nl - k->in);
		client_request(k, k->in, n);
		memmove(k->in, nl + 1, k->inlen - n - 1);
		k->inlen -= n + 1;
		client_deadline(k);	/* the next request's time starts now */
	}
	client_next(k);
}

static void
serve_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	struct ctl *c = w->data;
	struct client *k;
	int i;

	(void)revents;
	for (i = 0; i < CTL_CLIENTS; i++) {
		k = &c->cl[(c->next + i) % CTL_CLIENTS];
		if (k->fd == -1 || !k->ready)
			continue;
		c->next = (c->next + i + 1) % CTL_CLIENTS;
		k->ready = false;
		client_serve(k);
		return;
	}
	ev_check_stop(loop, &c->serve);
	ev_idle_stop(loop, &c->spin);
}

/* Keep an fd root passed; close any other (nobody else may pass one). */
static void
take_fds(struct client *k, struct msghdr *mh)
{
	struct cmsghdr *cm;
	size_t i, n;
	int fds[PASSED_FDS];

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > PASSED_FDS)
			n = PASSED_FDS;
		memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
		for (i = 0; i < n; i++) {
			if (k->root && k->passed == -1)
				k->passed = fds[i];
			else
				close(fds[i]);
		}
	}
}

static void
client_read(struct client *k)
{
	union {
		char		buf[CMSG_SPACE(PASSED_FDS * sizeof(int))];
		struct cmsghdr	align;
	} cbuf;
	struct msghdr mh = { 0 };
	struct iovec iov;
	ssize_t r;

	iov.iov_base = k->in + k->inlen;
	iov.iov_len = sizeof(k->in) - k->inlen;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	if (iov.iov_len == 0) {
		client_next(k);
		return;
	}
	r = recvmsg(k->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (r == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		client_drop(k);
		return;
	}
	take_fds(k, &mh);
	k->since = ev_now(k->c->loop);
	if (r == 0)
		k->eof = true;
	k->inlen += (size_t)r;
	client_next(k);
}

static void
read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	client_read(w->data);
}

static void
write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct client *k = w->data;

	(void)revents;
	if (!client_flush(k))
		return;
	ev_io_stop(loop, &k->ww);
	client_next(k);
}

static void
spin_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

static void
idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct client *k = w->data;

	(void)loop;
	(void)revents;
	log_debug("control: uid %u (pid %ld): nothing for %.0f s, closed",
	    (unsigned)k->uid, (long)k->pid, CTL_IDLE);
	client_drop(k);
}

/* ------------------------------------------------------------ accepting */

/* Root, us, the socket's owner, or its group (primary or supplementary). */
static bool
allowed(const struct ctl *c, int fd, const struct ucred *cr)
{
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	bool ok = false;
	size_t i;

	if (cr->uid == 0 || cr->uid == c->uid || cr->uid == geteuid() || cr->gid == c->gid)
		return true;
	/* SO_PEERGROUPS (Linux 4.13): ERANGE says how much room it needs */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == -1) {
		if (errno != ERANGE || (g = malloc(len)) == NULL)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == -1) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t) && !ok; i++)
		ok = g[i] == c->gid;
	if (g != small)
		free(g);
	return ok;
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
	close(fd);
}

/* Waiting for a request, nothing of one read, nothing owed to it. */
static bool
client_idle(const struct client *k)
{
	return k->fd != -1 && !k->ready && !k->closing && k->inlen == 0 && k->headlen == 0;
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
		v[i] = (struct adm_slot){ k->fd != -1, k->uid, client_idle(k), k->since };
	}
	switch (adm_decide(v, CTL_CLIENTS, uid, &i)) {
	case ADM_TAKE:
		return &c->cl[i];
	case ADM_EVICT:
		k = &c->cl[i];
		log_debug("control: uid %u (pid %ld) idle since %.1f s, closed for uid %u",
		    (unsigned)k->uid, (long)k->pid, ev_now(c->loop) - k->since,
		    (unsigned)uid);
		client_drop(k);
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
	char msg[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1) {
		log_warn("control: SO_PEERCRED");
		close(fd);
		return;
	}
	/* before admission: a stranger never costs anyone a slot */
	if (!allowed(c, fd, &cr)) {
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
	memset(k, 0, offsetof(struct client, in));	/* inlen included */
	k->c = c;
	k->fd = fd;
	k->passed = -1;
	k->uid = cr.uid;
	k->pid = cr.pid;
	k->since = ev_now(c->loop);
	k->root = cr.uid == 0;
	ev_io_init(&k->rw, read_cb, fd, EV_READ);
	ev_io_init(&k->ww, write_cb, fd, EV_WRITE);
	ev_timer_init(&k->idle, idle_cb, CTL_IDLE, 0.);
	k->rw.data = k->ww.data = k->idle.data = k;
	client_deadline(k);
	ev_io_start(c->loop, &k->rw);
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
	ev_check_init(&c->serve, serve_cb);
	ev_idle_init(&c->spin, spin_cb);
	c->lw.data = c->pause.data = c->serve.data = c->spin.data = c;
	ev_io_start(loop, &c->lw);
}

#define PASSED_MAX	(1 << 20)	/* a configuration file, at most */

int
ctl_passed_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat a, b;
	char buf[8192];
	off_t off = 0;
	ssize_t r;
	int m;

	if (fstat(fd, &a) == -1)
		return util_seterr(err, errlen, -1, "the file passed: %s", strerror(errno));
	/* the same inode: what reload means is rereading our file, no other */
	if (!S_ISREG(a.st_mode) || stat(path, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		errno = EINVAL;
		return util_seterr(err, errlen, -1, "the file passed is not %s", path);
	}
	if (a.st_size > PASSED_MAX) {
		errno = EFBIG;
		return util_seterr(err, errlen, -1,
		    "%s: larger than %d bytes", path, PASSED_MAX);
	}
	if ((m = memfd_create("arpownd.conf", MFD_CLOEXEC)) == -1)
		return util_seterr(err, errlen, -1, "memfd_create: %s", strerror(errno));
	while ((r = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 || write(m, buf, (size_t)r) != r) {
			util_seterr(err, errlen, -1, "%s: %s", path, strerror(errno));
			close(m);
			return -1;
		}
		if ((off += r) > PASSED_MAX) {
			errno = EFBIG;
			util_seterr(err, errlen, -1,
			    "%s: larger than %d bytes", path, PASSED_MAX);
			close(m);
			return -1;
		}
	}
	return m;
}

void
ctl_close(struct ctl *c)
{
	int i;

	if (c == NULL)
		return;
	for (i = 0; i < CTL_CLIENTS; i++)
		if (c->cl[i].fd != -1)
			client_drop(&c->cl[i]);
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
