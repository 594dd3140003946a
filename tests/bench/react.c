/* react.c — benchmark helper: how long after the kernel acknowledged an
 * address change does the responder start (or stop) answering for it?
 *
 * react HOSTNS IFINDEX CLIENTNS CLIENTIF ADDR/PLEN REPS
 *
 * The netlink socket is opened in HOSTNS and the packet socket in
 * CLIENTNS (setns between the two), so the add/delete is acknowledged on
 * one clock and the replies are timestamped on the same clock.  Between
 * changes the client asks every 20 us.  Prints
 *   add_us p50 X max Y del_us p50 X max Y
 * where add = first reply - ACK of RTM_NEWADDR and del = last reply -
 * ACK of RTM_DELADDR (0 when nothing came after the ACK). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
enter(const char *ns)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 || setns(fd, CLONE_NEWNET) == -1) {
		perror(path);
		exit(2);
	}
	close(fd);
}

static struct mnl_socket *nl;
static unsigned seq = 1;

static void
addr_change(int type, int ifindex, uint32_t addr, int plen)
{
	char buf[8192];		/* an ACK or an error fits */
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	int n;

	nlh->nlmsg_type = (uint16_t)type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
	    (type == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_EXCL : 0);
	nlh->nlmsg_seq = ++seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_index = (unsigned)ifindex;
	mnl_attr_put_u32(nlh, IFA_LOCAL, addr);
	mnl_attr_put_u32(nlh, IFA_ADDRESS, addr);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ||
	    (n = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf))) < 0 ||
	    mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), NULL, NULL) < 0) {
		perror("rtnetlink");
		exit(2);
	}
}

static int
cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	uint8_t req[42], rx[128], mac[6];
	struct sockaddr_ll sll = { 0 };
	uint64_t *add, *del, t, ack, end, last;
	uint32_t addr, sip;
	struct ifreq ifr;
	int fd, ifindex, cifindex, plen, reps, i;
	char *slash;

	if (argc != 7) {
		fprintf(stderr, "usage: react HOSTNS IFINDEX CLIENTNS CLIENTIF ADDR/PLEN REPS\n");
		return 2;
	}
	ifindex = atoi(argv[2]);
	reps = atoi(argv[6]);
	if ((slash = strchr(argv[5], '/')) == NULL)
		return 2;
	*slash = '\0';
	plen = atoi(slash + 1);
	inet_pton(AF_INET, argv[5], &addr);
	if ((add = calloc((size_t)reps, 8)) == NULL || (del = calloc((size_t)reps, 8)) == NULL)
		return 2;

	enter(argv[1]);
	if ((nl = mnl_socket_open(NETLINK_ROUTE)) == NULL ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 2;
	}
	enter(argv[3]);
	if ((fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ARP))) == -1) {
		perror("packet");
		return 2;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[4]);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) == -1)
		return 2;
	cifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == -1)
		return 2;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ARP);
	sll.sll_ifindex = cifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) == -1)
		return 2;
	inet_pton(AF_INET, "10.0.0.100", &sip);
	memset(req, 0xff, 6);
	memcpy(req + 6, mac, 6);
	memcpy(req + 12, "\x08\x06\x00\x01\x08\x00\x06\x04\x00\x01", 10);
	memcpy(req + 22, mac, 6);
	memcpy(req + 28, &sip, 4);
	memset(req + 32, 0, 6);
	memcpy(req + 38, &addr, 4);
	sll.sll_halen = 6;
	memset(sll.sll_addr, 0xff, 6);

#define IS_REPLY(n) ((n) >= 42 && rx[21] == 2 && memcmp(rx + 28, &addr, 4) == 0)
	for (i = 0; i < reps; i++) {
		addr_change(RTM_NEWADDR, ifindex, addr, plen);
		ack = now_ns();
		for (t = 0, end = ack + 100000000u; !t && now_ns() < end; ) {
			uint64_t next = now_ns() + 20000;
			ssize_t n;

			sendto(fd, req, 42, 0, (struct sockaddr *)&sll, sizeof(sll));
			while (now_ns() < next)
				while ((n = recv(fd, rx, sizeof(rx), 0)) > 0)
					if (IS_REPLY(n) && !t)
						t = now_ns();
		}
		add[i] = t ? t - ack : 100000000u;
		addr_change(RTM_DELADDR, ifindex, addr, plen);
		ack = now_ns();
		for (last = 0, end = ack + 20000000u; now_ns() < end; ) {
			uint64_t next = now_ns() + 20000;
			ssize_t n;

			sendto(fd, req, 42, 0, (struct sockaddr *)&sll, sizeof(sll));
			while (now_ns() < next)
				while ((n = recv(fd, rx, sizeof(rx), 0)) > 0)
					if (IS_REPLY(n))
						last = now_ns();
		}
		del[i] = last > ack ? last - ack : 0;
		usleep(2000);
	}
	qsort(add, (size_t)reps, 8, cmp);
	qsort(del, (size_t)reps, 8, cmp);
	printf("add_us p50 %.1f max %.1f del_us p50 %.1f max %.1f\n",
	    add[reps / 2] / 1e3, add[reps - 1] / 1e3, del[reps / 2] / 1e3, del[reps - 1] / 1e3);
	return 0;
}
