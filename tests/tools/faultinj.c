/* faultinj.c — fault injection for the integration tests, by LD_PRELOAD,
 * so that the daemon carries no test hooks.  lib.sh's arpownd_start loads
 * it when ARPOWND_FAULTS is set; each fault is an ARPOWND_FAULT_* variable:
 *
 *   ARPOWND_FAULT_NLBUF=N     a netlink socket's receive buffer is N bytes
 *                             (provokes an event overrun cheaply)
 *   ARPOWND_FAULT_RESTORE=IF  the kernel "refuses" (EIO) any RTM_SETLINK
 *                             that sets interface IF's arp_ignore to
 *                             anything but 8: a restore that fails
 *   ARPOWND_FAULT_SWAPCTL=FILE right after the control socket is bound, its
 *                             path becomes a symbolic link to FILE: what
 *                             the user who owns the state directory could
 *                             do while root makes the socket in it
 *   ARPOWND_FAULT_STOP_AT8=1  the process stops itself (SIGSTOP) once the
 *                             first RTM_SETLINK setting an arp_ignore to 8
 *                             is sent: a start that hangs once it has
 *                             silenced the kernel on an interface
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
is_netlink(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    ss.ss_family == AF_NETLINK;
}

int
setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen)
{
	static int (*real)(int, int, int, const void *, socklen_t);
	const char *v = getenv("ARPOWND_FAULT_NLBUF");
	int sz;

	if (real == NULL)
		real = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT,
		    "setsockopt");
	if (v != NULL && level == SOL_SOCKET &&
	    (optname == SO_RCVBUF || optname == SO_RCVBUFFORCE) && is_netlink(fd)) {
		sz = atoi(v);
		return real(fd, level, optname, &sz, sizeof(sz));
	}
	return real(fd, level, optname, optval, optlen);
}

/* The nested attribute of type t in [p, end), or NULL. */
static const struct nlattr *
find(const char *p, const char *end, unsigned t)
{
	const struct nlattr *a;

	while (p + sizeof(*a) <= end) {
		a = (const struct nlattr *)(const void *)p;
		if (a->nla_len < sizeof(*a) || p + a->nla_len > end)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == t)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* Does the message in buf set an arp_ignore?  Its ifindex and value. */
static int
sets_ignore(const void *buf, size_t len, int *ifindex, uint32_t *v)
{
	const struct nlmsghdr *nlh = buf;
	const struct ifinfomsg *ifi;
	const struct nlattr *a;
	const char *p, *end;

	if (len < NLMSG_LENGTH(sizeof(*ifi)) || nlh->nlmsg_type != RTM_SETLINK ||
	    nlh->nlmsg_len > len)
		return 0;
	ifi = NLMSG_DATA(nlh);
	*ifindex = ifi->ifi_index;
	p = (const char *)buf + NLMSG_LENGTH(sizeof(*ifi));
	end = (const char *)buf + nlh->nlmsg_len;
	if ((a = find(p, end, IFLA_AF_SPEC)) == NULL ||
	    (a = find((const char *)(a + 1), (const char *)a + a->nla_len, AF_INET)) == NULL ||
	    (a = find((const char *)(a + 1), (const char *)a + a->nla_len, IFLA_INET_CONF)) == NULL ||
	    (a = find((const char *)(a + 1), (const char *)a + a->nla_len,
	    IPV4_DEVCONF_ARP_IGNORE)) == NULL || a->nla_len < sizeof(*a) + 4)
		return 0;
	memcpy(v, a + 1, 4);
	return 1;
}

ssize_t
sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
    socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *,
	    socklen_t);
	static int stopped;
	const char *ifname = getenv("ARPOWND_FAULT_RESTORE");
	const char *at8 = getenv("ARPOWND_FAULT_STOP_AT8");
	uint32_t v = 0;
	ssize_t r;
	int idx = 0, set;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t, int, const struct sockaddr *,
		    socklen_t))dlsym(RTLD_NEXT, "sendto");
	set = (ifname != NULL || at8 != NULL) && is_netlink(fd) && sets_ignore(buf, len, &idx, &v);
	if (set && ifname != NULL && idx == (int)if_nametoindex(ifname) && v != 8) {
		errno = EIO;
		return -1;
	}
	r = real(fd, buf, len, flags, to, tolen);
	if (set && at8 != NULL && v == 8 && r != -1 && !stopped) {
		stopped = 1;
		raise(SIGSTOP);
	}
	return r;
}

int
bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);
	const char *target = getenv("ARPOWND_FAULT_SWAPCTL");
	const struct sockaddr_un *sun = (const struct sockaddr_un *)(const void *)sa;
	const char *base;
	int r;

	if (real == NULL)
		real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	r = real(fd, sa, len);
	if (r == 0 && target != NULL && sa->sa_family == AF_UNIX && sun->sun_path[0] == '/' &&
	    (base = strrchr(sun->sun_path, '/')) != NULL && strcmp(base, "/control") == 0) {
		unlink(sun->sun_path);
		if (symlink(target, sun->sun_path) == -1)
			return -1;
	}
	return r;
}
