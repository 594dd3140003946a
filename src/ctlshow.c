/* ctlshow.c — the daemon's JSON replies as a person reads them: aligned
 * columns, durations, sums; every string from the daemon made safe for a
 * terminal first (an interface name may hold any byte).  json-c parses. */
#include "config.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "ctlshow.h"
#include "jsonw.h"

static void oom(void) __attribute__((noreturn));

/* Does arpownd answer in the mode called m (not monitor, off)? */
static bool
pol_answers_name(const char *m)
{
	return m != NULL && (strcmp(m, "owner") == 0 || strcmp(m, "subnet") == 0 ||
	    strcmp(m, "system") == 0);
}

static void
oom(void)
{
	fputs("arpownctl: out of memory\n", stderr);
	exit(EX_OSERR);
}

/* s for a terminal: printable ASCII and UTF-8 from U+00A0 as they are,
 * other bytes (controls, C1, what is not UTF-8) as \xHH: an interface
 * name may hold any of them. */
char *
show_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out = malloc(len * 4 + 1);

	if (out == NULL)
		oom();
	while (i < len) {
		n = jw_utf8_len(p + i, len - i);
		if (n == 1 && p[i] >= 0x20 && p[i] < 0x7f) {
			out[o++] = (char)p[i++];
		} else if (n > 1 && !(n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", p[i]);
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/* A pipe (promtool, jq) gets the daemon's bytes; a terminal never does:
 * the daemon may be compromised, and an interface name in a metric's
 * label may hold ESC, either of which would drive root's terminal (a
 * title reported back as typed input, the clipboard, a cleared screen). */
void
show_raw(const char *body, size_t len)
{
	const char *p = body, *end = body + len, *nl;
	char *line, *safe;

	if (!isatty(STDOUT_FILENO)) {
		fwrite(body, 1, len, stdout);
		return;
	}
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((line = strndup(p, (size_t)(nl - p))) == NULL)
			oom();
		safe = show_safe(line);
		fputs(safe, stdout);
		if (nl < end)
			putchar('\n');
		free(safe);
		free(line);
		p = nl + 1;
	}
}

/* Columns: cells of one row after another, widths from the widest. */
struct table {
	size_t	  ncol, n, cap;
	char	**cell;
};

static size_t
width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;	/* code points */
	return w;
}

static void
row(struct table *t, ...)
{
	va_list ap;
	size_t i;

	if (t->n + t->ncol > t->cap) {
		t->cap = (t->cap + t->ncol) * 2;
		if ((t->cell = realloc(t->cell, t->cap * sizeof(*t->cell))) == NULL)
			oom();
		memset(t->cell + t->n, 0, (t->cap - t->n) * sizeof(*t->cell));
	}
	va_start(ap, t);
	for (i = 0; i < t->ncol; i++) {
		const char *s = va_arg(ap, const char *);

		if ((t->cell[t->n++] = show_safe(s != NULL ? s : "-")) == NULL)
			oom();
	}
	va_end(ap);
}

static void
table_print(struct table *t)
{
	size_t w[16] = { 0 }, i, j, l;

	for (i = 0; i < t->n; i++)
		if ((l = width(t->cell[i])) > w[i % t->ncol])
			w[i % t->ncol] = l;
	for (i = 0; i < t->n; i += t->ncol) {
		for (j = 0; j < t->ncol; j++) {
			fputs(t->cell[i + j], stdout);
			if (j + 1 < t->ncol)
				printf("%*s", (int)(w[j] - width(t->cell[i + j]) + 2), "");
		}
		putchar('\n');
	}
	for (i = 0; i < t->cap && t->cell != NULL; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->n = t->cap = 0;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *
str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

static long long
num(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v != NULL ? json_object_get_int64(v) : 0;
}

static const char *
fmt(char buf[static 32], long long v)
{
	snprintf(buf, 32, "%lld", v);
	return buf;
}

static const char *
when(char buf[static 32], json_object *o, const char *key)
{
	json_object *v = get(o, key);
	time_t t;
	struct tm tm;

	if (v == NULL || json_object_is_type(v, json_type_null))
		return "never";
	t = (time_t)json_object_get_double(v);
	if (localtime_r(&t, &tm) == NULL || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return "?";
	return buf;
}

static const char *
duration(char buf[static 32], double s)
{
	long t = (long)s;

	if (t >= 86400)
		snprintf(buf, 32, "%ldd %02ldh %02ldm", t / 86400, t / 3600 % 24, t / 60 % 60);
	else if (t >= 3600)
		snprintf(buf, 32, "%ldh %02ldm %02lds", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, 32, "%ldm %02lds", t / 60, t % 60);
	return buf;
}

/* The kernel answer path's line(s), when it is loaded: whether it
 * answers, and what its maps have no room for (the daemon's strings are
 * shown through show_safe). */
static void
show_kpath(json_object *k)
{
	json_object *u = get(k, "unheld");
	char *sr, *se;

	if (k == NULL || !json_object_is_type(k, json_type_object))
		return;
	printf("kernel path:   %s, maps sized for %lld address entries\n",
	    json_object_get_boolean(get(k, "answering")) ? "answering" :
	    "ANSWERS NOTHING (the capture path answers everything)", num(k, "capacity"));
	if (num(u, "addresses") + num(u, "published_ranges") + num(u, "interfaces") +
	    num(u, "kernel_entries") == 0)
		return;
	se = show_safe(str(k, "unheld_example") != NULL ? str(k, "unheld_example") : "-");
	sr = show_safe(str(k, "reason") != NULL ? str(k, "reason") : "-");
	printf("               no room for %lld addresses (%s first), %lld published ranges, "
	    "%lld interfaces' sender lists, %lld kernel entries: %s\n", num(u, "addresses"),
	    se, num(u, "published_ranges"), num(u, "interfaces"), num(u, "kernel_entries"), sr);
	free(se);
	free(sr);
}

/* What each configured name or glob matches now: a typo shows as
 * "nothing", with the name it most likely meant. */
static void
show_configured(json_object *v)
{
	struct table t = { 3, 0, 0, NULL };
	json_object *e, *m;
	char pat[64], where[96], what[160];
	size_t i, j, nm, o;

	if (v == NULL || json_object_array_length(v) == 0)
		return;
	putchar('\n');
	row(&t, "CONFIGURED", "IN", "MATCHES NOW");
	for (i = 0; i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		m = get(e, "matches");
		nm = m != NULL ? json_object_array_length(m) : 0;
		snprintf(pat, sizeof(pat), "%s%s", json_object_get_boolean(get(e, "exclude")) ?
		    "!" : "", str(e, "pattern") != NULL ? str(e, "pattern") : "?");
		if (str(e, "section") != NULL)
			snprintf(where, sizeof(where), "[interface %s] match", str(e, "section"));
		else
			snprintf(where, sizeof(where), "interfaces");
		o = 0;
		what[0] = '\0';
		for (j = 0; j < nm && j < 6 && o < sizeof(what); j++)
			o += (size_t)snprintf(what + o, sizeof(what) - o, "%s%s", j ? " " : "",
			    json_object_get_string(json_object_array_get_idx(m, j)));
		if (nm > 6 && o < sizeof(what))
			snprintf(what + o, sizeof(what) - o, " ... (%zu in all)", nm);
		else if (nm == 0 && str(e, "did_you_mean") != NULL)
			snprintf(what, sizeof(what), "nothing (did you mean \"%s\"?)",
			    str(e, "did_you_mean"));
		else if (nm == 0)
			snprintf(what, sizeof(what), "nothing now");
		row(&t, pat, where, what);
	}
	table_print(&t);
}

static void
show_status(json_object *o)
{
	json_object *cfg = get(o, "config"), *m = get(o, "managed"), *e, *mf;
	struct table t = { 6, 0, 0, NULL };
	char a[32], b[32], c[32];
	const char *path = str(cfg, "path");
	char *sp = show_safe(path != NULL ? path : "(built-in defaults)");
	char *sv = show_safe(str(o, "version") != NULL ? str(o, "version") : "?");
	size_t i;

	printf("arpownd %s, pid %lld, up %s (since %s)\n", sv,
	    num(o, "pid"), duration(a, json_object_get_double(get(o, "uptime_seconds"))),
	    when(b, o, "started_at"));
	free(sv);
	mf = get(o, "monitor_forced");
	if (mf != NULL && str(mf, "by") != NULL) {
		/* the file's mode does not count: say what does, and the way out */
		char *by = show_safe(str(mf, "by"));
		char *to = show_safe(str(mf, "to_answer") != NULL ? str(mf, "to_answer") : "?");

		printf("mode:          monitor, forced by %s\n", by);
		printf("to answer:     %s\n", to);
		free(by);
		free(to);
	} else {
		char *sm = show_safe(str(o, "mode") != NULL ? str(o, "mode") : "?");

		printf("mode:          %s\n", sm);
		free(sm);
	}
	printf("configuration: %s, loaded %s", sp, when(a, cfg, "loaded_at"));
	if (get(cfg, "last_reload_failure_at") != NULL &&
	    !json_object_is_type(get(cfg, "last_reload_failure_at"), json_type_null))
		printf(" (a reload was refused %s)", when(c, cfg, "last_reload_failure_at"));
	putchar('\n');
	free(sp);
	printf("interfaces:    answering on %lld of %lld, %lld addresses",
	    num(o, "interfaces_answering"), num(o, "interfaces_known"), num(o, "addresses"));
	if (num(o, "interfaces_monitor") > 0)
		printf("; %lld in monitor mode (the kernel answers there)",
		    num(o, "interfaces_monitor"));
	putchar('\n');
	if (num(o, "published_entries") > 0)
		printf("published:     %lld addresses in %lld entries\n",
		    num(o, "published_addresses"), num(o, "published_entries"));
	show_kpath(get(o, "kernel_path"));
	if (m == NULL || json_object_array_length(m) == 0) {
		show_configured(get(o, "interfaces_configured"));
		return;
	}
	putchar('\n');
	row(&t, "INTERFACE", "IFINDEX", "MODE", "ANSWERED BY", "LINK", "ADDRESSES");
	for (i = 0; i < json_object_array_length(m); i++) {
		e = json_object_array_get_idx(m, i);
		row(&t, str(e, "name"), fmt(a, num(e, "ifindex")), str(e, "mode"),
		    str(e, "mode") != NULL && strcmp(str(e, "mode"), "off") == 0 ? "nobody" :
		    !pol_answers_name(str(e, "mode")) ? "the kernel" :
		    str(e, "answer_path") != NULL && strcmp(str(e, "answer_path"), "kernel") == 0 ?
		    "kernel path" : str(e, "answer_path") != NULL &&
		    strcmp(str(e, "answer_path"), "xdp") == 0 ? (str(e, "xdp_mode") != NULL &&
		    strcmp(str(e, "xdp_mode"), "native") == 0 ? "xdp (native)" : "xdp (generic)") :
		    "capture",
		    json_object_get_boolean(get(e, "up")) ? "up" : "down",
		    fmt(b, num(e, "addresses")));
	}
	table_print(&t);
	/* where XDP was asked for (auto, xdp) and TC answers: why */
	for (i = 0; i < json_object_array_length(m); i++) {
		e = json_object_array_get_idx(m, i);
		if (str(e, "not_xdp") != NULL)
			printf("%s: answered at TC, not XDP: %s\n", str(e, "name"), str(e, "not_xdp"));
	}
	show_configured(get(o, "interfaces_configured"));
}

/* "8 (was 0)": the value now and what arpownd found before changing it. */
static const char *
sysctl_str(char buf[static 32], json_object *o)
{
	json_object *cur = get(o, "current"), *orig = get(o, "original");

	if (cur == NULL || json_object_is_type(cur, json_type_null))
		return "?";
	if (orig == NULL || json_object_is_type(orig, json_type_null))
		snprintf(buf, 32, "%d", json_object_get_int(cur));
	else
		snprintf(buf, 32, "%d (was %d)", json_object_get_int(cur),
		    json_object_get_int(orig));
	return buf;
}

static void
show_interfaces(json_object *o)
{
	json_object *v = get(o, "interfaces"), *e, *as, *ad;
	struct table t = { 9, 0, 0, NULL };
	char a[32], b[32], c[32];
	char *addrs;
	size_t i, j, len;

	row(&t, "INTERFACE", "IFINDEX", "MAC", "LINK", "MANAGED", "MODE", "ARP_IGNORE",
	    "ARP_ANNOUNCE", "ADDRESSES");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		as = get(e, "addresses");
		len = 1;
		for (j = 0; as != NULL && j < json_object_array_length(as); j++)
			len += 24;
		if ((addrs = calloc(1, len)) == NULL)
			oom();
		for (j = 0; as != NULL && j < json_object_array_length(as); j++) {
			ad = json_object_array_get_idx(as, j);
			snprintf(addrs + strlen(addrs), len - strlen(addrs), "%s%s/%lld",
			    j ? "," : "", str(ad, "address"), num(ad, "prefixlen"));
		}
		row(&t, str(e, "name"), fmt(a, num(e, "ifindex")), str(e, "mac"),
		    json_object_get_boolean(get(e, "up")) ? "up" : "down",
		    json_object_get_boolean(get(e, "managed")) ? "yes" : "no",
		    str(e, "mode"), sysctl_str(b, get(e, "arp_ignore")),
		    sysctl_str(c, get(e, "arp_announce")), addrs[0] ? addrs : "-");
		free(addrs);
	}
	table_print(&t);
	show_configured(get(o, "interfaces_configured"));
}

static long long
sum(json_object *o)
{
	long long s = 0;

	json_object_object_foreach(o, k, v) {
		(void)k;
		s += json_object_get_int64(v);
	}
	return s;
}

static void
counter_row(struct table *t, const char *name, json_object *e)
{
	json_object *rl = get(e, "rate_limited"), *vd = get(e, "verdicts");
	char a[32], b[32], c[32], d[32], f[32], g[32], h[32], k[32], m[32];

	row(t, name, str(e, "mode") ? str(e, "mode") : "", fmt(a, num(e, "received")),
	    fmt(b, num(e, "replies")),
	    fmt(d, sum(vd) - num(vd, "answered")),
	    fmt(f, num(rl, "sender") + num(rl, "total")),
	    fmt(c, sum(get(e, "invalid"))),
	    fmt(k, num(e, "announcements_heard") + num(e, "replies_heard")),
	    fmt(g, num(e, "conflicts")),
	    fmt(h, num(e, "announcements")),
	    fmt(m, num(e, "monitored")));
}

/* The reasons and verdicts that counted something, one row each. */
static void
detail_rows(struct table *t, const char *name, json_object *e)
{
	static const char *const kinds[][2] = {
		{ "invalid", "invalid" }, { "verdicts", "not answered" },
		{ "would_refuse", "would refuse" }, { "rate_limited", "rate-limited" },
	};
	char a[32];
	size_t i;

	for (i = 0; i < 4; i++) {
		json_object_object_foreach(get(e, kinds[i][0]), k, v) {
			if (json_object_get_int64(v) == 0 ||
			    (i == 1 && strcmp(k, "answered") == 0))
				continue;
			row(t, name, kinds[i][1], k, fmt(a, json_object_get_int64(v)));
		}
	}
}

static void
show_counters(json_object *o)
{
	json_object *v = get(o, "interfaces"), *all = get(o, "all"), *dm = get(o, "daemon");
	struct table t = { 11, 0, 0, NULL };
	size_t i;

	row(&t, "INTERFACE", "MODE", "RECEIVED", "REPLIES", "REFUSED", "RATE-LIMITED",
	    "INVALID", "HEARD", "CONFLICTS", "ANNOUNCED", "MONITORED");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++)
		counter_row(&t, str(json_object_array_get_idx(v, i), "name"),
		    json_object_array_get_idx(v, i));
	counter_row(&t, "(all)", all);
	table_print(&t);
	t.ncol = 4;
	row(&t, "INTERFACE", "KIND", "REASON", "COUNT");
	for (i = 0; v != NULL && i < json_object_array_length(v); i++)
		detail_rows(&t, str(json_object_array_get_idx(v, i), "name"),
		    json_object_array_get_idx(v, i));
	detail_rows(&t, "(all)", all);
	/* the header alone when nothing was refused: not worth a table */
	if (t.n > t.ncol)
		putchar('\n');
	else
		t.n = 0;
	table_print(&t);
	printf("\ndaemon: send errors %lld, capture errors %lld, capture drops %lld, "
	    "learned %lld, re-dumps %lld, conflicts not logged %lld\n",
	    num(dm, "send_errors"), num(dm, "capture_errors"), num(dm, "capture_drops"),
	    num(dm, "learned"), num(dm, "resyncs"), num(dm, "conflicts_unlogged"));
	printf("announcements: bursts queued %lld, pending %lld, dropped %lld; "
	    "addresses left out at start %lld; requests refused a peer %lld\n",
	    num(dm, "announce_queued"), num(dm, "announce_pending"),
	    num(dm, "announce_dropped"), num(dm, "announce_skipped"),
	    num(dm, "announce_refused"));
}

static void
show_conflicts(json_object *o)
{
	json_object *v = get(o, "conflicts"), *e;
	struct table t = { 6, 0, 0, NULL };
	char a[32], b[32], c[32];
	size_t i;

	if (v == NULL || json_object_array_length(v) == 0) {
		printf("no conflicts seen\n");
		return;
	}
	row(&t, "ADDRESS", "INTERFACE", "CLAIMED BY", "FIRST SEEN", "LAST SEEN", "COUNT");
	for (i = 0; i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		row(&t, str(e, "address"), str(e, "interface"), str(e, "mac"),
		    when(a, e, "first_seen"), when(b, e, "last_seen"),
		    fmt(c, num(e, "count")));
	}
	table_print(&t);
}

static void
show_published(json_object *o)
{
	json_object *v = get(o, "published"), *e, *rs, *r;
	struct table t = { 5, 0, 0, NULL };
	char a[32], *ranges;
	size_t i, j, len;

	if (v == NULL || json_object_array_length(v) == 0) {
		printf("nothing published\n");
		return;
	}
	row(&t, "LABEL", "INTERFACE", "MAC", "ADDRESSES", "RANGES");
	for (i = 0; i < json_object_array_length(v); i++) {
		e = json_object_array_get_idx(v, i);
		rs = get(e, "ranges");
		len = 1 + (rs != NULL ? json_object_array_length(rs) * 34 : 0);
		if ((ranges = calloc(1, len)) == NULL)
			oom();
		for (j = 0; rs != NULL && j < json_object_array_length(rs); j++) {
			r = json_object_array_get_idx(rs, j);
			snprintf(ranges + strlen(ranges), len - strlen(ranges), "%s%s%s%s",
			    j ? "," : "", str(r, "first"),
			    strcmp(str(r, "first"), str(r, "last")) ? "-" : "",
			    strcmp(str(r, "first"), str(r, "last")) ? str(r, "last") : "");
		}
		row(&t, json_object_get_boolean(get(e, "runtime")) ? "(runtime)" : str(e, "label"),
		    str(e, "interface"), str(e, "mac") ? str(e, "mac") : "(the interface's)",
		    fmt(a, num(e, "addresses")), ranges);
		free(ranges);
	}
	table_print(&t);
}

int
show(const char *cmd, const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	if (tok == NULL)
		oom();
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		fprintf(stderr, "arpownctl: the daemon's reply is not JSON: %s\n",
		    json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
		return EX_PROTOCOL;
	}
	if (strcmp(cmd, "status") == 0)
		show_status(o);
	else if (strcmp(cmd, "interfaces") == 0)
		show_interfaces(o);
	else if (strcmp(cmd, "counters") == 0)
		show_counters(o);
	else if (strcmp(cmd, "conflicts") == 0)
		show_conflicts(o);
	else if (strcmp(cmd, "reload") == 0) {
		char *p = show_safe(str(o, "config") ? str(o, "config") : "(built-in defaults)");
		json_object *ws = get(o, "warnings");
		size_t i;

		for (i = 0; ws != NULL && i < json_object_array_length(ws); i++) {
			char *q = show_safe(json_object_get_string(json_object_array_get_idx(ws,
			    i)));

			fprintf(stderr, "arpownctl: warning: %s\n", q);
			free(q);
		}
		printf("reloaded %s\n", p);
		free(p);
	} else if (strcmp(cmd, "announce") == 0) {
		char *a = show_safe(str(o, "address") ? str(o, "address") : "every address");
		char *i = show_safe(str(o, "interface") ? str(o, "interface") :
		    "the interfaces publishing it");

		printf("announcing %s from %s\n", a, i);
		free(a);
		free(i);
	} else if (strcmp(cmd, "publish") == 0 || strcmp(cmd, "withdraw") == 0) {
		char *a = show_safe(str(o, "address") ? str(o, "address") : "?");

		if (strcmp(cmd, "publish") == 0) {
			char *i = show_safe(str(o, "interface") ? str(o, "interface") : "?");

			printf("published %s on %s\n", a, i);
			free(i);
		} else
			printf("withdrew %s\n", a);
		free(a);
	} else if (strcmp(cmd, "published") == 0)
		show_published(o);
	else
		show_raw(body, len);
	json_object_put(o);
	json_tokener_free(tok);
	return EX_OK;
}

