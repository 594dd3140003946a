/* conf.h — /etc/arpownd.conf: load, validate, match interfaces, print. */
#ifndef ARPOWND_CONF_H
#define ARPOWND_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR		"/etc"	/* configure --sysconfdir */
#endif
#define CONF_DEFAULT_PATH	SYSCONFDIR "/arpownd.conf"
#define CONF_ANNOUNCE_KEEP	(-1)
#define CONF_DEFAULT_SENDER_RATE 1000	/* replies/s to one sender IP */
#define CONF_DEFAULT_TOTAL_RATE	200000	/* replies/s in all */
#define CONF_DEFAULT_BUSY_POLL	100	/* microseconds */
#define CONF_BUSY_POLL_MAX	2000	/* the loop yields every 2 ms anyway */
#define CONF_DEFAULT_METRICS_INTERVAL 15	/* seconds between metrics_file writes */
#define CONF_METRICS_INTERVAL_MAX 3600

/* One glob of an interfaces or match list; neg for "!glob". */
struct conf_glob {
	char	*pat;
	bool	 neg;
};

/* An [interface LABEL] section: per-interface overrides. */
struct conf_iface {
	char			*label;
	struct conf_glob	*match;
	size_t			 nmatch;
	int			 mode;		/* enum pol_mode, -1 = inherit */
};

struct conf {
	char			*path;		/* NULL for built-in defaults */
	struct conf_glob	*ifaces;
	size_t			 nifaces;
	int			 mode;		/* enum pol_mode */
	int			 arp_announce;	/* CONF_ANNOUNCE_KEEP or 0..2 */
	bool			 learn;
	int			 log_level;	/* LOG_ERR .. LOG_DEBUG */
	char			*user;		/* to drop to when started as root */
	long			 sender_rate;	/* 0 = no limit */
	long			 total_rate;	/* 0 = no limit */
	long			 busy_poll_us;	/* keep polling after a frame; 0 = off */
	bool			 qdisc_bypass;	/* replies skip the qdisc and the taps */
	char			*metrics_file;	/* Prometheus textfile; NULL = none */
	long			 metrics_interval;	/* seconds between its writes */
	struct conf_iface	*sections;
	size_t			 nsections;
};

/* Called once per error found; msg is "file: [section] key = value: reason". */
typedef void conf_err_fn(void *arg, const char *msg);

/* The built-in defaults (those of conf/arpownd.conf); NULL on ENOMEM. */
struct conf *conf_defaults(void);
/* Load and validate path; reports every error through err and returns NULL if any. */
struct conf *conf_load(const char *path, conf_err_fn *err, void *arg);
/* Free a configuration. */
void conf_free(struct conf *c);
/* Mode for interface name, or -1 when the interface globs leave it unmanaged. */
int conf_iface_mode(const struct conf *c, const char *name);
/* Print the effective configuration, defaults filled in, as a valid file. */
void conf_print(const struct conf *c, FILE *f);

#endif
