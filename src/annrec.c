/* annrec.c — the record of what a run announced, a line for each
 * interface and MAC (a [publish] section's mac = announces its addresses
 * with a MAC of its own, and a change of it is a move).  Ranges, because a
 * host's addresses come in blocks: 100,000 of them in a few /24s are a few
 * hundred bytes, and even scattered ones (9 bytes each) stay under the
 * state directory's 1 MiB a record.  The text is the daemon's own (its
 * state directory, never read by root): a line that does not parse costs
 * that interface one announcement too many, nothing else. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annrec.h"

struct span {
	uint32_t	lo, hi;		/* host order */
};

struct rec_if {
	char		 name[IF_NAMESIZE];
	uint8_t		 mac[6];
	struct span	*v;
	size_t		 n;
};

struct annrec {
	struct rec_if	*v;
	size_t		 n;
};

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* By name, then MAC: the key of a line. */
static int
cmp_if(const void *a, const void *b)
{
	const struct rec_if *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : memcmp(x->mac, y->mac, sizeof(x->mac));
}

/* One "LO" or "LO-HI" word; 0, or -1. */
static int
parse_span(const char *w, struct span *s)
{
	unsigned long lo, hi;
	char *end;

	errno = 0;
	lo = strtoul(w, &end, 16);
	if (end == w || errno != 0 || lo > 0xffffffffu)
		return -1;
	hi = lo;
	if (*end == '-') {
		w = end + 1;
		hi = strtoul(w, &end, 16);
		if (end == w || errno != 0 || hi > 0xffffffffu || hi < lo)
			return -1;
	}
	if (*end != '\0')
		return -1;
	s->lo = (uint32_t)lo;
	s->hi = (uint32_t)hi;
	return 0;
}

/* One line into ri (its spans malloc'd); 0, -1 when it does not parse,
 * -2 on ENOMEM. */
static int
parse_line(char *line, struct rec_if *ri)
{
	unsigned m[6];
	char *w, *save = NULL;
	struct span *v;
	size_t cap = 0;
	int i;

	memset(ri, 0, sizeof(*ri));
	if ((w = strtok_r(line, " ", &save)) == NULL || strlen(w) >= IF_NAMESIZE)
		return -1;
	snprintf(ri->name, sizeof(ri->name), "%s", w);
	/* two hex digits a field cannot overflow what sscanf fills */
	if ((w = strtok_r(NULL, " ", &save)) == NULL ||
	    sscanf(w, "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4],	/* NOLINT(cert-err34-c) */
	    &m[5]) != 6 || strlen(w) != 17)
		return -1;
	for (i = 0; i < 6; i++)
		ri->mac[i] = (uint8_t)m[i];
	while ((w = strtok_r(NULL, " ", &save)) != NULL) {
		if (ri->n == cap) {
			cap = cap ? cap * 2 : 8;
			if ((v = realloc(ri->v, cap * sizeof(*v))) == NULL) {
				free(ri->v);
				return -2;
			}
			ri->v = v;
		}
		if (parse_span(w, &ri->v[ri->n]) == -1 ||
		    (ri->n > 0 && ri->v[ri->n].lo <= ri->v[ri->n - 1].hi)) {
			free(ri->v);
			return -1;	/* written sorted and apart: anything else is not ours */
		}
		ri->n++;
	}
	return 0;
}

struct annrec *
annrec_parse(const char *text, size_t len, size_t *bad)
{
	struct annrec *r;
	struct rec_if *v;
	size_t cap = 0, i, j;
	char *copy, *line, *save = NULL;
	int e;

	*bad = 0;
	if ((r = calloc(1, sizeof(*r))) == NULL || (copy = malloc(len + 1)) == NULL) {
		free(r);
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (r->n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((v = realloc(r->v, cap * sizeof(*v))) == NULL)
				goto nomem;
			r->v = v;
		}
		if ((e = parse_line(line, &r->v[r->n])) == -2)
			goto nomem;
		if (e == 0)
			r->n++;
		else
			(*bad)++;
	}
	free(copy);
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), cmp_if);
	/* a name and MAC twice is not ours either: both go */
	for (i = 0, j = 0; i < r->n; i++) {
		if ((i + 1 < r->n && cmp_if(&r->v[i], &r->v[i + 1]) == 0) ||
		    (i > 0 && cmp_if(&r->v[i], &r->v[i - 1]) == 0)) {
			free(r->v[i].v);
			(*bad)++;
			continue;
		}
		r->v[j++] = r->v[i];
	}
	r->n = j;
	return r;
nomem:
	free(copy);
	annrec_free(r);
	return NULL;
}

void
annrec_free(struct annrec *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		free(r->v[i].v);
	free(r->v);
	free(r);
}

bool
annrec_has(const struct annrec *r, const char *ifname, const uint8_t mac[static 6],
    uint32_t addr)
{
	struct rec_if key = { .n = 0 };	/* name and mac set below; the rest unused by cmp_if */
	const struct rec_if *ri;
	size_t lo = 0, hi, mid;
	uint32_t h = ntohl(addr);

	if (r == NULL || strlen(ifname) >= IF_NAMESIZE)
		return false;
	snprintf(key.name, sizeof(key.name), "%s", ifname);
	memcpy(key.mac, mac, sizeof(key.mac));
	if (r->n == 0 || (ri = bsearch(&key, r->v, r->n, sizeof(*r->v), cmp_if)) == NULL)
		return false;
	hi = ri->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h < ri->v[mid].lo)
			hi = mid;
		else if (h > ri->v[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

size_t
annrec_count(const struct annrec *r)
{
	return r != NULL ? r->n : 0;
}

/* Append what printf would make of fmt to the growing buffer. */
static int
put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	char *nb;
	int w;

	for (;;) {
		va_start(ap, fmt);
		w = vsnprintf(*buf != NULL ? *buf + *len : NULL, *buf != NULL ? *cap - *len : 0,
		    fmt, ap);
		va_end(ap);
		if (w < 0)
			return -1;
		if (*buf != NULL && *len + (size_t)w < *cap) {
			*len += (size_t)w;
			return 0;
		}
		*cap = *cap ? *cap * 2 : 4096;
		while (*cap < *len + (size_t)w + 1)
			*cap *= 2;
		if ((nb = realloc(*buf, *cap)) == NULL)
			return -1;
		*buf = nb;
	}
}

int
annrec_line(char **buf, size_t *len, size_t *cap, const char *ifname,
    const uint8_t mac[static 6], uint32_t *addrs, size_t n)
{
	size_t i = 0, j;

	if (n == 0)
		return 0;
	qsort(addrs, n, sizeof(*addrs), cmp_u32);
	if (put(buf, len, cap, "%s %02x:%02x:%02x:%02x:%02x:%02x", ifname, mac[0], mac[1],
	    mac[2], mac[3], mac[4], mac[5]) == -1)
		return -1;
	while (i < n) {
		/* a run of consecutive addresses (the same one twice is one) */
		for (j = i; j + 1 < n && addrs[j + 1] - addrs[j] <= 1; j++)
			;
		if ((addrs[j] == addrs[i] ? put(buf, len, cap, " %x", addrs[i]) :
		    put(buf, len, cap, " %x-%x", addrs[i], addrs[j])) == -1)
			return -1;
		i = j + 1;
	}
	return put(buf, len, cap, "\n");
}
