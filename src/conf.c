/* conf.c — /etc/arpownd.conf: loaded into a new struct conf (confscan.c
 * reads the file, the key table of confkeys.c takes each value; every
 * error is reported, not just the first), resolved for one interface,
 * printed back as a file that loads the same. */
#include "config.h"

#include <arpa/inet.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "conf.h"
#include "confkeys.h"
#include "confscan.h"
#include "confvals.h"
#include "policy.h"

struct conf *
conf_defaults(void)
{
	struct conf *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->set.mode = POL_OWNER;
	c->set.announce = 1;
	c->set.defend = CONF_DEFEND_ONCE;
	c->set.allow_probes = 1;
	c->set.answer_path = CONF_PATH_CAPTURE;
	c->announce_count = CONF_DEFAULT_ANN_COUNT;
	c->announce_interval = CONF_DEFAULT_ANN_INTERVAL;
	c->announce_form = CONF_FORM_BOTH;
	c->announce_refresh = 0;
	c->announce_rate = CONF_DEFAULT_ANN_RATE;
	c->arp_announce = 2;
	c->learn = true;
	c->log_level = LOG_INFO;
	c->sender_rate = CONF_DEFAULT_SENDER_RATE;
	c->total_rate = CONF_DEFAULT_TOTAL_RATE;
	c->busy_poll_us = CONF_DEFAULT_BUSY_POLL;
	c->metrics_interval = CONF_DEFAULT_METRICS_INTERVAL;
	c->ifaces = calloc(1, sizeof(*c->ifaces));
	c->user = strdup("arpownd");
	if (c->ifaces == NULL || c->user == NULL ||
	    (c->ifaces[0].pat = strdup("*")) == NULL) {
		conf_free(c);
		return NULL;
	}
	c->nifaces = 1;
	return c;
}

/* Every key of a section of kind where, through its row of the key table. */
static void
read_section(struct cscan *x, const struct cscan_sec *is, unsigned where, struct conf *c,
    struct conf_iface *s, struct conf_pub *p)
{
	const char *sec = is->name, *v, *why, *k, *near;
	const struct ckey *key;
	unsigned line;
	size_t j;

	for (j = 0; j < is->n; j++) {
		k = is->k[j].key;
		v = is->k[j].val;
		/* [interface a:b] and its keys come back under [interface a]
		 * as "b" (a section: no value) and "b:key"; the scan reported it */
		if (v == NULL || strchr(k, ':') != NULL)
			continue;
		line = cscan_line(x, sec, k);
		if ((key = ckey_find(k, where)) == NULL) {
			if ((near = ckey_near(k, where)) != NULL)
				cscan_report(x, line, "[%s] %s = %s: unknown key \"%s\" "
				    "(did you mean \"%s\"?)", sec, k, v, k, near);
			else
				cscan_report(x, line, "[%s] %s = %s: unknown key \"%s\"", sec,
				    k, v, k);
			continue;
		}
		why = NULL;
		if (ckey_parse(key, c, s, p, v, &why) == -1)
			cscan_report(x, line, "[%s] %s = %s: %s", sec, k, v, why);
	}
}

/* A [publish LABEL] section: addresses and interface required; no
 * address in two sections. */
static void
read_publish(struct cscan *x, const struct cscan_sec *is, struct conf *c)
{
	const char *sec = is->name, *label = sec + 7 + strspn(sec + 7, " \t");
	unsigned line = cscan_line(x, sec, NULL);
	struct conf_pub *p;
	struct in_addr a;
	uint32_t at;
	size_t i;

	if (*label == '\0') {
		cscan_report(x, line, "[%s]: a publish section needs a label: "
		    "[publish LABEL]", sec);
		return;
	}
	if ((p = realloc(c->pubs, (c->npubs + 1) * sizeof(*p))) == NULL) {
		cscan_report(x, 0, "out of memory");
		return;
	}
	c->pubs = p;
	p = &c->pubs[c->npubs++];
	memset(p, 0, sizeof(*p));
	p->label = strdup(label);
	read_section(x, is, CKEY_PUBLISH, c, NULL, p);
	if (p->set.n == 0 && cscan_line(x, sec, "addresses") == 0)
		cscan_report(x, line, "[%s]: addresses = ... is required", sec);
	if (p->ifglob == NULL && cscan_line(x, sec, "interface") == 0)
		cscan_report(x, line, "[%s]: interface = NAME is required", sec);
	for (i = 0; i + 1 < c->npubs; i++)
		if (rng_overlap(&c->pubs[i].set, &p->set, &at)) {
			a.s_addr = htonl(at);
			cscan_report(x, cscan_line(x, sec, "addresses"), "[%s] addresses: "
			    "%s is published by [publish %s] too", sec, inet_ntoa(a),
			    c->pubs[i].label);
		}
}

/* An [interface LABEL] section: match required. */
static void
read_interface(struct cscan *x, const struct cscan_sec *is, struct conf *c, size_t *alloc)
{
	const char *sec = is->name;
	unsigned line = cscan_line(x, sec, NULL);
	struct conf_iface *s;

	if (sec[9] == '\0' || sec[strspn(sec + 9, " \t") + 9] == '\0') {
		cscan_report(x, line, "[%s]: an interface section needs a label: "
		    "[interface LABEL]", sec);
		return;
	}
	if (c->nsections == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		if ((s = realloc(c->sections, *alloc * sizeof(*s))) == NULL) {
			cscan_report(x, 0, "out of memory");
			return;
		}
		c->sections = s;
	}
	s = &c->sections[c->nsections++];
	memset(s, 0, sizeof(*s));
	s->set.mode = s->set.announce = s->set.defend = s->set.allow_probes = -1;
	s->set.answer_path = -1;
	s->label = strdup(sec + strspn(sec + 9, " \t") + 9);
	read_section(x, is, CKEY_IFACE, c, s, NULL);
	if (s->nmatch == 0 && cscan_line(x, sec, "match") == 0)
		cscan_report(x, line, "[%s]: match = GLOBS is required", sec);
}

/* [NAME LABEL]: is sec a section of kind name? */
static bool
kind(const char *sec, const char *name)
{
	size_t n = strlen(name);

	return strncmp(sec, name, n) == 0 &&
	    (sec[n] == ' ' || sec[n] == '\t' || sec[n] == '\0');
}

struct conf *
conf_load(const char *path, conf_err_fn *err, void *arg)
{
	struct cscan x = { .path = path, .err = err, .arg = arg };
	struct conf *c = NULL;
	size_t k, asections = 0;
	const char *sec;

	if (cscan_load(&x) == -1)
		goto out;
	if ((c = conf_defaults()) == NULL || (c->path = strdup(path)) == NULL) {
		cscan_report(&x, 0, "out of memory");
		goto out;
	}
	for (k = 0; k < x.nsec; k++) {
		sec = x.sec[k].name;
		if (strcmp(sec, "global") == 0)
			read_section(&x, &x.sec[k], CKEY_GLOBAL, c, NULL, NULL);
		else if (kind(sec, "publish"))
			read_publish(&x, &x.sec[k], c);
		else if (kind(sec, "interface"))
			read_interface(&x, &x.sec[k], c, &asections);
		/* a key outside any section shows up as a "section" */
		else if (cscan_line(&x, sec, NULL) != 0)
			cscan_report(&x, cscan_line(&x, sec, NULL), "[%s]: unknown section "
			    "(allowed: [global], [interface LABEL], [publish LABEL])", sec);
	}
out:
	cscan_free(&x);
	if (x.nerr > 0) {
		conf_free(c);
		return NULL;
	}
	return c;
}

void
conf_free(struct conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	cval_globs_free(c->ifaces, c->nifaces);
	rng_clear(&c->acl.allow);
	rng_clear(&c->acl.deny);
	for (i = 0; i < c->nsections; i++) {
		free(c->sections[i].label);
		cval_globs_free(c->sections[i].match, c->sections[i].nmatch);
		rng_clear(&c->sections[i].acl.allow);
		rng_clear(&c->sections[i].acl.deny);
	}
	free(c->sections);
	for (i = 0; i < c->npubs; i++) {
		free(c->pubs[i].label);
		free(c->pubs[i].ifglob);
		rng_clear(&c->pubs[i].set);
	}
	free(c->pubs);
	free(c->user);
	free(c->metrics_file);
	free(c->path);
	free(c);
}

/* Selected: matches a positive glob (or there is none) and no negative one. */
static bool
selects(const struct conf_glob *g, size_t n, const char *name)
{
	bool pos = false, any_pos = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (fnmatch(g[i].pat, name, 0) == 0) {
			if (g[i].neg)
				return false;
			pos = true;
		}
		any_pos |= !g[i].neg;
	}
	return pos || !any_pos;
}

int
conf_iface(const struct conf *c, const char *name, struct conf_ifset *out)
{
	const struct conf_ifset *set;
	size_t i;

	if (!selects(c->ifaces, c->nifaces, name))
		return -1;
	*out = (struct conf_ifset){ -1, -1, -1, NULL, NULL, -1, -1 };
	for (i = 0; i < c->nsections; i++) {
		if (!selects(c->sections[i].match, c->sections[i].nmatch, name))
			continue;
		set = &c->sections[i].set;
		if (out->mode < 0)
			out->mode = set->mode;
		if (out->announce < 0)
			out->announce = set->announce;
		if (out->defend < 0)
			out->defend = set->defend;
		if (out->allow == NULL && c->sections[i].acl.has_allow)
			out->allow = &c->sections[i].acl.allow;
		if (out->deny == NULL && c->sections[i].acl.has_deny)
			out->deny = &c->sections[i].acl.deny;
		if (out->allow_probes < 0)
			out->allow_probes = set->allow_probes;
		if (out->answer_path < 0)
			out->answer_path = set->answer_path;
	}
	if (out->mode < 0)
		out->mode = c->set.mode;
	if (out->announce < 0)
		out->announce = c->set.announce;
	if (out->defend < 0)
		out->defend = c->set.defend;
	if (out->allow == NULL && c->acl.has_allow)
		out->allow = &c->acl.allow;
	if (out->deny == NULL && c->acl.has_deny)
		out->deny = &c->acl.deny;
	if (out->allow_probes < 0)
		out->allow_probes = c->set.allow_probes;
	if (out->answer_path < 0)
		out->answer_path = c->set.answer_path;
	return 0;
}

int
conf_iface_mode(const struct conf *c, const char *name)
{
	struct conf_ifset s;

	return conf_iface(c, name, &s) == -1 ? -1 : s.mode;
}

void
conf_print(const struct conf *c, FILE *f)
{
	size_t i;

	fprintf(f, "# effective configuration from %s\n", c->path ? c->path :
	    "the built-in defaults");
	fprintf(f, "[global]\n");
	ckey_print(f, CKEY_GLOBAL, c, NULL, NULL);
	for (i = 0; i < c->npubs; i++) {
		fprintf(f, "\n[publish %s]\n", c->pubs[i].label);
		ckey_print(f, CKEY_PUBLISH, c, NULL, &c->pubs[i]);
	}
	for (i = 0; i < c->nsections; i++) {
		fprintf(f, "\n[interface %s]\n", c->sections[i].label);
		ckey_print(f, CKEY_IFACE, c, &c->sections[i], NULL);
	}
}
