/* kptest.c — drive the in-kernel answer path (kpath.c) without the daemon:
 * load it, attach it to the named interfaces, build a table from
 * rtnetlink as the daemon does and feed it through kpfeed.c, follow the
 * events (unless --no-follow), print the program's events and counters.
 * Stays running until SIGTERM/SIGINT (may be SIGSTOPped); SIGUSR1 prints
 * the counters.  For tests/integration/kpath_*.sh and the benchmark.
 *
 * Output, one line each, flushed: "ready", "event learn|probe ...",
 * "counters ifindex=N name=value ...", "dropped uid=U", "purged N",
 * "kp_open: REASON" (exit 3), "error: ..." (exit 1). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cap-ng.h>

#include "arp.h"
#include "util.h"
#include "kpath.h"
#include "kpfeed.h"
#include "linksync.h"
#include "log.h"
#include "policy.h"
#include "priv.h"
#include "ranges.h"
#include "rtnl.h"
#include "table.h"

#define MAX_IFS	64

static struct {
	const char	*ifs[MAX_IFS];
	int		 nifs;
	const char	*late;
	int		 mode;
	bool		 probes, probe_events, learn, follow, events;
	long		 sender_rate, total_rate, learn_rate;
	struct rng	 allow, deny, ours;
	bool		 has_allow, has_deny, has_ours;
	const char	*drop;
	bool		 keep_bpf, keep_perfmon, load_after_drop;
	int		 xdp;		/* --xdp native|generic: at XDP in that mode (KP_XDP_*) */
	unsigned	 max_addrs, max_links;
	uint32_t	 publish;
	uint8_t		 publish_mac[6];
} O = { .mode = POL_OWNER, .probes = true, .follow = true, .learn_rate = 200 };

static struct tbl *T;
static struct kp *KP;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	printf("error: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static bool
named(const char *name)
{
	int i;

	for (i = 0; i < O.nifs; i++)
		if (strcmp(O.ifs[i], name) == 0)
			return true;
	return O.late != NULL && strcmp(O.late, name) == 0;
}

static void
manage(struct tbl_iface *ifp)
{
	if (!named(ifp->name))
		return;
	ifp->managed = true;
	ifp->mode = O.mode;
	ifp->allow_probes = O.probes;
	ifp->allow = O.has_allow ? &O.allow : NULL;
	ifp->deny = O.has_deny ? &O.deny : NULL;
}

static unsigned
if_flags(void)
{
	return KP_IF_PROBES | (O.learn ? KP_IF_LEARN : 0) | (O.probe_events ? KP_IF_PROBE_EVENTS : 0);
}

static void
feed_iface(struct tbl_iface *ifp)
{
	/* a full map is a warning: what does not fit is passed up */
	if (ifp->managed && kpf_iface(KP, T, ifp, if_flags(), O.has_ours ? &O.ours : NULL) == -1)
		printf("%s: feed %s: %s\n", errno == E2BIG ? "warning" : "error", ifp->name,
		    strerror(errno));
}

/* What kanswer.c's retry does, inline: grants written before the
 * watcher's socket had the notification are written again, a few times. */
static void
refeed_unconfirmed(void)
{
	struct util_ifset s;
	struct tbl_iface *ifp;
	size_t i;
	int t;

	for (t = 0; t < 8; t++) {
		kp_take_unconfirmed(KP, &s);
		if (util_ifset_empty(&s))
			return;
		printf("unconfirmed try=%d n=%zu all=%d\n", t, s.n, s.all);
		usleep(2000u << t);
		if (s.all) {
			kpf_all(KP, T);
			continue;
		}
		for (i = 0; i < s.n; i++)
			if ((ifp = tbl_iface(T, s.v[i])) != NULL)
				feed_iface(ifp);
	}
}

/* The table, as the daemon keeps it (linksync's ls_apply, its one
 * writer of the kernel's facts); then the grants it changes. */
static void
on_msg(const struct rtnl_msg *m, void *arg)
{
	struct tbl_iface *ifp = tbl_iface(T, m->ifindex);
	bool live = arg != NULL;
	struct ls_change c;
	size_t i, n = 0;
	uint32_t *gone = NULL;

	if (m->kind == RTNL_DELLINK && ifp != NULL) {
		/* its addresses' grants are decided again once it is gone */
		n = ifp->naddrs;
		gone = calloc(n ? n : 1, sizeof(*gone));
		for (i = 0; gone != NULL && i < n; i++)
			gone[i] = ifp->addrs[i].addr;
		if (live && KP != NULL)
			kp_detach(KP, m->ifindex);
	}
	ls_apply(T, m, 0, !live, &c);
	switch (m->kind) {
	case RTNL_NEWLINK:
		if ((ifp = c.ifp) == NULL)
			return;
		manage(ifp);
		if (live && KP != NULL) {
			feed_iface(ifp);
			for (i = 0; i < ifp->naddrs; i++)
				kpf_addr(KP, T, ifp->ifindex, ifp->addrs[i].addr);
		}
		return;
	case RTNL_DELLINK:
		for (i = 0; live && KP != NULL && gone != NULL && i < n; i++)
			kpf_addr(KP, T, m->ifindex, gone[i]);
		free(gone);
		return;
	case RTNL_NEWADDR:
	case RTNL_DELADDR:
		if ((ifp = tbl_iface(T, m->ifindex)) == NULL)
			return;
		break;
	default:
		return;
	}
	if (!live || KP == NULL)
		return;
	if (ifp->managed && kpf_wide(m->addr, m->prefix, m->plen))
		feed_iface(ifp);	/* a subnet: every address's grant may change */
	else if (kpf_addr(KP, T, m->ifindex, m->addr) == -1)
		printf("error: grant of an address on ifindex %d: %s\n", m->ifindex, strerror(errno));
}

static void
print_counters(int ifindex)
{
	uint64_t c[KP_NCOUNTERS];
	struct kp_watch w;
	int i;

	kp_dump(KP, stdout);
	if (kp_watch_stats(KP, &w) == 0)
		printf("watch next_id=%llu revokes=%llu bad_gen=%llu\n",
		    (unsigned long long)w.next_id, (unsigned long long)w.revokes,
		    (unsigned long long)w.bad_gen);
	if (kp_counters(KP, ifindex, c) == -1) {
		printf("counters ifindex=%d unavailable\n", ifindex);
		return;
	}
	printf("counters ifindex=%d", ifindex);
	for (i = 0; i < KP_NCOUNTERS; i++)
		printf(" %s=%llu", kp_counter_name(i), (unsigned long long)c[i]);
	printf("\n");
}

/* What the daemon does with a learning event: the requester into the
 * neighbour table (rtnl_learn: a STALE entry unless one exists), as the
 * kernel's neigh_event_ns() when it answers. */
static void
on_event(const struct kp_event *ev, void *arg)
{
	struct rtnl *nl = arg;
	char mac[18], sip[16], tip[16];

	if (ev->type == KP_EV_LEARN && (ev->flags & KP_EVF_IN_SUBNET) && nl != NULL)
		rtnl_learn(nl, (int)ev->ifindex, ev->sip, ev->sha);
	if (!O.events)
		return;
	inet_ntop(AF_INET, &ev->sip, sip, sizeof(sip));
	inet_ntop(AF_INET, &ev->tip, tip, sizeof(tip));
	printf("event %s ifindex=%u sip=%s tip=%s sha=%s flags=%u\n",
	    ev->type == KP_EV_LEARN ? "learn" : ev->type == KP_EV_PROBE ? "probe" : "?",
	    ev->ifindex, sip, tip, util_mac_str(ev->sha, mac), ev->flags);
}

/* As root: become uid:gid keeping NET_RAW and NET_ADMIN (the daemon's
 * priv_drop), and CAP_BPF (and CAP_PERFMON) too when asked. */
static void
drop(void)
{
	unsigned long uid, gid;
	char *end, *caps;

	if (!O.keep_bpf) {
		if (priv_drop(O.drop) == -1)
			die("cannot drop to %s", O.drop);
	} else {
		uid = strtoul(O.drop, &end, 10);
		gid = *end == ':' ? strtoul(end + 1, NULL, 10) : uid;
		capng_clear(CAPNG_SELECT_BOTH);
		capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_RAW,
		    CAP_NET_ADMIN, CAP_BPF, -1);
		if (O.keep_perfmon)
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_PERFMON);
		if (capng_change_id((int)uid, (int)gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING) != 0)
			die("capng_change_id to %s failed", O.drop);
	}
	/* The buffer form is malloc'd: free it, or LSan fails the ASan run. */
	caps = capng_print_caps_text(CAPNG_PRINT_BUFFER, CAPNG_EFFECTIVE);
	printf("dropped uid=%u caps=%s\n", (unsigned)getuid(), caps != NULL ? caps : "?");
	free(caps);
}

static int
attach_named(const char *name)
{
	char why[256];
	unsigned idx = if_nametoindex(name);
	struct tbl_iface *ifp;

	if (idx == 0)
		die("no interface %s", name);
	if (O.xdp != 0 ? kp_xdp_attach(KP, (int)idx, O.xdp, NULL, why, sizeof(why)) == -1 :
	    kp_attach(KP, (int)idx, NULL, why, sizeof(why)) == -1) {
		printf("error: attach %s: %s\n", name, why);
		return -1;
	}
	if ((ifp = tbl_iface(T, (int)idx)) != NULL)
		feed_iface(ifp);
	return 0;
}

static void
add_items(struct rng *r, bool *has, char *list)
{
	const char *why;
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save))
		if (rng_add_item(r, tok, &why) == -1)
			die("bad address list item: %s", tok);
	if (rng_finish(r) == -1)
		die("%s", "out of memory");
	*has = true;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const struct option longopts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "no-probes", no_argument, NULL, 'P' },
	{ "probe-events", no_argument, NULL, 'E' },
	{ "learn", no_argument, NULL, 'L' },
	{ "events", no_argument, NULL, 'e' },
	{ "no-follow", no_argument, NULL, 'n' },
	{ "sender-rate", required_argument, NULL, 's' },
	{ "total-rate", required_argument, NULL, 't' },
	{ "learn-rate", required_argument, NULL, 'r' },
	{ "allow", required_argument, NULL, 'a' },
	{ "deny", required_argument, NULL, 'd' },
	{ "ours", required_argument, NULL, 'o' },
	{ "publish", required_argument, NULL, 'p' },
	{ "drop", required_argument, NULL, 'D' },
	{ "keep-bpf", no_argument, NULL, 'K' },
	{ "keep-perfmon", no_argument, NULL, 'Q' },
	{ "load-after-drop", no_argument, NULL, 'A' },
	{ "late", required_argument, NULL, 'l' },
	{ "purge", no_argument, NULL, 'X' },
	{ "max-addrs", required_argument, NULL, 'M' },
	{ "max-links", required_argument, NULL, 'N' },
	{ "xdp", required_argument, NULL, 'x' },
	{ NULL, 0, NULL, 0 }
};

int
main(int argc, char **argv)
{
	struct rtnl *nl;
	struct pollfd pfd[3];
	sigset_t ss;
	char why[512];
	double t0, t_open, t1, t2;
	int c, sfd, i, n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	log_init(LOG_WARNING, true);
	while ((c = getopt_long(argc, argv, "m:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if ((O.mode = pol_mode_parse(optarg)) == -1)
				die("bad mode %s", optarg);
			break;
		case 'P': O.probes = false; break;
		case 'E': O.probe_events = true; break;
		case 'L': O.learn = true; break;
		case 'e': O.events = true; break;
		case 'n': O.follow = false; break;
		case 's': O.sender_rate = atol(optarg); break;
		case 't': O.total_rate = atol(optarg); break;
		case 'r': O.learn_rate = atol(optarg); break;
		case 'a': add_items(&O.allow, &O.has_allow, optarg); break;
		case 'd': add_items(&O.deny, &O.has_deny, optarg); break;
		case 'o': add_items(&O.ours, &O.has_ours, optarg); break;
		case 'p': {
			char *at = strchr(optarg, '@');
			unsigned m[6];

			if (at == NULL || sscanf(at + 1, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
			    &m[3], &m[4], &m[5]) != 6)
				die("--publish ADDR@MAC: %s", optarg);
			*at = '\0';
			if (inet_pton(AF_INET, optarg, &O.publish) != 1)
				die("--publish: bad address %s", optarg);
			for (i = 0; i < 6; i++)
				O.publish_mac[i] = (uint8_t)m[i];
			break;
		}
		case 'D': O.drop = optarg; break;
		case 'K': O.keep_bpf = true; break;
		case 'Q': O.keep_bpf = O.keep_perfmon = true; break;
		case 'A': O.load_after_drop = true; break;
		case 'l': O.late = optarg; break;
		case 'M': O.max_addrs = (unsigned)atol(optarg); break;
		case 'N': O.max_links = (unsigned)atol(optarg); break;
		case 'x':
			/* the program at XDP in this mode (native on a veth needs
			 * the peer's NAPI: GRO or an XDP program there) */
			if (strcmp(optarg, "native") == 0)
				O.xdp = KP_XDP_NATIVE;
			else if (strcmp(optarg, "generic") == 0)
				O.xdp = KP_XDP_GENERIC;
			else
				die("--xdp native|generic: %s", optarg);
			break;
		case 'X':
			n = kp_purge(why, sizeof(why));
			if (n < 0) {
				printf("error: purge: %s\n", why);
				return 1;
			}
			printf("purged %d\n", n);
			return 0;
		default:
			return 2;
		}
	}
	for (; optind < argc && O.nifs < MAX_IFS; optind++)
		O.ifs[O.nifs++] = argv[optind];
	if (O.nifs == 0)
		die("%s", "usage: kptest [options] IFNAME...");

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	if ((sfd = signalfd(-1, &ss, SFD_CLOEXEC)) == -1)
		die("%s", "signalfd");

	if (O.drop != NULL && O.load_after_drop)
		drop();
	t0 = now_ms();
	if ((KP = kp_open(O.max_addrs, O.max_links, why, sizeof(why))) == NULL) {
		printf("kp_open: %s\n", why);
		return 3;
	}
	t_open = now_ms();
	kp_set_limits(KP, O.sender_rate, O.total_rate, O.learn ? O.learn_rate : 0);
	if ((T = tbl_new()) == NULL || (nl = rtnl_open()) == NULL)
		die("%s", "cannot open the table or rtnetlink");
	if (rtnl_dump(nl, on_msg, NULL) == -1)
		die("%s", "rtnetlink dump failed");
	t1 = now_ms();
	for (i = 0; i < O.nifs; i++)
		if (attach_named(O.ifs[i]) == -1)
			return 1;
	if (kpf_all(KP, T) == -1)
		printf("warning: some grants were not written: %s\n", strerror(errno));
	t2 = now_ms();
	if (O.publish != 0) {
		unsigned idx = if_nametoindex(O.ifs[0]);

		if (kp_set_pub(KP, (int)idx, O.publish, 32, O.publish_mac) == -1)
			die("%s", "kp_set_pub failed");
	}
	if (O.drop != NULL && !O.load_after_drop)
		drop();
	if (O.late != NULL && attach_named(O.late) == -1)
		return 1;
	if (!O.follow) {
		rtnl_close(nl);
		nl = NULL;
	}
	printf("timing open_ms=%.1f table_ms=%.1f feed_ms=%.1f\n", t_open - t0, t1 - t_open, t2 - t1);
	printf("ready\n");

	for (;;) {
		struct signalfd_siginfo si;

		pfd[0].fd = sfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = kp_events_fd(KP);
		pfd[1].events = POLLIN;
		pfd[2].fd = nl != NULL ? rtnl_fd(nl) : -1;
		pfd[2].events = POLLIN;
		if (poll(pfd, 3, -1) == -1) {
			if (errno == EINTR)
				continue;
			die("%s", "poll");
		}
		if (pfd[2].revents & POLLIN) {
			if (rtnl_read(nl, on_msg, KP) == 1) {
				/* events lost: what the daemon does, a re-dump */
				rtnl_dump(nl, on_msg, KP);
				kpf_all(KP, T);
			}
			refeed_unconfirmed();
		}
		if (kp_needs_resync(KP) && kp_resync(KP) == 0) {
			struct tbl_iface *ifp;

			for (i = 0; i < O.nifs; i++)
				if ((ifp = tbl_iface(T, (int)if_nametoindex(O.ifs[i]))) != NULL)
					feed_iface(ifp);
			kpf_all(KP, T);
			printf("resynced\n");
		}
		if (pfd[1].revents & POLLIN)
			kp_consume(KP, on_event, nl);
		if (pfd[0].revents & POLLIN) {
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGUSR1) {
				kp_consume(KP, on_event, nl);
				print_counters(0);
				continue;
			}
			break;
		}
	}
	kp_consume(KP, on_event, nl);
	print_counters(0);
	kp_close(KP);
	if (nl != NULL)
		rtnl_close(nl);
	tbl_free(T);
	printf("closed\n");
	return 0;
}
