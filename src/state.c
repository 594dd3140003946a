/* state.c — the state directory: the instance lock, and the sysctl values
 * arpownd found before it changed them.  The saved records are the only
 * memory that survives a crash (arpownd --restore applies them), so they
 * are written before any change, and in a way a crash cannot tear.
 *
 * Started as root, the daemon drops to an unprivileged uid that must not be
 * able to change what root later restores: it opens every file here while
 * still root and keeps the descriptors, and nothing here is writable by that
 * uid.  It then cannot create or rename files, so the records alternate
 * between two slot files that always exist: a save rewrites the slot that
 * does not hold the newest version, and a reader takes the newest slot that
 * is complete (a header with the generation, a trailer with a checksum).
 * Under systemd's DynamicUser the directory is the daemon's own and the same
 * code creates the files as that user. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "state.h"
#include "util.h"

#define STATE_MAX_SIZE	(1 << 20)	/* 15,000 interfaces at the longest names */
#define UID_NOBODY	65534		/* what arpownd before the v2 format chowned to */
#define LOCK_FILE	"lock"
#define LEGACY_FILE	"originals"	/* v1: one file, replaced by rename */
#define ORIG_KIND	"originals"	/* v2: originals.0 and originals.1 */
#define PUB_KIND	"published"	/* the runtime-published addresses */
#define TRAILER_LEN	15		/* "crc32=xxxxxxxx\n" */
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
	o->arp_ignore = o->arp_announce = STATE_NONE;
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
 * Names are percent-encoded beyond [A-Za-z0-9._@+-] so that every name the
 * kernel accepts ("v=1", "#v2", control bytes, bytes >= 0x80) is one token.
 * The checksum covers every byte before the trailer: it tells a complete
 * slot from one a crash cut short.
 */

/*
 * CRC-32 of IEEE 802.3, the one zlib's crc32() computes (so a file can be
 * checked by hand with Python's zlib), four bits at a time.  Twenty lines
 * are not worth a dependency on zlib.
 */
static uint32_t
crc32_ieee(const char *p, size_t len)
{
	static const uint32_t t[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	uint32_t c = 0xffffffffu;
	size_t i;

	for (i = 0; i < len; i++) {
		c ^= (unsigned char)p[i];
		c = (c >> 4) ^ t[c & 15];
		c = (c >> 4) ^ t[c & 15];
	}
	return ~c;
}

static unsigned
count_lines(const char *p, size_t len)
{
	const char *end = p + len, *nl;
	unsigned n = 0;

	for (; p < end; p = nl + 1) {
		n++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
	}
	return n;
}

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

/* A decimal number in 0..max, digits only. */
static int
parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int
parse_int(const char *s, size_t len, int max, int *out)
{
	uint64_t v;

	if (parse_uint(s, len, (uint64_t)max, &v) == -1)
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
	struct state_orig o = { -1, "", STATE_NONE, STATE_NONE };
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
	struct state_orig o = { 0, "", STATE_NONE, STATE_NONE };
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

/*
 * The frame of a v2 file: "arpownd KIND v2 gen=N\n" first, "crc32=HEX\n"
 * last.  On success, the records are [*body, *bodyend).
 */
static int
frame_check(struct parser *p, const char *buf, size_t len, const char *kind,
    uint64_t *gen, size_t *body, size_t *bodyend)
{
	size_t klen = strlen(kind), i;
	const char *nl;
	char want[9];

	p->line = 1;
	if (len < 8 + klen + 1 || memcmp(buf, "arpownd ", 8) != 0 ||
	    memcmp(buf + 8, kind, klen) != 0 || buf[8 + klen] != ' ')
		return fail(p, "not an arpownd %s file", kind);
	i = 8 + klen + 1;
	if ((nl = memchr(buf + i, '\n', len - i)) == NULL)
		return p->why = "the header line is cut short", -1;
	if ((size_t)(nl - buf) - i < 7 || memcmp(buf + i, "v2 gen=", 7) != 0)
		return p->why = "not format v2 (a newer arpownd wrote this?)", -1;
	i += 7;
	if (parse_uint(buf + i, (size_t)(nl - buf) - i, UINT64_MAX, gen) == -1)
		return p->why = "bad generation number", -1;
	*body = (size_t)(nl - buf) + 1;

	/* the trailer is a line of its own, the last */
	if (len - *body < TRAILER_LEN || buf[len - 1] != '\n' ||
	    buf[len - TRAILER_LEN - 1] != '\n' ||
	    memcmp(buf + len - TRAILER_LEN, "crc32=", 6) != 0) {
		p->line = count_lines(buf, len);
		return p->why = "no checksum line at the end (a write cut short?)", -1;
	}
	/* compared as text: one memcmp, and what a person reading the file sees */
	snprintf(want, sizeof(want), "%08" PRIx32, crc32_ieee(buf, len - TRAILER_LEN));
	if (memcmp(buf + len - 9, want, 8) != 0) {
		p->line = count_lines(buf, len);
		return fail(p, "checksum mismatch: the text gives %s (a write cut short?)",
		    want);
	}
	*bodyend = len - TRAILER_LEN;
	return 0;
}

static int
parse_v2(struct parser *p, const char *buf, size_t len)
{
	size_t body = 0, bodyend = 0;
	const char *s, *end, *eol;

	if (frame_check(p, buf, len, ORIG_KIND, &p->st->gen, &body, &bodyend) == -1)
		return -1;
	for (s = buf + body, end = buf + bodyend; s < end; s = eol + 1) {
		p->line++;
		eol = memchr(s, '\n', (size_t)(end - s));	/* frame_check: found */
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
	static const char magic[] = "arpownd " ORIG_KIND " ";
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
		util_seterr(err, errlen, -1,
		    "line %u: %s", p.line, p.why ? p.why : "a record twice");
		state_clear(st);
		return -1;
	}
	return 0;
}

char *
state_format(const struct state *st)
{
	size_t len = 0, i, a, b;
	char *buf = NULL, *nbuf;
	uint32_t crc;
	FILE *f;
	int e;

	/* what is written must read back: refuse what the parser would */
	for (i = 0; i < st->n; i++) {
		const struct state_orig *o = &st->v[i];

		if (o->ifindex < 0 || !util_ifname_ok(o->name, strnlen(o->name, IF_NAMESIZE)) ||
		    !value_ok(o->arp_ignore, ARP_IGNORE_MAX) ||
		    !value_ok(o->arp_announce, ARP_ANNOUNCE_MAX))
			return errno = EINVAL, NULL;
	}
	if ((e = find_dup(st, &a, &b)) != 0)
		return errno = e == 1 ? EINVAL : ENOMEM, NULL;
	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fprintf(f, "arpownd " ORIG_KIND " v2 gen=%" PRIu64 "\n", st->gen);
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
		fputc('\n', f);
	}
	if (fclose(f) != 0 || (nbuf = realloc(buf, len + TRAILER_LEN + 1)) == NULL) {
		free(buf);
		return errno = ENOMEM, NULL;
	}
	buf = nbuf;
	crc = crc32_ieee(buf, len);
	snprintf(buf + len, TRAILER_LEN + 1, "crc32=%08" PRIx32 "\n", crc);
	return buf;
}

/* ---------------------------------------------------------------------
 * The directory
 */

/*
 * A pair of slot files holding versions of one kind of record ("originals";
 * the runtime-published addresses will be another pair).  Each version is a
 * framed text (frame_check) carrying its generation; a write goes to the
 * slot that does not hold the newest good version, so the newest good one
 * survives a crash during the write.
 */
struct slots {
	const char	*kind;
	int		 fd[2];
	bool		 good[2];	/* framed (and accepted, once read) */
	uint64_t	 gen[2];
	uint64_t	 top;		/* highest generation seen, good or not */
};

struct state_dir {
	char		*path;
	int		 dfd, lock, legacy;	/* legacy: a v1 file still to be read */
	uid_t		 uid;			/* the directory's owner, every file's */
	bool		 readonly;		/* --restore on a read-only file system */
	bool		 readonly_ok;		/* STATE_RESTORE: that is allowed */
	gid_t		 gid;
	struct slots	 orig;
	struct slots	 pub;		/* STATE_DAEMON only */
};

/* Accept a slot's text (0) or say why not (-1). */
typedef int blob_accept(const char *text, size_t len, void *arg, char *err, size_t errlen);

/*
 * Open name in the directory: never through a symbolic link, created only
 * with O_EXCL, and then only what is a regular file with one link, owned
 * by the directory's owner and writable by nobody else.  A file we create
 * in a directory owned by someone else (root's --restore in a DynamicUser's
 * directory) is given to that owner, so the daemon can open it later.
 */
static int
open_in(struct state_dir *sd, const char *name, int flags, bool create, char *err,
    size_t errlen)
{
	struct stat sb;
	int fd, e;

	fd = openat(sd->dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	/* --restore on a file system remounted read-only: read what is there */
	if (fd == -1 && errno == EROFS && sd->readonly_ok) {
		sd->readonly = true;
		flags = (flags & ~O_ACCMODE) | O_RDONLY;
		create = false;
		fd = openat(sd->dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
		    O_NONBLOCK);
	}
	if (fd == -1 && errno == ENOENT && create) {
		fd = openat(sd->dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC | O_NOCTTY, 0600);
		if (fd != -1 && sd->uid != geteuid() && fchown(fd, sd->uid, sd->gid) == -1) {
			e = errno;
			util_seterr(err, errlen, -1,
			    "%s/%s: cannot give it to uid %u: %s", sd->path,
			    name, (unsigned)sd->uid, strerror(e));
			(void)unlinkat(sd->dfd, name, 0);
			close(fd);
			return errno = e, -1;
		}
	}
	if (fd == -1) {
		e = errno;
		if (e == ELOOP)
			util_seterr(err, errlen, -1,
			    "%s/%s: a symbolic link, not followed: "
			    "remove it", sd->path, name);
		else if (e != ENOENT || create)
			util_seterr(err, errlen, -1,
			    "%s/%s: %s", sd->path, name, strerror(e));
		return errno = e, -1;
	}
	if (fstat(fd, &sb) == -1) {
		e = errno;
		util_seterr(err, errlen, -1, "%s/%s: %s", sd->path, name, strerror(e));
		goto bad;
	}
	e = EPERM;
	if (!S_ISREG(sb.st_mode))
		util_seterr(err, errlen, -1,
		    "%s/%s: not a regular file: remove it", sd->path, name);
	else if (sb.st_nlink != 1)
		util_seterr(err, errlen, -1, "%s/%s: has %lu hard links, so it is also "
		    "elsewhere: remove it", sd->path, name, (unsigned long)sb.st_nlink);
	else if (sb.st_uid != sd->uid)
		util_seterr(err, errlen, -1,
		    "%s/%s: owned by uid %u, not by the directory's "
		    "owner (uid %u): remove it", sd->path, name, (unsigned)sb.st_uid,
		    (unsigned)sd->uid);
	else if (sb.st_mode & (S_IWGRP | S_IWOTH))
		util_seterr(err, errlen, -1,
		    "%s/%s: writable by group or others (mode %04o): "
		    "remove it", sd->path, name, (unsigned)(sb.st_mode & 07777));
	else
		return fd;
bad:
	close(fd);
	return errno = e, -1;
}

/* The whole of fd, malloc'd and NUL-terminated; -1 with why in err. */
static int
read_all(int fd, const char *path, const char *name, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	struct stat sb;
	size_t len = 0;
	ssize_t r;
	char *buf;

	if (fstat(fd, &sb) == -1)
		goto fail;
	if (sb.st_size > STATE_MAX_SIZE) {
		util_seterr(err, errlen, -1, "%s/%s: larger than %d bytes", path, name,
		    STATE_MAX_SIZE);
		return errno = EFBIG, -1;
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL)
		goto fail;
	while (len < (size_t)sb.st_size) {
		r = pread(fd, buf + len, (size_t)sb.st_size - len, (off_t)len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			free(buf);
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	util_seterr(err, errlen, -1, "%s/%s: %s", path, name, strerror(errno));
	return -1;
}

static int
write_all(int fd, const char *s, size_t len)
{
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		if ((w = pwrite(fd, s + off, len - off, (off_t)off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

static int
blob_open(struct state_dir *sd, struct slots *sl, const char *kind, char *err,
    size_t errlen)
{
	char name[64];
	int i;

	sl->kind = kind;
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s.%d", kind, i);
		if ((sl->fd[i] = open_in(sd, name, O_RDWR, true, err, errlen)) == -1 &&
		    !(sd->readonly && errno == ENOENT))
			return -1;	/* read-only, never written: an empty slot */
	}
	return 0;
}

/*
 * Find the newest good version of sl: framed, and accepted by accept.
 * 1 found (accept was given it last), 0 when both slots are empty (never
 * written), -1 with why in err when neither is good.  Records which slots
 * are good, for blob_write; unless quiet, logs a slot passed over.
 */
static int
blob_read(struct state_dir *sd, struct slots *sl, blob_accept *accept, void *arg,
    bool quiet, char *err, size_t errlen)
{
	struct parser p = { NULL, NULL, 0, 0, NULL, "" };
	char *text[2] = { NULL, NULL }, why[2][320], name[64];
	size_t len[2] = { 0, 0 }, body, bodyend;
	int i, order[2], chose = -1;

	for (i = 0; i < 2; i++) {
		sl->good[i] = false;
		why[i][0] = '\0';
		snprintf(name, sizeof(name), "%s.%d", sl->kind, i);
		if (sl->fd[i] == -1)
			continue;	/* read-only and absent: empty */
		/* one slot unreadable (EIO, too large) leaves the other */
		if (read_all(sl->fd[i], sd->path, name, &text[i], &len[i], why[i],
		    sizeof(why[i])) == -1) {
			len[i] = 1;
			continue;
		}
		if (len[i] == 0)
			continue;
		if (frame_check(&p, text[i], len[i], sl->kind, &sl->gen[i], &body,
		    &bodyend) == -1) {
			snprintf(why[i], sizeof(why[i]), "%s/%s: line %u: %s", sd->path,
			    name, p.line, p.why);
			continue;
		}
		sl->good[i] = true;
		if (sl->gen[i] > sl->top)
			sl->top = sl->gen[i];
	}
	/* newest first */
	order[0] = sl->good[1] && (!sl->good[0] || sl->gen[1] > sl->gen[0]);
	order[1] = !order[0];
	for (i = 0; i < 2 && chose == -1; i++) {
		int s = order[i];
		char r[256];

		if (!sl->good[s] || text[s] == NULL)
			continue;
		if (accept(text[s], len[s], arg, r, sizeof(r)) == 0) {
			chose = s;
			break;
		}
		sl->good[s] = false;
		snprintf(why[s], sizeof(why[s]), "%s/%s.%d: %s", sd->path, sl->kind, s, r);
	}
	if (chose != -1) {
		if (!quiet && why[!chose][0] != '\0')
			log_notice("%s; using %s/%s.%d, generation %" PRIu64,
			    why[!chose], sd->path, sl->kind, chose, sl->gen[chose]);
	} else if ((len[0] == 0) != (len[1] == 0)) {
		/*
		 * One slot never written, the other not good: the first save
		 * ever was cut short (a full disk, a crash in the write).
		 * Nothing was changed on the strength of it, so nothing is
		 * saved; a link left at 8 with no record gets the default.
		 */
		if (!quiet)
			log_notice("%s; the first save never completed: nothing saved",
			    why[len[0] == 0]);
		len[0] = len[1] = 0;
	} else if (len[0] != 0 || len[1] != 0) {
		util_seterr(err, errlen, -1, "no complete saved version: %s%s%s", why[0],
		    why[0][0] && why[1][0] ? "; " : "", why[1]);
		errno = EINVAL;
	}
	free(text[0]);
	free(text[1]);
	return chose != -1 ? 1 : len[0] == 0 && len[1] == 0 ? 0 : -1;
}

/* Write a version of generation gen into the slot not holding the newest good one. */
static int
blob_write(struct slots *sl, uint64_t gen, const char *text, size_t len)
{
	int s;

	if (sl->fd[0] == -1 || sl->fd[1] == -1)
		return errno = EROFS, -1;	/* a read-only --restore */
	if (!sl->good[0])
		s = 0;
	else if (!sl->good[1])
		s = 1;
	else
		s = sl->gen[1] < sl->gen[0];
	sl->good[s] = false;	/* until the write is complete */
	if (write_all(sl->fd[s], text, len) == -1 ||
	    ftruncate(sl->fd[s], (off_t)len) == -1 || fdatasync(sl->fd[s]) == -1)
		return -1;
	sl->good[s] = true;
	sl->gen[s] = gen;
	if (gen > sl->top)
		sl->top = gen;
	return 0;
}

/* The directory: never through a symbolic link, writable only by its owner,
 * and that owner us, or for --restore by root any user but nobody. */
static int
check_dir(const char *dir, const struct stat *sb, enum state_mode mode, char *err,
    size_t errlen)
{
	uid_t me = geteuid();

	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		util_seterr(err, errlen, -1,
		    "%s: writable by group or others (mode %04o), so "
		    "anyone could change what arpownd restores: chmod go-w %s",
		    dir, (unsigned)(sb->st_mode & 07777), dir);
		return -1;
	}
	if (sb->st_uid == me)
		return 0;
	if (sb->st_uid == UID_NOBODY) {
		util_seterr(err, errlen, -1,
		    "%s: owned by nobody (uid %u), as arpownd before "
		    "the v2 state format left it: any process running as nobody could "
		    "have changed the saved originals.  Check the files in it, then "
		    "chown -R %u:%u %s and start again (or remove it, if no interface "
		    "is left at arp_ignore=8)", dir, (unsigned)UID_NOBODY,
		    (unsigned)me, (unsigned)getegid(), dir);
		return -1;
	}
	if (mode == STATE_RESTORE && me == 0)
		return 0;	/* systemd's DynamicUser owns it: its records are the truth */
	util_seterr(err, errlen, -1, "%s: owned by uid %u, not by us (uid %u): arpownd "
	    "trusts only a directory of its own, and that user could have written "
	    "what is in it.  Check the files in it (or remove it, if no interface "
	    "is left at arp_ignore=8), then chown -R %u:%u %s, or give arpownd "
	    "another --state-dir", dir, (unsigned)sb->st_uid, (unsigned)me,
	    (unsigned)me, (unsigned)getegid(), dir);
	return -1;
}

static int
accept_orig(const char *text, size_t len, void *arg, char *err, size_t errlen)
{
	return state_parse(text, len, arg, err, errlen);
}

/* Any framed text is accepted: its lines are for the caller to judge.
 * With arg, *(struct text *)arg gets a copy of the lines. */
struct text {
	char	*lines;
	size_t	 len;
};

static int
accept_text(const char *text, size_t len, void *arg, char *err, size_t errlen)
{
	struct parser p = { NULL, NULL, 0, 0, NULL, "" };
	struct text *t = arg;
	size_t body = 0, bodyend = 0;
	uint64_t gen;

	if (frame_check(&p, text, len, PUB_KIND, &gen, &body, &bodyend) == -1) {
		util_seterr(err, errlen, -1, "line %u: %s", p.line, p.why);
		return -1;
	}
	if (t == NULL)
		return 0;
	free(t->lines);
	if ((t->lines = malloc(bodyend - body + 1)) == NULL) {
		util_seterr(err, errlen, -1, "out of memory");
		return -1;
	}
	memcpy(t->lines, text + body, bodyend - body);
	t->lines[bodyend - body] = '\0';
	t->len = bodyend - body;
	return 0;
}

static int
read_legacy(struct state_dir *sd, struct state *st, char *err, size_t errlen)
{
	char *text, why[256];
	size_t len;
	int r;

	if (read_all(sd->legacy, sd->path, LEGACY_FILE, &text, &len, err, errlen) == -1)
		return -1;
	if ((r = state_parse(text, len, st, why, sizeof(why))) == -1)
		util_seterr(err, errlen, -1, "%s/%s: %s", sd->path, LEGACY_FILE, why);
	free(text);
	return r;
}

static int
drop_legacy(struct state_dir *sd)
{
	if (unlinkat(sd->dfd, LEGACY_FILE, 0) == -1) {
		log_warn("%s/%s: cannot remove the v1 file", sd->path, LEGACY_FILE);
		return -1;
	}
	close(sd->legacy);
	sd->legacy = -1;
	return 0;
}

/*
 * A v1 "originals" file is what arpownd before v2 saved: it is newer than
 * any slot unless a good slot was written after it (the one case: a
 * conversion whose unlink failed).  Convert it now, while the directory is
 * still writable to us, so that it cannot linger and later be taken for
 * the truth; if it does not parse, keep it for state_load to report.
 */
static void
convert_legacy(struct state_dir *sd)
{
	struct state st = { 0 };
	struct timespec lt, t;
	struct stat sb;
	char err[320];
	char *text;
	int i;

	if (fstat(sd->legacy, &sb) == -1)
		return;
	lt = sb.st_mtim;
	for (i = 0; i < 2; i++) {
		if (!sd->orig.good[i] || fstat(sd->orig.fd[i], &sb) == -1)
			continue;
		t = sb.st_mtim;
		if (t.tv_sec > lt.tv_sec || (t.tv_sec == lt.tv_sec && t.tv_nsec > lt.tv_nsec)) {
			log_info("%s/%s: older than %s.%d, removed", sd->path, LEGACY_FILE,
			    ORIG_KIND, i);
			(void)drop_legacy(sd);
			return;
		}
	}
	if (read_legacy(sd, &st, err, sizeof(err)) == -1)
		return;
	st.gen = sd->orig.top + 1;
	if ((text = state_format(&st)) == NULL ||
	    blob_write(&sd->orig, st.gen, text, strlen(text)) == -1)
		log_warn("%s: cannot convert the v1 file %s", sd->path, LEGACY_FILE);
	else if (drop_legacy(sd) == 0)
		log_notice("%s/%s: the v1 file of an earlier arpownd, converted to "
		    "%s.0/1 (%zu records)", sd->path, LEGACY_FILE, ORIG_KIND, st.n);
	free(text);
	state_clear(&st);
}

/*
 * The one symbolic link followed: one root made, in a directory only root
 * can write.  systemd makes /run/arpownd such a link to /run/private/arpownd
 * for a DynamicUser= service whose RuntimeDirectory= is preserved; nobody
 * but root could have replaced it, and the directory it leads to is
 * checked as any other.
 */
static bool
root_link(const char *dir)
{
	char parent[PATH_MAX], *slash;
	struct stat sb;

	if (lstat(dir, &sb) == -1 || !S_ISLNK(sb.st_mode) || sb.st_uid != 0)
		return false;
	if ((size_t)snprintf(parent, sizeof(parent), "%s", dir) >= sizeof(parent))
		return false;
	if ((slash = strrchr(parent, '/')) == NULL)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	return stat(parent, &sb) == 0 && sb.st_uid == 0 &&
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

struct state_dir *
state_open(const char *dir, enum state_mode mode, char *err, size_t errlen)
{
	struct state scratch = { 0 };
	struct state_dir *sd;
	char pid[32], held[32];
	struct stat sb;
	ssize_t r;
	int e, n;

	if ((sd = calloc(1, sizeof(*sd))) == NULL || (sd->path = strdup(dir)) == NULL) {
		free(sd);
		util_seterr(err, errlen, -1, "%s: out of memory", dir);
		return errno = ENOMEM, NULL;
	}
	sd->dfd = sd->lock = sd->legacy = -1;
	sd->orig.fd[0] = sd->orig.fd[1] = -1;
	sd->pub.fd[0] = sd->pub.fd[1] = -1;
	sd->readonly_ok = mode == STATE_RESTORE;
	if (mkdir(dir, 0755) == -1 && errno != EEXIST &&
	    !(errno == EROFS && sd->readonly_ok && access(dir, F_OK) == 0)) {
		util_seterr(err, errlen, -1,
		    "%s: cannot create it: %s", dir, strerror(errno));
		goto fail;
	}
	if ((sd->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    (root_link(dir) ? 0 : O_NOFOLLOW))) == -1) {
		/* O_DIRECTORY says ENOTDIR for a symbolic link too */
		if (errno == ELOOP || errno == ENOTDIR)
			util_seterr(err, errlen, -1,
			    "%s: %s; give arpownd a directory of its own",
			    dir, lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode) ?
			    "a symbolic link" : "not a directory");
		else
			util_seterr(err, errlen, -1, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (fstat(sd->dfd, &sb) == -1) {
		util_seterr(err, errlen, -1, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (check_dir(dir, &sb, mode, err, errlen) == -1) {
		errno = EPERM;
		goto fail;
	}
	sd->uid = sb.st_uid;
	sd->gid = sb.st_gid;

	if ((sd->lock = open_in(sd, LOCK_FILE, O_RDWR, true, err, errlen)) == -1)
		goto fail;
	/* flock is released by the kernel when the holder dies, however it dies */
	if (flock(sd->lock, LOCK_EX | LOCK_NB) == -1) {
		e = errno;
		if (e == EWOULDBLOCK) {
			r = pread(sd->lock, held, sizeof(held) - 1, 0);
			held[r > 0 ? r : 0] = '\0';
			held[strcspn(held, "\n")] = '\0';
			util_seterr(err, errlen, -1,
			    "%s: held by another arpownd (pid %s)", dir,
			    held[0] ? held : "unknown");
		} else
			util_seterr(err, errlen, -1,
			    "%s/%s: %s", dir, LOCK_FILE, strerror(e));
		errno = e;
		goto fail;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (!sd->readonly &&
	    (ftruncate(sd->lock, 0) == -1 || write_all(sd->lock, pid, (size_t)n) == -1))
		log_warn("%s/%s", dir, LOCK_FILE);	/* the lock holds without it */
	if (sd->readonly)
		log_warnx("%s: read-only: restoring from what is saved, but the records "
		    "cannot be updated", dir);

	if (blob_open(sd, &sd->orig, ORIG_KIND, err, errlen) == -1)
		goto fail;
	/* which slot holds the newest good version, for a save before any
	 * state_load; what is wrong with them is for state_load to say */
	(void)blob_read(sd, &sd->orig, accept_orig, &scratch, true, NULL, 0);
	state_clear(&scratch);
	/* the daemon's other records (--withdraw edits them too; any file
	 * created here is given to the directory's owner, as above) */
	if (blob_open(sd, &sd->pub, PUB_KIND, err, errlen) == -1)
		goto fail;
	(void)blob_read(sd, &sd->pub, accept_text, NULL, true, NULL, 0);
	if ((sd->legacy = open_in(sd, LEGACY_FILE, O_RDONLY, false, err, errlen)) == -1 &&
	    errno != ENOENT)
		goto fail;
	if (sd->legacy != -1)
		convert_legacy(sd);
	return sd;
fail:
	e = errno;
	state_close(sd);
	errno = e;
	return NULL;
}

void
state_close(struct state_dir *sd)
{
	int i;

	if (sd == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (sd->orig.fd[i] != -1)
			close(sd->orig.fd[i]);
		if (sd->pub.fd[i] != -1)
			close(sd->pub.fd[i]);
	}
	if (sd->legacy != -1)
		close(sd->legacy);
	if (sd->lock != -1)
		close(sd->lock);
	if (sd->dfd != -1)
		close(sd->dfd);
	free(sd->path);
	free(sd);
}

int
state_load(struct state_dir *sd, struct state *st, char *err, size_t errlen)
{
	state_clear(st);
	if (sd->legacy != -1)		/* newer than the slots, not converted */
		return read_legacy(sd, st, err, errlen);
	return blob_read(sd, &sd->orig, accept_orig, st, false, err, errlen) == -1 ? -1 : 0;
}

int
state_save(struct state_dir *sd, const struct state *st)
{
	struct state v = *st;
	char *text;
	int r, e;

	v.gen = sd->orig.top + 1;
	if ((text = state_format(&v)) == NULL)
		return -1;
	if (strlen(text) > STATE_MAX_SIZE) {	/* it could not be read back */
		free(text);
		return errno = EFBIG, -1;
	}
	r = blob_write(&sd->orig, v.gen, text, strlen(text));
	e = errno;
	free(text);
	if (r == 0 && sd->legacy != -1)
		(void)drop_legacy(sd);	/* its records are in a slot now */
	errno = e;
	return r;
}

int
state_published_load(struct state_dir *sd, char **lines, size_t *len, char *err,
    size_t errlen)
{
	struct text t = { NULL, 0 };
	int r;

	if (sd->pub.fd[0] == -1)
		return errno = EBADF, -1;
	r = blob_read(sd, &sd->pub, accept_text, &t, false, err, errlen);
	if (r == -1) {
		free(t.lines);
		return -1;
	}
	if (t.lines == NULL && (t.lines = strdup("")) == NULL)
		return errno = ENOMEM, -1;
	*lines = t.lines;
	*len = t.len;
	return 0;
}

int
state_published_save(struct state_dir *sd, const char *lines, size_t len)
{
	uint64_t gen = sd->pub.top + 1;
	char *text = NULL;
	size_t n = 0;
	FILE *f;
	int r, e;

	if (sd->pub.fd[0] == -1)
		return errno = EBADF, -1;
	if ((f = open_memstream(&text, &n)) == NULL)
		return -1;
	fprintf(f, "arpownd " PUB_KIND " v2 gen=%" PRIu64 "\n", gen);
	fwrite(lines, 1, len, f);
	if (fclose(f) != 0) {
		free(text);
		return errno = ENOMEM, -1;
	}
	if (n + TRAILER_LEN + 1 > STATE_MAX_SIZE) {
		free(text);
		return errno = EFBIG, -1;
	}
	{
		char *t = realloc(text, n + TRAILER_LEN + 1);

		if (t == NULL) {
			free(text);
			return errno = ENOMEM, -1;
		}
		text = t;
	}
	snprintf(text + n, TRAILER_LEN + 1, "crc32=%08" PRIx32 "\n", crc32_ieee(text, n));
	r = blob_write(&sd->pub, gen, text, n + TRAILER_LEN);
	e = errno;
	free(text);
	errno = e;
	return r;
}
