/* publish.h — the published set: addresses answered though no interface
 * holds them, each on the interfaces its entry names; ranges, not every
 * address; pure. */
#ifndef ARPOWND_PUBLISH_H
#define ARPOWND_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranges.h"

#define PUB_LABEL_MAX	64
#define PUB_ANNOUNCE_MAX 256	/* an entry with more addresses is never announced */
#define PUB_RUNTIME_PLEN 16	/* arpownctl publish: no wider range without force */
#define PUB_RUNTIME_MAX	(1u << (32 - PUB_RUNTIME_PLEN))	/* nor more in all */
#define PUB_LINE_MAX	128	/* a runtime entry's saved line, at most */

/* One [publish LABEL] section, or one runtime entry (arpownctl publish). */
struct pub_entry {
	char		label[PUB_LABEL_MAX];	/* the section's; runtime ones "runtime" */
	char		ifglob[64];		/* interface name or glob */
	uint8_t		mac[6];			/* answered with; else the interface's */
	bool		has_mac;
	bool		runtime;		/* kept in the state directory */
	bool		literal;		/* ifglob is a name, never a glob (runtime) */
	uint32_t	base;			/* runtime: ADDR/LEN as given, host order */
	uint8_t		plen;
	struct rng	set;			/* finished (rng_finish) */
};

struct pub;

/* An empty set; NULL on ENOMEM. */
struct pub *pub_new(void);
void pub_free(struct pub *p);
/* Add e, taking over e->set; 0, or -1 with why in err (an overlap with
 * another entry names it and the first address both hold). */
int pub_add(struct pub *p, struct pub_entry *e, char *err, size_t errlen);
/* Take out the runtime entry base/plen (host order); 1 done, 0 none such. */
int pub_withdraw(struct pub *p, uint32_t base, uint8_t plen);
/* The entry publishing addr (network order), whatever its interface, or NULL. */
const struct pub_entry *pub_find(const struct pub *p, uint32_t addr);
/* Is e published on interface ifname (its glob, or its literal name)? */
bool pub_entry_on(const struct pub_entry *e, const char *ifname);
/* Is e announced (PUB_ANNOUNCE_MAX addresses at most)?  A larger range is
 * learned by its neighbours when they ask: announcing it would flood the
 * segment with gratuitous frames. */
bool pub_announced(const struct pub_entry *e);
/* The entry publishing addr on interface ifname, or NULL; O(log n). */
const struct pub_entry *pub_lookup(const struct pub *p, uint32_t addr, const char *ifname);
/* The n-th address (network order) announced on ifname (entries that
 * pub_announced), with its entry; false past the last. */
bool pub_nth_on(const struct pub *p, const char *ifname, uint64_t n, uint32_t *addr,
    const struct pub_entry **e);
/* Addresses published at run time, all entries together; O(1). */
uint64_t pub_runtime_count(const struct pub *p);
/* Entries: the configuration's sections in their order, then the
 * runtime entries (a withdraw moves the last one into the gap); and the
 * i-th. */
size_t pub_count(const struct pub *p);
const struct pub_entry *pub_at(const struct pub *p, size_t i);
/* Runtime entry e as its line "ADDR/LEN IFACE [MAC]\n" in buf
 * (PUB_LINE_MAX bytes hold any); its length. */
size_t pub_format_entry(const struct pub_entry *e, char *buf, size_t len);
/* The runtime entries as lines "ADDR/LEN IFACE [MAC]\n", malloc'd. */
char *pub_format_runtime(const struct pub *p, size_t *len);
/* Called for a saved runtime entry that overlaps one already in the set
 * (the configuration's): it is left out, and this says which and why. */
typedef void pub_skip_fn(void *arg, const char *cidr, const char *ifname,
    const char *why);
/* Add the runtime entries such lines describe; 0, or -1 with why in err.
 * With skip, an entry that overlaps is skipped and reported, not an error. */
int pub_parse_runtime(struct pub *p, const char *lines, size_t len, pub_skip_fn *skip,
    void *arg, char *err, size_t errlen);
/* Parse "ADDR" or "ADDR/LEN" into a runtime entry for ifname; 0 or -1 + why. */
int pub_runtime_entry(struct pub_entry *e, const char *cidr, const char *ifname,
    const char **why);
/* The runtime entry base/plen (host order) for ifname; 0 or -1 + why. */
int pub_runtime_make(struct pub_entry *e, uint32_t base, uint8_t plen, const char *ifname,
    const char **why);
/* Parse "ADDR" or "ADDR/LEN" into base (host order) and plen; 0 or -1 + why. */
int pub_parse_cidr(const char *cidr, uint32_t *base, uint8_t *plen, const char **why);
struct conf;
/* The set c's [publish] sections make, then old's runtime entries (old may
 * be NULL); NULL with why in err (an overlap: the runtime entry must be
 * withdrawn first; ENOMEM). */
struct pub *pub_build(const struct conf *c, const struct pub *old, char *err, size_t errlen);

#endif
