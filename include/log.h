/* log.h — one log API: stderr with priorities, or the journal. */
#ifndef ARPOWND_LOG_H
#define ARPOWND_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

/* Structured fields of one event; any may be NULL/0. */
struct log_ctx {
	const char	*msgid;		/* MESSAGE_ID, one per kind of event */
	const char	*ifname;	/* IFNAME */
	uint32_t	 addr;		/* ADDR, network order, 0 = none */
	uint32_t	 sip;		/* SENDER_IP */
	const uint8_t	*smac;		/* SENDER_MAC */
};

/* Choose the sink (journal when stderr is the journal) and the level. */
void log_init(int level, bool debug_stderr);
/* Change the level at run time (reload). */
void log_setlevel(int level);
/* Is prio enabled?  Lets hot paths skip formatting. */
bool log_enabled(int prio);
/* Log with structured fields. */
void log_ctx(int prio, const struct log_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));	/* + strerror */
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at err (+ strerror) and exit with code. */
void fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void fatalx(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Format an IPv4 address (network order) into a static rotating buffer. */
const char *log_ip(uint32_t addr);

#endif
