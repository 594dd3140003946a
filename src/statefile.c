/* statefile.c — the records of the sysctl values arpownd found before it
 * changed them, and the text they are saved as.  The text is all that
 * survives a crash (arpownd --restore gives the values back from it), so it
 * is framed (stateframe.c: a header with its kind and generation, a
 * trailer with a checksum), and a reader takes only a complete one.  Pure:
 * no files, no log; the state directory (statedir.c) reads and writes the
 * texts. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statefile.h"
#include "stateframe.h"
#include "util.h"

#define ARP_IGNORE_MAX	8
#define ARP_ANNOUNCE_MAX 2

/* ---------------------------------------------------------------------
 * Records
 */

static bool
value_ok(int v, int max)
{
	return v == STATE_NONE || (v >= 0 && v <= max);
}

struct state_orig *
state_find(struct state *st, int ifindex)
{
	size_t i;

	if (ifindex <= 0)
		return NULL;
	for (i = 0; i < st->n; i++)
		if (st->v[i].ifindex == ifindex)
			return &st->v[i];
	return NULL;
}

struct state_orig *
state_find_name(struct state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0)
			return &st->v[i];
	return NULL;
}

static struct state_orig *
push(struct state *st)
{
	struct state_orig *o;

	if (st->n == st->alloc) {
		size_t n = st->alloc ? st->alloc * 2 : 16;

		if (n > SIZE_MAX / sizeof(*o))
			return errno = ENOMEM, NULL;
		if ((o = realloc(st->v, n * sizeof(*o))) == NULL)
			return NULL;
		st->v = o;
		st->alloc = n;
	}
	o = &st->v[st->n++];
	memset(o, 0, sizeof(*o));
	o->arp_ignore = o->arp_announce = o->leave = STATE_NONE;
	return o;
}

struct state_orig *
state_add(struct state *st, int ifindex, const char *name)
{
	size_t len = strnlen(name, IF_NAMESIZE), i;
	struct state_orig *o;

	if (ifindex <= 0 || !util_ifname_ok(name, len))
		return errno = EINVAL, NULL;
	if ((o = state_find(st, ifindex)) == NULL) {
		/* A v1 record knows only the name: the link that has it now
		 * is the one it was saved for (v1 files predate renames). */
		for (i = 0; i < st->n && o == NULL; i++)
			if (st->v[i].ifindex == 0 && strcmp(st->v[i].name, name) == 0)
				o = &st->v[i];
		if (o == NULL && (o = push(st)) == NULL)
			return NULL;
		o->ifindex = ifindex;
	}
	/* a rename: the record follows the link, not the name */
	memcpy(o->name, name, len + 1);
	return o;
}

void
state_del(struct state *st, struct state_orig *rec)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (&st->v[i] == rec) {
			st->v[i] = st->v[--st->n];
			return;
		}
}

void
state_clear(struct state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

/*
 * Two records for one link would restore it twice, from values that
 * disagree: refused.  By ifindex, or by name among v1 records.  Sorted,
 * not compared pairwise: a file may hold thousands of records.
 */
struct dupkey {
	int		 ifindex;
	const char	*name;
	size_t		 i;
};

static int
dupkey_cmp(const void *a, const void *b)
{
	const struct dupkey *x = a, *y = b;
	int c;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->ifindex == 0 && (c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* 1 with the two records' indexes (first, later) when there is a duplicate, 0 if none, -1 on ENOMEM. */
static int
find_dup(const struct state *st, size_t *first, size_t *later)
{
	struct dupkey *k;
	size_t i;
	int found = 0;

	if (st->n < 2)
		return 0;
	if ((k = calloc(st->n, sizeof(*k))) == NULL)
		return -1;
	for (i = 0; i < st->n; i++) {
		k[i].ifindex = st->v[i].ifindex;
		k[i].name = st->v[i].name;
		k[i].i = i;
	}
	qsort(k, st->n, sizeof(*k), dupkey_cmp);
	for (i = 1; i < st->n && !found; i++)
		if (k[i].ifindex == k[i - 1].ifindex && (k[i].ifindex != 0 ||
		    strcmp(k[i].name, k[i - 1].name) == 0)) {
			*first = k[i - 1].i;
			*later = k[i].i;
			found = 1;
		}
	free(k);
	return found;
}

/* ---------------------------------------------------------------------
 * The text: v2 (written), v1 (still read)
 *
 *	arpownd originals v2 gen=7
 *	ifindex=3 name=eth0 arp_ignore=0 arp_announce=2
 *	ifindex=9 name=v%3D1 arp_ignore=1
 *	crc32=3c09d4cb
 *
 * A record may end in "leave=N": the arp_ignore a stop sets while the
 * originals stay recorded (stop_leaves = strict); 0.1.0 refuses the key,
 * so a file with it is not read by a downgraded daemon.
 *
 * Names are percent-encoded beyond [A-Za-z0-9._@+-] so that every name the
 * kernel accepts ("v=1", "#v2", control bytes, bytes >= 0x80) is one token.
 * The checksum covers every byte before the trailer: it tells a complete
 * slot from one a crash cut short.
 */

/* s quoted for a log line: printable ASCII as is, other bytes as \xHH. */
static const char *
shown(char out[static 80], const char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len && o < 64; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= ' ' && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, 80 - o, "\\x%02x", c);
	}
	if (i < len)
		memcpy(out + o, "...", 4);
	else
		out[o] = '\0';
	return out;
}

static int
parse_int(const char *s, size_t len, int max, int *out)
{
	uint64_t v;

	if (state_uint(s, len, (uint64_t)max, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

static bool
name_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '@' ||
	    c == '+' || c == '-';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A percent-encoded name into out; -1 when it is not one. */
static int
name_decode(const char *s, size_t len, char out[static IF_NAMESIZE], size_t *outlen)
{
	size_t i, n = 0;
	int hi, lo;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			if (len - i < 3 || (hi = hexval(s[i + 1])) < 0 ||
			    (lo = hexval(s[i + 2])) < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		} else if (!name_plain(c))
			return -1;
		if (n == IF_NAMESIZE - 1)
			return -1;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	*outlen = n;
	return 0;
}

static void
name_encode(FILE *f, const char *name)
{
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p != '\0'; p++)
		if (name_plain(*p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
}

struct parser {
	struct state	*st;
	unsigned	*lines;		/* the line of each record, for messages */
	size_t		 nlines;		/* allocated */
	unsigned	 line;
	const char	*why;		/* a fixed reason ... */
	char		 detail[160];	/* ... or one quoting the bad token */
};

static int fail(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
	va_end(ap);
	p->why = p->detail;
	return -1;
}

/* Append o, remembering its line. */
static int
keep(struct parser *p, const struct state_orig *o)
{
	struct state_orig *n;
	unsigned *l;

	if (p->lines == NULL || p->st->n >= p->nlines) {
		size_t want = p->nlines ? p->nlines * 2 : 16;

		if ((l = realloc(p->lines, want * sizeof(*l))) == NULL)
			return p->why = "out of memory", -1;
		p->lines = l;
		p->nlines = want;
	}
	if ((n = push(p->st)) == NULL)
		return p->why = "out of memory", -1;
	*n = *o;
	p->lines[p->st->n - 1] = p->line;
	return 0;
}

static int
check_values(struct parser *p, const struct state_orig *o)
{
	if (o->arp_ignore == STATE_NONE && o->arp_announce == STATE_NONE)
		return p->why = "no values", -1;
	return 0;
}

/* "arp_ignore=N" or "arp_announce=N" into o, each once and in range. */
static int
parse_value(struct parser *p, const char *k, size_t klen, const char *v, size_t vlen,
    struct state_orig *o)
{
	char q[80];
	int *dst, max;

	if (klen == 10 && memcmp(k, "arp_ignore", 10) == 0)
		dst = &o->arp_ignore, max = ARP_IGNORE_MAX;
	else if (klen == 5 && memcmp(k, "leave", 5) == 0)
		dst = &o->leave, max = ARP_IGNORE_MAX;
	else if (klen == 12 && memcmp(k, "arp_announce", 12) == 0)
		dst = &o->arp_announce, max = ARP_ANNOUNCE_MAX;
	else
		return fail(p, "unknown key \"%s\"", shown(q, k, klen));
	if (*dst != STATE_NONE)
		return fail(p, "%.*s given twice", (int)klen, k);
	if (parse_int(v, vlen, max, dst) == -1)
		return fail(p, "%.*s=%s: not a number in 0..%d", (int)klen, k,
		    shown(q, v, vlen), max);
	return 0;
}

/* v2: "ifindex=N name=ENCODED" and the values, one space apart. */
static int
parse_v2_line(struct parser *p, const char *s, const char *end)
{
	struct state_orig o = { -1, "", STATE_NONE, STATE_NONE, STATE_NONE };
	const char *tok, *eq;
	bool have_name = false;
	size_t len;
	char q[80];

	for (;;) {
		tok = s;
		while (s < end && *s != ' ')
			s++;
		if (s == tok)
			return p->why = "empty field (two spaces, or one at an end)", -1;
		if ((eq = memchr(tok, '=', (size_t)(s - tok))) == NULL)
			return fail(p, "\"%s\": expected key=value",
			    shown(q, tok, (size_t)(s - tok)));
		len = (size_t)(eq - tok);
		eq++;
		if (len == 7 && memcmp(tok, "ifindex", 7) == 0) {
			if (o.ifindex != -1)
				return p->why = "ifindex given twice", -1;
			if (parse_int(eq, (size_t)(s - eq), INT_MAX, &o.ifindex) == -1)
				return fail(p, "ifindex=%s: not a number in 0..%d",
				    shown(q, eq, (size_t)(s - eq)), INT_MAX);
		} else if (len == 4 && memcmp(tok, "name", 4) == 0) {
			if (have_name)
				return p->why = "name given twice", -1;
			if (name_decode(eq, (size_t)(s - eq), o.name, &len) == -1 ||
			    !util_ifname_ok(o.name, len))
				return fail(p, "name=%s: not an interface name",
				    shown(q, eq, (size_t)(s - eq)));
			have_name = true;
		} else if (parse_value(p, tok, len, eq, (size_t)(s - eq), &o) == -1)
			return -1;
		if (s == end)
			break;
		s++;
	}
	if (o.ifindex == -1)
		return p->why = "no ifindex", -1;
	if (!have_name)
		return p->why = "no name", -1;
	if (check_values(p, &o) == -1)
		return -1;
	return keep(p, &o);
}

/* v1: "NAME key=N ...", the name raw, blanks between. */
static int
parse_v1_line(struct parser *p, const char *s, const char *end)
{
	struct state_orig o = { 0, "", STATE_NONE, STATE_NONE, STATE_NONE };
	const char *tok, *eq;
	char q[80];

	for (tok = s; s < end && *s != ' ' && *s != '\t'; s++)
		;
	if (!util_ifname_ok(tok, (size_t)(s - tok)))
		return fail(p, "\"%s\": not an interface name",
		    shown(q, tok, (size_t)(s - tok)));
	memcpy(o.name, tok, (size_t)(s - tok));
	for (;;) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end)
			break;
		for (tok = s; s < end && *s != ' ' && *s != '\t'; s++)
			;
		if ((eq = memchr(tok, '=', (size_t)(s - tok))) == NULL)
			return fail(p, "\"%s\": expected key=number",
			    shown(q, tok, (size_t)(s - tok)));
		if (parse_value(p, tok, (size_t)(eq - tok), eq + 1,
		    (size_t)(s - eq - 1), &o) == -1)
			return -1;
	}
	if (check_values(p, &o) == -1)
		return -1;
	return keep(p, &o);
}

/*
 * The v1 writer put raw names into the file, so a crash of arpownd before
 * v2 may have left "v=1 arp_ignore=0" (the name is the first token, '='
 * and all) or "#v2 arp_ignore=0" (what it read back as a comment).  Both
 * are read here, so that --restore after an upgrade gives such interfaces
 * back: a '#' line that reads as a complete record is one.  The only
 * comment that writer wrote was its header, "# arpownd: ...".
 */
static int
parse_v1(struct parser *p, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len, *eol;

	while (s < end) {
		p->line++;
		if ((eol = memchr(s, '\n', (size_t)(end - s))) == NULL)
			eol = end;
		if (eol > s && *s == '#') {
			size_t n = p->st->n;

			if (parse_v1_line(p, s, eol) == -1)
				p->st->n = n;	/* a comment after all */
			p->why = NULL;
		} else if (eol > s && parse_v1_line(p, s, eol) == -1)
			return -1;
		s = eol + 1;
	}
	return 0;
}

static int
parse_v2(struct parser *p, const char *buf, size_t len)
{
	size_t body = 0, bodyend = 0;
	const char *s, *end, *eol;

	if (state_frame_check(buf, len, STATE_ORIG_KIND, &p->st->gen, &body, &bodyend,
	    &p->line, p->detail, sizeof(p->detail)) == -1) {
		p->why = p->detail;
		return -1;
	}
	for (s = buf + body, end = buf + bodyend; s < end; s = eol + 1) {
		p->line++;
		eol = memchr(s, '\n', (size_t)(end - s));	/* state_frame_check: found */
		if (eol == NULL || eol == s)
			return p->why = "empty line", -1;
		if (parse_v2_line(p, s, eol) == -1)
			return -1;
	}
	return 0;
}

int
state_parse(const char *buf, size_t len, struct state *st, char *err, size_t errlen)
{
	static const char magic[] = "arpownd " STATE_ORIG_KIND " ";
	struct parser p = { st, NULL, 0, 0, NULL, "" };
	size_t a = 0, b = 0;
	int r;

	state_clear(st);
	/* a v1 line cannot start so: the name would need key=N after it */
	if (len >= sizeof(magic) - 1 && memcmp(buf, magic, sizeof(magic) - 1) == 0)
		r = parse_v2(&p, buf, len);
	else
		r = parse_v1(&p, buf, len);
	if (r == 0 && (r = find_dup(st, &a, &b)) == -1)
		p.why = "out of memory";
	else if (r == 1 && p.lines != NULL) {	/* lines: one per record */
		p.line = p.lines[b];
		if (st->v[b].ifindex)
			fail(&p, "ifindex %d already on line %u", st->v[b].ifindex,
			    p.lines[a]);
		else
			fail(&p, "\"%s\" already on line %u",
			    shown((char[80]){ 0 }, st->v[b].name, strlen(st->v[b].name)),
			    p.lines[a]);
		r = -1;
	}
	free(p.lines);
	if (r != 0) {
		util_seterr(err, errlen, -1, "line %u: %s", p.line,
		    p.why ? p.why : "a record twice");
		state_clear(st);
		return -1;
	}
	return 0;
}

char *
state_format(const struct state *st)
{
	size_t len = 0, i, a, b;
	char *body = NULL, *text;
	FILE *f;
	int e;

	/* what is written must read back: refuse what the parser would */
	for (i = 0; i < st->n; i++) {
		const struct state_orig *o = &st->v[i];

		if (o->ifindex < 0 || !util_ifname_ok(o->name, strnlen(o->name, IF_NAMESIZE)) ||
		    !value_ok(o->arp_ignore, ARP_IGNORE_MAX) ||
		    !value_ok(o->arp_announce, ARP_ANNOUNCE_MAX) ||
		    !value_ok(o->leave, ARP_IGNORE_MAX))
			return errno = EINVAL, NULL;
	}
	if ((e = find_dup(st, &a, &b)) != 0)
		return errno = e == 1 ? EINVAL : ENOMEM, NULL;
	if ((f = open_memstream(&body, &len)) == NULL)
		return NULL;
	for (i = 0; i < st->n; i++) {
		const struct state_orig *o = &st->v[i];

		if (o->arp_ignore == STATE_NONE && o->arp_announce == STATE_NONE)
			continue;	/* nothing to give back */
		fprintf(f, "ifindex=%d name=", o->ifindex);
		name_encode(f, o->name);
		if (o->arp_ignore != STATE_NONE)
			fprintf(f, " arp_ignore=%d", o->arp_ignore);
		if (o->arp_announce != STATE_NONE)
			fprintf(f, " arp_announce=%d", o->arp_announce);
		/* only with an arp_ignore to keep: a stop sets it, never gives
		 * back an arp_announce alone */
		if (o->leave != STATE_NONE && o->arp_ignore != STATE_NONE)
			fprintf(f, " leave=%d", o->leave);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(body);
		return errno = ENOMEM, NULL;
	}
	text = state_frame(STATE_ORIG_KIND, st->gen, body, len, NULL);
	free(body);
	return text;
}
