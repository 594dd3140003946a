/* test_conf.c — configuration loading: good and bad files, the messages,
 * interface selection, and the print/load round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "conf.h"
#include "policy.h"

static char dir[] = "/tmp/test_conf.XXXXXX";
static char errs[8][512];
static int nerrs;

static void
collect(void *arg, const char *msg)
{
	(void)arg;
	if (nerrs < 8)
		snprintf(errs[nerrs], sizeof(errs[0]), "%s", msg);
	nerrs++;
}

static const char *
file(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/arpownd.conf", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static struct conf *
load(const char *text)
{
	nerrs = 0;
	return conf_load(file(text), collect, NULL);
}

static void
test_defaults_equal_example(void **state)
{
	const char *top = getenv("top_srcdir");
	struct conf *d = conf_defaults(), *e;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/conf/arpownd.conf", top ? top : ".");
	nerrs = 0;
	e = conf_load(path, collect, NULL);
	if (e == NULL)
		fail_msg("%s: %s", path, errs[0]);
	assert_int_equal(e->nifaces, d->nifaces);
	assert_string_equal(e->ifaces[0].pat, d->ifaces[0].pat);
	assert_int_equal(e->ifaces[0].neg, d->ifaces[0].neg);
	assert_int_equal(e->set.mode, d->set.mode);
	assert_int_equal(e->arp_announce, d->arp_announce);
	assert_int_equal(e->learn, d->learn);
	assert_int_equal(e->log_level, d->log_level);
	assert_string_equal(e->user, d->user);
	assert_int_equal(e->sender_rate, d->sender_rate);
	assert_int_equal(e->total_rate, d->total_rate);
	assert_int_equal(e->busy_poll_us, d->busy_poll_us);
	assert_int_equal(e->qdisc_bypass, d->qdisc_bypass);
	assert_int_equal(e->set.announce, d->set.announce);
	assert_int_equal(e->set.defend, d->set.defend);
	assert_int_equal(e->announce_count, d->announce_count);
	assert_true(e->announce_interval == d->announce_interval);
	assert_int_equal(e->announce_form, d->announce_form);
	assert_int_equal(e->announce_refresh, d->announce_refresh);
	assert_false(d->qdisc_bypass);
	assert_null(e->metrics_file);
	assert_null(d->metrics_file);
	assert_int_equal(e->metrics_interval, d->metrics_interval);
	assert_int_equal(d->metrics_interval, 15);
	assert_int_equal(e->nsections, 0);
	assert_int_equal(d->set.mode, POL_OWNER);
	assert_int_equal(d->arp_announce, 2);
	assert_true(d->learn);
	assert_int_equal(d->log_level, LOG_INFO);
	conf_free(d);
	conf_free(e);
}

static void
test_good(void **state)
{
	struct conf *c;

	(void)state;
	c = load("; comment\n# another\n[global]\ninterfaces = \"eth* !eth9 Wan#0\"\n"
	    "mode = subnet   ; inline comment\narp_announce = keep\nlearn = off\n"
	    "log_level = debug\nuser = 61234:61234\nsender_rate = 0\ntotal_rate = 5000\n"
	    "qdisc_bypass = yes\nbusy_poll_us = 2000\n"
	    "metrics_file = /var/lib/node-exporter/arp\xc3\xa9.prom\nmetrics_interval = 3600\n"
	    "\n[interface Uplink]\nmatch = Eth1 eth2*\nmode = system\n"
	    "[interface other side]\nmatch = !x\n");
	if (c == NULL)
		fail_msg("%d errors, first: %s", nerrs, errs[0]);
	assert_int_equal(c->nifaces, 3);
	assert_string_equal(c->ifaces[1].pat, "eth9");
	assert_true(c->ifaces[1].neg);
	assert_string_equal(c->ifaces[2].pat, "Wan#0");	/* quoted: '#' kept */
	assert_int_equal(c->set.mode, POL_SUBNET);
	assert_int_equal(c->arp_announce, CONF_ANNOUNCE_KEEP);
	assert_false(c->learn);
	assert_int_equal(c->log_level, LOG_DEBUG);
	assert_string_equal(c->user, "61234:61234");
	assert_true(c->qdisc_bypass);
	assert_int_equal(c->busy_poll_us, 2000);
	assert_string_equal(c->metrics_file, "/var/lib/node-exporter/arp\xc3\xa9.prom");
	assert_int_equal(c->metrics_interval, 3600);
	assert_int_equal(c->sender_rate, 0);
	assert_int_equal(c->total_rate, 5000);
	assert_int_equal(c->nsections, 2);
	assert_string_equal(c->sections[0].label, "uplink");	/* iniparser lowercases */
	assert_string_equal(c->sections[0].match[0].pat, "Eth1");	/* values keep case */
	assert_int_equal(c->sections[0].set.mode, POL_SYSTEM);
	assert_int_equal(c->sections[1].set.mode, -1);
	assert_int_equal(c->sections[1].set.announce, -1);
	conf_free(c);
}

/* Each key on its own: the first section that selects the interface and
 * sets the key decides it; a section that only matches sets nothing. */
static void
test_per_key(void **state)
{
	struct conf_ifset set;
	struct conf *c;

	(void)state;
	c = load("[global]\nmode = subnet\nannounce = no\ndefend = always\n"
	    "[interface a]\nmatch = eth1\nannounce = yes\n"
	    "[interface b]\nmatch = eth*\nmode = monitor\nannounce = no\n"
	    "[interface c]\nmatch = eth1\ndefend = never\nmode = off\n");
	assert_non_null(c);
	assert_int_equal(conf_iface(c, "eth1", &set), 0);
	assert_int_equal(set.mode, POL_MONITOR);	/* b is the first to set it */
	assert_int_equal(set.announce, 1);		/* a */
	assert_int_equal(set.defend, CONF_DEFEND_NEVER);	/* c */
	assert_int_equal(conf_iface(c, "eth2", &set), 0);
	assert_int_equal(set.mode, POL_MONITOR);
	assert_int_equal(set.announce, 0);
	assert_int_equal(set.defend, CONF_DEFEND_ALWAYS);	/* [global] */
	assert_int_equal(conf_iface(c, "wlan0", &set), 0);
	assert_int_equal(set.mode, POL_SUBNET);
	conf_free(c);
	/* the announcement defaults */
	c = conf_defaults();
	assert_int_equal(c->set.announce, 1);
	assert_int_equal(c->set.defend, CONF_DEFEND_ONCE);
	assert_int_equal(c->announce_count, 3);
	assert_true(c->announce_interval > 1.09 && c->announce_interval < 1.11);
	assert_int_equal(c->announce_form, CONF_FORM_BOTH);
	assert_int_equal(c->announce_refresh, 0);
	conf_free(c);
	c = load("[global]\nannounce_count = 5\nannounce_interval = 0.25\n"
	    "announce_form = request\nannounce_refresh = 300\n");
	assert_non_null(c);
	assert_int_equal(c->announce_count, 5);
	assert_true(c->announce_interval == 0.25);
	assert_int_equal(c->announce_form, CONF_FORM_REQUEST);
	assert_int_equal(c->announce_refresh, 300);
	conf_free(c);
}

static void
test_acl_keys(void **state)
{
	struct conf_ifset set;
	struct conf *c, *c2;
	char *a = NULL;
	size_t la;
	FILE *f;

	(void)state;
	c = load("[global]\ndeny_senders = 192.168.0.0/16\n"
	    "[interface out]\nmatch = eth2\ndeny_senders = 0.0.0.0/0\nallow_probes = no\n"
	    "[interface lan]\nmatch = eth*\nallow_senders = 10.0.0.0/8 !10.9.0.0/16\n");
	if (c == NULL)
		fail_msg("%s", errs[0]);
	assert_int_equal(conf_iface(c, "eth2", &set), 0);
	assert_non_null(set.deny);
	assert_true(rng_has(set.deny, htonl(0x01020304)));	/* out's 0/0 */
	assert_non_null(set.allow);				/* lan's */
	assert_int_equal(set.allow_probes, 0);
	assert_int_equal(conf_iface(c, "eth1", &set), 0);
	assert_false(rng_has(set.deny, htonl(0x0a000001)));	/* [global]'s */
	assert_true(rng_has(set.deny, htonl(0xc0a80101)));
	assert_true(rng_has(set.allow, htonl(0x0a000001)));
	assert_false(rng_has(set.allow, htonl(0x0a090001)));
	assert_int_equal(set.allow_probes, 1);
	assert_int_equal(conf_iface(c, "wlan0", &set), 0);
	assert_null(set.allow);
	/* printed and read back: the same lists */
	f = open_memstream(&a, &la);
	conf_print(c, f);
	fclose(f);
	assert_non_null(strstr(a, "allow_senders = 10.0.0.0-10.8.255.255 10.10.0.0-10.255.255.255\n"));
	c2 = load(a);
	if (c2 == NULL)
		fail_msg("printed configuration rejected: %s\n%s", errs[0], a);
	assert_int_equal(conf_iface(c2, "eth1", &set), 0);
	assert_false(rng_has(set.allow, htonl(0x0a090001)));
	free(a);
	conf_free(c);
	conf_free(c2);
}

static void
test_selection(void **state)
{
	static const struct { const char *name; int mode; } v[] = {
		{ "eth0", POL_OWNER }, { "eth1", POL_OFF }, { "eth10", POL_SUBNET },
		{ "eth9", -1 }, { "wlan0", -1 }, { "Eth1", POL_OWNER },
	};
	struct conf *c;
	size_t i;

	(void)state;
	c = load("[global]\ninterfaces = eth* Eth* !eth9\n"
	    "[interface a]\nmatch = eth1\nmode = off\n"
	    "[interface b]\nmatch = eth1*\nmode = subnet\n"
	    "[interface c]\nmatch = eth*\n");		/* no mode: inherits */
	assert_non_null(c);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (conf_iface_mode(c, v[i].name) != v[i].mode)
			fail_msg("%s: %d, want %d", v[i].name, conf_iface_mode(c, v[i].name),
			    v[i].mode);
	conf_free(c);
	c = load("[global]\ninterfaces = !lan*\n");	/* only exclusions: all but */
	assert_non_null(c);
	assert_int_equal(conf_iface_mode(c, "eth0"), POL_OWNER);
	assert_int_equal(conf_iface_mode(c, "lan3"), -1);
	conf_free(c);
}

struct bad {
	const char	*text;
	int		 nerr;
	const char	*want;		/* substring of the first error */
};

static const struct bad bad[] = {
	{ "[global]\nmode = ownr\n", 1, "arpownd.conf:2: [global] mode = ownr: must be one of owner, subnet, system, monitor, off" },
	{ "[global]\nintrfaces = *\n", 1, "arpownd.conf:2: [global] intrfaces = *: unknown key \"intrfaces\" (did you mean \"interfaces\"?)" },
	{ "[global]\nfrobnicate = 1\n", 1, "unknown key \"frobnicate\"" },
	{ "[global]\nmode = owner\nmode = subnet\n", 1, "arpownd.conf:3: [global] mode: key already set at line 2" },
	{ "[global]\n[global]\n", 1, "arpownd.conf:2: [global]: section already defined at line 1" },
	{ "[globl]\nmode = owner\n", 1, "arpownd.conf:1: [globl]: unknown section" },
	{ "mode = owner\n", 1, "arpownd.conf:1: mode: key outside any section" },
	{ "[interface]\nmatch = x\n", 1, "needs a label" },
	{ "[interface a]\nmode = off\n", 1, "[interface a]: match = GLOBS is required" },
	{ "[interface a]\nmatch = x\nmatc = y\n", 1, "did you mean \"match\"?" },
	{ "[global]\ninterfaces =\n", 1, "at least one glob" },
	{ "[global]\ninterfaces = eth/0\n", 1, "without '/'" },
	{ "[global]\ninterfaces = !\n", 1, "non-empty" },
	{ "[global]\narp_announce = 3\n", 1, "must be one of keep, 0, 1, 2" },
	{ "[global]\nlearn = maybe\n", 1, "[global] learn = maybe: must be yes or no" },
	{ "[global]\nlog_level = verbose\n", 1, "must be one of err, warning, notice, info, debug" },
	{ "[global]\nsender_rate = -5\n", 1, "whole number" },
	{ "[global]\ntotal_rate = 1e3\n", 1, "whole number" },
	{ "[global]\nuser = a b\n", 1, "must be a user name" },
	{ "[global]\nbusy_poll_us = 2001\n", 1, "0 to 2000" },
	{ "[global]\nqdisc_bypass = sometimes\n", 1, "[global] qdisc_bypass = sometimes: must be yes or no" },
	{ "[global]\nannounce = often\n", 1, "[global] announce = often: must be yes or no" },
	{ "[global]\nannounce_count = 0\n", 1, "1 to 100" },
	{ "[global]\nannounce_count = 101\n", 1, "1 to 100" },
	{ "[global]\nannounce_interval = 0.05\n", 1, "0.1 to 60" },
	{ "[global]\nannounce_interval = 1,1\n", 1, "0.1 to 60" },
	{ "[global]\nannounce_interval = 1.\n", 1, "0.1 to 60" },
	{ "[global]\nannounce_interval = 1e1\n", 1, "0.1 to 60" },
	{ "[global]\nannounce_form = garp\n", 1, "must be one of request, reply, both" },
	{ "[global]\nannounce_refresh = -1\n", 1, "0 (never) to 86400" },
	{ "[global]\ndefend = sometimes\n", 1, "[global] defend = sometimes: must be one of never, once, always" },
	{ "[interface a]\nmatch = x\nannounce_count = 3\n", 1, "unknown key \"announce_count\"" },
	{ "[global]\nallow_senders = 10.0.0.0/33\n", 1, "[global] allow_senders = 10.0.0.0/33: the prefix length must be 0 to 32" },
	{ "[global]\ndeny_senders = 10.0.0.1/8\n", 1, "host bits set" },
	{ "[global]\ndeny_senders =\n", 1, "at least one address" },
	{ "[interface a]\nmatch = x\nallow_senders = 10.0.0.9-10.0.0.1\n", 1, "the range ends before it starts" },
	{ "[global]\nallow_probes = perhaps\n", 1, "must be yes or no" },
	{ "[global]\nuser = 12:ab\n", 1, "must be a user name, a uid, or uid:gid" },
	{ "[global]\ninterfaces = eth* \"Wan0\"\n", 1, "a glob cannot contain quotes" },
	{ "[global]\nuser = 12:\n", 1, "uid:gid" },
	{ "[global]\nuser = 1:2:3\n", 1, "uid:gid" },
	/* iniparser would file [interface a:b]'s keys under [interface a] */
	{ "[interface a]\nmatch = x\n[interface a:b]\nmatch = y\n", 1,
	    "arpownd.conf:3: [interface a:b]: ':' cannot be used in a section name or label" },
	{ "[global]\nmode = OWNER\n", 1, "must be one of" },
	{ "[global]\nmetrics_file = arpownd.prom\n", 1, "metrics_file = arpownd.prom: must be an absolute path" },
	{ "[global]\nmetrics_file = /var/lib/x/\n", 1, "absolute path to a file" },
	{ "[global]\nmetrics_file = /a b.prom\n", 1, "without white space" },
	{ "[global]\nmetrics_file = /a\"b.prom\n", 1, "quotes" },
	{ "[global]\nmetrics_file = /a\\b.prom\n", 1, "backslashes" },
	{ "[global]\nmetrics_file = /a\x01.prom\n", 1, "control characters" },
	{ "[global]\nmetrics_interval = 0\n", 1, "[global] metrics_interval = 0: must be a whole number of seconds, 1 to 3600" },
	{ "[global]\nmetrics_interval = 3601\n", 1, "1 to 3600" },
	{ "[global]\nmetrics_interval = 15s\n", 1, "1 to 3600" },
	{ "[global]\nmetrics_interval = -1\n", 1, "1 to 3600" },
	{ "[global]\nmode = ownr\narp_announce = 9\nlearn = perhaps\n", 3, "mode = ownr" },
	{ "[global]\nfoo\n", 1, "syntax error" },
};

static void
test_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct conf *c = load(bad[i].text);

		if (c != NULL)
			fail_msg("accepted: %s", bad[i].text);
		if (nerrs != bad[i].nerr)
			fail_msg("%s: %d errors (first: %s), want %d", bad[i].text, nerrs,
			    errs[0], bad[i].nerr);
		if (strstr(errs[0], bad[i].want) == NULL)
			fail_msg("%s: got \"%s\", want \"%s\"", bad[i].text, errs[0], bad[i].want);
		if (strncmp(errs[0], dir, strlen(dir)) != 0)
			fail_msg("error does not name the file: %s", errs[0]);
	}
}

static void
test_missing(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/absent.conf", dir);
	nerrs = 0;
	assert_null(conf_load(path, collect, NULL));
	assert_int_equal(nerrs, 1);
	assert_non_null(strstr(errs[0], "absent.conf: cannot read: No such file or directory"));
}

static void
test_roundtrip(void **state)
{
	struct conf *c, *c2;
	char *a = NULL, *b = NULL;
	size_t la, lb;
	FILE *f;

	(void)state;
	c = load("[global]\ninterfaces = eth* !eth9\nmode = system\narp_announce = keep\n"
	    "learn = no\nannounce_interval = 0.3\nannounce_form = reply\ndefend = never\n"
	    "metrics_file = /run/m.prom\nmetrics_interval = 60\n"
	    "[interface x]\nmatch = eth1 !eth12\nmode = off\nannounce = no\n"
	    "[interface y]\nmatch = q\ndefend = always\n");
	assert_non_null(c);
	f = open_memstream(&a, &la);
	conf_print(c, f);
	fclose(f);
	c2 = load(a);
	if (c2 == NULL)
		fail_msg("printed configuration rejected: %s\n%s", errs[0], a);
	f = open_memstream(&b, &lb);
	conf_print(c2, f);
	fclose(f);
	assert_string_equal(strchr(a, '\n'), strchr(b, '\n'));
	assert_non_null(strstr(a, "log_level = info\n"));	/* defaults filled in */
	assert_non_null(strstr(a, "metrics_file = /run/m.prom\nmetrics_interval = 60\n"));
	assert_string_equal(c2->metrics_file, "/run/m.prom");
	free(a);
	free(b);
	conf_free(c);
	conf_free(c2);
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL;
}

static int
teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/arpownd.conf", dir);
	unlink(path);
	return rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_equal_example),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_per_key),
		cmocka_unit_test(test_acl_keys),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
