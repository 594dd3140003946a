/* confkeys.c — the configuration's keys: for each, the sections it may be
 * set in, the parser that validates its value and the printer that writes
 * it back.  A new key is a row and its two functions: here the keys an
 * [interface] section may set too, and [publish]'s; [global]'s own are in
 * confglobal.c, and the lookups below walk both.  conf.c drives the rows
 * and never names a key.  iniparser's typed getters accept malformed
 * values silently, so every value arrives here as a string and is
 * checked, and an error says why in one line. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/ether.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confkeys.h"
#include "confkeysint.h"
#include "confvals.h"
#include "policy.h"
#include "util.h"

static const char *const defend_names[] = { "never", "once", "always" };
static const char *const path_names[] = { "capture", "auto", "kernel", "xdp" };

/* ------------------------------------------------------------------ parsing */

static int
k_interfaces(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_glob *g;
	size_t n;

	if (cval_globs(v, &g, &n, why) == -1)
		return -1;
	cval_globs_free(d->c->ifaces, d->c->nifaces);
	d->c->ifaces = g;
	d->c->nifaces = n;
	return 0;
}

/* The settings an [interface] section may override: [global]'s or the section's. */
static struct conf_ifset *
ifset(const struct ckey_dst *d)
{
	return d->s != NULL ? &d->s->set : &d->c->set;
}

static int
k_mode(const struct ckey_dst *d, const char *v, const char **why)
{
	int m = pol_mode_parse(v);

	if (m < 0)
		return *why = "must be one of owner, subnet, system, monitor, off", -1;
	ifset(d)->mode = m;
	return 0;
}

static int
k_announce(const struct ckey_dst *d, const char *v, const char **why)
{
	bool b;

	if (cval_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(d)->announce = b;
	return 0;
}

static int
k_defend(const struct ckey_dst *d, const char *v, const char **why)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(v, defend_names[i]) == 0)
			return ifset(d)->defend = i, 0;
	return *why = "must be one of never, once, always", -1;
}

static int
k_allow_senders(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_acl *acl = d->s != NULL ? &d->s->acl : &d->c->acl;

	if (cval_nets(&acl->allow, v, why) == -1)
		return -1;
	acl->has_allow = true;
	return 0;
}

static int
k_deny_senders(const struct ckey_dst *d, const char *v, const char **why)
{
	struct conf_acl *acl = d->s != NULL ? &d->s->acl : &d->c->acl;

	if (cval_nets(&acl->deny, v, why) == -1)
		return -1;
	acl->has_deny = true;
	return 0;
}

static int
k_allow_probes(const struct ckey_dst *d, const char *v, const char **why)
{
	bool b;

	if (cval_bool(v, &b) == -1)
		return *why = "must be yes or no", -1;
	ifset(d)->allow_probes = b;
	return 0;
}

static int
k_answer_path(const struct ckey_dst *d, const char *v, const char **why)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(v, path_names[i]) == 0) {
#ifndef HAVE_BPF
			/* a start would refuse it (kp_open cannot load): refused
			 * here, so that -n, the start and a reload agree */
			if (i == CONF_PATH_KERNEL || i == CONF_PATH_XDP)
				return *why = "this arpownd is built without the kernel answer "
				    "path (configure found no BPF toolchain); use auto or capture", -1;
#endif
			ifset(d)->answer_path = i;
			return 0;
		}
	return *why = "must be capture, auto, kernel or xdp", -1;
}

static int
k_match(const struct ckey_dst *d, const char *v, const char **why)
{
	cval_globs_free(d->s->match, d->s->nmatch);
	d->s->match = NULL;
	d->s->nmatch = 0;
	return cval_globs(v, &d->s->match, &d->s->nmatch, why);
}

static int
k_addresses(const struct ckey_dst *d, const char *v, const char **why)
{
	static char buf[160];
	struct in_addr a;
	uint32_t at;

	if (cval_nets(&d->p->set, v, why) == -1)
		return -1;
	if (rng_martian(&d->p->set, &at)) {
		rng_clear(&d->p->set);
		a.s_addr = htonl(at);
		snprintf(buf, sizeof(buf), "holds %s: 0.0.0.0, 127.0.0.0/8, multicast "
		    "and the broadcast address are never answered over ARP", inet_ntoa(a));
		return *why = buf, -1;
	}
	return 0;
}

static int
k_interface(const struct ckey_dst *d, const char *v, const char **why)
{
	char *g;

	if (*v == '\0' || strpbrk(v, " \t/:\"'") != NULL || strlen(v) >= 64)
		return *why = "must be one interface name or glob", -1;
	if ((g = strdup(v)) == NULL)
		return *why = "out of memory", -1;
	free(d->p->ifglob);
	d->p->ifglob = g;
	return 0;
}

static int
k_mac(const struct ckey_dst *d, const char *v, const char **why)
{
	struct ether_addr ea;

	/* glibc's parser, held to the one spelling we print (two digits) */
	if (strlen(v) != 17 || ether_aton_r(v, &ea) == NULL)
		return *why = "must be a MAC address, aa:bb:cc:dd:ee:ff", -1;
	if (ea.ether_addr_octet[0] & 1)
		return *why = "a multicast or broadcast MAC cannot answer", -1;
	if (memcmp(ea.ether_addr_octet, "\0\0\0\0\0\0", 6) == 0)
		return *why = "the zero MAC cannot answer", -1;
	memcpy(d->p->mac, ea.ether_addr_octet, 6);
	d->p->has_mac = true;
	return 0;
}

/* ------------------------------------------------------------------ printing */

static const struct conf_ifset *
cifset(const struct ckey_src *at)
{
	return at->s != NULL ? &at->s->set : &at->c->set;
}

static const struct conf_acl *
cacl(const struct ckey_src *at)
{
	return at->s != NULL ? &at->s->acl : &at->c->acl;
}

static void
o_interfaces(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_globs_print(f, name, at->c->ifaces, at->c->nifaces);
}

static void
o_match(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_globs_print(f, name, at->s->match, at->s->nmatch);
}

static void
o_mode(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cifset(at)->mode >= 0)
		fprintf(f, "%s = %s\n", name, pol_mode_str(cifset(at)->mode));
}

static void
o_announce(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, cifset(at)->announce);
}

static void
o_defend(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cifset(at)->defend >= 0)
		fprintf(f, "%s = %s\n", name, defend_names[cifset(at)->defend]);
}

static void
o_allow_senders(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cacl(at)->has_allow)
		cval_nets_print(f, name, &cacl(at)->allow);
}

static void
o_deny_senders(FILE *f, const char *name, const struct ckey_src *at)
{
	if (cacl(at)->has_deny)
		cval_nets_print(f, name, &cacl(at)->deny);
}

static void
o_allow_probes(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_bool_print(f, name, cifset(at)->allow_probes);
}

static void
o_answer_path(FILE *f, const char *name, const struct ckey_src *at)
{
	int p = cifset(at)->answer_path;

	if (p >= 0 && p < 4)
		fprintf(f, "%s = %s\n", name, path_names[p]);
}

static void
o_addresses(FILE *f, const char *name, const struct ckey_src *at)
{
	cval_nets_print(f, name, &at->p->set);
}

static void
o_interface(FILE *f, const char *name, const struct ckey_src *at)
{
	const char *g = at->p->ifglob;

	fprintf(f, g && strpbrk(g, "#;") ? "%s = \"%s\"\n" : "%s = %s\n", name, g ? g : "");
}

static void
o_mac(FILE *f, const char *name, const struct ckey_src *at)
{
	char mac[UTIL_MAC_STRLEN];

	if (at->p->has_mac)
		fprintf(f, "%s = %s\n", name, util_mac_str(at->p->mac, mac));
}

/* ------------------------------------------------------------------ the keys */

#define G	CKEY_GLOBAL
#define I	CKEY_IFACE
#define P	CKEY_PUBLISH

/*
 * Adding a key: a row here (or in confglobal.c, for a key of [global]
 * alone), its k_ parser and o_ printer beside it, a line in
 * conf/arpownd.conf and arpownd.conf(5).  The rows are in the order
 * conf_print writes them; a key set in a section its row does not allow is
 * an unknown key there.
 */
static const struct ckey keys[] = {
	{ "interfaces",		G,	k_interfaces,		o_interfaces },
	{ "match",		I,	k_match,		o_match },
	{ "mode",		G | I,	k_mode,			o_mode },
	{ "announce",		G | I,	k_announce,		o_announce },
	{ "defend",		G | I,	k_defend,		o_defend },
	{ "allow_senders",	G | I,	k_allow_senders,	o_allow_senders },
	{ "deny_senders",	G | I,	k_deny_senders,		o_deny_senders },
	{ "allow_probes",	G | I,	k_allow_probes,		o_allow_probes },
	{ "answer_path",	G | I,	k_answer_path,		o_answer_path },
};

/* [publish]'s, printed after [global]'s own (confglobal.c) */
static const struct ckey pub_keys[] = {
	{ "addresses",		P,	k_addresses,		o_addresses },
	{ "interface",		P,	k_interface,		o_interface },
	{ "mac",		P,	k_mac,			o_mac },
};

#undef G
#undef I
#undef P

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))
#define NPUB	(sizeof(pub_keys) / sizeof(pub_keys[0]))

/* Row i of all of them, in conf_print's order; NULL past the last. */
static const struct ckey *
row(size_t i)
{
	if (i < NKEYS)
		return &keys[i];
	if ((i -= NKEYS) < ckey_nglobals)
		return &ckey_globals[i];
	i -= ckey_nglobals;
	return i < NPUB ? &pub_keys[i] : NULL;
}

const struct ckey *
ckey_find(const char *name, unsigned where)
{
	const struct ckey *k;
	size_t i;

	for (i = 0; (k = row(i)) != NULL; i++)
		if ((k->where & where) != 0 && strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

int
ckey_parse(const struct ckey *k, struct conf *c, struct conf_iface *s, struct conf_pub *p,
    const char *v, const char **why)
{
	const struct ckey_dst d = { c, s, p };

	return k->parse(&d, v, why);
}

/* The first row within two edits of name, of those nearest. */
const char *
ckey_near(const char *name, unsigned where)
{
	const struct ckey *k;
	const char *best = NULL;
	size_t i, bd = 3, dd;

	for (i = 0; (k = row(i)) != NULL; i++)
		if ((k->where & where) != 0 && (dd = util_distance(name, k->name)) < bd) {
			bd = dd;
			best = k->name;
		}
	return best;
}

void
ckey_print(FILE *f, unsigned where, const struct conf *c, const struct conf_iface *s,
    const struct conf_pub *p)
{
	const struct ckey_src at = { c, s, p };
	const struct ckey *k;
	size_t i;

	for (i = 0; (k = row(i)) != NULL; i++)
		if ((k->where & where) != 0)
			k->print(f, k->name, &at);
}
