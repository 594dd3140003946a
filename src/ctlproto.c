/* ctlproto.c — the control protocol, pure: one request per line,
 *
 *	COMMAND [ARG ...]
 *
 * words separated by spaces or tabs, a trailing "\r" tolerated (nc, socat);
 * one reply per request, a header line and exactly <length> bytes of body:
 *
 *	OK <length> json|text\n<body>
 *	ERR <code> <length>\n<body>	(code: sysexits.h, body: text)
 *
 * Every argument is validated here, so the daemon acts only on well-formed
 * requests; the fuzz target (tests/fuzz/fuzz_ctl.c) runs this file alone. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "ctlproto.h"
#include "rules.h"
#include "util.h"

#define MAX_WORDS	4	/* a command and at most three arguments */

static const char *const cmd_names[CTLP_NCMDS] = {
	[CTLP_STATUS] = "status",
	[CTLP_INTERFACES] = "interfaces",
	[CTLP_COUNTERS] = "counters",
	[CTLP_CONFLICTS] = "conflicts",
	[CTLP_METRICS] = "metrics",
	[CTLP_RELOAD] = "reload",
	[CTLP_ANNOUNCE] = "announce",
	[CTLP_PUBLISH] = "publish",
	[CTLP_WITHDRAW] = "withdraw",
	[CTLP_PUBLISHED] = "published",
};

/* Arguments each command takes, and how they read. */
static const char *const cmd_usage[CTLP_NCMDS] = {
	[CTLP_INTERFACES] = "interfaces [IFACE]",
	[CTLP_COUNTERS] = "counters [IFACE]",
	[CTLP_ANNOUNCE] = "announce ADDR | announce IFACE | announce dev IFACE",
	[CTLP_PUBLISH] = "publish ADDR[/LEN] IFACE [force]",
	[CTLP_WITHDRAW] = "withdraw ADDR[/LEN]",
	[CTLP_PUBLISHED] = "published [ADDR]",
};

struct word {
	const char	*p;
	size_t		 len;
};

/* A word quoted for a message: printable ASCII as is, the rest \xHH, cut at 40. */
static const char *
shown(const struct word *w, char out[static 200])
{
	size_t i, o = 0;

	for (i = 0; i < w->len && i < 40; i++) {
		unsigned char c = (unsigned char)w->p[i];

		if (c > ' ' && c < 0x7f && c != '\\' && c != '"')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, 200 - o, "\\x%02x", c);
	}
	if (i < w->len)
		memcpy(out + o, "...", 4);
	else
		out[o] = '\0';
	return out;
}

const char *
ctlp_cmd_str(enum ctlp_cmd c)
{
	return (unsigned)c < CTLP_NCMDS ? cmd_names[c] : "?";
}

bool
ctlp_changes(enum ctlp_cmd c)
{
	return c == CTLP_RELOAD || c == CTLP_ANNOUNCE || c == CTLP_PUBLISH ||
	    c == CTLP_WITHDRAW;
}

/* A decimal number without sign or leading zeros, at most max. */
static int
parse_dec(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * ADDR or, when allowed, ADDR/LEN: a dotted quad as inet_pton() reads it
 * (four decimal parts, no leading zeros), LEN 1..32 with no host bits set
 * beyond it, and no address in the range a martian.
 */
static int
parse_addr(const struct word *w, bool allow_len, struct ctlp_req *req, char *err,
    size_t errlen)
{
	char buf[INET_ADDRSTRLEN + 4], q[200];
	const char *slash = memchr(w->p, '/', w->len);
	size_t alen = slash ? (size_t)(slash - w->p) : w->len;
	unsigned long plen = 32;
	struct in_addr a;
	uint32_t h, mask, last;

	if (slash != NULL && !allow_len)
		return util_seterr(err, errlen, EX_USAGE,
		    "\"%s\": an address, without /LEN",
		    shown(w, q));
	if (alen >= INET_ADDRSTRLEN)
		return util_seterr(err, errlen, EX_USAGE, "\"%s\": not an IPv4 address",
		    shown(w, q));
	memcpy(buf, w->p, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return util_seterr(err, errlen, EX_USAGE, "\"%s\": not an IPv4 address",
		    shown(w, q));
	if (slash != NULL && parse_dec(slash + 1, w->len - alen - 1, 32, &plen) == -1)
		return util_seterr(err, errlen, EX_USAGE, "\"%s\": the prefix length must "
		    "be 1 to 32", shown(w, q));
	if (plen == 0)
		return util_seterr(err, errlen, EX_USAGE, "\"%s\": the prefix length must "
		    "be 1 to 32", shown(w, q));
	h = ntohl(a.s_addr);
	mask = rule_mask((uint32_t)plen);
	if ((h & ~mask) != 0) {
		a.s_addr = htonl(h & mask);
		inet_ntop(AF_INET, &a, buf, sizeof(buf));
		return util_seterr(err, errlen, EX_DATAERR, "\"%s\": host bits set beyond "
		    "/%lu (the range is %s/%lu)", shown(w, q), plen, buf, plen);
	}
	/* 0.0.0.0 is the first address of any range that holds it; 127/8
	 * and 224/4 are whole /8s or larger: a range holds a martian exactly
	 * when its first or last address is one */
	last = rule_bcast(h, (uint32_t)plen);
	if (rule_martian(h) || rule_martian(last))
		return util_seterr(err, errlen, EX_DATAERR,
		    "\"%s\": %s 0.0.0.0, 127.0.0.0/8, "
		    "multicast or the broadcast address: never answered over ARP",
		    shown(w, q), plen == 32 ? "is in" : "holds addresses of");
	req->has_addr = true;
	req->addr = htonl(h);
	req->plen = (uint8_t)plen;
	return 0;
}

static int
parse_ifname(const struct word *w, struct ctlp_req *req, char *err, size_t errlen)
{
	char q[200];

	if (!util_ifname_ok(w->p, w->len))
		return util_seterr(err, errlen, EX_USAGE,
		    "\"%s\": not an interface name (1 "
		    "to 15 bytes, no '/', ':' or white space, not \".\" or \"..\")",
		    shown(w, q));
	memcpy(req->ifname, w->p, w->len);
	req->ifname[w->len] = '\0';
	req->has_ifname = true;
	return 0;
}

/* A word is an address when it reads as one: digits and dots (and a
 * '/', which no interface name holds). */
static bool
looks_like_addr(const struct word *w)
{
	bool digit = false;
	size_t i;

	for (i = 0; i < w->len; i++) {
		if (w->p[i] >= '0' && w->p[i] <= '9')
			digit = true;
		else if (w->p[i] != '.' && w->p[i] != '/')
			return false;
	}
	return digit;
}

static int
parse_args(struct ctlp_req *req, const struct word *w, size_t n, char *err,
    size_t errlen)
{
	int r;

	switch (req->cmd) {
	case CTLP_ANNOUNCE:
		/* "announce 10.0.0.1" is the address; an interface named
		 * like one (the kernel allows it) is "announce dev 10.0.0.1" */
		if (n == 3 && w[1].len == 3 && memcmp(w[1].p, "dev", 3) == 0)
			return parse_ifname(&w[2], req, err, errlen);
		if (n != 2)
			break;
		if (looks_like_addr(&w[1]))
			return parse_addr(&w[1], false, req, err, errlen);
		return parse_ifname(&w[1], req, err, errlen);
	case CTLP_PUBLISH:
		if (n == 4 && w[3].len == 5 && memcmp(w[3].p, "force", 5) == 0)
			req->force = true;
		else if (n != 3)
			break;
		if ((r = parse_addr(&w[1], true, req, err, errlen)) != 0)
			return r;
		return parse_ifname(&w[2], req, err, errlen);
	case CTLP_WITHDRAW:
		if (n != 2)
			break;
		return parse_addr(&w[1], true, req, err, errlen);
	case CTLP_INTERFACES:
	case CTLP_COUNTERS:
		/* one interface's: "counters eth0" */
		if (n == 1)
			return 0;
		if (n != 2)
			break;
		return parse_ifname(&w[1], req, err, errlen);
	case CTLP_PUBLISHED:
		/* what publishes one address: "published 10.0.0.50" */
		if (n == 1)
			return 0;
		if (n != 2)
			break;
		return parse_addr(&w[1], false, req, err, errlen);
	default:
		if (n == 1)
			return 0;
		return util_seterr(err, errlen, EX_USAGE, "%s takes no argument",
		    cmd_names[req->cmd]);
	}
	return util_seterr(err, errlen, EX_USAGE, "usage: %s", cmd_usage[req->cmd]);
}

int
ctlp_parse(const char *line, size_t len, struct ctlp_req *req, char *err, size_t errlen)
{
	struct word w[MAX_WORDS];
	size_t i = 0, n = 0, start;
	char q[200];
	int c;

	memset(req, 0, sizeof(*req));
	req->plen = 32;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len >= CTLP_LINE_MAX)
		return util_seterr(err, errlen, EX_USAGE, "request longer than %d bytes",
		    CTLP_LINE_MAX - 1);
	if (memchr(line, '\0', len) != NULL)
		return util_seterr(err, errlen, EX_USAGE, "a NUL byte in the request");
	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		if (n == MAX_WORDS)
			return util_seterr(err, errlen, EX_USAGE, "too many arguments");
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		w[n].p = line + start;
		w[n++].len = i - start;
	}
	if (n == 0)
		return util_seterr(err, errlen, EX_USAGE, "empty request: one of status, "
		    "interfaces, counters, conflicts, metrics, reload, announce, "
		    "publish, withdraw, published");
	for (c = 0; c < CTLP_NCMDS; c++)
		if (strlen(cmd_names[c]) == w[0].len &&
		    memcmp(cmd_names[c], w[0].p, w[0].len) == 0)
			break;
	if (c == CTLP_NCMDS)
		return util_seterr(err, errlen, EX_USAGE, "unknown command \"%s\": one of "
		    "status, interfaces, counters, conflicts, metrics, reload, announce, "
		    "publish, withdraw, published", shown(&w[0], q));
	req->cmd = (enum ctlp_cmd)c;
	return parse_args(req, w, n, err, errlen);
}

size_t
ctlp_head_format(const struct ctlp_head *h, char buf[static CTLP_HEAD_MAX])
{
	int n;

	if (h->ok)
		n = snprintf(buf, CTLP_HEAD_MAX, "OK %zu %s\n", h->length, h->type);
	else
		n = snprintf(buf, CTLP_HEAD_MAX, "ERR %d %zu\n", h->code, h->length);
	return n > 0 && n < CTLP_HEAD_MAX ? (size_t)n : 0;
}

int
ctlp_head_parse(const char *line, size_t len, struct ctlp_head *h)
{
	struct word w[3];
	unsigned long v, code;
	size_t i = 0, n = 0, start;
	bool end = false;

	memset(h, 0, sizeof(*h));
	if (len >= CTLP_HEAD_MAX)
		return -1;
	/* exactly three words, single spaces: what ctlp_head_format writes */
	while (n < 3) {
		start = i;
		while (i < len && line[i] != ' ')
			i++;
		if (i == start)
			return -1;
		w[n].p = line + start;
		w[n++].len = i - start;
		if ((end = i == len))
			break;
		i++;
	}
	if (n != 3 || !end)
		return -1;
	if (w[0].len == 2 && memcmp(w[0].p, "OK", 2) == 0) {
		if (parse_dec(w[1].p, w[1].len, CTLP_BODY_MAX, &v) == -1 ||
		    !((w[2].len == 4 && memcmp(w[2].p, "json", 4) == 0) ||
		    (w[2].len == 4 && memcmp(w[2].p, "text", 4) == 0)))
			return -1;
		h->ok = true;
		h->length = v;
		memcpy(h->type, w[2].p, w[2].len);
		return 0;
	}
	if (w[0].len == 3 && memcmp(w[0].p, "ERR", 3) == 0) {
		/* sysexits codes: EX__BASE (64) to EX__MAX (78) */
		if (parse_dec(w[1].p, w[1].len, EX__MAX, &code) == -1 || code < EX__BASE ||
		    parse_dec(w[2].p, w[2].len, CTLP_BODY_MAX, &v) == -1)
			return -1;
		h->code = (int)code;
		h->length = v;
		memcpy(h->type, "text", 5);
		return 0;
	}
	return -1;
}
