/* stateframe.c — the checksummed frame around every text the state
 * directory keeps (the saved originals, the published and announced
 * lines): a header line with the kind and the generation, the body, a
 * trailer line with a CRC-32 of all before it.  A crash mid-write leaves a
 * text whose frame does not check, so a reader takes only a complete one
 * (slots.c keeps the newest of two).  Pure: no files, no log. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stateframe.h"
#include "util.h"

#define TRAILER_LEN	15		/* "crc32=xxxxxxxx\n" */

/*
 * CRC-32 of IEEE 802.3, the one zlib's crc32() computes (so a file can be
 * checked by hand with Python's zlib), four bits at a time.  Twenty lines
 * are not worth a dependency on zlib.
 */
uint32_t
state_crc32(const char *p, size_t len)
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

int
state_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
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

static int check_fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
check_fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The frame of a v2 file: "arpownd KIND v2 gen=N\n" first, "crc32=HEX\n"
 * last.  On success, the records are [*body, *bodyend).
 */
int
state_frame_check(const char *buf, size_t len, const char *kind, uint64_t *gen,
    size_t *body, size_t *bodyend, unsigned *line, char *why, size_t whylen)
{
	size_t klen = strlen(kind), i;
	const char *nl;
	char want[9];

	*line = 1;
	if (len < 8 + klen + 1 || memcmp(buf, "arpownd ", 8) != 0 ||
	    memcmp(buf + 8, kind, klen) != 0 || buf[8 + klen] != ' ')
		return check_fail(why, whylen, "not an arpownd %s file", kind);
	i = 8 + klen + 1;
	if ((nl = memchr(buf + i, '\n', len - i)) == NULL)
		return check_fail(why, whylen, "the header line is cut short");
	if ((size_t)(nl - buf) - i < 7 || memcmp(buf + i, "v2 gen=", 7) != 0)
		return check_fail(why, whylen, "not format v2 (a newer arpownd wrote this?)");
	i += 7;
	if (state_uint(buf + i, (size_t)(nl - buf) - i, UINT64_MAX, gen) == -1)
		return check_fail(why, whylen, "bad generation number");
	*body = (size_t)(nl - buf) + 1;

	/* the trailer is a line of its own, the last */
	if (len - *body < TRAILER_LEN || buf[len - 1] != '\n' ||
	    buf[len - TRAILER_LEN - 1] != '\n' ||
	    memcmp(buf + len - TRAILER_LEN, "crc32=", 6) != 0) {
		*line = count_lines(buf, len);
		return check_fail(why, whylen,
		    "no checksum line at the end (a write cut short?)");
	}
	/* compared as text: one memcmp, and what a person reading the file sees */
	snprintf(want, sizeof(want), "%08" PRIx32, state_crc32(buf, len - TRAILER_LEN));
	if (memcmp(buf + len - 9, want, 8) != 0) {
		*line = count_lines(buf, len);
		return check_fail(why, whylen,
		    "checksum mismatch: the text gives %s (a write cut short?)", want);
	}
	*bodyend = len - TRAILER_LEN;
	return 0;
}

char *
state_frame(const char *kind, uint64_t gen, const char *body, size_t len, size_t *outlen)
{
	char *text;
	size_t n;
	int h;

	h = snprintf(NULL, 0, "arpownd %s v2 gen=%" PRIu64 "\n", kind, gen);
	if (h < 0 || len > SIZE_MAX - (size_t)h - TRAILER_LEN - 1)
		return errno = ENOMEM, NULL;
	if ((text = malloc((size_t)h + len + TRAILER_LEN + 1)) == NULL)
		return NULL;
	snprintf(text, (size_t)h + 1, "arpownd %s v2 gen=%" PRIu64 "\n", kind, gen);
	if (len > 0)
		memcpy(text + h, body, len);
	n = (size_t)h + len;
	snprintf(text + n, TRAILER_LEN + 1, "crc32=%08" PRIx32 "\n", state_crc32(text, n));
	if (outlen != NULL)
		*outlen = n + TRAILER_LEN;
	return text;
}

int
state_unframe(const char *buf, size_t len, const char *kind, uint64_t *gen, size_t *body,
    size_t *bodyend, char *err, size_t errlen)
{
	char why[160];
	unsigned line;

	if (state_frame_check(buf, len, kind, gen, body, bodyend, &line, why,
	    sizeof(why)) == -1)
		return util_seterr(err, errlen, -1, "line %u: %s", line, why);
	return 0;
}
