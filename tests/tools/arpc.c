/* arpc.c — ARP client for the integration tests and the benchmark.
 *
 * Sends crafted ARP frames on one interface through an AF_PACKET socket and
 * reports the replies that answer them; with --notify-listen it is instead a
 * systemd notification listener (an AF_UNIX datagram socket that logs what
 * it receives).  With --threads it is the benchmark's load generator:
 * sending threads spread over the CPUs, replies read from a mapped ring
 * behind a BPF filter, and every reply matched to a request of its sender.
 * Plain libc, Linux only.  Run "arpc --help" for the usage.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING	23
#endif

#define ETH_HDR_LEN	14
#define ARP_BODY_LEN	28		/* hrd..tpa for hln 6, pln 4 */
#define BASE_LEN	(ETH_HDR_LEN + ARP_BODY_LEN)	/* 42 */
#define MAX_FRAME	1500		/* --pad/--garbage limit, whole frame */
#define MAX_COUNT	10000000UL
#define MAX_VARY	(1UL << 24)
#define MAX_THREADS	16
/* --threads: a thread sends what is due in bursts of at most TX_BATCH and
 * sleeps until the next burst is due: every TX_PACE_NS (at most TX_PACE
 * requests, at least one) */
#define TX_PACE		16
#define TX_PACE_NS	50000.0
/* --threads: the receive ring, TPACKET_V3.  64 blocks of 1 MiB hold ~500k
 * replies (1.3 s at 400k/s) should the reader stall (16 blocks did not
 * always do beside a responder spinning on the other CPU); a block is
 * handed over when full or RING_TOV_MS after its first frame. */
#define RING_BLOCK	(1U << 20)
#define RING_NBLOCKS	64
#define READER_NICE	(-10)
#define RING_FRAME	2048		/* frame_size: only checked by V3 */
#define RING_TOV_MS	2
#define TX_BATCH	64
#define RX_BATCH	64
#define RX_BUFLEN	4096
#define RCVBUF_BYTES	(8 << 20)
#define MAX_MACS	1024
#define DEFAULT_RATE	100.0		/* requests/s without -r: one every 10 ms */
#define NOTIFY_IDLE_NS	((uint64_t)200000000)	/* idle time after STOPPING=1 */

#define NS_PER_MS	((uint64_t)1000000)
#define NS_PER_S	((uint64_t)1000000000)

struct opts {
	const char	*ifname;
	bool		 have_sip, have_smac, have_esrc, have_rate, have_limit;
	uint32_t	 sip;			/* network order */
	uint32_t	 tip;			/* network order */
	uint8_t		 smac[6], esrc[6], edst[6], tmac[6];
	unsigned	 op, hrd, pro, hln, pln;
	long		 truncate;		/* -1: whole frame */
	unsigned	 pad, garbage;
	unsigned long	 count, vary;
	double		 rate;
	unsigned long	 wait_ms, limit_ms, wait_reply_ms;
	bool		 quiet, hex, verbose, pingpong, stats, busy, steady;
	unsigned	 threads;		/* 0: the single-threaded loop */
	unsigned long	 vary_mac;		/* --vary-mac N */
	unsigned long	 deadline_ms;		/* --deadline MS: per-request accounting */
	bool		 have_owner;
	uint8_t		 owner[6];		/* --owner MAC */
	const char	*notify_path;
	unsigned long	 notify_timeout_ms;
};

static struct opts O;
static int g_fd = -1;

/* Reply bookkeeping. */
static unsigned long g_received;
static uint8_t g_macs[MAX_MACS][6];
static unsigned g_nmacs;
static bool g_macs_overflow;
/* --threads: replies per sender (index i mod --vary) */
static unsigned long *g_rep;
/* --owner: replies from another MAC */
static unsigned long g_wrong;
/* --deadline: each request's send time, whether a reply came within the
 * deadline, the request each --vary-mac key was last sent for */
static uint64_t *g_tsent, g_maxlat;
/* --steady without --pingpong: requests skipped after a stall of ours */
static unsigned long g_skipped;
static bool *g_inline;
static unsigned long *g_keyreq;

/* SIGUSR1: send no more, then finish as if the count were reached (the
 * replies waited for, the summary printed): a test stops its clients when
 * the event it measures is over. */
static volatile sig_atomic_t g_stop;

/* --pingpong: the request waited for. */
static bool pp_waiting, pp_got;
static unsigned long pp_expect;
static uint64_t pp_t_send, pp_rtt;

/* --notify-listen: socket path to remove on exit. */
static char g_unlink_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static void on_reply(long idx, uint64_t t_rx);

static const char usage_text[] =
"usage: arpc -i IFACE [options] TARGET_IP\n"
"       arpc --notify-listen PATH [--notify-timeout MS]\n"
"Send ARP requests for TARGET_IP on IFACE and report the replies.\n"
"  -i IFACE        interface to send on and listen on\n"
"  -s SENDER_IP    ARP sender IP (default: first IPv4 address of IFACE;\n"
"                  0.0.0.0 sends an RFC 5227 probe)\n"
"  -m SENDER_MAC   ARP sender hardware address (default: IFACE's MAC)\n"
"  -e ETH_SRC      Ethernet source (default: the ARP sender MAC)\n"
"  -E ETH_DST      Ethernet destination (default ff:ff:ff:ff:ff:ff)\n"
"  -T TARGET_MAC   ARP target hardware address (default 00:00:00:00:00:00)\n"
"  -o OP           ARP opcode (default 1)\n"
"  --hrd N --pro N --hln N --pln N\n"
"                  header field values (default 1, 0x0800, 6, 4); the body\n"
"                  stays laid out for 6/4 whatever they say\n"
"  --truncate N    send only the first N bytes of the frame (N >= 14)\n"
"  --pad N         append N zero bytes (whole frame at most 1500 bytes)\n"
"  --garbage N     append N pseudo-random bytes (after the padding)\n"
"  -c COUNT        number of requests (default 1, at most 10000000)\n"
"  -r RATE         requests per second (default 100; 0 = as fast as\n"
"                  possible; with --pingpong: no pacing unless given)\n"
"  -w MS           keep listening MS ms after the last request (default 300)\n"
"  -t MS           hard time limit for the whole run (default 10000)\n"
"  --vary N        request i uses sender IP base+(i mod N) (kept 0.0.0.0 for\n"
"                  probes) and sender MAC 02:BB:CC:XX:XX:XX, where BB:CC are\n"
"                  bytes 2-3 of the base MAC and XX:XX:XX = i mod N\n"
"  -q              quiet: only the summary line\n"
"  -x              after each reply line, print \"frame LEN HEXBYTES\"\n"
"  -v              also report ARP frames received that were not replies to us\n"
"  --pingpong      send each request after the previous reply (or timeout)\n"
"  --busy          with --pingpong: spin while waiting instead of sleeping\n"
"                  and report round-trip percentiles\n"
"  --wait-reply MS --pingpong per-request timeout (default 100)\n"
"  --steady        with --pingpong -r: after a late reply go on at RATE from\n"
"                  then (without it the requests it fell behind by go out at\n"
"                  once, a burst); without --pingpong: when this process\n"
"                  itself fell behind its schedule by more than 5 ms (a\n"
"                  stall of its own), the requests it missed are skipped,\n"
"                  not sent in a burst: adds \"skipped S\"\n"
"  --vary-mac N    request i uses sender MAC 02:BB:CC:XX:XX:XX as --vary\n"
"                  does, but keeps the sender IP: one client at its rate\n"
"                  (one rate-limit bucket), each reply matched to its request\n"
"  --owner MAC     count the replies from another MAC: adds \"wrong W\"\n"
"  --deadline MS   a request is answered in time if a reply to it comes\n"
"                  within MS ms (with --vary-mac, the reply to its key while\n"
"                  it is the latest request of that key): adds \"late L\n"
"                  maxlat_us M\", L the requests without one (-w should be\n"
"                  at least MS)\n"
"  (SIGUSR1: send no more; the replies are waited for, the summary printed)\n"
"  --stats         add achieved_rate (requests/s), send_ms and rx_drops\n"
"  --threads N     load generator: N sending threads, one per CPU in turn,\n"
"                  each with its own socket (no queueing discipline) and\n"
"                  RATE/N of the rate; replies are read from a mapped ring\n"
"                  behind a BPF filter (all ARP frames with -v); each reply\n"
"                  is matched to a request of the sender it answers (one,\n"
"                  or --vary N of them): adds \"answered A dup D\"\n"
"  --notify-listen PATH   log datagrams received on AF_UNIX socket PATH as\n"
"                  \"T_MS MESSAGE\" (CLOCK_MONOTONIC ms); exit 0 once idle\n"
"                  200 ms after STOPPING=1, 1 at the timeout\n"
"  --notify-timeout MS    listener lifetime (default 60000)\n"
"Output: \"reply from IP is-at MAC eth-src MAC eth-dst MAC tip IP tha MAC len N\"\n"
"per reply, then \"sent N received M macs MAC[,MAC...]\" (\"-\" for none),\n"
"with --pingpong \" rtt_us p50 X p90 Y p99 Z max W lost L\".\n"
"\"received\" counts reply frames (two replies to one request count twice);\n"
"with --threads \"answered\" counts requests matched to a reply and \"dup\"\n"
"the replies beyond the requests their sender made.\n"
"Exit: 0 at least one reply, 1 none, 2 usage or system error.\n";

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void
die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("arpc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(arpc --help for the usage)\n", stderr);
	exit(2);
}

static void
die_sys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fflush(stdout);
	fputs("arpc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(e));
	exit(2);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* The hard limit's backstop: only reached if the main loop could not stop
 * in time (say stdout blocked), so there is no summary to print. */
static void
on_alarm(int sig)
{
	static const char msg[] = "arpc: hard time limit reached\n";
	ssize_t r;

	(void)sig;
	if (g_unlink_path[0])
		unlink(g_unlink_path);
	r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(2);
}

static void
on_term(int sig)
{
	(void)sig;
	if (g_unlink_path[0])
		unlink(g_unlink_path);
	_exit(1);
}

static void
on_usr1(int sig)
{
	(void)sig;
	g_stop = 1;
}

static void
arm_backstop(unsigned long ms)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)(ms / 1000);
	it.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		die_sys("setitimer");
}

static void
disarm_backstop(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	(void)setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- argument parsing ---------------------------------------------- */

/* Decimal, or hex with 0x; no sign, no spaces. */
static unsigned long long
parse_num(const char *s, const char *what, unsigned long long min, unsigned long long max)
{
	const char *p = s;
	unsigned long long v;
	char *end;
	int base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!(base == 16 ? (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
	    (*p >= 'A' && *p <= 'F') : (*p >= '0' && *p <= '9')))
		die_usage("%s: not a number: '%s'", what, s);
	errno = 0;
	v = strtoull(p, &end, base);
	if (errno != 0 || *end != '\0')
		die_usage("%s: not a number: '%s'", what, s);
	if (v < min || v > max)
		die_usage("%s: '%s' out of range %llu..%llu", what, s, min, max);
	return v;
}

static void
parse_mac(const char *s, const char *what, uint8_t mac[6])
{
	const char *p = s;
	int i;

	for (i = 0; i < 6; i++) {
		unsigned v = 0;
		int n = 0;

		for (; n < 2; n++, p++) {
			int d;

			if (*p >= '0' && *p <= '9')
				d = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				d = *p - 'a' + 10;
			else if (*p >= 'A' && *p <= 'F')
				d = *p - 'A' + 10;
			else
				break;
			v = v << 4 | (unsigned)d;
		}
		if (n == 0)
			die_usage("%s: not a MAC address: '%s'", what, s);
		mac[i] = (uint8_t)v;
		if (i < 5) {
			if (*p != ':' && *p != '-')
				die_usage("%s: not a MAC address: '%s'", what, s);
			p++;
		}
	}
	if (*p != '\0')
		die_usage("%s: not a MAC address: '%s'", what, s);
}

static uint32_t
parse_ip(const char *s, const char *what)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		die_usage("%s: not an IPv4 address: '%s'", what, s);
	return a.s_addr;
}

enum {
	OPT_HRD = 256, OPT_PRO, OPT_HLN, OPT_PLN, OPT_TRUNCATE, OPT_PAD,
	OPT_GARBAGE, OPT_VARY, OPT_PINGPONG, OPT_WAIT_REPLY, OPT_STATS, OPT_BUSY,
	OPT_NOTIFY_LISTEN, OPT_NOTIFY_TIMEOUT, OPT_THREADS, OPT_HELP, OPT_VARY_MAC,
	OPT_OWNER, OPT_DEADLINE, OPT_STEADY
};

static const struct option long_opts[] = {
	{ "hrd",		required_argument, NULL, OPT_HRD },
	{ "pro",		required_argument, NULL, OPT_PRO },
	{ "hln",		required_argument, NULL, OPT_HLN },
	{ "pln",		required_argument, NULL, OPT_PLN },
	{ "truncate",		required_argument, NULL, OPT_TRUNCATE },
	{ "pad",		required_argument, NULL, OPT_PAD },
	{ "garbage",		required_argument, NULL, OPT_GARBAGE },
	{ "vary",		required_argument, NULL, OPT_VARY },
	{ "vary-mac",		required_argument, NULL, OPT_VARY_MAC },
	{ "owner",		required_argument, NULL, OPT_OWNER },
	{ "deadline",		required_argument, NULL, OPT_DEADLINE },
	{ "pingpong",		no_argument,	   NULL, OPT_PINGPONG },
	{ "busy",		no_argument,	   NULL, OPT_BUSY },
	{ "steady",		no_argument,	   NULL, OPT_STEADY },
	{ "wait-reply",		required_argument, NULL, OPT_WAIT_REPLY },
	{ "stats",		no_argument,	   NULL, OPT_STATS },
	{ "threads",		required_argument, NULL, OPT_THREADS },
	{ "notify-listen",	required_argument, NULL, OPT_NOTIFY_LISTEN },
	{ "notify-timeout",	required_argument, NULL, OPT_NOTIFY_TIMEOUT },
	{ "help",		no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static void
parse_args(int argc, char **argv)
{
	int c;

	O.op = 1;
	O.hrd = ARPHRD_ETHER;
	O.pro = ETH_P_IP;
	O.hln = 6;
	O.pln = 4;
	O.truncate = -1;
	O.count = 1;
	O.rate = DEFAULT_RATE;
	O.wait_ms = 300;
	O.limit_ms = 10000;
	O.wait_reply_ms = 100;
	O.notify_timeout_ms = 60000;
	memset(O.edst, 0xff, 6);

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:s:m:e:E:T:o:c:r:w:t:qxvh",
	    long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (optarg[0] == '\0' || strlen(optarg) >= IFNAMSIZ)
				die_usage("-i: bad interface name '%s'", optarg);
			O.ifname = optarg;
			break;
		case 's':
			O.sip = parse_ip(optarg, "-s");
			O.have_sip = true;
			break;
		case 'm':
			parse_mac(optarg, "-m", O.smac);
			O.have_smac = true;
			break;
		case 'e':
			parse_mac(optarg, "-e", O.esrc);
			O.have_esrc = true;
			break;
		case 'E':
			parse_mac(optarg, "-E", O.edst);
			break;
		case 'T':
			parse_mac(optarg, "-T", O.tmac);
			break;
		case 'o':
			O.op = (unsigned)parse_num(optarg, "-o", 0, 0xffff);
			break;
		case OPT_HRD:
			O.hrd = (unsigned)parse_num(optarg, "--hrd", 0, 0xffff);
			break;
		case OPT_PRO:
			O.pro = (unsigned)parse_num(optarg, "--pro", 0, 0xffff);
			break;
		case OPT_HLN:
			O.hln = (unsigned)parse_num(optarg, "--hln", 0, 0xff);
			break;
		case OPT_PLN:
			O.pln = (unsigned)parse_num(optarg, "--pln", 0, 0xff);
			break;
		case OPT_TRUNCATE:
			O.truncate = (long)parse_num(optarg, "--truncate", ETH_HDR_LEN, MAX_FRAME);
			break;
		case OPT_PAD:
			O.pad = (unsigned)parse_num(optarg, "--pad", 0, MAX_FRAME - BASE_LEN);
			break;
		case OPT_GARBAGE:
			O.garbage = (unsigned)parse_num(optarg, "--garbage", 0, MAX_FRAME - BASE_LEN);
			break;
		case 'c':
			O.count = (unsigned long)parse_num(optarg, "-c", 1, MAX_COUNT);
			break;
		case 'r': {
			char *end;

			errno = 0;
			O.rate = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(O.rate >= 0.0 && O.rate <= 1e8))
				die_usage("-r: bad rate '%s' (0..100000000 requests/s)", optarg);
			O.have_rate = true;
			break;
		}
		case 'w':
			O.wait_ms = (unsigned long)parse_num(optarg, "-w", 0, 86400000);
			break;
		case 't':
			O.limit_ms = (unsigned long)parse_num(optarg, "-t", 1, 86400000);
			O.have_limit = true;
			break;
		case OPT_VARY:
			O.vary = (unsigned long)parse_num(optarg, "--vary", 1, MAX_VARY);
			break;
		case OPT_VARY_MAC:
			O.vary_mac = (unsigned long)parse_num(optarg, "--vary-mac", 1, MAX_VARY);
			break;
		case OPT_OWNER:
			parse_mac(optarg, "--owner", O.owner);
			O.have_owner = true;
			break;
		case OPT_DEADLINE:
			O.deadline_ms = (unsigned long)parse_num(optarg, "--deadline", 1, 86400000);
			break;
		case 'q':
			O.quiet = true;
			break;
		case 'x':
			O.hex = true;
			break;
		case 'v':
			O.verbose = true;
			break;
		case OPT_BUSY:
			O.busy = true;
			break;
		case OPT_STEADY:
			O.steady = true;
			break;
		case OPT_PINGPONG:
			O.pingpong = true;
			break;
		case OPT_WAIT_REPLY:
			O.wait_reply_ms = (unsigned long)parse_num(optarg, "--wait-reply", 1, 86400000);
			break;
		case OPT_STATS:
			O.stats = true;
			break;
		case OPT_THREADS:
			O.threads = (unsigned)parse_num(optarg, "--threads", 1, MAX_THREADS);
			break;
		case OPT_NOTIFY_LISTEN:
			if (optarg[0] == '\0' || strlen(optarg) >= sizeof(g_unlink_path))
				die_usage("--notify-listen: bad socket path '%s'", optarg);
			O.notify_path = optarg;
			break;
		case OPT_NOTIFY_TIMEOUT:
			O.notify_timeout_ms = (unsigned long)parse_num(optarg, "--notify-timeout", 1, 86400000);
			break;
		case 'h':
		case OPT_HELP:
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			if (optopt > 0 && optopt < 256)
				die_usage("option -%c needs an argument", optopt);
			die_usage("option %s needs an argument", argv[optind - 1]);
		default:
			if (optopt > 0 && optopt < 256)
				die_usage("unknown option -%c", optopt);
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}

	if (O.notify_path) {
		if (optind != argc)
			die_usage("--notify-listen takes no TARGET_IP");
		return;
	}
	if (!O.ifname)
		die_usage("-i IFACE is required");
	if (optind != argc - 1)
		die_usage(optind == argc ? "TARGET_IP is required" : "only one TARGET_IP, please");
	O.tip = parse_ip(argv[optind], "TARGET_IP");
	if (BASE_LEN + O.pad + O.garbage > MAX_FRAME)
		die_usage("--pad %u --garbage %u: frame would exceed %d bytes",
		    O.pad, O.garbage, MAX_FRAME);
	if (O.pingpong && !O.have_rate)
		O.rate = 0;
	if (O.threads && O.pingpong)
		die_usage("--threads is for floods, not --pingpong");
	if (O.vary_mac && O.vary)
		die_usage("--vary or --vary-mac, not both");
	if (O.deadline_ms && (O.threads || O.pingpong))
		die_usage("--deadline is for the open loop (no --pingpong, no --threads)");
}

/* ---- interface ----------------------------------------------------- */

static void
iface_defaults(int fd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, O.ifname, strlen(O.ifname));
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		die_sys("SIOCGIFHWADDR on %s", O.ifname);
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		fprintf(stderr, "arpc: %s is not an Ethernet interface (type %u)\n",
		    O.ifname, (unsigned)ifr.ifr_hwaddr.sa_family);
		exit(2);
	}
	if (!O.have_smac)
		memcpy(O.smac, ifr.ifr_hwaddr.sa_data, 6);

	if (!O.have_sip) {
		struct ifaddrs *ifa, *p;
		bool found = false;

		if (getifaddrs(&ifa) < 0)
			die_sys("getifaddrs");
		for (p = ifa; p; p = p->ifa_next) {
			if (p->ifa_addr && p->ifa_addr->sa_family == AF_INET &&
			    strcmp(p->ifa_name, O.ifname) == 0) {
				struct sockaddr_in sin;

				memcpy(&sin, p->ifa_addr, sizeof(sin));
				O.sip = sin.sin_addr.s_addr;
				found = true;
				break;
			}
		}
		freeifaddrs(ifa);
		if (!found) {
			fprintf(stderr, "arpc: %s has no IPv4 address: give -s SENDER_IP\n",
			    O.ifname);
			exit(2);
		}
	}
	if (O.vary && O.sip != 0 &&
	    (uint64_t)ntohl(O.sip) + O.vary - 1 > UINT32_MAX)
		die_usage("--vary %lu: sender IPs would wrap past 255.255.255.255", O.vary);
}

static int
open_socket(void)
{
	struct sockaddr_ll sll;
	unsigned ifindex;
	int fd, one = 1, bufsz = RCVBUF_BYTES;

	ifindex = if_nametoindex(O.ifname);
	if (ifindex == 0)
		die_sys("-i %s", O.ifname);
	/* Protocol 0 until bound: no frames from other interfaces meanwhile. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_sys("socket(AF_PACKET) for %s", O.ifname);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	/* Our own frames would only fill the receive buffer (best effort;
	 * sll_pkttype is checked anyway). */
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ARP);
	sll.sll_ifindex = (int)ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die_sys("bind AF_PACKET to %s", O.ifname);
	return fd;
}

/* ---- frames -------------------------------------------------------- */

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned
get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void
sender_for(unsigned long i, uint8_t mac[6], uint32_t *ip)
{
	memcpy(mac, O.smac, 6);
	*ip = O.sip;
	if (O.vary_mac) {
		unsigned long k = i % O.vary_mac;

		mac[0] = 0x02;
		mac[3] = (uint8_t)(k >> 16);
		mac[4] = (uint8_t)(k >> 8);
		mac[5] = (uint8_t)k;
	} else if (O.vary) {
		unsigned long k = i % O.vary;

		mac[0] = 0x02;
		mac[3] = (uint8_t)(k >> 16);
		mac[4] = (uint8_t)(k >> 8);
		mac[5] = (uint8_t)k;
		if (O.sip != 0)
			*ip = htonl(ntohl(O.sip) + (uint32_t)k);
	}
}

static size_t
build_frame(unsigned long i, uint8_t *f)
{
	uint8_t mac[6];
	uint32_t ip;
	size_t len = BASE_LEN;

	sender_for(i, mac, &ip);
	memcpy(f, O.edst, 6);
	memcpy(f + 6, O.have_esrc ? O.esrc : mac, 6);
	put16(f + 12, ETH_P_ARP);
	put16(f + 14, O.hrd);
	put16(f + 16, O.pro);
	f[18] = (uint8_t)O.hln;
	f[19] = (uint8_t)O.pln;
	put16(f + 20, O.op);
	memcpy(f + 22, mac, 6);
	memcpy(f + 28, &ip, 4);
	memcpy(f + 32, O.tmac, 6);
	memcpy(f + 38, &O.tip, 4);
	memset(f + len, 0, O.pad);
	len += O.pad;
	if (O.garbage) {
		/* xorshift64, seeded by the request number: reproducible. */
		uint64_t s = (i + 1) * 0x9E3779B97F4A7C15ULL;
		unsigned n;

		for (n = 0; n < O.garbage; n++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			f[len++] = (uint8_t)(s >> 32);
		}
	}
	if (O.truncate >= 0 && (size_t)O.truncate < len)
		len = (size_t)O.truncate;
	return len;
}

/* Which of our requests (i mod N) a reply's target answers, or -1. */
static long
reply_index(const uint8_t *tha, uint32_t tip)
{
	if (O.vary_mac) {
		unsigned long k;

		if (tip != O.sip || tha[0] != 0x02 || tha[1] != O.smac[1] || tha[2] != O.smac[2])
			return -1;
		k = (unsigned long)tha[3] << 16 | (unsigned long)tha[4] << 8 | tha[5];
		return k < O.vary_mac ? (long)k : -1;
	}
	if (O.sip == 0) {
		unsigned long k;

		if (!O.vary)
			return memcmp(tha, O.smac, 6) == 0 ? 0 : -1;
		if (tha[0] != 0x02 || tha[1] != O.smac[1] || tha[2] != O.smac[2])
			return -1;
		k = (unsigned long)tha[3] << 16 | (unsigned long)tha[4] << 8 | tha[5];
		return k < O.vary ? (long)k : -1;
	} else {
		uint32_t d = ntohl(tip) - ntohl(O.sip);

		return d < (O.vary ? O.vary : 1) ? (long)d : -1;
	}
}

static char *
mac_str(const uint8_t *m, char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
	    m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static char *
ip_str(const uint8_t *p, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
	return buf;
}

static void
print_hex(const uint8_t *f, size_t caplen, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	printf("frame %zu ", len);
	for (i = 0; i < caplen; i++) {
		putchar(hx[f[i] >> 4]);
		putchar(hx[f[i] & 15]);
	}
	putchar('\n');
}

static void
ignored(const uint8_t *f, size_t caplen, size_t len, const char *why)
{
	if (!O.verbose || O.quiet)
		return;
	printf("ignored len %zu: %s\n", len, why);
	if (O.hex)
		print_hex(f, caplen, len);
}

static void
handle_frame(const uint8_t *f, size_t caplen, size_t len, unsigned pkttype, uint64_t t_rx)
{
	char b1[18], b2[18], b3[18], b4[18], i1[16], i2[16];
	uint32_t tip;
	unsigned k;
	long idx;

	if (pkttype == PACKET_OUTGOING)
		return;
	if (caplen < BASE_LEN) {
		ignored(f, caplen, len, "too short for Ethernet/IPv4 ARP");
		return;
	}
	if (get16(f + 12) != ETH_P_ARP || get16(f + 14) != ARPHRD_ETHER ||
	    get16(f + 16) != ETH_P_IP || f[18] != 6 || f[19] != 4) {
		ignored(f, caplen, len, "not Ethernet/IPv4 ARP (type, hrd, pro, hln, pln)");
		return;
	}
	if (get16(f + 20) != 2) {
		ignored(f, caplen, len, "not a reply (op != 2)");
		return;
	}
	if (memcmp(f + 28, &O.tip, 4) != 0) {
		ignored(f, caplen, len, "reply from another sender IP");
		return;
	}
	memcpy(&tip, f + 38, 4);
	idx = reply_index(f + 32, tip);
	if (idx < 0) {
		ignored(f, caplen, len, "reply not addressed to our sender");
		return;
	}

	g_received++;
	if (g_rep)
		g_rep[idx]++;
	if (O.have_owner && memcmp(f + 22, O.owner, 6) != 0)
		g_wrong++;
	on_reply(idx, t_rx);
	for (k = 0; k < g_nmacs; k++)
		if (memcmp(g_macs[k], f + 22, 6) == 0)
			break;
	if (k == g_nmacs) {
		if (g_nmacs < MAX_MACS)
			memcpy(g_macs[g_nmacs++], f + 22, 6);
		else
			g_macs_overflow = true;
	}
	if (pp_waiting && (unsigned long)idx == pp_expect) {
		pp_waiting = false;
		pp_got = true;
		pp_rtt = t_rx - pp_t_send;
	}
	if (O.quiet)
		return;
	printf("reply from %s is-at %s eth-src %s eth-dst %s tip %s tha %s len %zu\n",
	    ip_str(f + 28, i1), mac_str(f + 22, b1), mac_str(f + 6, b2),
	    mac_str(f, b3), ip_str(f + 38, i2), mac_str(f + 32, b4), len);
	if (O.hex)
		print_hex(f, caplen, len);
}

/* ---- I/O ----------------------------------------------------------- */

static uint8_t tx_buf[TX_BATCH][MAX_FRAME];
static struct iovec tx_iov[TX_BATCH];
static struct mmsghdr tx_msg[TX_BATCH];

static uint8_t rx_buf[RX_BATCH][RX_BUFLEN];
static struct iovec rx_iov[RX_BATCH];
static struct sockaddr_ll rx_sll[RX_BATCH];
static struct mmsghdr rx_msg[RX_BATCH];

static void
check_sock_error(void)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	if (getsockopt(g_fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 && err != 0) {
		errno = err;
		die_sys("socket on %s", O.ifname);
	}
}

/* Send requests first..first+n-1; returns how many went, 0 when the
 * socket would block. */
static unsigned
send_batch(unsigned long first, unsigned n)
{
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		tx_iov[i].iov_base = tx_buf[i];
		tx_iov[i].iov_len = build_frame(first + i, tx_buf[i]);
		memset(&tx_msg[i], 0, sizeof(tx_msg[i]));
		tx_msg[i].msg_hdr.msg_iov = &tx_iov[i];
		tx_msg[i].msg_hdr.msg_iovlen = 1;
	}
	r = sendmmsg(g_fd, tx_msg, n, MSG_DONTWAIT);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS ||
		    errno == EINTR)
			return 0;
		die_sys("send on %s (frame of %zu bytes)", O.ifname, tx_iov[0].iov_len);
	}
	return (unsigned)r;
}

/* Handle whatever is queued, without blocking. */
static void
drain(int rounds)
{
	while (rounds-- > 0) {
		uint64_t t;
		int i, n;

		for (i = 0; i < RX_BATCH; i++) {
			rx_iov[i].iov_base = rx_buf[i];
			rx_iov[i].iov_len = RX_BUFLEN;
			memset(&rx_msg[i], 0, sizeof(rx_msg[i]));
			rx_msg[i].msg_hdr.msg_iov = &rx_iov[i];
			rx_msg[i].msg_hdr.msg_iovlen = 1;
			rx_msg[i].msg_hdr.msg_name = &rx_sll[i];
			rx_msg[i].msg_hdr.msg_namelen = sizeof(rx_sll[i]);
		}
		n = recvmmsg(g_fd, rx_msg, RX_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return;
			die_sys("receive on %s", O.ifname);
		}
		t = now_ns();
		for (i = 0; i < n; i++) {
			size_t len = rx_msg[i].msg_len;

			handle_frame(rx_buf[i], len < RX_BUFLEN ? len : RX_BUFLEN, len,
			    rx_sll[i].sll_pkttype, t);
		}
		if (n < RX_BATCH)
			return;
	}
}

/* Wait until a frame is readable or until the monotonic time until_ns. */
static void
wait_rx(uint64_t until_ns)
{
	struct pollfd pfd = { .fd = g_fd, .events = POLLIN };
	struct timespec ts;
	uint64_t now = now_ns(), d;
	int r;

	if (until_ns <= now)
		return;
	d = until_ns - now;
	ts.tv_sec = (time_t)(d / NS_PER_S);
	ts.tv_nsec = (long)(d % NS_PER_S);
	r = ppoll(&pfd, 1, &ts, NULL);
	if (r < 0 && errno != EINTR)
		die_sys("poll on %s", O.ifname);
	if (r > 0 && (pfd.revents & (POLLERR | POLLNVAL)))
		check_sock_error();
}

/* ---- runs ---------------------------------------------------------- */

static uint64_t g_t_first, g_t_last;
static unsigned long g_sent;

static void
note_sent(uint64_t t0, unsigned n)
{
	if (g_sent == 0)
		g_t_first = t0;
	g_sent += n;
	g_t_last = now_ns();
}

/* A reply to key idx at t_rx: in time for the request last sent with it? */
static void
on_reply(long idx, uint64_t t_rx)
{
	unsigned long i;

	if (g_tsent == NULL)
		return;
	i = g_keyreq[idx];
	if (i == ULONG_MAX || g_inline[i])
		return;
	if (t_rx - g_tsent[i] <= O.deadline_ms * NS_PER_MS) {
		g_inline[i] = true;
		if (t_rx - g_tsent[i] > g_maxlat)
			g_maxlat = t_rx - g_tsent[i];
	}
}

static void
listen_until(uint64_t end, uint64_t deadline)
{
	if (end > deadline)
		end = deadline;
	for (;;) {
		drain(16);
		if (now_ns() >= end)
			return;
		wait_rx(end);
	}
}

static bool
run_flood(uint64_t start, uint64_t deadline)
{
	for (;;) {
		uint64_t now = now_ns(), until;
		bool blocked = false;

		if (now >= deadline)
			return false;
		if (g_stop && g_sent < O.count)
			O.count = g_sent;
		if (g_sent < O.count) {
			unsigned long due = O.count;

			if (O.rate > 0) {
				double d = 1.0 + (double)(now - start) * 1e-9 * O.rate;

				if (d < (double)O.count)
					due = (unsigned long)d;
				/* --steady: behind by a stall of ours, go on from
				 * now; the missed requests are not sent at once */
				if (O.steady && due > g_sent + 1 &&
				    (double)(due - g_sent) > 0.005 * O.rate) {
					unsigned long miss = due - g_sent - 1;

					if (miss > O.count - g_sent - 1)
						miss = O.count - g_sent - 1;
					g_skipped += miss;
					O.count -= miss;
					start += (uint64_t)((double)miss * 1e9 / O.rate);
					due = g_sent + 1;
				}
			}
			if (due > g_sent) {
				unsigned long want = due - g_sent;
				unsigned long first = g_sent, j;
				unsigned n = send_batch(g_sent, want > TX_BATCH ? TX_BATCH : (unsigned)want);

				for (j = first; g_tsent != NULL && j < first + n; j++) {
					g_tsent[j] = now;
					g_keyreq[j % (O.vary_mac ? O.vary_mac : 1)] = j;
				}
				if (n > 0)
					note_sent(now, n);
				else
					blocked = true;
			}
		}
		drain(8);
		if (g_sent == O.count) {
			listen_until(g_t_last + O.wait_ms * NS_PER_MS, deadline);
			return now_ns() < deadline || O.wait_ms == 0;
		}
		now = now_ns();
		if (blocked)
			until = now + 200000;
		else if (O.rate == 0)
			continue;
		else
			until = start + (uint64_t)((double)g_sent * 1e9 / O.rate);
		if (until > deadline)
			until = deadline;
		wait_rx(until);
	}
}

static bool
run_pingpong(uint64_t start, uint64_t deadline, uint64_t *rtt, unsigned long *nrtt)
{
	unsigned long i;

	for (i = 0; i < O.count && !g_stop; i++) {
		uint64_t now = now_ns(), t0, wait_end;

		if (now >= deadline)
			return false;
		if (O.rate > 0) {
			uint64_t due = start + (uint64_t)((double)i * 1e9 / O.rate);

			/* --steady: behind after a late reply, go on at the rate
			 * from now, as a client timing each request from its
			 * last reply does; no burst to catch up */
			if (O.steady && now > due) {
				start += now - due;
				due = now;
			}
			while (now < due) {
				if (now >= deadline)
					return false;
				wait_rx(due < deadline ? due : deadline);
				drain(8);
				now = now_ns();
			}
		}
		drain(8);	/* late or duplicate replies are not this one's */
		for (;;) {
			t0 = now_ns();
			if (t0 >= deadline)
				return false;
			if (send_batch(i, 1) == 1)
				break;
			wait_rx(t0 + 200000);
			drain(8);
		}
		pp_t_send = t0;
		pp_expect = O.vary ? i % O.vary : O.vary_mac ? i % O.vary_mac : 0;
		pp_got = false;
		pp_waiting = true;
		note_sent(t0, 1);
		wait_end = t0 + O.wait_reply_ms * NS_PER_MS;
		while (!pp_got) {
			drain(8);
			if (pp_got)
				break;
			now = now_ns();
			if (now >= wait_end || now >= deadline)
				break;
			/* --busy: spin, so the round trip measures the
			 * responder and not this process's own wake-up */
			if (!O.busy)
				wait_rx(wait_end < deadline ? wait_end : deadline);
		}
		pp_waiting = false;
		if (pp_got)
			rtt[(*nrtt)++] = pp_rtt;
		else if (O.verbose) {
			/* wall-clock time, to set beside the responder's log */
			struct timespec ts;
			uint64_t wall;

			clock_gettime(CLOCK_REALTIME, &ts);
			wall = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec -
			    (now_ns() - t0);
			fprintf(stderr, "arpc: request %lu sent at %" PRIu64 ".%06" PRIu64
			    " unanswered\n", i, wall / 1000000000u, wall % 1000000000u / 1000);
		}
	}
	listen_until(g_t_last + O.wait_ms * NS_PER_MS, deadline);
	return now_ns() < deadline || O.wait_ms == 0;
}

/* ---- load generator (--threads) ------------------------------------ */

/*
 * One client process on the responder's machine cannot offer what a
 * remote one does: on veth the whole path (our send, the peer's receive,
 * the kernel's own ARP reply, the reply's way back to us) runs in softirq
 * on the CPU that sent the request.  So the sending is spread over the
 * CPUs, one socket and one share of the rate per thread, and the replies
 * are read by the main thread from a mapped TPACKET_V3 ring: frames are
 * copied once, in softirq, with no system call per reply, and a stall of
 * the reader costs nothing until the ring (~1.3 s at 400k/s) is full,
 * which PACKET_STATISTICS would then count as rx_drops.
 */

struct txw {
	pthread_t	 tid;
	int		 cpu;		/* -1: not pinned */
	int		 fd;
	int		 err;		/* errno of a failed send, 0 */
	bool		 done;		/* atomic: the thread has finished */
	unsigned long	 sent, blocked;
	uint64_t	 t_first, t_last;
	uint8_t		(*buf)[MAX_FRAME];
};

static struct txw g_txw[MAX_THREADS];
static uint64_t g_start, g_deadline;
static int g_ifindex;
static unsigned long g_next;		/* atomic: the next request to claim */
static uint64_t *g_sentmap;		/* atomic: bit i set once request i went */
static unsigned long g_tx_blocked;

static uint8_t *g_ring;
static unsigned g_ring_cur;

/* Only replies from the address asked for reach the ring: at 400k/s the
 * broadcast requests of other clients on the segment would otherwise
 * share it.  -v wants to see everything. */
static void
attach_filter(int fd)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),		/* ARP op */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 28),		/* sender IP */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(O.tip), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x40000),		/* whole frame */
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		die_sys("SO_ATTACH_FILTER on %s", O.ifname);
}

static int
ring_socket(void)
{
	struct tpacket_req3 req;
	struct sockaddr_ll sll;
	int fd, one = 1, v = TPACKET_V3;

	g_ifindex = (int)if_nametoindex(O.ifname);
	if (g_ifindex == 0)
		die_sys("-i %s", O.ifname);
	/* protocol 0 until the ring and the filter are in place */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_sys("socket(AF_PACKET) for %s", O.ifname);
	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0)
		die_sys("PACKET_VERSION TPACKET_V3");
	memset(&req, 0, sizeof(req));
	req.tp_block_size = RING_BLOCK;
	req.tp_block_nr = RING_NBLOCKS;
	req.tp_frame_size = RING_FRAME;
	req.tp_frame_nr = RING_BLOCK / RING_FRAME * RING_NBLOCKS;
	req.tp_retire_blk_tov = RING_TOV_MS;
	if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		die_sys("PACKET_RX_RING of %u x %u bytes", RING_NBLOCKS, RING_BLOCK);
	g_ring = mmap(NULL, (size_t)RING_BLOCK * RING_NBLOCKS, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, fd, 0);
	if (g_ring == MAP_FAILED)
		die_sys("mmap of the receive ring");
	if (!O.verbose)
		attach_filter(fd);
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ARP);
	sll.sll_ifindex = g_ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die_sys("bind AF_PACKET to %s", O.ifname);
	return fd;
}

/* Hand every filled block to handle_frame, and back to the kernel. */
static void
ring_walk(void)
{
	for (;;) {
		struct tpacket_block_desc *b =
		    (void *)(g_ring + (size_t)g_ring_cur * RING_BLOCK);
		const uint8_t *p;
		uint32_t k, np;
		uint64_t t;

		if ((__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		    TP_STATUS_USER) == 0)
			return;
		t = now_ns();
		np = b->hdr.bh1.num_pkts;
		p = (const uint8_t *)b + b->hdr.bh1.offset_to_first_pkt;
		for (k = 0; k < np; k++) {
			const struct tpacket3_hdr *h = (const void *)p;
			const struct sockaddr_ll *sll =
			    (const void *)(p + TPACKET_ALIGN(sizeof(*h)));

			handle_frame(p + h->tp_mac, h->tp_snaplen, h->tp_len,
			    sll->sll_pkttype, t);
			p += h->tp_next_offset;
		}
		__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL,
		    __ATOMIC_RELEASE);
		g_ring_cur = (g_ring_cur + 1) % RING_NBLOCKS;
	}
}

static void
ring_wait(int fd, uint64_t until_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t now = now_ns();
	int ms;

	if (until_ns <= now)
		return;
	/* a block retires RING_TOV_MS after its first frame: no need to
	 * wake more often than that */
	ms = (int)((until_ns - now + NS_PER_MS - 1) / NS_PER_MS);
	if (ms > RING_TOV_MS)
		ms = RING_TOV_MS;
	if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
		die_sys("poll on %s", O.ifname);
}

static void
sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / NS_PER_S), (long)(t % NS_PER_S) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Requests due by now on the common schedule (all of them at -r 0). */
static unsigned long
tx_due(uint64_t now)
{
	double d;

	if (O.rate <= 0)
		return O.count;
	d = 1.0 + (double)(now - g_start) * 1e-9 * O.rate;
	return d < (double)O.count ? (unsigned long)d : O.count;
}

/* Claim up to TX_BATCH of the requests due: [*first, *first + n). */
static unsigned
tx_claim(unsigned long due, unsigned long *first)
{
	unsigned long cur = __atomic_load_n(&g_next, __ATOMIC_RELAXED);
	unsigned long n;

	do {
		if (cur >= due)
			return 0;
		n = due - cur > TX_BATCH ? TX_BATCH : due - cur;
	} while (!__atomic_compare_exchange_n(&g_next, &cur, cur + n, false,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*first = cur;
	return (unsigned)n;
}

/* A sending socket: bound to the interface with protocol 0, so that it
 * sends without an address and receives nothing; no queueing discipline
 * on the load generator's own side.  (A PACKET_TX_RING was tried: on
 * veth its zero-copy frames are copied again, skb_copy_ubufs, before
 * they may cross into the peer's namespace, and it measured slower.) */
static void
tx_open(struct txw *w)
{
	struct sockaddr_ll sll;
	int one = 1;

	if ((w->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) < 0)
		die_sys("socket(AF_PACKET) for %s", O.ifname);
	(void)setsockopt(w->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = g_ifindex;
	if (bind(w->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die_sys("bind AF_PACKET to %s", O.ifname);
	if ((w->buf = malloc(sizeof(*w->buf) * TX_BATCH)) == NULL)
		die_sys("malloc");
}

/*
 * The threads share one schedule and claim the requests due in batches:
 * whichever thread has a CPU sends them.  Owning a fixed share instead,
 * a thread whose CPU the responder keeps busy would hold back the rest.
 */
static void *
tx_main(void *arg)
{
	struct txw *w = arg;
	struct iovec iov[TX_BATCH];
	struct mmsghdr msg[TX_BATCH];
	/* 16 requests at 400k/s, one at 1000/s: paced, not in bursts */
	double pace = O.rate * TX_PACE_NS * 1e-9;
	unsigned k;

	if (w->cpu >= 0) {
		cpu_set_t cs;

		CPU_ZERO(&cs);
		CPU_SET(w->cpu, &cs);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	}
	/* the default 50 us of timer slack is a whole burst at 400k/s */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (pace > TX_PACE)
		pace = TX_PACE;
	if (pace < 1.0)
		pace = 1.0;
	/* no address: the socket is bound to the interface (copying one
	 * in for every frame measured 3.5% of the sending path) */
	memset(msg, 0, sizeof(msg));
	for (k = 0; k < TX_BATCH; k++) {
		iov[k].iov_base = w->buf[k];
		msg[k].msg_hdr.msg_iov = &iov[k];
		msg[k].msg_hdr.msg_iovlen = 1;
	}
	for (;;) {
		uint64_t now = now_ns();
		unsigned long first, i;
		unsigned n, off = 0;

		if (now >= g_deadline)
			break;
		if ((n = tx_claim(tx_due(now), &first)) == 0) {
			uint64_t next;

			if (__atomic_load_n(&g_next, __ATOMIC_RELAXED) >= O.count)
				break;
			/* until the next burst is due */
			next = g_start + (uint64_t)(((double)__atomic_load_n(&g_next,
			    __ATOMIC_RELAXED) + pace - 1.0) * 1e9 / O.rate);
			sleep_until(next < g_deadline ? next : g_deadline);
			continue;
		}
		for (k = 0; k < n; k++)
			iov[k].iov_len = build_frame(first + k, w->buf[k]);
		/* claimed requests are ours to send: retry until the deadline */
		while (off < n) {
			int r = sendmmsg(w->fd, msg + off, n - off, MSG_DONTWAIT);

			if (r < 0) {
				if (errno != EAGAIN && errno != EWOULDBLOCK &&
				    errno != ENOBUFS && errno != EINTR) {
					w->err = errno;
					goto out;
				}
				w->blocked++;
				if (now_ns() >= g_deadline)
					goto out;
				sleep_until(now_ns() + 50000);
				continue;
			}
			if (w->sent == 0)
				w->t_first = now;
			for (i = first + off; i < first + off + (unsigned)r; i++)
				__atomic_fetch_or(&g_sentmap[i >> 6], (uint64_t)1 << (i & 63),
				    __ATOMIC_RELAXED);
			off += (unsigned)r;
			w->sent += (unsigned)r;
			w->t_last = now_ns();
		}
	}
out:
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool
run_threads(int fd, uint64_t deadline)
{
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpu = 0, c;
	unsigned t, done;
	int err;

	g_deadline = deadline;
	if ((g_rep = calloc(O.vary ? O.vary : 1, sizeof(*g_rep))) == NULL ||
	    (g_sentmap = calloc(O.count / 64 + 1, sizeof(*g_sentmap))) == NULL)
		die_sys("malloc for %lu requests", O.count);
	/* thread t on the t-th CPU this process may use: at 400k/s the
	 * threads must not share one */
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpu++] = c;
	for (t = 0; t < O.threads; t++) {
		g_txw[t].cpu = ncpu > 1 ? cpus[t % (unsigned)ncpu] : -1;
		tx_open(&g_txw[t]);
	}
	/* the schedule starts now, not before the ring was populated */
	g_start = now_ns();
	for (t = 0; t < O.threads; t++)
		if ((err = pthread_create(&g_txw[t].tid, NULL, tx_main, &g_txw[t])) != 0) {
			errno = err;
			die_sys("pthread_create");
		}
	/* The reader needs a few percent of a CPU, but promptly: beside
	 * senders that never sleep and a responder that spins it waited
	 * long enough to fill a 16 MiB ring.  On Linux a nice value is per
	 * thread: the senders keep theirs.  Best effort (needs root). */
	(void)setpriority(PRIO_PROCESS, 0, READER_NICE);
	do {
		ring_walk();
		ring_wait(fd, now_ns() + RING_TOV_MS * NS_PER_MS);
		for (done = 0, t = 0; t < O.threads; t++)
			done += __atomic_load_n(&g_txw[t].done, __ATOMIC_ACQUIRE);
	} while (done < O.threads);
	err = 0;
	for (t = 0; t < O.threads; t++) {
		struct txw *w = &g_txw[t];

		(void)pthread_join(w->tid, NULL);
		if (w->err && !err)
			err = w->err;
		if (w->sent > 0 && (g_sent == 0 || w->t_first < g_t_first))
			g_t_first = w->t_first;
		if (w->t_last > g_t_last)
			g_t_last = w->t_last;
		g_sent += w->sent;
		g_tx_blocked += w->blocked;
		close(w->fd);
		free(w->buf);
	}
	if (err) {
		errno = err;
		die_sys("send on %s", O.ifname);
	}
	for (;;) {
		uint64_t end = g_t_last + O.wait_ms * NS_PER_MS;

		ring_walk();
		if (end > deadline)
			end = deadline;
		if (now_ns() >= end)
			break;
		ring_wait(fd, end);
	}
	return now_ns() < deadline || O.wait_ms == 0;
}

/*
 * An ARP reply echoes only its requester's addresses, so a reply can be
 * told apart from another only by the sender it answers: each is matched
 * to an outstanding request of that sender, and a reply beyond the
 * requests that sender made is a duplicate.  Matching at the end is the
 * same as matching on arrival: no reply can come before its request.
 */
static void
match_replies(unsigned long *answered, unsigned long *dups)
{
	unsigned long n = O.vary ? O.vary : 1, *sent, i, k;

	if ((sent = calloc(n, sizeof(*sent))) == NULL)
		die_sys("malloc for %lu senders", n);
	for (i = 0; i < O.count; i++)
		if (g_sentmap[i >> 6] & (uint64_t)1 << (i & 63))
			sent[i % n]++;
	*answered = *dups = 0;
	for (k = 0; k < n; k++) {
		if (g_rep[k] > sent[k]) {
			*answered += sent[k];
			*dups += g_rep[k] - sent[k];
		} else {
			*answered += g_rep[k];
		}
	}
	free(sent);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the sorted v[0..n-1], in whole microseconds. */
static void
print_pct(const char *name, const uint64_t *v, unsigned long n, unsigned pct)
{
	unsigned long rank;

	if (n == 0) {
		printf(" %s -", name);
		return;
	}
	rank = (unsigned long)(((unsigned long long)n * pct + 99) / 100);
	if (rank < 1)
		rank = 1;
	printf(" %s %" PRIu64, name, (v[rank - 1] + 500) / 1000);
}

static int
run_arp(void)
{
	uint64_t start, deadline, margin, *rtt = NULL;
	unsigned long nrtt = 0, k;
	struct sigaction su;
	char mb[18];
	bool in_time;

	memset(&su, 0, sizeof(su));
	su.sa_handler = on_usr1;
	sigemptyset(&su.sa_mask);
	sigaction(SIGUSR1, &su, NULL);
	start = now_ns();
	arm_backstop(O.limit_ms);
	/* Stop the work a little before the backstop so the summary gets out. */
	margin = O.limit_ms / 5 < 50 ? O.limit_ms / 5 : 50;
	deadline = start + (O.limit_ms - margin) * NS_PER_MS;

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	g_fd = O.threads ? ring_socket() : open_socket();
	iface_defaults(g_fd);
	if (O.threads) {
		in_time = run_threads(g_fd, deadline);
	} else if (O.pingpong) {
		rtt = malloc(O.count * sizeof(*rtt));
		if (!rtt)
			die_sys("malloc for %lu round trips", O.count);
		in_time = run_pingpong(start, deadline, rtt, &nrtt);
	} else {
		if (O.deadline_ms) {
			unsigned long nk = O.vary_mac ? O.vary_mac : 1;

			g_tsent = calloc(O.count, sizeof(*g_tsent));
			g_inline = calloc(O.count, sizeof(*g_inline));
			g_keyreq = malloc(nk * sizeof(*g_keyreq));
			if (!g_tsent || !g_inline || !g_keyreq)
				die_sys("malloc for %lu requests", O.count);
			memset(g_keyreq, 0xff, nk * sizeof(*g_keyreq));
		}
		in_time = run_flood(start, deadline);
	}
	if (!in_time && g_sent < O.count)
		fprintf(stderr, "arpc: time limit of %lu ms reached after sending %lu of %lu requests\n",
		    O.limit_ms, g_sent, O.count);

	printf("sent %lu received %lu macs ", g_sent, g_received);
	if (g_nmacs == 0)
		putchar('-');
	for (k = 0; k < g_nmacs; k++)
		printf("%s%s", k ? "," : "", mac_str(g_macs[k], mb));
	if (g_macs_overflow)
		fputs(",...", stdout);
	if (O.threads) {
		unsigned long answered, dups;

		match_replies(&answered, &dups);
		printf(" answered %lu dup %lu", answered, dups);
	}
	if (O.pingpong) {
		qsort(rtt, nrtt, sizeof(*rtt), cmp_u64);
		fputs(" rtt_us", stdout);
		print_pct("p50", rtt, nrtt, 50);
		print_pct("p90", rtt, nrtt, 90);
		print_pct("p99", rtt, nrtt, 99);
		print_pct("max", rtt, nrtt, 100);
		printf(" lost %lu", g_sent - nrtt);
	}
	if (O.have_owner)
		printf(" wrong %lu", g_wrong);
	if (g_tsent != NULL) {
		unsigned long late = 0;

		for (k = 0; k < g_sent; k++)
			late += !g_inline[k];
		printf(" late %lu maxlat_us %" PRIu64, late, g_maxlat / 1000);
		if (O.steady)
			printf(" skipped %lu", g_skipped);
		if (O.verbose) {
			/* wall-clock times, to set beside the responder's log */
			struct timespec ts;
			uint64_t off, w;

			clock_gettime(CLOCK_REALTIME, &ts);
			off = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - now_ns();
			for (k = 0; k < g_sent; k++) {
				if (g_inline[k])
					continue;
				w = g_tsent[k] + off;
				fprintf(stderr, "arpc: request %lu sent at %" PRIu64 ".%06" PRIu64
				    " late\n", k, w / 1000000000u, w % 1000000000u / 1000);
			}
		}
	}
	if (O.stats) {
		struct tpacket_stats st;
		socklen_t sl = sizeof(st);
		double dur = (double)(g_t_last - g_t_first) * 1e-9;
		double achieved = g_sent > 1 && dur > 0 ? (double)(g_sent - 1) / dur : 0;

		memset(&st, 0, sizeof(st));
		(void)getsockopt(g_fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
		printf(" achieved_rate %.0f send_ms %.1f rx_drops %u",
		    achieved, dur * 1e3, st.tp_drops);
		if (O.threads)
			printf(" tx_blocked %lu", g_tx_blocked);
	}
	putchar('\n');
	if (fflush(stdout) != 0)
		die_sys("writing stdout");
	/* Done: the backstop must not turn this into a failure now.  The
	 * socket is left to exit(), whose close waits an RCU grace period. */
	disarm_backstop();
	free(rtt);
	free(g_tsent);
	free(g_inline);
	free(g_keyreq);
	free(g_rep);
	free(g_sentmap);
	return g_received > 0 ? 0 : 1;
}

/* ---- notify listener ----------------------------------------------- */

static bool
has_stopping(const char *m, size_t n)
{
	const char *p = m, *end = m + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);

		if (l == 10 && memcmp(p, "STOPPING=1", 10) == 0)
			return true;
		p += l + 1;
	}
	return false;
}

static int
run_notify(void)
{
	static char buf[65536 + 1];
	struct sockaddr_un sun;
	struct sigaction sa;
	socklen_t alen;
	size_t plen = strlen(O.notify_path);
	uint64_t start, end, last_rx = 0;
	unsigned long lifetime = O.notify_timeout_ms;
	bool stopping = false;
	int fd;

	if (O.have_limit && O.limit_ms < lifetime)
		lifetime = O.limit_ms;
	start = now_ns();
	end = start + lifetime * NS_PER_MS;
	arm_backstop(lifetime + 500);	/* only if stdout blocks */

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, O.notify_path, plen);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	if (O.notify_path[0] == '@') {
		sun.sun_path[0] = '\0';		/* abstract, like systemd */
	} else {
		struct stat st;

		alen++;
		if (lstat(O.notify_path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(O.notify_path);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_sys("socket(AF_UNIX)");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (bind(fd, (struct sockaddr *)&sun, alen) < 0)
		die_sys("bind %s", O.notify_path);
	if (O.notify_path[0] != '@')
		memcpy(g_unlink_path, O.notify_path, plen + 1);

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec ts;
		uint64_t now = now_ns(), until = end, d;
		int r;

		if (stopping && last_rx + NOTIFY_IDLE_NS < until)
			until = last_rx + NOTIFY_IDLE_NS;
		if (now >= until)
			break;
		d = until - now;
		ts.tv_sec = (time_t)(d / NS_PER_S);
		ts.tv_nsec = (long)(d % NS_PER_S);
		r = ppoll(&pfd, 1, &ts, NULL);
		if (r < 0 && errno != EINTR)
			die_sys("poll on %s", O.notify_path);
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
			size_t len, i;

			if (n < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
					break;
				die_sys("receive on %s", O.notify_path);
			}
			last_rx = now_ns();
			len = (size_t)n;
			if (has_stopping(buf, len))
				stopping = true;
			while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
				len--;
			for (i = 0; i < len; i++) {
				unsigned char ch = (unsigned char)buf[i];

				if (ch == '\n' || ch == '\r' || ch == '\t')
					buf[i] = ' ';
				else if (ch < 0x20 || ch == 0x7f)
					buf[i] = '?';
			}
			buf[len] = '\0';
			printf("%" PRIu64 " %s\n", last_rx / NS_PER_MS, buf);
			fflush(stdout);
		}
	}
	if (g_unlink_path[0])
		unlink(g_unlink_path);
	disarm_backstop();
	close(fd);
	return stopping ? 0 : 1;
}

int
main(int argc, char **argv)
{
	parse_args(argc, argv);
	return O.notify_path ? run_notify() : run_arp();
}
