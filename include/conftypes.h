/* conftypes.h — the configuration as data: the struct conf_load fills and
 * its defaults, no functions.  conf.c's helpers (confscan, confkeys,
 * confvals) and publish.c include this, not conf.h: conf.c uses them, so
 * their including conf.h made circles. */
#ifndef ARPOWND_CONFTYPES_H
#define ARPOWND_CONFTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranges.h"

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
#define CONF_DEFAULT_ANN_COUNT	3
#define CONF_DEFAULT_ANN_INTERVAL 1.1	/* seconds: past the neighbour locktime */
#define CONF_DEFAULT_ANN_RATE	1000	/* announcement frames/s, the whole host */

/* One glob of an interfaces or match list; neg for "!glob". */
struct conf_glob {
	char	*pat;
	bool	 neg;
};

/* announce_form */
enum conf_form {
	CONF_FORM_REQUEST = 1,		/* RFC 5227 announcement */
	CONF_FORM_REPLY = 2,		/* gratuitous reply */
	CONF_FORM_BOTH = 3,
};

/* answer_path: where requests are answered */
enum conf_path {
	CONF_PATH_CAPTURE = 0,		/* libpcap and the daemon, always there */
	CONF_PATH_AUTO,			/* the kernel path where it loads (XDP where it
					 * can be, else TC), else capture */
	CONF_PATH_KERNEL,		/* the kernel path at TC, or no start */
	CONF_PATH_XDP,			/* the kernel path at XDP (TC where XDP cannot be),
					 * or no start */
};

/* stop_leaves: what a stop leaves on the interfaces arpownd answered on */
enum conf_stop {
	CONF_STOP_STRICT = 0,		/* the kernel's strict mode for the mode */
	CONF_STOP_ORIGINALS,		/* the values found before arpownd changed them */
};

/* defend: RFC 5227 section 2.4, as n-acd names them */
enum conf_defend {
	CONF_DEFEND_NEVER = 0,		/* log only */
	CONF_DEFEND_ONCE,		/* once; a conflict that persists is given up */
	CONF_DEFEND_ALWAYS,		/* again and again, once per DEFEND_INTERVAL */
};

/* What an [interface] section may set for the interfaces it matches;
 * -1 = not set there (the lists: see struct conf_acl).  The same,
 * resolved, for one interface, the lists pointing into the conf. */
struct conf_ifset {
	int			 mode;		/* enum pol_mode */
	int			 announce;	/* 0 or 1 */
	int			 defend;	/* enum conf_defend */
	const struct rng	*allow;		/* allow_senders; NULL: everyone */
	const struct rng	*deny;		/* deny_senders; NULL: no one */
	int			 allow_probes;	/* 0 or 1 */
	int			 answer_path;	/* enum conf_path */
};

/* The sender lists a section (or [global]) sets. */
struct conf_acl {
	struct rng	allow, deny;
	bool		has_allow, has_deny;
};

/* An [interface LABEL] section: per-interface overrides. */
struct conf_iface {
	char			*label;
	struct conf_glob	*match;
	size_t			 nmatch;
	struct conf_ifset	 set;
	struct conf_acl		 acl;
};

/* A [publish LABEL] section: addresses answered though no interface
 * holds them. */
struct conf_pub {
	char			*label;
	struct rng		 set;		/* addresses = ...; finished */
	char			*ifglob;	/* interface = NAME or GLOB */
	uint8_t			 mac[6];	/* mac = ...; else the interface's */
	bool			 has_mac;
};

struct conf {
	char			*path;		/* NULL for built-in defaults */
	struct conf_glob	*ifaces;
	size_t			 nifaces;
	struct conf_ifset	 set;		/* [global]'s: mode, announce, defend, ACLs */
	struct conf_acl		 acl;
	int			 arp_announce;	/* CONF_ANNOUNCE_KEEP or 0..2 */
	int			 stop_leaves;	/* enum conf_stop */
	bool			 learn;
	int			 log_level;	/* LOG_ERR .. LOG_DEBUG */
	char			*user;		/* to drop to when started as root */
	long			 sender_rate;	/* 0 = no limit */
	long			 total_rate;	/* 0 = no limit */
	long			 busy_poll_us;	/* keep polling after a frame; 0 = off */
	bool			 qdisc_bypass;	/* replies skip the qdisc and the taps */
	char			*metrics_file;	/* Prometheus textfile; NULL = none */
	long			 metrics_interval;	/* seconds between its writes */
	unsigned		 announce_count;	/* frames per announcement */
	double			 announce_interval;	/* seconds between them */
	int			 announce_form;		/* enum conf_form */
	unsigned		 announce_refresh;	/* seconds; 0 = never */
	long			 announce_rate;		/* frames/s in all; 0 = unpaced */
	struct conf_iface	*sections;
	size_t			 nsections;
	struct conf_pub		*pubs;
	size_t			 npubs;
};

/* Called once per error found; msg is "file: [section] key = value: reason". */
typedef void conf_err_fn(void *arg, const char *msg);

#endif
