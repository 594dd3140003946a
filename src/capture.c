/* capture.c — ARP frames in through libpcap, out through AF_PACKET.
 * One pcap handle on the "any" device sees every interface, present and
 * future, with no ring per interface: the scale targets need that. */
#include "config.h"

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"

#define CAP_TXQ		64	/* replies sent per sendmmsg */

/* Room for ~16k frames (40 ms at 400k/s) while the loop is elsewhere;
 * the ring is mapped, so its size is RSS: keep it small. */
#define CAP_BUFSIZE	(4 * 1024 * 1024)

struct cap {
	pcap_t			*p;
	int			 fd;	/* AF_PACKET socket, send only */
	cap_fn			*fn;
	void			*arg;
	unsigned		 tsmul;	/* h->ts.tv_usec units to nanoseconds */
	/* replies of one capture batch leave in one system call */
	unsigned		 nq;
	uint8_t			 frames[CAP_TXQ][64];
	struct sockaddr_ll	 to[CAP_TXQ];
	struct iovec		 iov[CAP_TXQ];
	struct mmsghdr		 msg[CAP_TXQ];
};

/* The kernel answer path marks each request it answered, or refused by
 * a limit, as for another host (PACKET_OTHERHOST) with its hash set to
 * CAP_DECIDED_HASH (capture.h), before letting it go on for whoever else listens (a
 * macvlan above, the next TC filter): dropped here, in the kernel, they
 * never wake us and nothing is answered twice.  A frame that really was
 * for another host keeps its own hash, and arp_check counts it.  Classic
 * BPF on the socket, as libpcap would install it; the packet type and
 * the hash are ancillary loads (the kernel's ABI). */
static struct sock_filter not_decided_insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OTHERHOST, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_RXHASH)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAP_DECIDED_HASH, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),
};
static const struct sock_fprog not_decided = {
	sizeof(not_decided_insns) / sizeof(not_decided_insns[0]), not_decided_insns
};

struct cap *
cap_open(char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct cap *c;
	int r;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	c->fd = -1;
	if ((c->p = pcap_create("any", ebuf)) == NULL) {
		snprintf(err, errlen, "pcap_create any: %s", ebuf);
		goto fail;
	}
	/* Without immediate mode the TPACKET_V3 ring holds frames until a
	 * block fills or times out: replies would be late by that much. */
	if (pcap_set_immediate_mode(c->p, 1) != 0 ||
	    pcap_set_snaplen(c->p, 128) != 0 ||
	    pcap_set_buffer_size(c->p, CAP_BUFSIZE) != 0 ||
	    /* the socket is opened for ETH_P_ARP alone: no other traffic is
	     * ever copied to us, whatever the host forwards */
	    pcap_set_protocol_linux(c->p, ETH_P_ARP) != 0) {
		snprintf(err, errlen, "pcap: %s", pcap_geterr(c->p));
		goto fail;
	}
	/* frame times are compared with the netlink drain's: nanoseconds
	 * where libpcap has them, else microseconds */
	c->tsmul = pcap_set_tstamp_precision(c->p, PCAP_TSTAMP_PRECISION_NANO) == 0 ?
	    1 : 1000;
	if ((r = pcap_activate(c->p)) < 0) {
		/* PCAP_ERROR and PERM_DENIED come with a message; others not */
		snprintf(err, errlen, "pcap_activate any: %s",
		    r == PCAP_ERROR || r == PCAP_ERROR_PERM_DENIED ?
		    pcap_geterr(c->p) : pcap_statustostr(r));
		goto fail;
	}
	/* SLL2 carries the ifindex and the packet type of every frame */
	if (pcap_set_datalink(c->p, DLT_LINUX_SLL2) != 0) {
		snprintf(err, errlen, "pcap DLT_LINUX_SLL2: %s", pcap_geterr(c->p));
		goto fail;
	}
	/* PACKET_IGNORE_OUTGOING underneath: our own replies never come back */
	if (pcap_setdirection(c->p, PCAP_D_IN) != 0) {
		snprintf(err, errlen, "pcap direction: %s", pcap_geterr(c->p));
		goto fail;
	}
	if (pcap_setnonblock(c->p, 1, ebuf) != 0) {
		snprintf(err, errlen, "pcap nonblock: %s", ebuf);
		goto fail;
	}
	if (setsockopt(pcap_fileno(c->p), SOL_SOCKET, SO_ATTACH_FILTER, &not_decided,
	    sizeof(not_decided)) == -1) {
		snprintf(err, errlen, "capture filter: %s", strerror(errno));
		goto fail;
	}
	/* protocol 0: this socket receives nothing, it only sends */
	if ((c->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "AF_PACKET socket: %s", strerror(errno));
		goto fail;
	}
	return c;
fail:
	cap_close(c);
	return NULL;
}

int
cap_set_qdisc_bypass(struct cap *c, bool on)
{
	int v = on;

	/* Straight to the driver: faster (the benchmark has the figure), but
	 * past the taps as well, so tcpdump on the host and tc egress do not
	 * see the replies.  Hence opt-in. */
	return setsockopt(c->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
}

void
cap_close(struct cap *c)
{
	if (c == NULL)
		return;
	if (c->p != NULL)
		pcap_close(c->p);
	if (c->fd != -1)
		close(c->fd);
	free(c);
}

int
cap_fd(const struct cap *c)
{
	return pcap_get_selectable_fd(c->p);
}

static void
handler(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct cap *c = (void *)user;	/* our own pointer, handed back */

	/* with nanosecond precision tv_usec holds nanoseconds */
	c->fn(bytes, h->caplen, (uint64_t)h->ts.tv_sec * 1000000000u +
	    (uint64_t)h->ts.tv_usec * c->tsmul, c->arg);
}

int
cap_dispatch(struct cap *c, int budget, cap_fn *fn, void *arg)
{
	c->fn = fn;
	c->arg = arg;
	return pcap_dispatch(c->p, budget, handler, (u_char *)c);
}

void
cap_send(struct cap *c, int ifindex, const uint8_t *frame, size_t len)
{
	struct sockaddr_ll *sll = &c->to[c->nq];
	struct mmsghdr *m = &c->msg[c->nq];

	if (len > sizeof(c->frames[0]))
		return;
	memcpy(c->frames[c->nq], frame, len);
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_ifindex = ifindex;
	sll->sll_protocol = htons(ETH_P_ARP);
	sll->sll_halen = 6;
	memcpy(sll->sll_addr, frame, 6);
	c->iov[c->nq].iov_base = c->frames[c->nq];
	c->iov[c->nq].iov_len = len;
	memset(m, 0, sizeof(*m));
	m->msg_hdr.msg_name = sll;
	m->msg_hdr.msg_namelen = sizeof(*sll);
	m->msg_hdr.msg_iov = &c->iov[c->nq];
	m->msg_hdr.msg_iovlen = 1;
	if (++c->nq == CAP_TXQ)
		(void)cap_flush(c);
}

int
cap_flush(struct cap *c)
{
	unsigned done = 0;
	int n, failed = 0, saved = 0;

	while (done < c->nq) {
		n = sendmmsg(c->fd, c->msg + done, c->nq - done, MSG_DONTWAIT);
		if (n > 0) {
			done += (unsigned)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		/* the first frame failed (ENETDOWN, ENXIO: its interface is
		 * going): count it and go on with the rest */
		saved = errno;
		failed++;
		done++;
	}
	c->nq = 0;
	errno = saved;
	return failed;
}

unsigned
cap_drops(struct cap *c)
{
	struct pcap_stat st;

	if (pcap_stats(c->p, &st) != 0)
		return 0;
	return st.ps_drop;
}
