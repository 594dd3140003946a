/* log.c — one log API for the whole daemon.  Under systemd the journal
 * gets structured fields (IFNAME, ADDR, SENDER_IP, SENDER_MAC, MESSAGE_ID)
 * so that "journalctl -u arpownd IFNAME=eth1" works; elsewhere stderr, each
 * line prefixed with its syslog priority as <N> (sd-daemon(3) convention)
 * or, on a terminal, with the priority's name. */
#include "config.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
/* the location fields are the caller's, passed in: not this file's */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#endif

#include "log.h"
#include "util.h"

/* A formatted message; log_text carries longer ones (a SIGUSR1 document). */
#define LOG_MSG_MAX	4096

static int	log_level = LOG_INFO;
static bool	log_pinned;	/* -d: the level stays debug */
static int	log_journal;	/* stderr is connected to the journal */
static int	log_tty;
static bool	log_command;	/* a command, not the daemon: no <N> prefixes */

static const char *const prio_names[] = {
	"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"
};

/* JOURNAL_STREAM is "dev:ino" of the journal's stream socket: only when it
 * is our stderr (not inherited by a child with redirected output) is the
 * journal really listening.  See systemd.exec(5). */
static int
stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat sb;
	char *end;

	if (e == NULL)
		return 0;
	errno = 0;
	dev = strtoull(e, &end, 10);
	if (errno != 0 || end == e || *end != ':')
		return 0;
	e = end + 1;
	ino = strtoull(e, &end, 10);
	if (errno != 0 || end == e || *end != '\0')
		return 0;
	if (fstat(STDERR_FILENO, &sb) == -1)
		return 0;
	return (unsigned long long)sb.st_dev == dev &&
	    (unsigned long long)sb.st_ino == ino;
}

void
log_init(int level, bool debug_stderr)
{
	log_level = debug_stderr ? LOG_DEBUG : level;
	log_pinned = debug_stderr;
	log_journal = !debug_stderr && stderr_is_journal();
	log_tty = isatty(STDERR_FILENO);
}

void
log_command_mode(void)
{
	/* a script that runs a command (keepalived's notify) reads plain
	 * lines; only the daemon's stderr speaks sd-daemon's <N> */
	log_command = true;
}

void
log_setlevel(int level)
{
	if (!log_pinned)
		log_level = level;
}

bool
log_enabled(int prio)
{
	return prio <= log_level;
}

const char *
log_ip(uint32_t addr)
{
	static char buf[4][INET_ADDRSTRLEN];
	static unsigned i;

	i = (i + 1) % 4;
	inet_ntop(AF_INET, &addr, buf[i], sizeof(buf[i]));
	return buf[i];
}

static void
emit(const struct log_loc *loc, int prio, const struct log_ctx *ctx, const char *msg)
{
#ifdef HAVE_SYSTEMD
	if (log_journal) {
		char f[11][128], mbuf[LOG_MSG_MAX + 16], mac[UTIL_MAC_STRLEN], *m = mbuf;
		size_t ml = strlen(msg) + sizeof("MESSAGE=");
		struct iovec iov[11];
		int n = 0, i, r;

		/* a document of any size is one entry: the journal takes
		 * large fields (it passes them in a memfd) */
		if (ml > sizeof(mbuf) && (m = malloc(ml)) == NULL)
			m = mbuf;
		snprintf(m, m == mbuf ? sizeof(mbuf) : ml, "MESSAGE=%s", msg);
		n++;
		snprintf(f[n++], sizeof(f[0]), "PRIORITY=%d", prio & 7);
		snprintf(f[n++], sizeof(f[0]), "SYSLOG_IDENTIFIER=arpownd");
		if (ctx && ctx->msgid)
			snprintf(f[n++], sizeof(f[0]), "MESSAGE_ID=%s", ctx->msgid);
		if (ctx && ctx->ifname)
			snprintf(f[n++], sizeof(f[0]), "IFNAME=%s", ctx->ifname);
		if (ctx && ctx->addr)
			snprintf(f[n++], sizeof(f[0]), "ADDR=%s", log_ip(ctx->addr));
		if (ctx && ctx->sip)
			snprintf(f[n++], sizeof(f[0]), "SENDER_IP=%s", log_ip(ctx->sip));
		if (ctx && ctx->smac)
			snprintf(f[n++], sizeof(f[0]), "SENDER_MAC=%s",
			    util_mac_str(ctx->smac, mac));
		snprintf(f[n++], sizeof(f[0]), "CODE_FILE=%s", loc->file);
		snprintf(f[n++], sizeof(f[0]), "CODE_LINE=%d", loc->line);
		snprintf(f[n++], sizeof(f[0]), "CODE_FUNC=%s", loc->func);
		for (i = 0; i < n; i++) {
			iov[i].iov_base = i == 0 ? m : f[i];
			iov[i].iov_len = strlen(iov[i].iov_base);
		}
		r = sd_journal_sendv(iov, n);
		if (m != mbuf)
			free(m);
		if (r >= 0)
			return;
	}
#else
	(void)ctx;
	(void)loc;
#endif
	if (log_tty || log_command)
		fprintf(stderr, "arpownd: %s: %s\n", prio_names[prio & 7], msg);
	else
		fprintf(stderr, "<%d>%s\n", prio & 7, msg);
}

/* The same warning at most once per LOG_RL_INTERVAL seconds, in bounded
 * memory: a flapping link or a flood must not flood the journal. */
#define LOG_RL_SLOTS	64
#define LOG_RL_INTERVAL	10

static struct {
	time_t		last;
	uint32_t	hash;
	unsigned	suppressed;
} log_rl[LOG_RL_SLOTS];

/* 0: drop this one; else log it, with *suppressed told how many were dropped. */
static int
ratelimit(const char *msg, unsigned *suppressed)
{
	uint32_t h = util_fnv1a(UTIL_FNV1A_INIT, msg, strlen(msg));
	struct timespec ts;
	int i = (int)(h % LOG_RL_SLOTS);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (log_rl[i].hash == h && ts.tv_sec - log_rl[i].last < LOG_RL_INTERVAL) {
		log_rl[i].suppressed++;
		return 0;
	}
	*suppressed = log_rl[i].hash == h ? log_rl[i].suppressed : 0;
	log_rl[i].hash = h;
	log_rl[i].last = ts.tv_sec;
	log_rl[i].suppressed = 0;
	return 1;
}

static void vlog(const struct log_loc *loc, int prio, const struct log_ctx *ctx,
    int errnum, const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void
vlog(const struct log_loc *loc, int prio, const struct log_ctx *ctx, int errnum,
    const char *fmt, va_list ap)
{
	unsigned dropped = 0;
	char msg[LOG_MSG_MAX];
	size_t len;
	int n;

	if (!log_enabled(prio))
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", strerror(errnum));
	if (prio == LOG_WARNING && !ratelimit(msg, &dropped))
		return;
	if (dropped && (len = strlen(msg)) < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, " (%u repeats suppressed)", dropped);
	emit(loc, prio, ctx, msg);
}

void
log_at(const struct log_loc *loc, int errnum, int prio, const struct log_ctx *ctx,
    const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vlog(loc, prio, ctx, errnum, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
log_text_at(const struct log_loc *loc, int prio, const struct log_ctx *ctx,
    const char *prefix, const char *text, size_t len)
{
	char *msg;
	size_t pl = strlen(prefix);

	if (!log_enabled(prio))
		return;
	if ((msg = malloc(pl + len + 1)) == NULL) {
		log_at(loc, ENOMEM, LOG_WARNING, ctx, "%s(%zu bytes not logged)", prefix, len);
		return;
	}
	memcpy(msg, prefix, pl);
	memcpy(msg + pl, text, len);
	msg[pl + len] = '\0';
	emit(loc, prio, ctx, msg);
	free(msg);
}

void
fatal_at(const struct log_loc *loc, int code, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(loc, LOG_ERR, NULL, errnum, fmt, ap);
	va_end(ap);
	exit(code);
}
