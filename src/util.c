/* util.c — small pure helpers: error text, a string hash, the kernel's rule
 * for interface names, MAC formatting, an edit distance.  No state, no syscalls; each is used
 * by modules that otherwise share nothing, so that none of them links
 * another only for a helper. */
#include "config.h"

#include <net/if.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "util.h"

int
util_seterr(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	/* the caller's errno says what failed: a message must not change it */
	if (errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return ret;
}

uint32_t
util_fnv1a(uint32_t h, const void *p, size_t len)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/*
 * net/core/dev.c, dev_valid_name(): 1 to 15 bytes, not "." or ".." (a name
 * is a directory in sysfs), no '/', ':' (the alias separator) or white
 * space by the kernel's isspace(), which is Latin-1: 0xa0 is white space
 * there, 0x85 and 0x1c are not.
 */
/* Wellons' lowbias32 (hash-prospector): two multiply-xorshift rounds, bias
 * near the best known for 32 bits.  Multiplying alone mixes only upwards,
 * so a key's high bits never reach the low bits a table indexes by. */
uint32_t
util_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

bool
util_ifname_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= IF_NAMESIZE)
		return false;
	if (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0' || c == '/' || c == ':' || c == ' ' ||
		    (c >= '\t' && c <= '\r') || c == 0xa0)
			return false;
	}
	return true;
}

char *
util_mac_str(const uint8_t mac[static 6], char buf[static UTIL_MAC_STRLEN])
{
	snprintf(buf, UTIL_MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
	    mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

int
util_exit_code(int e)
{
	return e == EPERM || e == EACCES ? EX_NOPERM : EX_OSERR;
}

void
util_ifset_add(struct util_ifset *s, int ifindex)
{
	size_t i;

	if (s->all)
		return;
	for (i = 0; i < s->n; i++)
		if (s->v[i] == ifindex)
			return;
	if (s->n < UTIL_IFSET_MAX)
		s->v[s->n++] = ifindex;
	else
		s->all = true;
}

void
util_ifset_merge(struct util_ifset *dst, const struct util_ifset *src)
{
	size_t i;

	dst->all |= src->all;
	for (i = 0; i < src->n; i++)
		util_ifset_add(dst, src->v[i]);
}

size_t
util_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, d[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = d[j];
			d[j] = a[i - 1] == b[j - 1] ? prev :
			    1 + (prev < d[j] ? (prev < d[j - 1] ? prev : d[j - 1]) :
			    (d[j] < d[j - 1] ? d[j] : d[j - 1]));
			prev = cur;
		}
	}
	return d[lb];
}
