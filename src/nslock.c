/* nslock.c — one arpownd per network namespace.  Two, with two state
 * directories, would both answer every request, and the second would
 * record the first's 8 as an original.
 *
 * The lock is an abstract AF_UNIX name, "@arpownd": abstract names live
 * in the network namespace (a file would be per mount namespace and per
 * state directory, and outlive a killed process), and go with the
 * process, so a killed daemon never leaves it held (one per socket type:
 * a datagram socket, as ever).  But any local user may bind any abstract
 * name: a name alone is no lock.  So a holder counts only when it is an
 * arpownd's by its credentials: its socket root's (a daemon started as
 * root binds it before it drops root, and a socket keeps its creator's
 * uid) or our own user's (under the unit, the daemon and its --restore
 * run as the user arpownd), or its process holding CAP_NET_ADMIN in the
 * user namespace that owns this network namespace, which an arpownd
 * cannot run without and a local user has not (in a user namespace of
 * his own, "unshare -U -r", he holds every capability, over nothing of
 * ours: /proc/PID/status does not say which namespace they are for);
 * held as the socket's user (every uid of the process its, no setuid
 * program) and not gained at an exec (AT_SECURE: a setuid program, or
 * file capabilities as gst-ptp-helper's, which a user may run with the
 * name's socket kept open).  Whose a
 * socket is comes from the kernel through sock_diag (UNIX_DIAG_UID,
 * Linux 5.3), which the holder cannot refuse to answer, unlike
 * SO_PEERCRED, whose connect a full backlog (a stopped daemon's, or a
 * squatter's own) leaves hanging; its process from /proc/PID/fd.
 *
 * A squat on "@arpownd" is named and passed by: the lock is then
 * "@arpownd.<random>", and every taker, under either name, looks for
 * another arpownd's name of the two forms after it bound its own, and
 * gives way when there is one.  Two that start at the same moment during
 * a squat may then both give way (each sees the other): never both run.
 */
#include "config.h"

#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/ioctl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nslock.h"

#define NAME		"arpownd"
#define NAME_LEN	(sizeof(NAME) - 1)
#define MAX_SEEN	4096	/* sockets of other users looked at, at most */

/* One socket with one of our names. */
struct seen {
	unsigned long	ino;
	long		uid;
	long		pid;
	char		name[32];
};

struct scan {
	unsigned long	 self;		/* our own socket: skipped */
	unsigned long	 userns;	/* the user namespace owning ours (0: unknown) */
	bool		 canon_only;	/* only "@arpownd" itself */
	struct seen	*v;
	size_t		 n, cap;
};

/* Is the abstract name n (len bytes, n[0] = 0) one of ours? */
static bool
our_name(const char *n, size_t len, bool canon_only)
{
	if (len < 1 + NAME_LEN || n[0] != '\0' || memcmp(n + 1, NAME, NAME_LEN) != 0)
		return false;
	if (len == 1 + NAME_LEN)
		return true;
	return !canon_only && len > 2 + NAME_LEN && n[1 + NAME_LEN] == '.';
}

static int
diag_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct unix_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct scan *s = data;
	const struct nlattr *a;
	const char *name = NULL;
	struct seen *w;
	size_t len = 0, i, k = 0;
	long uid = -1;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*m))
		return MNL_CB_ERROR;
	mnl_attr_for_each(a, nlh, sizeof(*m)) {
		if (mnl_attr_get_type(a) == UNIX_DIAG_NAME) {
			name = mnl_attr_get_payload(a);
			len = mnl_attr_get_payload_len(a);
		} else if (mnl_attr_get_type(a) == UNIX_DIAG_UID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			uid = (long)mnl_attr_get_u32(a);
	}
	if (name == NULL || m->udiag_ino == s->self || !our_name(name, len, s->canon_only))
		return MNL_CB_OK;
	if (s->n == s->cap && s->cap < MAX_SEEN &&
	    (w = realloc(s->v, (s->cap ? 2 * s->cap : 8) * sizeof(*w))) != NULL) {
		s->v = w;
		s->cap = s->cap ? 2 * s->cap : 8;
	}
	if (s->n < s->cap)
		w = &s->v[s->n++];
	else if (s->cap > 0 && (uid <= 0 || (uid_t)uid == geteuid()))
		w = &s->v[s->cap - 1];	/* full (a user's thousands): keep what is sure */
	else
		return MNL_CB_OK;
	w->ino = m->udiag_ino;
	w->uid = uid;
	w->pid = 0;
	w->name[k++] = '@';
	for (i = 1; i < len && k < sizeof(w->name) - 1; i++)
		w->name[k++] = (char)(name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?');
	w->name[k] = '\0';
	return MNL_CB_OK;
}

/* Every AF_UNIX socket of this network namespace with one of our names
 * into s; 0, or -1 when the kernel cannot tell (no unix_diag). */
static int
scan(struct scan *s)
{
	char buf[32768];	/* a dump message: at most a page or two */
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct unix_diag_req *req;
	unsigned seq, portid;
	ssize_t n;
	int r = MNL_CB_OK, e;

	s->n = 0;
	if ((nl = mnl_socket_open2(NETLINK_SOCK_DIAG, SOCK_CLOEXEC)) == NULL)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) == -1)
		goto fail;
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq = 1;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = AF_UNIX;
	req->udiag_states = ~0u;
	req->udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_UID;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto fail;
	while (r > MNL_CB_STOP) {
		if ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) <= 0)
			goto fail;
		r = mnl_cb_run(buf, (size_t)n, seq, portid, diag_cb, s);
	}
	if (r == MNL_CB_ERROR)
		goto fail;
	mnl_socket_close(nl);
	return 0;
fail:
	e = errno;
	mnl_socket_close(nl);
	errno = e;
	return -1;
}

/* The processes holding the sockets of s (a /proc this process may read
 * whole: root's, not the unit's ProtectProc=invisible). */
static void
pids_of(struct scan *s)
{
	char path[64], link[48], *end;
	struct dirent *p, *f;
	unsigned long ino;
	DIR *dp, *df;
	size_t i;
	ssize_t n;

	if (s->n == 0 || (dp = opendir("/proc")) == NULL)
		return;
	while ((p = readdir(dp)) != NULL) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9' ||
		    strspn(p->d_name, "0123456789") != strlen(p->d_name) || strlen(p->d_name) > 20)
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/fd", p->d_name);
		if ((df = opendir(path)) == NULL)
			continue;
		while ((f = readdir(df)) != NULL) {
			if (f->d_name[0] == '.')
				continue;
			if ((n = readlinkat(dirfd(df), f->d_name, link, sizeof(link) - 1)) <= 0)
				continue;
			link[n] = '\0';
			if (strncmp(link, "socket:[", 8) != 0)
				continue;
			errno = 0;
			ino = strtoul(link + 8, &end, 10);
			if (errno != 0 || strcmp(end, "]") != 0)
				continue;
			for (i = 0; i < s->n; i++)
				if (s->v[i].ino == ino && s->v[i].pid == 0)
					s->v[i].pid = strtol(p->d_name, NULL, 10);
		}
		closedir(df);
	}
	closedir(dp);
}

/* The user namespace that owns this network namespace (its inode), or 0. */
static unsigned long
owner_userns(void)
{
	struct stat sb;
	int nfd, ufd;
	unsigned long ino = 0;

	if ((nfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if ((ufd = ioctl(nfd, NS_GET_USERNS)) != -1) {
		if (fstat(ufd, &sb) == 0)
			ino = (unsigned long)sb.st_ino;
		close(ufd);
	}
	close(nfd);
	return ino;
}

/* Did process pid gain privilege at its last exec (a setuid or setgid
 * program, file capabilities: AT_SECURE in its auxiliary vector)?  A
 * daemon given its capabilities by its parent (the unit's ambient ones)
 * did not.  Unreadable: taken as yes. */
static bool
exec_gained(long pid)
{
	unsigned long v[2];
	char path[64];
	bool yes = true;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/auxv", pid);
	if ((f = fopen(path, "re")) == NULL)
		return true;
	while (fread(v, sizeof(v), 1, f) == 1 && v[0] != AT_NULL)
		if (v[0] == AT_SECURE) {
			yes = v[1] != 0;
			break;
		}
	fclose(f);
	return yes;
}

/* Does process pid, whose every uid is uid, hold CAP_NET_ADMIN
 * (effective) in user namespace userns, and not by an exec that gained
 * it?  A user's socket kept across an exec of su (euid 0, every
 * capability while it waits for a password) or of a program with file
 * capabilities is no arpownd's.  Read by hand: libcap-ng's process
 * reading is global state, which priv.c owns. */
static bool
net_admin(long pid, long uid, unsigned long userns)
{
	char path[64], line[128], *p, *end;
	unsigned long long eff;
	struct stat sb;
	bool caps = false, uids = false;
	long u;
	int i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/ns/user", pid);
	if (pid <= 0 || uid < 0 || userns == 0 || stat(path, &sb) == -1 ||
	    (unsigned long)sb.st_ino != userns)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Uid:", 4) == 0) {
			/* real, effective, saved, filesystem: all the socket's */
			for (i = 0, p = line + 4; i < 4; i++, p = end) {
				errno = 0;
				u = strtol(p, &end, 10);
				if (errno != 0 || end == p || u != uid)
					break;
			}
			uids = i == 4;
		} else if (strncmp(line, "CapEff:", 7) == 0) {
			errno = 0;
			eff = strtoull(line + 7, &end, 16);
			caps = errno == 0 && end != line + 7 && ((eff >> CAP_NET_ADMIN) & 1);
			break;
		}
	fclose(f);
	return uids && caps && !exec_gained(pid);
}

/* An arpownd's socket (or one the kernel does not say whose: taken for
 * one, as a name alone was before)? */
static bool
arpownd_s(const struct seen *w, unsigned long userns)
{
	return w->uid <= 0 || (uid_t)w->uid == geteuid() || net_admin(w->pid, w->uid, userns);
}

/* The first arpownd's socket of s into holder (true), or the first
 * other into squat. */
static bool
classify(struct scan *s, struct nsl_who *holder, struct nsl_who *squat)
{
	const struct seen *w;
	size_t i;

	pids_of(s);
	for (i = 0; i < s->n; i++) {
		w = &s->v[i];
		if (arpownd_s(w, s->userns)) {
			*holder = (struct nsl_who){ true, w->pid, w->uid, "" };
			memcpy(holder->name, w->name, sizeof(holder->name));
			return true;
		}
		if (squat != NULL && !squat->found) {
			*squat = (struct nsl_who){ true, w->pid, w->uid, "" };
			memcpy(squat->name, w->name, sizeof(squat->name));
		}
	}
	return false;
}

/* Bind fd to the abstract name NAME, or NAME.<16 hex digits> (random). */
static int
bind_name(int fd, bool random)
{
	struct sockaddr_un sun;
	unsigned char r[8];
	size_t len = 1 + NAME_LEN, i;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, NAME, NAME_LEN);	/* sun_path[0] = 0 */
	if (random) {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		sun.sun_path[len++] = '.';
		for (i = 0; i < sizeof(r); i++, len += 2)
			snprintf(sun.sun_path + len, 3, "%02x", r[i]);
	}
	return bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
}

const char *
nsl_pid(const struct nsl_who *w, char *buf, size_t len)
{
	if (w->pid <= 0)
		return "unknown";
	snprintf(buf, len, "%ld", w->pid);
	return buf;
}

int
nsl_take(struct nsl_who *holder, struct nsl_who *squat)
{
	struct scan s;
	struct stat sb;
	int fd, e;

	memset(holder, 0, sizeof(*holder));
	memset(squat, 0, sizeof(*squat));
	memset(&s, 0, sizeof(s));
	s.userns = owner_userns();
	/* a datagram socket, as the versions before (an abstract name is
	 * per socket type: they see it), shut for reading: a datagram sent
	 * to it is refused (EPIPE), nothing queues on it */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (bind_name(fd, false) == -1) {
		if (errno != EADDRINUSE)
			goto fail;
		s.canon_only = true;
		if (scan(&s) == -1) {
			errno = EADDRINUSE;	/* cannot tell whose: as before */
			goto fail;
		}
		if (classify(&s, holder, squat)) {
			errno = EADDRINUSE;
			goto fail;
		}
		if (!squat->found) {
			/* its holder went meanwhile */
			if (bind_name(fd, false) == 0)
				goto bound;
			errno = EADDRINUSE;
			goto fail;
		}
		if (bind_name(fd, true) == -1 && (errno != EADDRINUSE || bind_name(fd, true) == -1))
			goto fail;
	}
bound:
	/* another arpownd under either name: give way */
	if (shutdown(fd, SHUT_RD) == -1 || fstat(fd, &sb) == -1)
		goto fail;
	s.self = (unsigned long)sb.st_ino;
	s.canon_only = false;
	if (scan(&s) == 0 && classify(&s, holder, NULL)) {
		errno = EADDRINUSE;
		goto fail;
	}
	free(s.v);
	return fd;
fail:
	e = errno;
	free(s.v);
	close(fd);
	errno = e;
	return -1;
}
