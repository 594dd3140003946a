/* util.h — small pure helpers shared by modules that share nothing else. */
#ifndef ARPOWND_UTIL_H
#define ARPOWND_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTIL_FNV1A_INIT	2166136261u	/* the FNV-1a offset basis */
#define UTIL_MAC_STRLEN	18		/* "aa:bb:cc:dd:ee:ff" and its NUL */

/* Format a message into err (nothing when errlen is 0), errno kept; returns ret. */
int util_seterr(char *err, size_t errlen, int ret, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 32-bit FNV-1a of len bytes at p, continuing from h (UTIL_FNV1A_INIT to start). */
uint32_t util_fnv1a(uint32_t h, const void *p, size_t len);
/* x with every input bit moved into every output bit (a full-avalanche
 * mixer), so a table may index by its low bits whatever the key's layout. */
uint32_t util_mix32(uint32_t x);
/* Is s (len bytes) a name the kernel accepts for an interface (dev_valid_name())? */
bool util_ifname_ok(const char *s, size_t len);
/* The sysexits code for a failure with errno e: EX_NOPERM for a
 * permission, else EX_OSERR. */
int util_exit_code(int e);
/* Levenshtein's distance of a and b, for "did you mean"; 99 past 62 bytes. */
size_t util_distance(const char *a, const char *b);
/* mac as aa:bb:cc:dd:ee:ff in buf; returns buf. */
char *util_mac_str(const uint8_t mac[static 6], char buf[static UTIL_MAC_STRLEN]);

/* A bounded set of interfaces to do something to later: past
 * UTIL_IFSET_MAX it says "all" instead of growing, and whoever empties it
 * then does every interface (never none: a lost name is a missed write). */
#define UTIL_IFSET_MAX	16
struct util_ifset {
	int	v[UTIL_IFSET_MAX];
	size_t	n;
	bool	all;
};
void util_ifset_add(struct util_ifset *s, int ifindex);
/* Everything src names, added to dst. */
void util_ifset_merge(struct util_ifset *dst, const struct util_ifset *src);
static inline bool util_ifset_empty(const struct util_ifset *s) { return s->n == 0 && !s->all; }

#endif
