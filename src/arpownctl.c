/* arpownctl.c — ask the running arpownd over its control socket.  One
 * request per invocation; the reply's JSON is printed as is (--json) or
 * parsed with json-c into aligned columns.  Exit codes from sysexits.h:
 * the daemon's own ERR code, 69 when it is not running, 77 when the
 * socket refuses us, 75 when it does not answer in time. */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "ctl.h"
#include "ctlproto.h"
#include "ctlshow.h"
#include "statedir.h"

#define TIMEOUT_MS	10000	/* for the whole reply */

static const char *progname = "arpownctl";

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void
die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: arpownctl [--state-dir DIR] [--json] COMMAND [ARG ...] [OPTION ...]\n"
	    "Ask the running arpownd.\n"
	    "\n"
	    "commands (the first six for group %s; the others change arpownd,\n"
	    "for root and group %s):\n"
	    "  status                    version, uptime, mode, managed interfaces\n"
	    "  interfaces [IFACE]        every interface (or one), its sysctls and addresses\n"
	    "  counters [IFACE]          what was received, answered and refused\n"
	    "  conflicts                 other hosts claiming our addresses\n"
	    "  metrics                   the counters in Prometheus text format\n"
	    "  published [ADDR]          what is published (or what publishes ADDR)\n"
	    "  reload [-c FILE]          reread the configuration (fails on a bad file);\n"
	    "                            run as root, passes FILE (default %s)\n"
	    "  announce ADDR|IFACE       send gratuitous ARP for an address or interface\n"
	    "  publish ADDR[/LEN] IFACE [--force]\n"
	    "                            answer for addresses no interface holds, on IFACE\n"
	    "                            (a name, never a pattern; wider than /16: --force)\n"
	    "  withdraw ADDR[/LEN]       stop answering for what publish added\n"
	    "\n"
	    "  --state-dir DIR  where the daemon's control socket is (default %s)\n"
	    "  --json           print the daemon's JSON as it is\n"
	    "  -V, --version    print the version and exit\n"
	    "  -h, --help       print this help and exit\n",
	    CTL_GROUP, CTL_ADMIN_GROUP, CONF_DEFAULT_PATH, SDIR_DEFAULT_DIR);
}

/* ------------------------------------------------------------- the wire */

struct conn {
	int		 fd;
	const char	*path;
	char		 buf[CTLP_HEAD_MAX];	/* bytes read past a header */
	size_t		 have;
};

static int
ms_left(const struct timespec *end)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

static void
conn_open(struct conn *c, const char *dir)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static char path[sizeof(sun.sun_path) + 1];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, CTL_SOCKET) >=
	    sizeof(sun.sun_path))
		die(EX_USAGE, "%s/%s: too long for a socket's path", dir, CTL_SOCKET);
	c->path = path;
	c->have = 0;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		die(EX_OSERR, "socket: %s", strerror(errno));
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return;
	switch (errno) {
	case ENOENT:
		die(EX_UNAVAILABLE, "arpownd is not running: no control socket at %s", path);
	case ECONNREFUSED:
		die(EX_UNAVAILABLE, "arpownd is not running: nothing listens on %s", path);
	case EACCES:
	case EPERM:
		die(EX_NOPERM, "%s: permission denied (root, arpownd's user and the "
		    "members of group %s may connect: adduser USER %s, then log in again)",
		    path, CTL_GROUP, CTL_GROUP);
	case EAGAIN:
		die(EX_TEMPFAIL, "%s: arpownd is busy, try again", path);
	default:
		die(EX_UNAVAILABLE, "%s: %s", path, strerror(errno));
	}
}

/* Send line (and fd when not -1, SCM_RIGHTS) whole. */
static void
conn_send(struct conn *c, const char *line, int fd)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} cbuf;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;
	size_t off = 0, len = strlen(line);
	ssize_t w;

	while (off < len) {
		iov.iov_base = (char *)(uintptr_t)line + off;
		iov.iov_len = len - off;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (fd != -1 && off == 0) {
			memset(&cbuf, 0, sizeof(cbuf));
			mh.msg_control = cbuf.buf;
			mh.msg_controllen = sizeof(cbuf.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		} else {
			mh.msg_control = NULL;
			mh.msg_controllen = 0;
		}
		if ((w = sendmsg(c->fd, &mh, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			/* turned away (busy, not allowed) before the request was
			 * read: the reply saying why is there to be read */
			if (errno == EPIPE || errno == ECONNRESET)
				return;
			die(EX_IOERR, "%s: %s", c->path, strerror(errno));
		}
		off += (size_t)w;
	}
}

/* Read into p until len bytes are there (or until a newline when nl). */
static size_t
conn_read(struct conn *c, char *p, size_t len, bool nl, const struct timespec *end)
{
	struct pollfd pfd = { c->fd, POLLIN, 0 };
	size_t got = 0;
	ssize_t r;
	int n;

	while (got < len && !(nl && got > 0 && p[got - 1] == '\n')) {
		if ((n = poll(&pfd, 1, ms_left(end))) == -1 && errno == EINTR)
			continue;
		if (n == 0)
			die(EX_TEMPFAIL, "%s: no reply within %d s", c->path, TIMEOUT_MS / 1000);
		r = read(c->fd, p + got, nl ? 1 : len - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			die(EX_IOERR, "%s: %s", c->path, strerror(errno));
		if (r == 0)
			die(EX_PROTOCOL, "%s: arpownd closed the connection mid-reply", c->path);
		got += (size_t)r;
	}
	return got;
}

/* One reply: its header in h, its body malloc'd and NUL-terminated. */
static char *
conn_reply(struct conn *c, struct ctlp_head *h)
{
	struct timespec end;
	char head[CTLP_HEAD_MAX], *body;
	size_t n;

	memset(h, 0, sizeof(*h));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += TIMEOUT_MS / 1000;
	/* the header a byte at a time: it is short, and the body follows */
	n = conn_read(c, head, sizeof(head), true, &end);
	if (head[n - 1] != '\n' || ctlp_head_parse(head, n - 1, h) == -1)
		die(EX_PROTOCOL, "%s: not a reply of arpownd's protocol", c->path);
	if ((body = malloc(h->length + 1)) == NULL)
		die(EX_OSERR, "out of memory for a reply of %zu bytes", h->length);
	if (h->length > 0)
		conn_read(c, body, h->length, false, &end);
	body[h->length] = '\0';
	return body;
}

/* --------------------------------------------------------------- main */

/*
 * Root reloading passes the configuration file itself, which the daemon's
 * user may not be allowed to open (a 0600 file).  Its path is ours, never
 * the daemon's: the compiled-in one or -c's.  A daemon that says its
 * configuration is /etc/shadow (it runs unprivileged, and may be anyone's)
 * must not get an open descriptor of it from root.  Not followed through
 * a symbolic link, and only a regular file; -1 when there is none at the
 * default path (the daemon then reloads as it would on SIGHUP).
 */
static int
config_fd(const char *path, bool given)
{
	struct stat sb;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)) == -1) {
		if (errno == ENOENT && !given)
			return -1;
		die(errno == ELOOP ? EX_DATAERR : EX_NOINPUT, "%s: %s%s", path, strerror(errno),
		    errno == ELOOP ? " (a symbolic link: name the file itself with -c)" : "");
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		die(EX_DATAERR, "%s: not a regular file", path);
	return fd;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "state-dir",	required_argument,	NULL, 'S' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "force",	no_argument,		NULL, 'f' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = SDIR_DEFAULT_DIR, *conf = CONF_DEFAULT_PATH;
	char line[CTLP_LINE_MAX], err[256], *body;
	struct ctlp_head h;
	struct ctlp_req req;
	struct conn c;
	bool json = false, force = false, conf_given = false;
	size_t len = 0;
	int ch, i, fd = -1, code;

	/* options before or after the command: "arpownctl status --json" */
	while ((ch = getopt_long(argc, argv, "c:fjVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			dir = optarg;
			break;
		case 'c':
			conf = optarg;
			conf_given = true;
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			force = true;
			break;
		case 'V':
			printf("arpownctl %s\n", PACKAGE_VERSION);
			return EX_OK;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EX_USAGE;
	}
	for (i = optind; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 8 > sizeof(line))
			die(EX_USAGE, "the request is longer than %d bytes", CTLP_LINE_MAX - 1);
		memcpy(line + len, argv[i], n);
		len += n;
		line[len++] = ' ';
	}
	len--;
	if (force) {
		if (strcmp(argv[optind], "publish") != 0)
			die(EX_USAGE, "--force goes with publish");
		memcpy(line + len, " force", 6);
		len += 6;
	}
	if (conf_given && strcmp(argv[optind], "reload") != 0)
		die(EX_USAGE, "-c goes with reload");
	line[len++] = '\n';
	line[len] = '\0';
	/* the daemon checks too; checking here gives the usage error at once */
	if (memchr(line, '\n', len - 1) != NULL)
		die(EX_USAGE, "a newline in an argument");
	if ((i = ctlp_parse(line, len - 1, &req, err, sizeof(err))) != 0)
		die(i, "%s", err);
	if (req.cmd == CTLP_RELOAD && geteuid() == 0)
		fd = config_fd(conf, conf_given);
	conn_open(&c, dir);
	conn_send(&c, line, fd);
	body = conn_reply(&c, &h);
	close(c.fd);
	if (!h.ok) {
		char *p, *nl, *q;

		/* the message, a line each, made safe for a terminal */
		for (p = body; *p != '\0'; p = nl + 1) {
			if ((nl = strchr(p, '\n')) != NULL)
				*nl = '\0';
			q = show_safe(p);
			fprintf(stderr, "%s: %s\n", progname, q);
			free(q);
			if (nl == NULL)
				break;
		}
		free(body);
		return h.code;
	}
	code = EX_OK;
	if (json || strcmp(h.type, "json") != 0)
		show_raw(body, h.length);
	else
		code = show(ctlp_cmd_str(req.cmd), body, h.length);
	free(body);
	if (fflush(stdout) != 0 || ferror(stdout))
		return EX_IOERR;
	return code;
}
