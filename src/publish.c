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

#include "conf.h"
#include "publish.h"
#include "util.h"

struct ispan {
	struct rng_span	s;		/* host order; first, for rng_span_find */
	size_t		entry;
};

struct pub {
	struct pub_entry	*v;
	size_t			 n, alloc;
	struct ispan		*idx;		/* every entry's spans, sorted */
	size_t			 nidx;
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

static int
cmp_ispan(const void *a, const void *b)
{
	const struct ispan *x = a, *y = b;

	return x->s.lo < y->s.lo ? -1 : x->s.lo > y->s.lo;
}

static int
reindex(struct pub *p)
{
	struct ispan *idx;
	size_t i, j, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->v[i].set.n;
	if ((idx = calloc(n ? n : 1, sizeof(*idx))) == NULL)
		return -1;
	for (i = 0, n = 0; i < p->n; i++)
		for (j = 0; j < p->v[i].set.n; j++)
			idx[n++] = (struct ispan){ p->v[i].set.v[j], i };
	qsort(idx, n, sizeof(*idx), cmp_ispan);
	free(p->idx);
	p->idx = idx;
	p->nidx = n;
	return 0;
}

int
pub_add(struct pub *p, struct pub_entry *e, char *err, size_t errlen)
{
	struct pub_entry *nv;
	struct in_addr a;
	uint32_t at;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (rng_overlap(&p->v[i].set, &e->set, &at)) {
			a.s_addr = htonl(at);
			snprintf(err, errlen, "%s is published by %s%s%s already", inet_ntoa(a),
			    p->v[i].runtime ? "arpownctl publish" : "[publish ",
			    p->v[i].runtime ? "" : p->v[i].label, p->v[i].runtime ? "" : "]");
			return errno = EEXIST, -1;
		}
	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 8;

		if ((nv = realloc(p->v, na * sizeof(*nv))) == NULL)
			goto nomem;
		p->v = nv;
		p->alloc = na;
	}
	p->v[p->n++] = *e;
	memset(&e->set, 0, sizeof(e->set));
	if (reindex(p) == -1) {
		p->n--;
		e->set = p->v[p->n].set;
		goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return errno = ENOMEM, -1;
}

int
pub_withdraw(struct pub *p, uint32_t base, uint8_t plen)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (!p->v[i].runtime || p->v[i].base != base || p->v[i].plen != plen)
			continue;
		rng_clear(&p->v[i].set);
		memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(p->v[0]));
		p->n--;
		/* a failed reindex leaves the old index: rebuild what we can */
		if (reindex(p) == -1) {
			free(p->idx);
			p->idx = NULL;
			p->nidx = 0;
		}
		return 1;
	}
	return 0;
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
	uint64_t n = 0;
	size_t i;

	for (i = 0; p != NULL && i < p->n; i++)
		if (p->v[i].runtime)
			n += rng_count(&p->v[i].set);
	return n;
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

char *
pub_format_runtime(const struct pub *p, size_t *len)
{
	char *buf = NULL, mac[UTIL_MAC_STRLEN];
	struct in_addr a;
	size_t i;
	FILE *f;

	*len = 0;
	if ((f = open_memstream(&buf, len)) == NULL)
		return NULL;
	for (i = 0; i < p->n; i++) {
		const struct pub_entry *e = &p->v[i];

		if (!e->runtime)
			continue;
		a.s_addr = htonl(e->base);
		fprintf(f, "%s/%u %s", inet_ntoa(a), e->plen, e->ifglob);
		if (e->has_mac)
			fprintf(f, " %s", util_mac_str(e->mac, mac));
		fputc('\n', f);
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
	uint32_t mask = plen == 0 ? 0 : 0xffffffffu << (32 - plen);

	memset(e, 0, sizeof(*e));
	/* a name the kernel allows, or a glob of one */
	if (!util_ifname_ok(ifname, strlen(ifname)))
		return *why = "not an interface name", -1;
	if (plen > 32)
		return *why = "the prefix length must be 0 to 32", -1;
	if (base & ~mask)
		return *why = "host bits set: not the network address of that prefix", -1;
	if (rng_add(&e->set, base, base | ~mask) == -1 || rng_finish(&e->set) == -1) {
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
	char line[128], *cidr, *ifn, *mac, *save = NULL, r[160];
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
