/* jsonw.c — JSON out, streamed.  Written here rather than taken from
 * json-c: json-c builds the whole document as a tree of objects first
 * (tens of megabytes for the 100,000 addresses of the scale target, in a
 * daemon that must stay under 16 MiB), and it copies bytes that are not
 * UTF-8 into its output unchanged, which is then not JSON at all; an
 * interface name may hold any byte but '/', ':' and white space.  The
 * client, arpownctl, parses with json-c. */
#include "config.h"

#include <stdio_ext.h>
#include <string.h>

#include "jsonw.h"

void
jw_init(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	/* one thread writes a memory stream: its lock per call is most of
	 * the cost of a 100,000-address document */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
}

/* The separator before an item at the current depth, and its key. */
static void
item(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->items[w->depth])
			fputc(',', w->f);
		if (w->lines[w->depth])
			fputc('\n', w->f);
		w->items[w->depth] = true;
	}
	if (key != NULL) {
		fputc('"', w->f);
		jw_escape(w->f, key, strlen(key));
		fputs("\":", w->f);
	}
}

static void
open_(struct jw *w, const char *key, bool lines, char open, char close)
{
	item(w, key);
	fputc(open, w->f);
	/* the renderers nest four deep; deeper would be a bug, kept harmless */
	if (w->depth + 1 < JW_DEPTH) {
		w->depth++;
		w->items[w->depth] = false;
		w->lines[w->depth] = lines;
		w->close[w->depth] = close;
	}
}

void
jw_obj(struct jw *w, const char *key, bool lines)
{
	open_(w, key, lines, '{', '}');
}

void
jw_arr(struct jw *w, const char *key, bool lines)
{
	open_(w, key, lines, '[', ']');
}

void
jw_end(struct jw *w)
{
	if (w->depth == 0)
		return;
	if (w->lines[w->depth] && w->items[w->depth])
		fputc('\n', w->f);
	fputc(w->close[w->depth], w->f);
	if (--w->depth == 0)
		fputc('\n', w->f);
}

void
jw_strn(struct jw *w, const char *key, const char *s, size_t len)
{
	item(w, key);
	fputc('"', w->f);
	jw_escape(w->f, s, len);
	fputc('"', w->f);
}

void
jw_str(struct jw *w, const char *key, const char *s)
{
	if (s == NULL)
		jw_null(w, key);
	else
		jw_strn(w, key, s, strlen(s));
}

/* Digits by hand: fprintf's parsing of "%llu" is most of a number's cost. */
static void
digits(FILE *f, bool neg, unsigned long long v)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (neg)
		*--p = '-';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void
jw_u64(struct jw *w, const char *key, unsigned long long v)
{
	item(w, key);
	digits(w->f, false, v);
}

void
jw_int(struct jw *w, const char *key, long long v)
{
	item(w, key);
	digits(w->f, v < 0, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

void
jw_secs(struct jw *w, const char *key, double v, bool null0)
{
	if (null0 && v <= 0) {
		jw_null(w, key);
		return;
	}
	item(w, key);
	/* never NaN or infinity, which JSON cannot say */
	fprintf(w->f, "%.3f", v == v && v < 1e15 && v > -1e15 ? v : 0.0);
}

void
jw_bool(struct jw *w, const char *key, bool v)
{
	item(w, key);
	fputs(v ? "true" : "false", w->f);
}

void
jw_null(struct jw *w, const char *key)
{
	item(w, key);
	fputs("null", w->f);
}

size_t
jw_utf8_len(const unsigned char *p, size_t left)
{
	size_t n, i;
	uint32_t cp;

	if (left == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;	/* a continuation byte, 0xc0/0xc1 or above 0xf4 */
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void
jw_escape(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		/* a run of bytes that need nothing, in one write */
		for (n = i; n < len && p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' &&
		    p[n] != '\\'; n++)
			;
		if (n > i) {
			fwrite(p + i, 1, n - i, f);
			i = n;
			continue;
		}
		if (c >= 0x80) {
			if ((n = jw_utf8_len(p + i, len - i)) == 0) {
				fprintf(f, "\\u%04x", c);
				n = 1;
			} else
				fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		i++;
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			/* the other controls, and DEL, which terminals act on */
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
}
