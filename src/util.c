/* util.c — small pure helpers: error text, a string hash.  No state, no
 * syscalls; each is used by modules that otherwise share nothing, so that
 * none of them links another only for a helper. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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
