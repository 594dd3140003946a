/* arpownctl.c — ask the running arpownd over its control socket.  One
 * request per invocation; the reply's JSON is printed as is (--json) or
 * parsed with json-c into aligned columns.  Exit codes from sysexits.h:
 * the daemon's own ERR code, 69 when it is not running, 77 when the
 * socket refuses us, 75 when it does not answer in time. */
#include "config.h"

#include <sys/socket.h>
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

#include "ctl.h"
#include "ctlproto.h"
#include "jsonw.h"
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
	    "usage: arpownctl [--state-dir DIR] [--json] COMMAND [ARG ...]\n"
	    "Ask the running arpownd.\n"
	    "\n"
	    "commands:\n"
	    "  status                    version, uptime, mode, managed interfaces\n"
	    "  interfaces                every interface, its sysctls and addresses\n"
	    "  counters                  what was received, answered and refused\n"
	    "  conflicts                 other hosts claiming our addresses\n"
	    "  metrics                   the counters in Prometheus text format\n"
	    "  reload                    reread the configuration (fails on a bad file)\n"
	    "  announce ADDR|IFACE       send gratuitous ARP for an address or interface\n"
	    "  publish ADDR[/LEN] IFACE  answer for addresses no interface holds, on IFACE\n"
	    "  withdraw ADDR[/LEN]       stop answering for what publish added\n"
	    "  published                 what is published, by the file and at run time\n"
	    "\n"
	    "  --state-dir DIR  where the daemon's control socket is (default %s)\n"
	    "  --json           print the daemon's JSON as it is\n"
	    "  -V, --version    print the version and exit\n"
	    "  -h, --help       print this help and exit\n",
	    SDIR_DEFAULT_DIR);
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
		die(EX_NOPERM, "%s: permission denied (root, arpownd's user and group "
		    "%s may connect)", path, CTL_GROUP);
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

/* ------------------------------------------------------------ printing */

/* s for a terminal: printable ASCII and UTF-8 from U+00A0 as they are,
 * other bytes (controls, C1, what is not UTF-8) as \xHH: an interface
 * name may hold any of them. */
static char *
safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out = malloc(len * 4 + 1);

	if (out == NULL)
		die(EX_OSERR, "out of memory");
	while (i < len) {
		n = jw_utf8_len(p + i, len - i);
		if (n == 1 && p[i] >= 0x20 && p[i] < 0x7f) {
			out[o++] = (char)p[i++];
		} else if (n > 1 && !(n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", p[i]);
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/* Columns: cells of one row after another, widths from the widest. */
struct table {
	size_t	  ncol, n, cap;
	char	**cell;
};

static size_t
width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;	/* code points */
	return w;
}

static void
row(struct table *t, ...)
{
	va_list ap;
	size_t i;

	if (t->n + t->ncol > t->cap) {
		t->cap = (t->cap + t->ncol) * 2;
		if ((t->cell = realloc(t->cell, t->cap * sizeof(*t->cell))) == NULL)
			die(EX_OSERR, "out of memory");
		memset(t->cell + t->n, 0, (t->cap - t->n) * sizeof(*t->cell));
	}
	va_start(ap, t);
	for (i = 0; i < t->ncol; i++) {
		const char *s = va_arg(ap, const char *);

		if ((t->cell[t->n++] = safe(s != NULL ? s : "-")) == NULL)
			die(EX_OSERR, "out of memory");
	}
	va_end(ap);
}

static void
table_print(struct table *t)
{
	size_t w[16] = { 0 }, i, j, l;

	for (i = 0; i < t->n; i++)
		if ((l = width(t->cell[i])) > w[i % t->ncol])
			w[i % t->ncol] = l;
	for (i = 0; i < t->n; i += t->ncol) {
		for (j = 0; j < t->ncol; j++) {
			fputs(t->cell[i + j], stdout);
			if (j + 1 < t->ncol)
				printf("%*s", (int)(w[j] - width(t->cell[i + j]) + 2), "");
		}
		putchar('\n');
	}
	for (i = 0; i < t->cap && t->cell != NULL; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->n = t->cap = 0;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *
str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

static long long
num(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v != NULL ? json_object_get_int64(v) : 0;
}

static const char *
fmt(char buf[static 32], long long v)
{
	snprintf(buf, 32, "%lld", v);
	return buf;
}

static const char *
when(char buf[static 32], json_object *o, const char *key)
{
	json_object *v = get(o, key);
	time_t t;
	struct tm tm;

	if (v == NULL || json_object_is_type(v, json_type_null))
		return "never";
	t = (time_t)json_object_get_double(v);
	if (localtime_r(&t, &tm) == NULL || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return "?";
	return buf;
}

static const char *
duration(char buf[static 32], double s)
{
	long t = (long)s;

	if (t >= 86400)
		snprintf(buf, 32, "%ldd %02ldh %02ldm", t / 86400, t / 3600 % 24, t / 60 % 60);
	else if (t >= 3600)
		snprintf(buf, 32, "%ldh %02ldm %02lds", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, 32, "%ldm %02lds", t / 60, t % 60);
	return buf;
}

static void
show_status(json_object *o)
{
	json_object *cfg = get(o, "config"), *m = get(o, "managed"), *e;
	struct table t = { 5, 0, 0, NULL };
	char a[32], b[32], c[32];
	const char *path = str(cfg, "path");
	char *sp = safe(path != NULL ? path : "(built-in defaults)");
	size_t i;

	printf("arpownd %s, pid %lld, up %s (since %s)\n", str(o, "version"),
	    num(o, "pid"), duration(a, json_object_get_double(get(o, "uptime_seconds"))),
	    when(b, o, "started_at"));
	printf("mode:          %s\n", str(o, "mode"));
	printf("configuration: %s, loaded %s", sp, when(a, cfg, "loaded_at"));
	if (get(cfg, "last_reload_failure_at") != NULL &&
	    !json_object_is_type(get(cfg, "last_reload_failure_at"), json_type_null))
		printf(" (a reload was refused %s)", when(c, cfg, "last_reload_failure_at"));
	putchar('\n');
	free(sp);
	printf("interfaces:    %lld managed of %lld, %lld addresses\n",
	    num(o, "interfaces_managed"), num(o, "interfaces_known"), num(o, "addresses"));
	if (m == NULL || json_object_array_length(m) == 0)
		return;
	putchar('\n');
	row(&t, "INTERFACE", "IFINDEX", "MODE", "LINK", "ADDRESSES");
	for (i = 0; i < json_object_array_length(m); i++) {
		e = json_object_array_get_idx(m, i);
		row(&t, str(e, "name"), fmt(a, num(e, "ifindex")), str(e, "mode"),
		    json_object_get_boolean(get(e, "up")) ? "up" : "down",
		    fmt(b, num(e, "addresses")));
	}
	table_print(&t);
}

/* "8 (was 0)": the value now and what arpownd found before changing it. */
static const char *
sysctl_str(char buf[static 32], json_object *o)
{
	json_object *cur = get(o, "current"), *orig = get(o, "original");

	if (cur == NULL || json_object_is_type(cur, json_type_null))
		return "?";
	if (orig == NULL || json_object_is_type(orig, json_type_null))
		snprintf(buf, 32, "%d", json_object_get_int(cur));
	else
		snprintf(buf, 32, "%d (was %d)", json_object_get_int(cur),
		    json_object_get_int(orig));
	return buf;
}

static void
show_interfaces(json_object *o)
{
	json_object *v = get(o, "interfaces"), *e, *as, *ad;
	struct table t = { 9, 0, 0, NULL };
	char a[32], b[32], c[32];
	char *addrs;
	size_t i, j, len;

	row(&t, "INTERFACE", "IFINDEX", "MAC", "LINK", "MANAGED", "MODE", "ARP_IGNORE",
	    "ARP_ANNOUNCE", "ADDRESSES");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		as = get(e, "addresses");
		len = 1;
		for (j = 0; as != NULL && j < json_object_array_length(as); j++)
			len += 24;
		if ((addrs = calloc(1, len)) == NULL)
			die(EX_OSERR, "out of memory");
		for (j = 0; as != NULL && j < json_object_array_length(as); j++) {
			ad = json_object_array_get_idx(as, j);
			snprintf(addrs + strlen(addrs), len - strlen(addrs), "%s%s/%lld",
			    j ? "," : "", str(ad, "address"), num(ad, "prefixlen"));
		}
		row(&t, str(e, "name"), fmt(a, num(e, "ifindex")), str(e, "mac"),
		    json_object_get_boolean(get(e, "up")) ? "up" : "down",
		    json_object_get_boolean(get(e, "managed")) ? "yes" : "no",
		    str(e, "mode"), sysctl_str(b, get(e, "arp_ignore")),
		    sysctl_str(c, get(e, "arp_announce")), addrs[0] ? addrs : "-");
		free(addrs);
	}
	table_print(&t);
}

static long long
sum(json_object *o)
{
	long long s = 0;

	json_object_object_foreach(o, k, v) {
		(void)k;
		s += json_object_get_int64(v);
	}
	return s;
}

static void
counter_row(struct table *t, const char *name, json_object *e)
{
	json_object *rl = get(e, "rate_limited"), *vd = get(e, "verdicts");
	char a[32], b[32], c[32], d[32], f[32], g[32], h[32];

	row(t, name, fmt(a, num(e, "received")), fmt(b, num(e, "answered")),
	    fmt(c, sum(get(e, "refused"))),
	    fmt(d, sum(vd) - num(vd, "answered")),
	    fmt(f, num(rl, "sender") + num(rl, "total")),
	    fmt(g, num(e, "conflicts")),
	    fmt(h, num(e, "announcements")));
}

/* The reasons and verdicts that counted something, one row each. */
static void
detail_rows(struct table *t, const char *name, json_object *e)
{
	static const char *const kinds[][2] = {
		{ "refused", "invalid" }, { "verdicts", "not answered" },
		{ "would_refuse", "would refuse" }, { "rate_limited", "rate-limited" },
	};
	char a[32];
	size_t i;

	for (i = 0; i < 4; i++) {
		json_object_object_foreach(get(e, kinds[i][0]), k, v) {
			if (json_object_get_int64(v) == 0 ||
			    (i == 1 && strcmp(k, "answered") == 0))
				continue;
			row(t, name, kinds[i][1], k, fmt(a, json_object_get_int64(v)));
		}
	}
}

static void
show_counters(json_object *o)
{
	json_object *v = get(o, "interfaces"), *all = get(o, "all"), *dm = get(o, "daemon");
	struct table t = { 8, 0, 0, NULL };
	size_t i;

	row(&t, "INTERFACE", "RECEIVED", "ANSWERED", "INVALID", "NOT-ANSWERED",
	    "RATE-LIMITED", "CONFLICTS", "ANNOUNCED");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++)
		counter_row(&t, str(json_object_array_get_idx(v, i), "name"),
		    json_object_array_get_idx(v, i));
	counter_row(&t, "(all)", all);
	table_print(&t);
	t.ncol = 4;
	row(&t, "INTERFACE", "KIND", "REASON", "COUNT");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++)
		detail_rows(&t, str(json_object_array_get_idx(v, i), "name"),
		    json_object_array_get_idx(v, i));
	detail_rows(&t, "(all)", all);
	/* the header alone when nothing was refused: not worth a table */
	if (t.n > t.ncol)
		putchar('\n');
	else
		t.n = 0;
	table_print(&t);
	printf("\ndaemon: send errors %lld, capture errors %lld, capture drops %lld, "
	    "learned %lld, re-dumps %lld, conflicts not logged %lld\n",
	    num(dm, "send_errors"), num(dm, "capture_errors"), num(dm, "capture_drops"),
	    num(dm, "learned"), num(dm, "resyncs"), num(dm, "conflicts_unlogged"));
}

static void
show_conflicts(json_object *o)
{
	json_object *v = get(o, "conflicts"), *e;
	struct table t = { 6, 0, 0, NULL };
	char a[32], b[32], c[32];
	size_t i;

	if (v == NULL || json_object_array_length(v) == 0) {
		printf("no conflicts seen\n");
		return;
	}
	row(&t, "ADDRESS", "INTERFACE", "CLAIMED BY", "FIRST SEEN", "LAST SEEN", "COUNT");
	for (i = 0; i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		row(&t, str(e, "address"), str(e, "interface"), str(e, "mac"),
		    when(a, e, "first_seen"), when(b, e, "last_seen"),
		    fmt(c, num(e, "count")));
	}
	table_print(&t);
}

static void
show_published(json_object *o)
{
	json_object *v = get(o, "published"), *e, *rs, *r;
	struct table t = { 5, 0, 0, NULL };
	char a[32], *ranges;
	size_t i, j, len;

	if (v == NULL || json_object_array_length(v) == 0) {
		printf("nothing published\n");
		return;
	}
	row(&t, "LABEL", "INTERFACE", "MAC", "ADDRESSES", "RANGES");
	for (i = 0; i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		rs = get(e, "ranges");
		len = 1 + (rs != NULL ? json_object_array_length(rs) * 34 : 0);
		if ((ranges = calloc(1, len)) == NULL)
			die(EX_OSERR, "out of memory");
		for (j = 0; rs != NULL && j < json_object_array_length(rs); j++) {
			r = json_object_array_get_idx(rs, j);
			snprintf(ranges + strlen(ranges), len - strlen(ranges), "%s%s%s%s",
			    j ? "," : "", str(r, "first"),
			    strcmp(str(r, "first"), str(r, "last")) ? "-" : "",
			    strcmp(str(r, "first"), str(r, "last")) ? str(r, "last") : "");
		}
		row(&t, json_object_get_boolean(get(e, "runtime")) ? "(runtime)" : str(e, "label"),
		    str(e, "interface"), str(e, "mac") ? str(e, "mac") : "(the interface's)",
		    fmt(a, num(e, "addresses")), ranges);
		free(ranges);
	}
	table_print(&t);
}

static void
show(const char *cmd, const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	if (tok == NULL)
		die(EX_OSERR, "out of memory");
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (o == NULL || !json_object_is_type(o, json_type_object))
		die(EX_PROTOCOL, "the daemon's reply is not JSON: %s",
		    json_tokener_error_desc(json_tokener_get_error(tok)));
	if (strcmp(cmd, "status") == 0)
		show_status(o);
	else if (strcmp(cmd, "interfaces") == 0)
		show_interfaces(o);
	else if (strcmp(cmd, "counters") == 0)
		show_counters(o);
	else if (strcmp(cmd, "conflicts") == 0)
		show_conflicts(o);
	else if (strcmp(cmd, "reload") == 0) {
		char *p = safe(str(o, "config") ? str(o, "config") : "(built-in defaults)");

		printf("reloaded %s\n", p);
		free(p);
	} else if (strcmp(cmd, "announce") == 0) {
		char *a = safe(str(o, "address") ? str(o, "address") : "every address");
		char *i = safe(str(o, "interface") ? str(o, "interface") :
		    "the interfaces publishing it");

		printf("announcing %s from %s\n", a, i);
		free(a);
		free(i);
	} else if (strcmp(cmd, "publish") == 0 || strcmp(cmd, "withdraw") == 0) {
		char *a = safe(str(o, "address") ? str(o, "address") : "?");

		if (strcmp(cmd, "publish") == 0) {
			char *i = safe(str(o, "interface") ? str(o, "interface") : "?");

			printf("published %s on %s\n", a, i);
			free(i);
		} else
			printf("withdrew %s\n", a);
		free(a);
	} else if (strcmp(cmd, "published") == 0)
		show_published(o);
	else
		fwrite(body, 1, len, stdout);
	json_object_put(o);
	json_tokener_free(tok);
}

/* --------------------------------------------------------------- main */

/* Root reloading: pass the file itself, which the daemon's user may not
 * be allowed to open (a 0600 configuration); its path comes from status. */
static int
config_fd(struct conn *c)
{
	struct ctlp_head h;
	json_object *o;
	const char *path;
	char *body;
	int fd = -1;

	conn_send(c, "status\n", -1);
	body = conn_reply(c, &h);
	if (h.ok && (o = json_tokener_parse(body)) != NULL) {
		if ((path = str(get(o, "config"), "path")) != NULL)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		json_object_put(o);
	}
	free(body);
	return fd;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "state-dir",	required_argument,	NULL, 'S' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = SDIR_DEFAULT_DIR;
	char line[CTLP_LINE_MAX], err[256], *body;
	struct ctlp_head h;
	struct ctlp_req req;
	struct conn c;
	bool json = false;
	size_t len = 0;
	int ch, i, fd = -1;

	while ((ch = getopt_long(argc, argv, "+jVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			dir = optarg;
			break;
		case 'j':
			json = true;
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

		if (len + n + 2 > sizeof(line))
			die(EX_USAGE, "the request is longer than %d bytes", CTLP_LINE_MAX - 1);
		memcpy(line + len, argv[i], n);
		len += n;
		line[len++] = i + 1 < argc ? ' ' : '\n';
	}
	line[len] = '\0';
	/* the daemon checks too; checking here gives the usage error at once */
	if (memchr(line, '\n', len - 1) != NULL)
		die(EX_USAGE, "a newline in an argument");
	if ((i = ctlp_parse(line, len - 1, &req, err, sizeof(err))) != 0)
		die(i, "%s", err);
	conn_open(&c, dir);
	if (req.cmd == CTLP_RELOAD && geteuid() == 0)
		fd = config_fd(&c);
	conn_send(&c, line, fd);
	body = conn_reply(&c, &h);
	close(c.fd);
	if (!h.ok) {
		char *p, *nl, *q;

		/* the message, a line each, made safe for a terminal */
		for (p = body; *p != '\0'; p = nl + 1) {
			if ((nl = strchr(p, '\n')) != NULL)
				*nl = '\0';
			q = safe(p);
			fprintf(stderr, "%s: %s\n", progname, q);
			free(q);
			if (nl == NULL)
				break;
		}
		free(body);
		return h.code;
	}
	if (json || strcmp(h.type, "json") != 0)
		fwrite(body, 1, h.length, stdout);
	else
		show(ctlp_cmd_str(req.cmd), body, h.length);
	free(body);
	if (fflush(stdout) != 0 || ferror(stdout))
		return EX_IOERR;
	return EX_OK;
}
