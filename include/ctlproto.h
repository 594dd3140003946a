/* ctlproto.h — the control socket's line protocol: requests parsed and
 * validated, reply headers written and read; pure, no I/O. */
#ifndef ARPOWND_CTLPROTO_H
#define ARPOWND_CTLPROTO_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTLP_LINE_MAX	4096	/* a request line, its newline included */
#define CTLP_HEAD_MAX	64	/* a reply's header line, its newline included */
#define CTLP_BODY_MAX	(256u << 20)	/* the largest body a header may announce */

enum ctlp_cmd {
	CTLP_STATUS = 0,
	CTLP_INTERFACES,	/* [ifname] */
	CTLP_COUNTERS,		/* [ifname] */
	CTLP_CONFLICTS,
	CTLP_METRICS,
	CTLP_RELOAD,
	CTLP_ANNOUNCE,		/* addr, or ifname */
	CTLP_PUBLISH,		/* addr/plen ifname */
	CTLP_WITHDRAW,		/* addr/plen */
	CTLP_PUBLISHED,		/* [addr] */
	CTLP_NCMDS
};

/* A parsed request; addresses in network byte order. */
struct ctlp_req {
	enum ctlp_cmd	cmd;
	bool		has_addr;	/* announce ADDR, publish, withdraw */
	uint32_t	addr;
	uint8_t		plen;		/* 32 unless ADDR/LEN said otherwise */
	bool		has_ifname;	/* announce IFACE, publish, interfaces, counters */
	char		ifname[IF_NAMESIZE];
	bool		force;		/* publish ... force: wider than a /16 */
};

/* A reply's header: "OK <length> <type>" or "ERR <code> <length>". */
struct ctlp_head {
	bool		ok;
	int		code;		/* sysexits code of an ERR, 0 for OK */
	size_t		length;		/* body bytes after the header line */
	char		type[8];	/* "json" or "text" */
};

/* Parse one request line of len bytes (newline excluded); 0, or a sysexits
 * code (EX_USAGE, EX_DATAERR) with a one-line reason in err. */
int ctlp_parse(const char *line, size_t len, struct ctlp_req *req, char *err, size_t errlen);
/* The command's name as the protocol spells it. */
const char *ctlp_cmd_str(enum ctlp_cmd c);
/* Does c change what the daemon does (reload, announce, publish, withdraw),
 * rather than only say what it is doing? */
bool ctlp_changes(enum ctlp_cmd c);
/* Write the header of a reply into buf (CTLP_HEAD_MAX bytes); its length. */
size_t ctlp_head_format(const struct ctlp_head *h, char buf[static CTLP_HEAD_MAX]);
/* Parse a header line of len bytes (newline excluded); 0, or -1 when malformed. */
int ctlp_head_parse(const char *line, size_t len, struct ctlp_head *h);

#endif
