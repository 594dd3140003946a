/* ranges.c — IPv4 address sets as sorted ranges.  Published addresses
 * (10.0.1.0/28, 10.0.2.10-10.0.2.20, !10.0.1.5) and sender ACLs are given
 * as a few items that may stand for a million addresses: kept as merged
 * [lo, hi] spans, looked up by binary search. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "rules.h"

static int
push(struct rng_span **v, size_t *n, size_t *alloc, uint32_t lo, uint32_t hi)
{
	struct rng_span *nv;

	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 8;

		if ((nv = realloc(*v, na * sizeof(*nv))) == NULL)
			return -1;
		*v = nv;
		*alloc = na;
	}
	(*v)[*n].lo = lo;
	(*v)[(*n)++].hi = hi;
	return 0;
}

int
rng_add(struct rng *r, uint32_t lo, uint32_t hi)
{
	return push(&r->v, &r->n, &r->alloc, lo, hi);
}

/* A dotted quad, strictly (inet_pton's rules: four decimal parts). */
static int
quad(const char *s, size_t len, uint32_t *out)
{
	char buf[16];
	struct in_addr a;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	*out = ntohl(a.s_addr);
	return 0;
}

int
rng_add_item(struct rng *r, const char *item, const char **why)
{
	const char *s = item, *p;
	uint32_t lo, hi, mask;
	bool ex = false;
	char *end;
	long len;

	if (*s == '!') {
		ex = true;
		s++;
	}
	if ((p = strchr(s, '/')) != NULL) {
		if (quad(s, (size_t)(p - s), &lo) == -1)
			return *why = "not an IPv4 address before the '/'", -1;
		if (p[1] < '0' || p[1] > '9' || (len = strtol(p + 1, &end, 10)) > 32 ||
		    *end != '\0' || end - (p + 1) > 2)
			return *why = "the prefix length must be 0 to 32", -1;
		mask = rule_mask((uint32_t)len);
		if (lo & ~mask)
			return *why = "host bits set: not the network address of that prefix", -1;
		hi = rule_bcast(lo, (uint32_t)len);
	} else if ((p = strchr(s, '-')) != NULL) {
		if (quad(s, (size_t)(p - s), &lo) == -1 || quad(p + 1, strlen(p + 1), &hi) == -1)
			return *why = "a range is ADDR-ADDR", -1;
		if (hi < lo)
			return *why = "the range ends before it starts", -1;
	} else {
		if (quad(s, strlen(s), &lo) == -1)
			return *why = "not an IPv4 address, CIDR or range", -1;
		hi = lo;
	}
	if ((ex ? push(&r->ex, &r->nex, &r->aex, lo, hi) : rng_add(r, lo, hi)) == -1)
		return *why = "out of memory", -1;
	return 0;
}

static int
cmp_span(const void *a, const void *b)
{
	const struct rng_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge overlapping or adjacent spans, in place. */
static void
merge(struct rng_span *v, size_t *n)
{
	size_t i, k = 0;

	if (*n == 0)
		return;
	qsort(v, *n, sizeof(*v), cmp_span);
	for (i = 1; i < *n; i++) {
		if (v[i].lo <= v[k].hi || (v[k].hi != UINT32_MAX && v[i].lo == v[k].hi + 1)) {
			if (v[i].hi > v[k].hi)
				v[k].hi = v[i].hi;
		} else
			v[++k] = v[i];
	}
	*n = k + 1;
}

int
rng_finish(struct rng *r)
{
	struct rng_span *out = NULL;
	size_t i = 0, j = 0, n = 0, a = 0;
	uint32_t lo;

	merge(r->v, &r->n);
	merge(r->ex, &r->nex);
	if (r->nex == 0)
		return 0;
	/* subtract the excludes: both lists sorted, one pass */
	for (i = 0; i < r->n; i++) {
		lo = r->v[i].lo;
		while (j < r->nex && r->ex[j].hi < lo)
			j++;
		for (; j < r->nex && r->ex[j].lo <= r->v[i].hi; j++) {
			if (r->ex[j].lo > lo && push(&out, &n, &a, lo, r->ex[j].lo - 1) == -1)
				goto err;
			if (r->ex[j].hi >= r->v[i].hi)
				goto next;	/* the rest of this span is excluded */
			lo = r->ex[j].hi + 1;
		}
		if (push(&out, &n, &a, lo, r->v[i].hi) == -1)
			goto err;
next:
		;
	}
	free(r->v);
	free(r->ex);
	r->v = out;
	r->n = n;
	r->alloc = a;
	r->ex = NULL;
	r->nex = r->aex = 0;
	return 0;
err:
	free(out);
	return -1;
}

size_t
rng_span_find(const void *spans, size_t n, size_t stride, uint32_t h)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rng_span *sp = (const void *)((const char *)spans + mid * stride);

		if (h < sp->lo)
			hi = mid;
		else if (h > sp->hi)
			lo = mid + 1;
		else
			return mid;
	}
	return n;
}

bool
rng_has(const struct rng *r, uint32_t addr)
{
	return rng_span_find(r->v, r->n, sizeof(r->v[0]), ntohl(addr)) != r->n;
}

bool
rng_martian(const struct rng *r, uint32_t *at)
{
	size_t i;

	/* spans are sorted: the first that holds one holds the first one */
	for (i = 0; i < r->n; i++)
		if (rule_next_martian(r->v[i].lo) <= r->v[i].hi) {
			*at = rule_next_martian(r->v[i].lo);
			return true;
		}
	return false;
}

bool
rng_overlap(const struct rng *a, const struct rng *b, uint32_t *at)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		if (a->v[i].hi < b->v[j].lo)
			i++;
		else if (b->v[j].hi < a->v[i].lo)
			j++;
		else {
			*at = a->v[i].lo > b->v[j].lo ? a->v[i].lo : b->v[j].lo;
			return true;
		}
	}
	return false;
}

uint64_t
rng_count(const struct rng *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		n += (uint64_t)r->v[i].hi - r->v[i].lo + 1;
	return n;
}

int
rng_copy(struct rng *dst, const struct rng *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src->n == 0)
		return 0;
	if ((dst->v = malloc(src->n * sizeof(*dst->v))) == NULL)
		return -1;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = dst->alloc = src->n;
	return 0;
}

void
rng_clear(struct rng *r)
{
	free(r->v);
	free(r->ex);
	memset(r, 0, sizeof(*r));
}
