/* test_report.c — the renderers: JSON that json-c reads back, with every
 * interface name the kernel allows (quotes, backslashes, controls, bytes
 * that are not UTF-8) intact; the numbers where the schema says; the
 * metrics' label escaping and exposition format. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <json-c/json.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonw.h"
#include "metrics.h"
#include "policy.h"
#include "report.h"

/* Hostile names; each is one the kernel accepts (dev_valid_name). */
static const char *const names[] = {
	"eth0", "a\"b", "a\\b", "\x01\x02\x1f", "\177del", "caf\xc3\xa9",
	"\xff\xfe", "\xc3", "\xed\xa0\x80", "\xe2\x80\xa8x", "<script>", "%s%n",
	"\xf4\x90\x80\x80", "\xc0\xaf",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* What a name reads back as: valid UTF-8 as is, other bytes as U+00XX. */
static void
expect_name(const char *got, const char *raw)
{
	char want[64];
	size_t i, o = 0, n, len = strlen(raw);

	for (i = 0; i < len; i += n) {
		if ((n = jw_utf8_len((const unsigned char *)raw + i, len - i)) == 0) {
			unsigned char c = (unsigned char)raw[i];

			want[o++] = (char)(0xc0 | c >> 6);
			want[o++] = (char)(0x80 | (c & 0x3f));
			n = 1;
		} else {
			memcpy(want + o, raw + i, n);
			o += n;
		}
	}
	want[o] = '\0';
	assert_string_equal(got, want);
}

static char *
render(void (*fn)(const struct rpt_view *, FILE *), const struct rpt_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(v, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static json_object *
parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	if (o == NULL)
		fail_msg("not JSON: %s", text);
	return o;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

struct fixture {
	struct tbl		*t;
	struct cfl		*c;
	struct conf		*conf;
	struct stats		 st;
	struct state_orig	 o;
	struct rpt_view		 v;
};

static const struct state_orig *
orig(void *arg, int ifindex)
{
	struct fixture *fx = arg;

	return ifindex == 1 ? &fx->o : NULL;
}

static int
setup(void **state)
{
	static struct fixture fx;
	struct tbl_iface *ifp;
	uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	size_t i;

	memset(&fx, 0, sizeof(fx));
	fx.t = tbl_new();
	fx.c = cfl_new(16);
	fx.conf = conf_defaults();
	for (i = 0; i < NNAMES; i++) {
		ifp = tbl_iface_add(fx.t, (int)i + 1);
		snprintf(ifp->name, sizeof(ifp->name), "%s", names[i]);
		ifp->managed = i % 2 == 0;
		ifp->mode = POL_SUBNET;
		ifp->flags = IFF_UP;
		ifp->arp_ignore = 8;
		ifp->arp_announce = 2;
		tbl_addr_add(fx.t, (int)i + 1, htonl(0x0a000001 + (uint32_t)i),
		    htonl(0x0a000001 + (uint32_t)i), 24);
	}
	ifp = tbl_iface(fx.t, 1);
	ifp->stats = calloc(1, sizeof(*ifp->stats));
	ifp->stats->received = 7;
	ifp->stats->replies = 5;
	ifp->stats->invalid[ARP_BAD_HRD] = 1;
	ifp->stats->verdict[POL_ANSWER] = 5;
	ifp->stats->verdict[POL_OTHER_IFACE] = 1;
	ifp->stats->would_refuse[POL_NOT_SUBNET] = 3;
	fx.st.all = *ifp->stats;
	fx.st.learned = 4;
	fx.o.ifindex = 1;
	fx.o.arp_ignore = 0;
	fx.o.arp_announce = STATE_NONE;
	cfl_note(fx.c, htonl(0x0a000002), 2, mac, 1000.5, NULL);
	cfl_note(fx.c, htonl(0x0a000002), 2, mac, 1001.5, NULL);
	fx.v.version = "1.2.3\"x";
	fx.v.pid = 42;
	fx.v.now = 2000;
	fx.v.started = 1000;
	fx.v.conf_path = "/etc/a\"b.conf";
	fx.v.conf_loaded = fx.v.reload_ok = 1500;
	fx.v.conf = fx.conf;
	fx.v.tbl = fx.t;
	fx.v.cfl = fx.c;
	fx.v.st = &fx.st;
	fx.v.capture_drops = 3;
	fx.v.orig = orig;
	fx.v.orig_arg = &fx;
	fx.v.up = true;
	*state = &fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	tbl_free(fx->t);
	cfl_free(fx->c);
	conf_free(fx->conf);
	return 0;
}

static void
test_escape(void **state)
{
	char *buf = NULL, doc[256];
	size_t len = 0, i, j;
	json_object *o;
	FILE *f;

	(void)state;
	for (i = 0; i < NNAMES; i++) {
		f = open_memstream(&buf, &len);
		jw_escape(f, names[i], strlen(names[i]));
		fclose(f);
		/* plain ASCII out, or UTF-8: never a raw control byte */
		for (j = 0; j < len; j++)
			if ((unsigned char)buf[j] < 0x20 || buf[j] == 0x7f)
				fail_msg("%s: raw byte 0x%02x", buf, (unsigned char)buf[j]);
		snprintf(doc, sizeof(doc), "{\"n\":\"%s\"}", buf);
		o = parse(doc);
		expect_name(json_object_get_string(get(o, "n")), names[i]);
		json_object_put(o);
		free(buf);
		buf = NULL;
	}
}

static void
test_status(void **state)
{
	struct fixture *fx = *state;
	char *text = render(rpt_status, &fx->v);
	json_object *o = parse(text), *m;

	assert_int_equal(json_object_get_int(get(o, "schema")), RPT_SCHEMA);
	assert_string_equal(json_object_get_string(get(o, "version")), "1.2.3\"x");
	assert_int_equal(json_object_get_int(get(o, "pid")), 42);
	assert_true(json_object_get_double(get(o, "uptime_seconds")) == 1000.0);
	assert_string_equal(json_object_get_string(get(o, "mode")), "owner");
	assert_string_equal(json_object_get_string(get(get(o, "config"), "path")),
	    "/etc/a\"b.conf");
	assert_true(json_object_is_type(get(get(o, "config"), "last_reload_failure_at"),
	    json_type_null));
	assert_int_equal(json_object_get_int(get(o, "interfaces_known")), NNAMES);
	assert_int_equal(json_object_get_int(get(o, "interfaces_managed")), (NNAMES + 1) / 2);
	assert_int_equal(json_object_get_int(get(o, "addresses")), (NNAMES + 1) / 2);
	m = get(o, "managed");
	assert_int_equal(json_object_array_length(m), (NNAMES + 1) / 2);
	expect_name(json_object_get_string(get(json_object_array_get_idx(m, 2), "name")),
	    names[4]);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(m, 0),
	    "mode")), "subnet");
	json_object_put(o);
	free(text);
}

static void
test_interfaces(void **state)
{
	struct fixture *fx = *state;
	char *text = render(rpt_interfaces, &fx->v);
	json_object *o = parse(text), *v = get(o, "interfaces"), *e, *a;
	size_t i;

	assert_int_equal(json_object_array_length(v), NNAMES);
	for (i = 0; i < NNAMES; i++) {
		e = json_object_array_get_idx(v, i);
		expect_name(json_object_get_string(get(e, "name")), names[i]);
		assert_int_equal(json_object_get_int(get(e, "ifindex")), (int)i + 1);
		assert_int_equal(json_object_get_boolean(get(e, "managed")), i % 2 == 0);
	}
	e = json_object_array_get_idx(v, 0);
	assert_string_equal(json_object_get_string(get(e, "mac")), "00:00:00:00:00:00");
	assert_int_equal(json_object_get_int(get(get(e, "arp_ignore"), "current")), 8);
	assert_int_equal(json_object_get_int(get(get(e, "arp_ignore"), "original")), 0);
	assert_true(json_object_is_type(get(get(e, "arp_announce"), "original"),
	    json_type_null));
	a = json_object_array_get_idx(get(e, "addresses"), 0);
	assert_string_equal(json_object_get_string(get(a, "address")), "10.0.0.1");
	assert_int_equal(json_object_get_int(get(a, "prefixlen")), 24);
	e = json_object_array_get_idx(v, 1);
	assert_true(json_object_is_type(get(e, "mode"), json_type_null));	/* unmanaged */
	json_object_put(o);
	free(text);
}

static void
test_counters(void **state)
{
	struct fixture *fx = *state;
	char *text = render(rpt_counters, &fx->v);
	json_object *o = parse(text), *e, *all;

	e = json_object_array_get_idx(get(o, "interfaces"), 0);
	assert_int_equal(json_object_get_int(get(e, "received")), 7);
	assert_int_equal(json_object_get_int(get(e, "replies")), 5);
	assert_int_equal(json_object_get_int(get(e, "requests")), 6);
	assert_int_equal(json_object_get_int(get(get(e, "invalid"), "bad_hrd")), 1);
	/* gratuitous frames are heard, not invalid */
	assert_false(json_object_object_get_ex(get(e, "invalid"), "gratuitous", NULL));
	assert_int_equal(json_object_get_int(get(get(e, "verdicts"), "other_interface")), 1);
	assert_int_equal(json_object_get_int(get(get(e, "would_refuse"), "not_subnet")), 3);
	/* an interface that counted nothing: zeros, every key there */
	e = json_object_array_get_idx(get(o, "interfaces"), 3);
	assert_int_equal(json_object_get_int(get(get(e, "invalid"), "bad_hrd")), 0);
	assert_int_equal(json_object_object_length(get(e, "invalid")), ARP_NREASONS - 2);
	assert_int_equal(json_object_object_length(get(e, "verdicts")), POL_NVERDICTS);
	all = get(o, "all");
	assert_int_equal(json_object_get_int(get(all, "received")), 7);
	assert_int_equal(json_object_get_int(get(get(o, "daemon"), "learned")), 4);
	assert_int_equal(json_object_get_int(get(get(o, "daemon"), "capture_drops")), 3);
	json_object_put(o);
	free(text);
}

static void
test_conflicts(void **state)
{
	struct fixture *fx = *state;
	char *text = render(rpt_conflicts, &fx->v);
	json_object *o = parse(text), *e;

	assert_int_equal(json_object_array_length(get(o, "conflicts")), 1);
	e = json_object_array_get_idx(get(o, "conflicts"), 0);
	assert_string_equal(json_object_get_string(get(e, "address")), "10.0.0.2");
	expect_name(json_object_get_string(get(e, "interface")), names[1]);
	assert_string_equal(json_object_get_string(get(e, "mac")), "02:00:00:00:00:09");
	assert_true(json_object_get_double(get(e, "first_seen")) == 1000.5);
	assert_true(json_object_get_double(get(e, "last_seen")) == 1001.5);
	assert_int_equal(json_object_get_int(get(e, "count")), 2);
	json_object_put(o);
	free(text);
}

static void
test_label_escape(void **state)
{
	static const struct { const char *in, *out; } v[] = {
		{ "eth0", "eth0" }, { "a\"b", "a\\\"b" }, { "a\\b", "a\\\\b" },
		{ "a\nb", "a\\nb" }, { "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xff", "\xc3\xbf" }, { "\x01", "\x01" },
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		f = open_memstream(&buf, &len);
		met_label_escape(f, v[i].in, strlen(v[i].in));
		fclose(f);
		assert_string_equal(buf, v[i].out);
		free(buf);
		buf = NULL;
	}
}

static void
test_metrics(void **state)
{
	struct fixture *fx = *state;
	char *text = render(met_render, &fx->v), *line, *save = NULL;
	unsigned helps = 0, types = 0;

	assert_non_null(strstr(text, "\narpownd_up 1\n"));
	assert_non_null(strstr(text, "arpownd_build_info{version=\"1.2.3\\\"x\"} 1\n"));
	assert_non_null(strstr(text, "arpownd_replies_total{interface=\"eth0\"} 5\n"));
	assert_non_null(strstr(text, "arpownd_invalid_total{reason=\"bad_hrd\"} 1\n"));
	assert_non_null(strstr(text, "arpownd_requests_total{verdict=\"other_interface\"} 1\n"));
	assert_non_null(strstr(text, "arpownd_requests_refused_total{interface=\"eth0\"} 1\n"));
	assert_non_null(strstr(text, "arpownd_would_refuse_total{interface=\"eth0\"} 3\n"));
	assert_non_null(strstr(text, "arpownd_interfaces{mode=\"subnet\"} 7\n"));
	assert_non_null(strstr(text, "arpownd_interfaces{mode=\"monitor\"} 0\n"));
	assert_non_null(strstr(text, "arpownd_interface_info{interface=\"eth0\",mode=\"subnet\",path=\"capture\"} 1\n"));
	assert_non_null(strstr(text, "arpownd_capture_drops_total 3\n"));
	assert_non_null(strstr(text, "arpownd_rate_limited_total{interface=\"eth0\"} 0\n"));
	/* a managed interface with a hostile name: its label escaped */
	assert_non_null(strstr(text, "interface=\"\x7f" "del\""));
	assert_non_null(strstr(text, "interface=\"a\\\\b\""));
	assert_non_null(strstr(text, "interface=\"\xc3\xbf\xc3\xbe\""));	/* 0xff 0xfe */
	fx->v.up = false;
	free(text);
	text = render(met_render, &fx->v);
	assert_non_null(strstr(text, "\narpownd_up 0\n"));
	fx->v.up = true;
	/* every sample line follows its family's HELP and TYPE */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		helps += strncmp(line, "# HELP ", 7) == 0;
		types += strncmp(line, "# TYPE ", 7) == 0;
	}
	assert_int_equal(helps, types);
	assert_true(helps >= 20);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_interfaces),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_label_escape),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
