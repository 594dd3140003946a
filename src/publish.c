/* publish.c — the published set.  A million addresses given as a CIDR are
 * one span: the entries' spans are merged into one sorted index (entries
 * never overlap: pub_add refuses it), looked up by binary search, then the
 * entry's interface glob is matched against the arrival interface. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <netinet/ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conftypes.h"
#include "publish.h"
#include "rules.h"
#include "util.h"

struct ispan {
	struct rng_span	s;		/* host order; first, for rng_span_find */
	size_t		entry;
};

struct pub {
	struct pub_entry	*v;
	size_t			 n, alloc;
	struct ispan		*idx;		/* every entry's spans, sorted */
	size_t			 nidx, idxalloc;
	uint64_t		 runtime;	/* addresses of the runtime entries */
};

struct pub *
pub_new(void)
{
	return calloc(1, sizeof(struct pub));
}

void
pub_free(struct pub *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		rng_clear(&p->v[i].set);
	free(p->v);
	free(p->idx);
	free(p);
}

/* The first span of the index that starts above h (host order): entries
 * never overlap, so the index is sorted by lo and by hi alike. */
static size_t
idx_above(const struct pub *p, uint32_t h)
{
	size_t lo = 0, hi = p->nidx, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->idx[mid].s.lo > h)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The index position of the span that starts at h; nidx if none. */
static size_t
idx_at(const struct pub *p, uint32_t h)
{
	size_t k = idx_above(p, h);

	return k > 0 && p->idx[k - 1].s.lo == h ? k - 1 : p->nidx;
}

/*
 * Adding and withdrawing keep the index sorted by insertion and removal in
 * place (a binary search and a memmove of 16-byte spans), not a sort of
 * every span: a publish at 20,000 entries costs what one at 10 does, up to
 * a memmove of a few hundred kilobytes at most.
 */
int
pub_add(struct pub *p, struct pub_entry *e, char *err, size_t errlen)
{
	struct pub_entry *nv;
	struct ispan *ni;
	struct in_addr a;
	size_t i, k, other;
	uint32_t at;

	/* the lowest address e shares with an entry, by the index */
	for (i = 0; i < e->set.n; i++) {
		k = idx_above(p, e->set.v[i].lo);
		if (k > 0 && p->idx[k - 1].s.hi >= e->set.v[i].lo) {
			at = e->set.v[i].lo;
			other = p->idx[k - 1].entry;
		} else if (k < p->nidx && p->idx[k].s.lo <= e->set.v[i].hi) {
			at = p->idx[k].s.lo;
			other = p->idx[k].entry;
		} else
			continue;
		a.s_addr = htonl(at);
		snprintf(err, errlen, "%s is published by %s%s%s already", inet_ntoa(a),
		    p->v[other].runtime ? "arpownctl publish" : "[publish ",
		    p->v[other].runtime ? "" : p->v[other].label,
		    p->v[other].runtime ? "" : "]");
		return errno = EEXIST, -1;
	}
	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 8;

		if ((nv = realloc(p->v, na * sizeof(*nv))) == NULL)
			goto nomem;
		p->v = nv;
		p->alloc = na;
	}
	if (p->nidx + e->set.n > p->idxalloc) {
		size_t na = p->idxalloc ? p->idxalloc * 2 : 16;

		while (na < p->nidx + e->set.n)
			na *= 2;
		if ((ni = realloc(p->idx, na * sizeof(*ni))) == NULL)
			goto nomem;
		p->idx = ni;
		p->idxalloc = na;
	}
	for (i = 0; i < e->set.n; i++) {
		k = idx_above(p, e->set.v[i].lo);
		memmove(&p->idx[k + 1], &p->idx[k], (p->nidx - k) * sizeof(p->idx[0]));
		p->idx[k] = (struct ispan){ e->set.v[i], p->n };
		p->nidx++;
	}
	if (e->runtime)
		p->runtime += rng_count(&e->set);
	p->v[p->n++] = *e;
	memset(&e->set, 0, sizeof(e->set));
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return errno = ENOMEM, -1;
}

/*
 * The entry found by the index, its spans taken out of it, and the last
 * entry moved into its place (configuration sections come first, runtime
 * entries after them: the order of the sections stays).
 */
int
pub_withdraw(struct pub *p, uint32_t base, uint8_t plen)
{
	struct pub_entry *e;
	size_t i, j, k;

	k = p->nidx ? idx_above(p, base) : 0;
	if (k == 0 || p->idx[k - 1].s.hi < base)
		return 0;
	i = p->idx[k - 1].entry;
	e = &p->v[i];
	if (!e->runtime || e->base != base || e->plen != plen)
		return 0;
	for (j = 0; j < e->set.n; j++) {
		if ((k = idx_at(p, e->set.v[j].lo)) == p->nidx)
			continue;
		memmove(&p->idx[k], &p->idx[k + 1], (p->nidx - k - 1) * sizeof(p->idx[0]));
		p->nidx--;
	}
	p->runtime -= rng_count(&e->set);
	rng_clear(&e->set);
	if (i != p->n - 1) {
		*e = p->v[p->n - 1];
		for (j = 0; j < e->set.n; j++)
			if ((k = idx_at(p, e->set.v[j].lo)) != p->nidx)
				p->idx[k].entry = i;
	}
	p->n--;
	return 1;
}

const struct pub_entry *
pub_find(const struct pub *p, uint32_t addr)
{
	size_t k = rng_span_find(p->idx, p->nidx, sizeof(p->idx[0]), ntohl(addr));

	return k == p->nidx ? NULL : &p->v[p->idx[k].entry];
}

bool
pub_entry_on(const struct pub_entry *e, const char *ifname)
{
	/* a runtime name is literal: an interface may be called "eth*" */
	if (e->literal)
		return strcmp(e->ifglob, ifname) == 0;
	return fnmatch(e->ifglob, ifname, 0) == 0;
}

uint64_t
pub_runtime_count(const struct pub *p)
{
	return p != NULL ? p->runtime : 0;
}

bool
pub_announced(const struct pub_entry *e)
{
	return rng_count(&e->set) <= PUB_ANNOUNCE_MAX;
}

const struct pub_entry *
pub_lookup(const struct pub *p, uint32_t addr, const char *ifname)
{
	const struct pub_entry *e;

	if (p == NULL || p->nidx == 0 || (e = pub_find(p, addr)) == NULL)
		return NULL;
	return pub_entry_on(e, ifname) ? e : NULL;
}

bool
pub_nth_on(const struct pub *p, const char *ifname, uint64_t n, uint32_t *addr,
    const struct pub_entry **ep)
{
	size_t i, j;
	uint64_t size;

	for (i = 0; p != NULL && i < p->n; i++) {
		const struct pub_entry *e = &p->v[i];

		if (!pub_entry_on(e, ifname) || !pub_announced(e))
			continue;
		for (j = 0; j < e->set.n; j++) {
			size = (uint64_t)e->set.v[j].hi - e->set.v[j].lo + 1;
			if (n < size) {
				*addr = htonl(e->set.v[j].lo + (uint32_t)n);
				*ep = e;
				return true;
			}
			n -= size;
		}
	}
	return false;
}

size_t
pub_count(const struct pub *p)
{
	return p->n;
}

const struct pub_entry *
pub_at(const struct pub *p, size_t i)
{
	return i < p->n ? &p->v[i] : NULL;
}

size_t
pub_format_entry(const struct pub_entry *e, char *buf, size_t len)
{
	char mac[UTIL_MAC_STRLEN];
	struct in_addr a;
	int n;

	a.s_addr = htonl(e->base);
	n = snprintf(buf, len, "%s/%u %s%s%s\n", inet_ntoa(a), e->plen, e->ifglob,
	    e->has_mac ? " " : "", e->has_mac ? util_mac_str(e->mac, mac) : "");
	return n < 0 ? 0 : (size_t)n;
}

char *
pub_format_runtime(const struct pub *p, size_t *len)
{
	char *buf = NULL, line[PUB_LINE_MAX];
	size_t i;
	FILE *f;

	*len = 0;
	if ((f = open_memstream(&buf, len)) == NULL)
		return NULL;
	for (i = 0; i < p->n; i++) {
		const struct pub_entry *e = &p->v[i];

		if (!e->runtime)
			continue;
		(void)pub_format_entry(e, line, sizeof(line));
		fputs(line, f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
pub_runtime_make(struct pub_entry *e, uint32_t base, uint8_t plen, const char *ifname,
    const char **why)
{
	memset(e, 0, sizeof(*e));
	/* a name the kernel allows, or a glob of one */
	if (!util_ifname_ok(ifname, strlen(ifname)))
		return *why = "not an interface name", -1;
	if (plen > 32)
		return *why = "the prefix length must be 0 to 32", -1;
	if (base & ~rule_mask(plen))
		return *why = "host bits set: not the network address of that prefix", -1;
	if (rng_add(&e->set, base, rule_bcast(base, plen)) == -1 || rng_finish(&e->set) == -1) {
		rng_clear(&e->set);
		return *why = "out of memory", -1;
	}
	e->base = base;
	e->plen = plen;
	e->runtime = true;
	e->literal = true;
	snprintf(e->label, sizeof(e->label), "runtime");
	snprintf(e->ifglob, sizeof(e->ifglob), "%s", ifname);
	return 0;
}

int
pub_parse_cidr(const char *cidr, uint32_t *base, uint8_t *plen, const char **why)
{
	struct rng r = { 0 };
	char item[32];

	if (strlen(cidr) >= sizeof(item) - 3)
		return *why = "not an IPv4 address or ADDR/LEN", -1;
	if (strchr(cidr, '-') != NULL || cidr[0] == '!')
		return *why = "one address or ADDR/LEN, no ranges or excludes", -1;
	/* a single address is a /32 */
	snprintf(item, sizeof(item), strchr(cidr, '/') ? "%s" : "%s/32", cidr);
	if (rng_add_item(&r, item, why) == -1 || rng_finish(&r) == -1) {
		rng_clear(&r);
		return -1;
	}
	*base = r.v[0].lo;
	*plen = (uint8_t)strtoul(strchr(item, '/') + 1, NULL, 10);
	rng_clear(&r);
	return 0;
}

int
pub_runtime_entry(struct pub_entry *e, const char *cidr, const char *ifname,
    const char **why)
{
	uint32_t base;
	uint8_t plen;

	memset(e, 0, sizeof(*e));
	if (!util_ifname_ok(ifname, strlen(ifname)))
		return *why = "not an interface name", -1;
	if (pub_parse_cidr(cidr, &base, &plen, why) == -1)
		return -1;
	return pub_runtime_make(e, base, plen, ifname, why);
}

int
pub_parse_runtime(struct pub *p, const char *lines, size_t len, pub_skip_fn *skip,
    void *arg, char *err, size_t errlen)
{
	const char *s = lines, *end = lines + len, *eol, *why;
	char line[PUB_LINE_MAX], *cidr, *ifn, *mac, *save = NULL, r[160];
	struct pub_entry e;
	unsigned n = 0;
	struct ether_addr ea;

	for (; s < end; s = eol + 1) {
		n++;
		if ((eol = memchr(s, '\n', (size_t)(end - s))) == NULL)
			eol = end;
		if ((size_t)(eol - s) >= sizeof(line)) {
			snprintf(err, errlen, "line %u: too long", n);
			return -1;
		}
		memcpy(line, s, (size_t)(eol - s));
		line[eol - s] = '\0';
		cidr = strtok_r(line, " ", &save);
		ifn = strtok_r(NULL, " ", &save);
		mac = strtok_r(NULL, " ", &save);
		if (cidr == NULL || ifn == NULL || strtok_r(NULL, " ", &save) != NULL) {
			snprintf(err, errlen, "line %u: expected ADDR/LEN IFACE [MAC]", n);
			return -1;
		}
		if (pub_runtime_entry(&e, cidr, ifn, &why) == -1) {
			snprintf(err, errlen, "line %u: %s: %s", n, cidr, why);
			return -1;
		}
		if (mac != NULL) {
			if (strlen(mac) != 17 || ether_aton_r(mac, &ea) == NULL) {
				rng_clear(&e.set);
				snprintf(err, errlen, "line %u: bad MAC %s", n, mac);
				return -1;
			}
			memcpy(e.mac, ea.ether_addr_octet, 6);
			e.has_mac = true;
		}
		if (pub_add(p, &e, r, sizeof(r)) == -1) {
			rng_clear(&e.set);
			if (errno == EEXIST && skip != NULL) {
				skip(arg, cidr, ifn, r);
				continue;
			}
			snprintf(err, errlen, "line %u: %s", n, r);
			return -1;
		}
	}
	return 0;
}

struct pub *
pub_build(const struct conf *c, const struct pub *old, char *err, size_t errlen)
{
	struct pub *p = pub_new();
	struct pub_entry e;
	struct in_addr a;
	char why[320];
	size_t k;

	if (p == NULL)
		goto nomem;
	for (k = 0; k < c->npubs; k++) {
		memset(&e, 0, sizeof(e));
		snprintf(e.label, sizeof(e.label), "%s", c->pubs[k].label);
		snprintf(e.ifglob, sizeof(e.ifglob), "%s", c->pubs[k].ifglob);
		memcpy(e.mac, c->pubs[k].mac, 6);
		e.has_mac = c->pubs[k].has_mac;
		if (rng_copy(&e.set, &c->pubs[k].set) == -1)
			goto nomem;
		if (pub_add(p, &e, why, sizeof(why)) == -1) {
			rng_clear(&e.set);
			snprintf(err, errlen, "[publish %s]: %s", c->pubs[k].label, why);
			goto fail;
		}
	}
	for (k = 0; old != NULL && k < pub_count(old); k++) {
		const struct pub_entry *o = pub_at(old, k);

		if (!o->runtime)
			continue;
		e = *o;
		if (rng_copy(&e.set, &o->set) == -1)
			goto nomem;
		if (pub_add(p, &e, why, sizeof(why)) == -1) {
			rng_clear(&e.set);
			a.s_addr = htonl(o->base);
			snprintf(err, errlen, "the runtime-published %s/%u (on %s) and the new "
			    "configuration: %s; withdraw it first", inet_ntoa(a), o->plen,
			    o->ifglob, why);
			goto fail;
		}
	}
	return p;
nomem:
	snprintf(err, errlen, "published addresses: out of memory");
fail:
	pub_free(p);
	return NULL;
}
