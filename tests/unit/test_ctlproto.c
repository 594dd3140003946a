/* test_ctlproto.c — the control protocol's parser: every command, every
 * argument form, and what is refused with which code; reply headers both
 * ways.  Table-driven: good[] and bad[]. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <cmocka.h>

#include "ctlproto.h"

static uint32_t
ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void
test_good(void **state)
{
	static const struct {
		const char	*line;
		enum ctlp_cmd	 cmd;
		const char	*addr;		/* NULL: none */
		int		 plen;
		const char	*ifname;	/* NULL: none */
	} v[] = {
		{ "status", CTLP_STATUS, NULL, 32, NULL },
		{ "  status\t ", CTLP_STATUS, NULL, 32, NULL },
		{ "status\r", CTLP_STATUS, NULL, 32, NULL },
		{ "interfaces", CTLP_INTERFACES, NULL, 32, NULL },
		{ "counters", CTLP_COUNTERS, NULL, 32, NULL },
		{ "conflicts", CTLP_CONFLICTS, NULL, 32, NULL },
		{ "metrics", CTLP_METRICS, NULL, 32, NULL },
		{ "reload", CTLP_RELOAD, NULL, 32, NULL },
		{ "published", CTLP_PUBLISHED, NULL, 32, NULL },
		{ "announce 10.0.0.1", CTLP_ANNOUNCE, "10.0.0.1", 32, NULL },
		{ "announce 240.0.0.1", CTLP_ANNOUNCE, "240.0.0.1", 32, NULL },	/* class E */
		{ "announce eth0", CTLP_ANNOUNCE, NULL, 32, "eth0" },
		{ "announce dev 10.0.0.1", CTLP_ANNOUNCE, NULL, 32, "10.0.0.1" },
		{ "announce dev dev", CTLP_ANNOUNCE, NULL, 32, "dev" },
		{ "announce dev", CTLP_ANNOUNCE, NULL, 32, "dev" },
		{ "announce \"x\\", CTLP_ANNOUNCE, NULL, 32, "\"x\\" },
		{ "announce \x01\xff\xc3\xa9", CTLP_ANNOUNCE, NULL, 32, "\x01\xff\xc3\xa9" },
		{ "announce ...x", CTLP_ANNOUNCE, NULL, 32, "...x" },
		{ "publish 10.0.0.0/24 eth0", CTLP_PUBLISH, "10.0.0.0", 24, "eth0" },
		{ "publish 10.0.0.7 eth0", CTLP_PUBLISH, "10.0.0.7", 32, "eth0" },
		{ "publish 10.0.0.7/32 eth0", CTLP_PUBLISH, "10.0.0.7", 32, "eth0" },
		{ "publish 1.0.0.0/8 e", CTLP_PUBLISH, "1.0.0.0", 8, "e" },
		{ "withdraw 192.168.0.0/16", CTLP_WITHDRAW, "192.168.0.0", 16, NULL },
		{ "withdraw 192.168.1.1", CTLP_WITHDRAW, "192.168.1.1", 32, NULL },
	};
	struct ctlp_req r;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int code = ctlp_parse(v[i].line, strlen(v[i].line), &r, err, sizeof(err));

		if (code != 0)
			fail_msg("\"%s\": refused (%d): %s", v[i].line, code, err);
		assert_int_equal(r.cmd, v[i].cmd);
		assert_int_equal(r.has_addr, v[i].addr != NULL);
		if (v[i].addr != NULL) {
			assert_int_equal(r.addr, ip(v[i].addr));
			assert_int_equal(r.plen, v[i].plen);
		}
		assert_int_equal(r.has_ifname, v[i].ifname != NULL);
		if (v[i].ifname != NULL)
			assert_string_equal(r.ifname, v[i].ifname);
	}
}

static void
test_bad(void **state)
{
	static const struct {
		const char	*line;
		size_t		 len;		/* 0: strlen */
		int		 code;
		const char	*says;		/* in the message */
	} v[] = {
		{ "", 0, EX_USAGE, "empty request" },
		{ "   \t", 0, EX_USAGE, "empty request" },
		{ "STATUS", 0, EX_USAGE, "unknown command \"STATUS\"" },
		{ "stat", 0, EX_USAGE, "unknown command" },
		{ "statusx", 0, EX_USAGE, "unknown command" },
		{ "\x1b[2Jstatus", 0, EX_USAGE, "\\x1b[2Jstatus" },
		{ "status now", 0, EX_USAGE, "status takes no argument" },
		{ "reload /etc/passwd", 0, EX_USAGE, "takes no argument" },
		{ "stat\0us", 7, EX_USAGE, "NUL" },
		{ "announce", 0, EX_USAGE, "usage: announce" },
		{ "announce a b", 0, EX_USAGE, "usage: announce" },
		{ "announce dev a b", 0, EX_USAGE, "usage: announce" },
		{ "announce dev a b c", 0, EX_USAGE, "too many" },
		{ "announce 10.0.0.256", 0, EX_USAGE, "not an IPv4 address" },
		{ "announce 10.0.0", 0, EX_USAGE, "not an IPv4 address" },
		{ "announce 010.0.0.1", 0, EX_USAGE, "not an IPv4 address" },
		{ "announce 10.0.0.1/24", 0, EX_USAGE, "without /LEN" },
		{ "announce 0.0.0.0", 0, EX_DATAERR, "never answered" },
		{ "announce 127.0.0.1", 0, EX_DATAERR, "never answered" },
		{ "announce 224.0.0.1", 0, EX_DATAERR, "never answered" },
		{ "announce 255.255.255.255", 0, EX_DATAERR, "never answered" },
		{ "announce 1234567890123456", 0, EX_USAGE, "not an IPv4" },
		{ "announce 123456789012345", 0, EX_USAGE, "not an IPv4" },	/* digits: an address */
		{ "announce abcdefghijklmnop", 0, EX_USAGE, "not an interface name" },
		{ "announce a/b", 0, EX_USAGE, "not an interface name" },
		{ "announce a:b", 0, EX_USAGE, "not an interface name" },
		{ "announce .", 0, EX_USAGE, "not an interface name" },
		{ "announce ..", 0, EX_USAGE, "not an interface name" },
		{ "announce a\240b", 0, EX_USAGE, "not an interface name" },
		{ "announce a\vb", 0, EX_USAGE, "not an interface name" },
		{ "announce dev a/b", 0, EX_USAGE, "not an interface name" },
		{ "publish 10.0.0.0/24", 0, EX_USAGE, "usage: publish" },
		{ "publish 10.0.0.1/24 eth0", 0, EX_DATAERR, "host bits set beyond /24 (the range is 10.0.0.0/24)" },
		{ "publish 10.0.0.0/33 eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 10.0.0.0/0 eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 0.0.0.0/0 eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 10.0.0.0/08 eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 10.0.0.0/+8 eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 10.0.0.0/ eth0", 0, EX_USAGE, "prefix length" },
		{ "publish 10.0.0.0/24 a/b", 0, EX_USAGE, "not an interface name" },
		{ "publish 0.0.0.0/8 eth0", 0, EX_DATAERR, "holds addresses of" },
		{ "publish 126.0.0.0/7 eth0", 0, EX_DATAERR, "holds addresses of" },
		{ "publish 128.0.0.0/1 eth0", 0, EX_DATAERR, "holds addresses of" },
		{ "publish 224.0.0.0/4 eth0", 0, EX_DATAERR, "never answered" },
		{ "withdraw", 0, EX_USAGE, "usage: withdraw" },
		{ "withdraw eth0", 0, EX_USAGE, "not an IPv4" },
		{ "withdraw 10.0.0.1/16", 0, EX_DATAERR, "host bits" },
		{ "conflicts now", 0, EX_USAGE, "takes no argument" },
	};
	char err[256], big[CTLP_LINE_MAX + 10];
	struct ctlp_req r;
	size_t i, len;
	int code;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		len = v[i].len ? v[i].len : strlen(v[i].line);
		err[0] = '\0';
		code = ctlp_parse(v[i].line, len, &r, err, sizeof(err));
		if (code != v[i].code)
			fail_msg("\"%s\": %d, want %d (%s)", v[i].line, code, v[i].code, err);
		if (strstr(err, v[i].says) == NULL)
			fail_msg("\"%s\": \"%s\" does not say \"%s\"", v[i].line, err, v[i].says);
		/* a message is one line of printable text, whatever came in */
		for (len = 0; err[len]; len++)
			if ((unsigned char)err[len] < ' ' || (unsigned char)err[len] >= 0x7f)
				fail_msg("\"%s\": byte 0x%02x in the message", v[i].line,
				    (unsigned char)err[len]);
	}
	memset(big, 'a', sizeof(big));
	assert_int_equal(ctlp_parse(big, CTLP_LINE_MAX, &r, err, sizeof(err)), EX_USAGE);
	assert_non_null(strstr(err, "longer than"));
	memcpy(big, "status", 6);
	memset(big + 6, ' ', CTLP_LINE_MAX - 7);
	assert_int_equal(ctlp_parse(big, CTLP_LINE_MAX - 1, &r, err, sizeof(err)), 0);
}

static void
test_head(void **state)
{
	static const struct {
		const char	*line;
		int		 ok;	/* -1: refused */
		int		 code;
		size_t		 length;
		const char	*type;
	} v[] = {
		{ "OK 0 json", 1, 0, 0, "json" },
		{ "OK 123 text", 1, 0, 123, "text" },
		{ "OK 268435456 json", 1, 0, CTLP_BODY_MAX, "json" },
		{ "ERR 64 10", 0, 64, 10, "text" },
		{ "ERR 78 0", 0, 78, 0, "text" },
		{ "OK 268435457 json", -1, 0, 0, NULL },
		{ "OK 12 xml", -1, 0, 0, NULL },
		{ "OK 012 json", -1, 0, 0, NULL },
		{ "OK -1 json", -1, 0, 0, NULL },
		{ "OK 1 json ", -1, 0, 0, NULL },
		{ " OK 1 json", -1, 0, 0, NULL },
		{ "OK  1 json", -1, 0, 0, NULL },
		{ "OK 1", -1, 0, 0, NULL },
		{ "ERR 63 1", -1, 0, 0, NULL },
		{ "ERR 79 1", -1, 0, 0, NULL },
		{ "ERR 64", -1, 0, 0, NULL },
		{ "ERR 64 1 x", -1, 0, 0, NULL },
		{ "ok 1 json", -1, 0, 0, NULL },
		{ "", -1, 0, 0, NULL },
	};
	struct ctlp_head h, back;
	char buf[CTLP_HEAD_MAX];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int r = ctlp_head_parse(v[i].line, strlen(v[i].line), &h);

		if (v[i].ok < 0) {
			if (r != -1)
				fail_msg("\"%s\" accepted", v[i].line);
			continue;
		}
		if (r != 0)
			fail_msg("\"%s\" refused", v[i].line);
		assert_int_equal(h.ok, v[i].ok);
		assert_int_equal(h.code, v[i].code);
		assert_int_equal(h.length, v[i].length);
		assert_string_equal(h.type, v[i].type);
		/* what ctlp_head_format writes reads back the same */
		n = ctlp_head_format(&h, buf);
		assert_true(n > 1 && buf[n - 1] == '\n');
		assert_int_equal(ctlp_head_parse(buf, n - 1, &back), 0);
		assert_memory_equal(&h, &back, sizeof(h));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
