/* handover.c — the restart gap, closed for published addresses.  When
 * arpownd stops, the kernel answers the host's own addresses again (the
 * sysctls are restored first), but nobody answers a published one until
 * the next start.  So the stop opens an AF_PACKET socket for ARP on every
 * interface and gives it to systemd's file descriptor store
 * (FDSTORE=1); the kernel queues the requests of the gap on it; the next
 * start takes it back (sd_listen_fds), and once its own capture is live
 * answers from it what came before that, then drops it.  A frame that came
 * after the new capture went live is the capture's: answered once. */
#include "config.h"

#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if_arp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "arp.h"
#include "handover.h"
#include "log.h"

#define HO_RCVBUF	(1 << 20)	/* the gap's requests, some thousands */

#ifdef HAVE_SYSTEMD
int
ho_keep(void)
{
	int fd, sz = HO_RCVBUF, r;

	if (getenv("NOTIFY_SOCKET") == NULL)
		return -1;
	if ((fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ARP))) == -1) {
		log_warn("handover socket");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int)) == -1) {
		log_warn("handover socket");
		close(fd);
		return -1;
	}
	/* systemd keeps a duplicate; ours closes at exit */
	r = sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=" HO_NAME, &fd, 1);
	if (r <= 0) {
		log_debug("handover: no fd store (%s): published addresses are not "
		    "answered while arpownd restarts", r < 0 ? strerror(-r) : "not under systemd");
		close(fd);
		return -1;
	}
	return fd;
}

int
ho_take(void)
{
	char **names = NULL;
	int n, i, fd = -1;

	if ((n = sd_listen_fds_with_names(1, &names)) <= 0)
		return -1;
	/* systemd passes the store in the order it was filled: the last one
	 * is the previous run's; an older one (a run that failed before it
	 * took its own) holds requests long given up */
	for (i = n - 1; i >= 0; i--) {
		if (fd == -1 && names != NULL && strcmp(names[i], HO_NAME) == 0 &&
		    sd_is_socket(SD_LISTEN_FDS_START + i, AF_PACKET, SOCK_RAW, -1) > 0)
			fd = SD_LISTEN_FDS_START + i;
		else
			close(SD_LISTEN_FDS_START + i);	/* nothing else is ours */
	}
	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
	return fd;
}

void
ho_release(int fd)
{
	if (fd == -1)
		return;
	(void)sd_notify(0, "FDSTOREREMOVE=1\nFDNAME=" HO_NAME);
	close(fd);
}
#else
int
ho_keep(void)
{
	return -1;
}

int
ho_take(void)
{
	return -1;
}

void
ho_release(int fd)
{
	if (fd != -1)
		close(fd);
}
#endif

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
ho_drain(int fd, uint64_t before, ho_fn *fn, void *arg, struct ho_tally *tl)
{
	union {
		char		buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr	align;
	} cbuf;
	uint8_t frame[ETH_HLEN + 64], pkt[ARP_SLL2_LEN + 64];
	uint64_t now = now_ns(), ts;
	struct sockaddr_ll sll;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;
	struct timespec t;
	uint32_t idx;
	int n = 0, i;
	ssize_t r;

	memset(tl, 0, sizeof(*tl));
	if (fd == -1)
		return 0;
	for (i = 0; i < HO_FRAMES; i++) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = frame;
		iov.iov_len = sizeof(frame);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_name = &sll;
		mh.msg_namelen = sizeof(sll);
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		if ((r = recvmsg(fd, &mh, MSG_DONTWAIT)) == -1) {
			if (errno == EINTR)
				continue;
			break;		/* EAGAIN: drained */
		}
		ts = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				memcpy(&t, CMSG_DATA(cm), sizeof(t));
				ts = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
			}
		tl->frames++;
		/* the capture's, or given up by its sender */
		if (ts == 0 || ts >= before) {
			tl->late++;
			continue;
		}
		if (now - ts > (uint64_t)(HO_MAX_AGE * 1e9)) {
			tl->old++;
			continue;
		}
		if (r < ETH_HLEN || sll.sll_hatype != ARPHRD_ETHER)
			continue;
		/* as DLT_LINUX_SLL2: protocol, ifindex, hatype, pkttype, halen,
		 * the Ethernet source; then the ARP body */
		memset(pkt, 0, ARP_SLL2_LEN);
		memcpy(pkt, frame + 12, 2);
		idx = htonl((uint32_t)sll.sll_ifindex);
		memcpy(pkt + 4, &idx, 4);
		pkt[9] = ARPHRD_ETHER;
		pkt[10] = sll.sll_pkttype;
		pkt[11] = ETH_ALEN;
		memcpy(pkt + 12, frame + ETH_ALEN, ETH_ALEN);
		r -= ETH_HLEN;
		if ((size_t)r > sizeof(pkt) - ARP_SLL2_LEN)
			r = (ssize_t)(sizeof(pkt) - ARP_SLL2_LEN);
		memcpy(pkt + ARP_SLL2_LEN, frame + ETH_HLEN, (size_t)r);
		fn(pkt, ARP_SLL2_LEN + (size_t)r, arg);
		n++;
	}
	return n;
}
