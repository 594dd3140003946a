/* kplog.c — libbpf's messages, kept (not printed) for the reason a load
 * failed, and the verifier's complaint cut out of its log.  The kernel
 * path's loader (kpath.c) and its purge (kptc.c) both set it up; it
 * calls neither, so their dependency runs one way. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "kpint.h"

#define LOG_KEEP	4096

/* libbpf's messages: kept (the last LOG_KEEP bytes) for the reason a load
 * failed, shown on stderr only with ARPOWND_BPF_DEBUG set. */
static char g_log[LOG_KEEP];
static size_t g_loglen;

/* libbpf's format, passed on: clang's -Wformat-nonliteral wants it said */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static int
libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	int n;

	if (level == LIBBPF_DEBUG && getenv("ARPOWND_BPF_DEBUG") == NULL)
		return 0;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (getenv("ARPOWND_BPF_DEBUG") != NULL)
		fputs(line, stderr);
	if (g_loglen + (size_t)n >= sizeof(g_log)) {
		size_t drop = g_loglen + (size_t)n - sizeof(g_log) + 1;

		if (drop > g_loglen)
			drop = g_loglen;
		memmove(g_log, g_log + drop, g_loglen - drop);
		g_loglen -= drop;
	}
	memcpy(g_log + g_loglen, line, (size_t)n);
	g_loglen += (size_t)n;
	g_log[g_loglen] = '\0';
	return 0;
}

void
kp_log_setup(void)
{
	libbpf_set_print(libbpf_log);
	g_loglen = 0;
	g_log[0] = '\0';
}

const char *
kp_log_text(void)
{
	return g_log;
}

/* The verifier's complaint: the last lines of a log that say something. */
void
kp_log_tail(const char *log, char *out, size_t len)
{
	const char *lines[3] = { NULL, NULL, NULL }, *p = log, *e;
	size_t n = 0, k;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		if ((e == NULL ? strlen(p) : (size_t)(e - p)) > 0 &&
		    strncmp(p, "processed ", 10) != 0 && strncmp(p, "verification time", 17) != 0 &&
		    strncmp(p, "stack depth", 11) != 0 && strncmp(p, "-- END", 6) != 0 &&
		    strncmp(p, "libbpf: ", 8) != 0) {
			lines[0] = lines[1];
			lines[1] = lines[2];
			lines[2] = p;
			n++;
		}
		p = e != NULL ? e + 1 : NULL;
	}
	for (k = 0; k < 3; k++) {
		size_t l, o = strlen(out);

		if (lines[k] == NULL)
			continue;
		e = strchr(lines[k], '\n');
		l = e != NULL ? (size_t)(e - lines[k]) : strlen(lines[k]);
		if (o + l + 4 >= len)
			break;
		/* bounded by the test above: " | " and the line fit */
		snprintf(out + o, len - o, "%s%.*s", o > 0 ? " | " : "", (int)l, lines[k]);
	}
	(void)n;
}
