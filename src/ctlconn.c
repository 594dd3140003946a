/* ctlconn.c — one control connection's I/O.  Everything is non-blocking
 * and bounded, so that no local client, slow or hostile, can hold up the
 * ARP path that shares this loop: a request line of at most CTLP_LINE_MAX
 * bytes, CTL_IDLE seconds for a request to arrive whole (partial bytes do
 * not extend it: no slowloris) and for a reply to make progress, and at
 * most CTL_OUT_MAX bytes of replies waiting to be read, all connections
 * together, before new requests are refused with EX_TEMPFAIL.  A client is
 * read only while its previous reply is out: one that never reads holds
 * one reply, never more.  Who is let in, and into which of the
 * CTL_CLIENTS slots, is ctl.c's. */
#include "config.h"

#include <sys/socket.h>
#include <errno.h>
#include <ev.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlconn.h"
#include "fdclose.h"
#include "log.h"

/* Room for every fd one message can carry (the kernel's SCM_MAX_FD): what
 * does not fit the kernel releases on our thread, beyond fdclose.c's reach */
#define PASSED_FDS	253

void
ctlc_drop(struct client *k)
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
	/* files a peer left in flight on it are released with it */
	fdc_close(k->fd);
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
	/* asking is the group's; changing root's, ours and the admin group's */
	if (ctlp_changes(req.cmd) && !k->may_change) {
		if (fd != -1)
			close(fd);
		log_warnx("control: uid %u (pid %ld) may not %s: only root, arpownd's "
		    "own user and group %s may change arpownd", (unsigned)k->uid,
		    (long)k->pid, ctlp_cmd_str(req.cmd), CTL_ADMIN_GROUP);
		client_err(k, EX_NOPERM, "%s: permission denied: uid %u may ask arpownd, "
		    "not change it: %s is for root and group %s\n", ctlp_cmd_str(req.cmd),
		    (unsigned)k->uid, ctlp_cmd_str(req.cmd), CTL_ADMIN_GROUP);
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
	code = c->fn(c->arg, &req, k->uid, fd, f, &type);
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
		ctlc_drop(k);
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

/* Keep an fd root passed; close any other (nobody else may pass one), off
 * the loop: a peer's file may block its last close (fdclose.c). */
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
				fdc_close(fds[i]);
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
		ctlc_drop(k);
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
	ctlc_drop(k);
}

/* Waiting for a request, nothing of one read, nothing owed to it. */
bool
ctlc_idle(const struct client *k)
{
	return k->fd != -1 && !k->ready && !k->closing && k->inlen == 0 && k->headlen == 0;
}

void
ctlc_init(struct ctl *c)
{
	ev_check_init(&c->serve, serve_cb);
	ev_idle_init(&c->spin, spin_cb);
	c->serve.data = c->spin.data = c;
}

void
ctlc_start(struct ctl *c, struct client *k, int fd, uid_t uid, pid_t pid, bool may_change)
{
	memset(k, 0, offsetof(struct client, in));	/* inlen included */
	k->c = c;
	k->fd = fd;
	k->passed = -1;
	k->uid = uid;
	k->pid = pid;
	k->since = ev_now(c->loop);
	k->root = uid == 0;
	k->may_change = may_change;
	ev_io_init(&k->rw, read_cb, fd, EV_READ);
	ev_io_init(&k->ww, write_cb, fd, EV_WRITE);
	ev_timer_init(&k->idle, idle_cb, CTL_IDLE, 0.);
	k->rw.data = k->ww.data = k->idle.data = k;
	client_deadline(k);
	ev_io_start(c->loop, &k->rw);
}
