/* log.h — one log API: stderr with priorities, or the journal. */
#ifndef ARPOWND_LOG_H
#define ARPOWND_LOG_H

#include <stdbool.h>
#include <errno.h>
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

/* Where a log call is in the source: the journal's CODE_FILE, CODE_LINE,
 * CODE_FUNC name the caller, not this module. */
struct log_loc {
	const char	*file;
	int		 line;
	const char	*func;
};
#define LOG_HERE	(&(const struct log_loc){ __FILE__, __LINE__, __func__ })

/* Choose the sink (journal when stderr is the journal) and the level;
 * debug_stderr (-d) pins the level at debug for the process's life. */
void log_init(int level, bool debug_stderr);
/* For a command run once (--restore, --withdraw, -n): plain lines on
 * stderr, "arpownd: warning: ...", where the daemon would prefix <N>;
 * the journal still when stderr is the journal. */
void log_command_mode(void);
/* Change the level at run time (reload); no effect when pinned by -d. */
void log_setlevel(int level);
/* Is prio enabled?  Lets hot paths skip formatting. */
bool log_enabled(int prio);
/* Log at prio with structured fields (any may be NULL), strerror(errnum)
 * appended when errnum is not 0. */
void log_at(const struct log_loc *loc, int errnum, int prio, const struct log_ctx *ctx,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* One entry of prefix and the len bytes of text as they are, whatever
 * their length (not formatted, never rate-limited): a JSON document. */
void log_text_at(const struct log_loc *loc, int prio, const struct log_ctx *ctx,
    const char *prefix, const char *text, size_t len);
/* log_at, then exit with code. */
void fatal_at(const struct log_loc *loc, int code, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* log_ctx(prio, ctx, fmt, ...); ctx may be a compound literal */
#define log_ctx(...)		log_at(LOG_HERE, 0, __VA_ARGS__)
#define log_warn(...)		log_at(LOG_HERE, errno, LOG_WARNING, NULL, __VA_ARGS__)
#define log_warnx(...)		log_at(LOG_HERE, 0, LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...)		log_at(LOG_HERE, 0, LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...)		log_at(LOG_HERE, 0, LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...)		log_at(LOG_HERE, 0, LOG_DEBUG, NULL, __VA_ARGS__)
#define log_text(...)		log_text_at(LOG_HERE, __VA_ARGS__)
#define fatal(code, ...)	fatal_at(LOG_HERE, (code), errno, __VA_ARGS__)
#define fatalx(code, ...)	fatal_at(LOG_HERE, (code), 0, __VA_ARGS__)

/* Format an IPv4 address (network order) into a static rotating buffer. */
const char *log_ip(uint32_t addr);

#endif
