/* handover.c — the restart gap, closed for published addresses.  When
 * arpownd stops, the kernel answers the host's own addresses again (in
 * its strict mode, stop_leaves), but nobody answers a published one until
 * the next start.  So the stop opens an AF_PACKET socket whose classic BPF
 * filter admits only ARP requests for the published addresses (no reply,
 * no announcement, no other target: ambient traffic cannot fill it), with
 * a receive ring sized for a stated rate, and gives it to systemd's file
 * descriptor store (FDSTORE=1); the kernel writes the gap's requests into
 * the ring, and counts what it had to drop; the next start takes it back
 * (sd_listen_fds), and once its own capture is live answers from it what
 * came before that, reports the kernel's drops, then drops it.  A frame
 * that came after the new capture went live is the capture's: answered
 * once.  0.1.0 left a plain socket for every ARP frame (HO_NAME): still
 * read, by recvmsg, so that an upgrade from it loses nothing. */
#include "config.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/filter.h>
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
#include "publish.h"

#define HO_SNAP		0xffff		/* the filter keeps a frame whole */
#define HO_INSNS	(16 + 3 * HO_FILTER_SPANS)

/* ---------------------------------------------------------------------
 * The filter: ARP requests for the published addresses, nothing else
 */

struct prog {
	struct sock_filter	v[HO_INSNS];
	unsigned		n;
};

static void
emit(struct prog *p, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	p->v[p->n++] = (struct sock_filter){ code, jt, jf, k };
}

/* A = the field; unless it is k, the frame is refused. */
static void
need(struct prog *p, uint16_t size, int32_t off, uint32_t k)
{
	emit(p, BPF_LD | size | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + off));
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, k);
	emit(p, BPF_RET | BPF_K, 0, 0, 0);
}

/* The program for p's addresses (every request when all); false when
 * they are too many to list (then every request is kept, as the drain
 * sorts them out anyway). */
static bool
build(struct prog *pg, const struct pub *p, bool all)
{
	const struct pub_entry *e;
	size_t i, j, spans = 0;

	pg->n = 0;
	/* from this host, or to another host's MAC: not a request to us */
	emit(pg, BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE));
	emit(pg, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, PACKET_OTHERHOST);
	emit(pg, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, PACKET_OUTGOING);
	emit(pg, BPF_RET | BPF_K, 0, 0, 0);
	/* hrd 1 or 6 (arp.c's), IPv4, 6-byte and 4-byte addresses, a request */
	emit(pg, BPF_LD | BPF_H | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 0));
	emit(pg, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, ARPHRD_ETHER);
	emit(pg, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, ARPHRD_IEEE802);
	emit(pg, BPF_RET | BPF_K, 0, 0, 0);
	need(pg, BPF_H, 2, ETH_P_IP);
	need(pg, BPF_H, 4, 0x0604);
	need(pg, BPF_H, 6, ARPOP_REQUEST);
	/* sender = target: an announcement, never answered */
	emit(pg, BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 14));
	emit(pg, BPF_MISC | BPF_TAX, 0, 0, 0);
	emit(pg, BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 24));
	emit(pg, BPF_JMP | BPF_JEQ | BPF_X, 0, 1, 0);
	emit(pg, BPF_RET | BPF_K, 0, 0, 0);
	for (i = 0; p != NULL && i < pub_count(p); i++)
		spans += pub_at(p, i)->set.n;
	if (all || p == NULL || spans > HO_FILTER_SPANS) {
		emit(pg, BPF_RET | BPF_K, 0, 0, HO_SNAP);
		return all;
	}
	/* the target (A) in one of the spans */
	for (i = 0; i < pub_count(p); i++) {
		e = pub_at(p, i);
		for (j = 0; j < e->set.n; j++) {
			emit(pg, BPF_JMP | BPF_JGE | BPF_K, 0, 2, e->set.v[j].lo);
			emit(pg, BPF_JMP | BPF_JGT | BPF_K, 1, 0, e->set.v[j].hi);
			emit(pg, BPF_RET | BPF_K, 0, 0, HO_SNAP);
		}
	}
	emit(pg, BPF_RET | BPF_K, 0, 0, 0);
	return true;
}

/* ---------------------------------------------------------------------
 * The socket and systemd's store
 */

#ifdef HAVE_SYSTEMD
/* The socket, filtered (p's addresses, or every request when every) and
 * with its ring, bound to ARP: it receives nothing before both are in
 * place (protocol 0 until the bind).  *all: every request is kept. */
static int
ring_socket(const struct pub *p, bool every, bool *all)
{
	struct tpacket_req req = { HO_BLOCK, HO_BLOCKS, HO_SLOT, HO_SLOTS };
	struct sockaddr_ll sll = { 0 };
	struct sock_fprog fp;
	struct prog pg;
	int fd, v = TPACKET_V2;

	if ((fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	*all = !build(&pg, p, every) || every;
	fp = (struct sock_fprog){ (unsigned short)pg.n, pg.v };
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ARP);
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) == -1 ||
	    setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) == -1 ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) == -1 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) == -1) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
ho_keep(const struct pub *p)
{
	bool all;
	int fd, r;

	if (getenv("NOTIFY_SOCKET") == NULL || p == NULL || pub_count(p) == 0)
		return -1;
	if ((fd = ring_socket(p, false, &all)) == -1) {
		log_warn("handover socket");
		return -1;
	}
	/* systemd keeps a duplicate; ours closes at exit */
	r = sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=" HO_RING_NAME, &fd, 1);
	if (r <= 0) {
		log_debug("handover: no fd store (%s): published addresses are not "
		    "answered while arpownd restarts", r < 0 ? strerror(-r) : "not under systemd");
		close(fd);
		return -1;
	}
	log_debug("handover: a ring for %u requests kept in the fd store (%s)", HO_SLOTS,
	    all ? "every request: too many published spans to list" : "the published addresses");
	return fd;
}

int
ho_keep_for(int pid)
{
	bool all;
	int fd, r, e;

	if ((fd = ring_socket(NULL, true, &all)) == -1)
		return -1;
	/* as the main process: NotifyAccess=main; root may say so */
	r = sd_pid_notify_with_fds((pid_t)pid, 0, "FDSTORE=1\nFDNAME=" HO_ALL_NAME, &fd, 1);
	if (r <= 0) {
		e = r < 0 ? -r : ENOTCONN;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

/* The kind of the store's name, or HO_NONE. */
static enum ho_kind
kind_of(const char *name)
{
	if (strcmp(name, HO_RING_NAME) == 0)
		return HO_PUBLISHED;
	if (strcmp(name, HO_ALL_NAME) == 0)
		return HO_ALL;
	if (strcmp(name, HO_NAME) == 0)
		return HO_PLAIN;
	return HO_NONE;
}

static const char *
name_of(enum ho_kind k)
{
	return k == HO_ALL ? HO_ALL_NAME : k == HO_PLAIN ? HO_NAME : HO_RING_NAME;
}

int
ho_take(enum ho_kind *kind)
{
	char **names = NULL;
	int n, i, fd = -1;
	enum ho_kind k;

	*kind = HO_NONE;
	if ((n = sd_listen_fds_with_names(1, &names)) <= 0)
		return -1;
	/* systemd passes the store in the order it was filled: the last one
	 * is the previous run's; an older one (a run that failed before it
	 * took its own) holds requests long given up */
	for (i = n - 1; i >= 0; i--) {
		k = names != NULL ? kind_of(names[i]) : HO_NONE;
		if (fd == -1 && k != HO_NONE &&
		    sd_is_socket(SD_LISTEN_FDS_START + i, AF_PACKET, SOCK_RAW, -1) > 0) {
			fd = SD_LISTEN_FDS_START + i;
			*kind = k;
		} else
			close(SD_LISTEN_FDS_START + i);	/* nothing else is ours */
	}
	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
	return fd;
}

void
ho_release(int fd, enum ho_kind kind)
{
	if (fd == -1)
		return;
	(void)sd_notifyf(0, "FDSTOREREMOVE=1\nFDNAME=%s", name_of(kind));
	close(fd);
}
#else
int
ho_keep(const struct pub *p)
{
	(void)p;
	return -1;
}

int
ho_keep_for(int pid)
{
	(void)pid;
	return errno = ENOSYS, -1;
}

int
ho_take(enum ho_kind *kind)
{
	*kind = HO_NONE;
	return -1;
}

void
ho_release(int fd, enum ho_kind kind)
{
	(void)kind;
	if (fd != -1)
		close(fd);
}
#endif

/* ---------------------------------------------------------------------
 * The drain
 */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct drain {
	uint64_t	 before, now;
	ho_fn		*fn;
	void		*arg;
	struct ho_tally	*t;
};

/* One frame of len bytes from sll at ts: to fn as DLT_LINUX_SLL2, unless
 * it is the new capture's or too old. */
static void
one(struct drain *d, const uint8_t *frame, size_t len, const struct sockaddr_ll *sll,
    uint64_t ts)
{
	uint8_t pkt[ARP_SLL2_LEN + 64];
	uint32_t idx;

	d->t->frames++;
	/* the capture's, or given up by its sender */
	if (ts == 0 || ts >= d->before) {
		d->t->late++;
		return;
	}
	if (d->now > ts && d->now - ts > (uint64_t)(HO_MAX_AGE * 1e9)) {
		d->t->old++;
		return;
	}
	if (len < ETH_HLEN || sll->sll_hatype != ARPHRD_ETHER)
		return;
	/* as DLT_LINUX_SLL2: protocol, ifindex, hatype, pkttype, halen,
	 * the Ethernet source; then the ARP body */
	memset(pkt, 0, ARP_SLL2_LEN);
	memcpy(pkt, frame + 12, 2);
	idx = htonl((uint32_t)sll->sll_ifindex);
	memcpy(pkt + 4, &idx, 4);
	pkt[9] = ARPHRD_ETHER;
	pkt[10] = sll->sll_pkttype;
	pkt[11] = ETH_ALEN;
	memcpy(pkt + 12, frame + ETH_ALEN, ETH_ALEN);
	len -= ETH_HLEN;
	if (len > sizeof(pkt) - ARP_SLL2_LEN)
		len = sizeof(pkt) - ARP_SLL2_LEN;
	memcpy(pkt + ARP_SLL2_LEN, frame + ETH_HLEN, len);
	d->t->handed++;
	if (d->fn(pkt, ARP_SLL2_LEN + len, ts, d->arg))
		d->t->answered++;
}

/* The ring, in the order the kernel filled it: nobody handed a slot back,
 * so the frames run from slot 0 to the first still the kernel's. */
static void
drain_ring(int fd, struct drain *d)
{
	const size_t size = (size_t)HO_BLOCK * HO_BLOCKS;
	const struct tpacket2_hdr *h;
	uint8_t *base;
	size_t i;

	if ((base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		log_warn("handover: the kept ring");
		return;
	}
	for (i = 0; i < (size_t)HO_BLOCKS * (HO_BLOCK / HO_SLOT); i++) {	/* HO_SLOTS */
		h = (const void *)(base + (size_t)i * HO_SLOT);
		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			break;
		if (h->tp_mac + h->tp_snaplen > HO_SLOT)
			continue;
		one(d, (const uint8_t *)h + h->tp_mac, h->tp_snaplen,
		    (const void *)((const uint8_t *)h + TPACKET_ALIGN(sizeof(*h))),
		    (uint64_t)h->tp_sec * 1000000000u + h->tp_nsec);
	}
	munmap(base, size);
}

/* 0.1.0's plain socket, with its SO_TIMESTAMPNS. */
static void
drain_plain(int fd, struct drain *d)
{
	union {
		char		buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr	align;
	} cbuf;
	uint8_t frame[ETH_HLEN + 64];
	struct sockaddr_ll sll;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;
	struct timespec t;
	uint64_t ts;
	unsigned i;
	ssize_t r;

	for (i = 0; i < HO_SLOTS; i++) {
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
		one(d, frame, (size_t)r, &sll, ts);
	}
}

void
ho_drain(int fd, enum ho_kind kind, uint64_t before, ho_fn *fn, void *arg,
    struct ho_tally *tl)
{
	struct drain d = { before, now_ns(), fn, arg, tl };
	struct tpacket_stats ks;
	socklen_t len = sizeof(ks);

	memset(tl, 0, sizeof(*tl));
	if (fd == -1)
		return;
	if (kind == HO_PLAIN)
		drain_plain(fd, &d);
	else
		drain_ring(fd, &d);
	/* what the kernel could not queue, as it counted it (read once:
	 * reading resets it) */
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0) {
		tl->drops = ks.tp_drops;
		tl->stats = true;
	}
}
