/* kpnl.c — the kernel answer path's rtnetlink plumbing: a one-shot dump
 * on a fresh socket (the mirror's resync, the start's count), and one
 * socket that serves a whole batch of requests, a window of them sent
 * before their acknowledgements are read (kptc.c's TC work: at 1,000
 * interfaces, a socket and a round trip each was most of the start). */
#include "config.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "kpint.h"

/* ------------------------------------------------------------- netlink */

struct nl_run {
	kpn_cb	*cb;
	void	*arg;
	int	 rc;
};

static int
nl_one(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *r = data;

	if (r->cb != NULL && r->cb(nlh, r->arg) == -1)
		r->rc = -1;
	return MNL_CB_OK;
}

/* Send req on a fresh rtnetlink socket and hand every reply to cb until
 * the dump is done or the ACK arrives; 0, or -1 with errno. */
static int
nl_talk(struct nlmsghdr *req, kpn_cb *cb, void *arg)
{
	struct mnl_socket *nl;
	struct nl_run r = { cb, arg, 0 };
	char *buf;
	size_t blen = MNL_SOCKET_BUFFER_SIZE > 32768 ? MNL_SOCKET_BUFFER_SIZE : 32768;
	unsigned portid, seq = (unsigned)time(NULL);
	ssize_t n;
	int ret, err = 0;

	if ((buf = malloc(blen)) == NULL)
		return -1;
	if ((nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL) {
		free(buf);
		return -1;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	portid = mnl_socket_get_portid(nl);
	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		goto fail;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, blen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, nl_one, &r);
		if (ret == MNL_CB_ERROR) {
			err = errno;
			goto fail;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
	mnl_socket_close(nl);
	free(buf);
	if (r.rc == -1) {
		errno = EIO;
		return -1;
	}
	return 0;
fail:
	if (err == 0)
		err = errno;
	mnl_socket_close(nl);
	free(buf);
	errno = err;
	return -1;
}

int
kpn_dump(uint16_t type, const void *hdr, size_t hdrlen, kpn_cb *cb, void *arg)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	memcpy(mnl_nlmsg_put_extra_header(nlh, hdrlen), hdr, hdrlen);
	return nl_talk(nlh, cb, arg);
}

#define NLS_WINDOW	64	/* requests sent before their acks are read */

void
kpn_close(struct kpn_sock *s)
{
	if (s->nl != NULL)
		mnl_socket_close(s->nl);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

int
kpn_open(struct kpn_sock *s)
{
	int one = 1, sz = 1 << 20;

	memset(s, 0, sizeof(*s));
	s->blen = MNL_SOCKET_BUFFER_SIZE > 32768 ? MNL_SOCKET_BUFFER_SIZE : 32768;
	if ((s->buf = malloc(s->blen)) == NULL ||
	    (s->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL ||
	    mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		kpn_close(s);
		return -1;
	}
	/* acks without the request echoed; room for a window of them */
	(void)mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	(void)setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	s->portid = mnl_socket_get_portid(s->nl);
	s->seq = (unsigned)time(NULL);
	return 0;
}

/* A dump of req's kind on s, every reply to cb; 0 or -1 with errno. */
int
kpn_dump_on(struct kpn_sock *s, struct nlmsghdr *req, kpn_cb *cb, void *arg)
{
	struct nl_run r = { cb, arg, 0 };
	ssize_t n;
	int ret;

	req->nlmsg_seq = ++s->seq;
	if (mnl_socket_sendto(s->nl, req, req->nlmsg_len) < 0)
		return -1;
	for (;;) {
		if ((n = mnl_socket_recvfrom(s->nl, s->buf, s->blen)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		ret = mnl_cb_run(s->buf, (size_t)n, s->seq, s->portid, nl_one, &r);
		if (ret == MNL_CB_ERROR)
			return -1;
		if (ret == MNL_CB_STOP)
			break;
	}
	if (r.rc == -1)
		return errno = EIO, -1;
	return 0;
}

/* Send n requests (each in its own KPN_REQ-byte slot of reqs), a window
 * at a time, and read their acknowledgements: err[i] is 0 or the errno
 * request i got.  0, or -1 when the socket failed (err[] then EIO). */
int
kpn_run(struct kpn_sock *s, char *reqs, size_t n, int *err)
{
	size_t at = 0, i, got, w;
	unsigned first;
	ssize_t r;

	while (at < n) {
		w = n - at < NLS_WINDOW ? n - at : NLS_WINDOW;
		first = s->seq + 1;
		for (i = 0; i < w; i++) {
			struct nlmsghdr *h = (struct nlmsghdr *)(void *)(reqs + (at + i) * KPN_REQ);

			h->nlmsg_seq = ++s->seq;
			err[at + i] = EIO;
			if (mnl_socket_sendto(s->nl, h, h->nlmsg_len) < 0)
				goto fail;
		}
		for (got = 0; got < w;) {
			const struct nlmsghdr *h;
			int left;

			if ((r = mnl_socket_recvfrom(s->nl, s->buf, s->blen)) < 0) {
				if (errno == EINTR)
					continue;
				goto fail;
			}
			left = (int)r;
			for (h = (const struct nlmsghdr *)(void *)s->buf; mnl_nlmsg_ok(h, left);
			    h = mnl_nlmsg_next(h, &left)) {
				const struct nlmsgerr *e;

				if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_seq < first ||
				    h->nlmsg_seq >= first + w ||
				    mnl_nlmsg_get_payload_len(h) < sizeof(*e))
					continue;
				e = mnl_nlmsg_get_payload(h);
				err[at + (h->nlmsg_seq - first)] = -e->error;
				got++;
			}
		}
		at += w;
	}
	return 0;
fail:
	return -1;
}
