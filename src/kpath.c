/* kpath.c — the in-kernel answer path's loader and feeder: loads the two
 * programs of src/bpf/answer.bpf.c (embedded as a bpftool skeleton),
 * attaches the answerer where the daemon asks (kptc.c does the TC side),
 * starts the kernel's mirror (kpmirror.c), writes the daemon's grants
 * into the maps, and reads back the counters and the events.
 *
 * Privileges, measured on Linux 6.18 and read in 6.1's source: loading
 * (map, BTF and program creation) needs CAP_BPF + CAP_NET_ADMIN (or
 * CAP_SYS_ADMIN); everything after it works on the file descriptors made
 * then, with CAP_NET_ADMIN alone: map reads and writes, the ring buffer,
 * attaching to a new interface (a TC filter takes the program's fd) and
 * detaching.  See tests/integration/kpath_priv.sh.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "answer.skel.h"
#include "kpint.h"

#define USER_ID_BASE	(1ull << 63)	/* the watcher's ids stay below */
#define LOG_KEEP	4096

/* ------------------------------------------------------------------ logs */

/* libbpf's messages: kept (the last LOG_KEEP bytes) for the reason a load
 * failed, shown on stderr only with ARPOWND_BPF_DEBUG set. */
static char g_log[LOG_KEEP];
static size_t g_loglen;

static int
libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	int n;

	if (level == LIBBPF_DEBUG && getenv("ARPOWND_BPF_DEBUG") == NULL)
		return 0;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (getenv("ARPOWND_BPF_DEBUG") != NULL)
		fputs(line, stderr);
	if (g_loglen + (size_t)n >= sizeof(g_log)) {
		size_t drop = g_loglen + (size_t)n - sizeof(g_log) + 1;

		if (drop > g_loglen)
			drop = g_loglen;
		memmove(g_log, g_log + drop, g_loglen - drop);
		g_loglen -= drop;
	}
	memcpy(g_log + g_loglen, line, (size_t)n);
	g_loglen += (size_t)n;
	g_log[g_loglen] = '\0';
	return 0;
}

void
kp_setwhy(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

void
kp_log_setup(void)
{
	libbpf_set_print(libbpf_log);
}

/* The verifier's complaint: the last lines of a log that say something. */
static void
log_tail(const char *log, char *out, size_t len)
{
	const char *lines[3] = { NULL, NULL, NULL }, *p = log, *e;
	size_t n = 0, k;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		if ((e == NULL ? strlen(p) : (size_t)(e - p)) > 0 &&
		    strncmp(p, "processed ", 10) != 0 && strncmp(p, "verification time", 17) != 0 &&
		    strncmp(p, "stack depth", 11) != 0 && strncmp(p, "-- END", 6) != 0 &&
		    strncmp(p, "libbpf: ", 8) != 0) {
			lines[0] = lines[1];
			lines[1] = lines[2];
			lines[2] = p;
			n++;
		}
		p = e != NULL ? e + 1 : NULL;
	}
	for (k = 0; k < 3; k++) {
		size_t l, o = strlen(out);

		if (lines[k] == NULL)
			continue;
		e = strchr(lines[k], '\n');
		l = e != NULL ? (size_t)(e - lines[k]) : strlen(lines[k]);
		if (o + l + 4 >= len)
			break;
		/* bounded by the test above: " | " and the line fit */
		snprintf(out + o, len - o, "%s%.*s", o > 0 ? " | " : "", (int)l, lines[k]);
	}
	(void)n;
}

/* ---------------------------------------------------------------- open */

static int
on_event(void *ctx, void *data, size_t len)
{
	struct kp *kp = ctx;
	struct kp_event ev;

	if (len < sizeof(ev))
		return 0;
	memcpy(&ev, data, sizeof(ev));
	if (kp->fn != NULL)
		kp->fn(&ev, kp->fnarg);
	kp->nconsumed++;
	return 0;
}

static const char *
kernel_release(void)
{
	static struct utsname u;

	return uname(&u) == 0 ? u.release : "?";
}

/* The counters of ifindex, at zero (kept when they are there). */
static int
counters_make(struct kp *kp, int ifindex)
{
	struct kp_cnt_key k;
	int i;

	memset(kp->pcpu, 0, (size_t)kp->ncpu * sizeof(*kp->pcpu));
	for (i = 0; i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		if (bpf_map_update_elem(kp->fd_counters, &k, kp->pcpu, BPF_NOEXIST) == -1 &&
		    errno != EEXIST)
			return -1;
	}
	return 0;
}

static void
counters_drop(struct kp *kp, int ifindex)
{
	struct kp_cnt_key k;
	int i;

	for (i = 0; i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		bpf_map_delete_elem(kp->fd_counters, &k);
	}
}

/* Is the running kernel at least major.minor? */
static bool
kernel_at_least(int major, int minor)
{
	const char *r = kernel_release();
	char *end;
	long ma, mi;

	errno = 0;
	ma = strtol(r, &end, 10);
	if (errno != 0 || end == r || *end != '.')
		return true;	/* unknown: do not blame its age */
	r = end + 1;
	mi = strtol(r, &end, 10);
	if (errno != 0 || end == r)
		return true;
	return ma > major || (ma == major && mi >= minor);
}

struct kp *
kp_open(unsigned max_addrs, unsigned max_links, char *why, size_t whylen)
{
	/* the verifier's log, written only when a load fails; large because
	 * kernels before 6.4 keep the head of a log that does not fit, and
	 * the complaint is at its end (untouched pages cost no memory) */
	static char klog[1 << 20];
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = klog,
	    .kernel_log_size = sizeof(klog), .kernel_log_level = 0);
	struct kp_conf cf;
	struct kp *kp;
	char tail[320];
	int r, e;

	libbpf_set_print(libbpf_log);
	g_loglen = 0;
	g_log[0] = klog[0] = '\0';
	if ((kp = calloc(1, sizeof(*kp))) == NULL) {
		kp_setwhy(why, whylen, "out of memory");
		return NULL;
	}
	kp->watch_sock = kp->live_sock = -1;
	kp->user_id = USER_ID_BASE + 1;

	/* privileges, then features, asked before the load so that the
	 * reason is plain (libbpf's probes say "unsupported" for EPERM too) */
	if ((r = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL)) < 0) {
		e = errno;
		if (e == EPERM || e == EACCES)
			kp_setwhy(why, whylen, "not permitted to use BPF (needs CAP_BPF and CAP_NET_ADMIN, "
			    "or root; the system call may also be filtered out)");
		else
			kp_setwhy(why, whylen, "cannot create a BPF map: %s", strerror(e));
		goto fail;
	}
	close(r);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		kp_setwhy(why, whylen, kernel_at_least(5, 8) ? "the kernel (%s) refused a BPF ring buffer" :
		    "kernel %s has no BPF ring buffer (needs Linux 5.8)", kernel_release());
		goto fail;
	}
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_loop, NULL) != 1) {
		kp_setwhy(why, whylen, kernel_at_least(5, 17) ? "the kernel (%s) refused a TC program "
		    "calling bpf_loop (CAP_NET_ADMIN missing?)" :
		    "kernel %s has no bpf_loop (needs Linux 5.17)", kernel_release());
		goto fail;
	}
	if ((kp->skel = kp_bpf__open_opts(&oo)) == NULL) {
		kp_setwhy(why, whylen, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (max_addrs == 0)
		max_addrs = KP_MAX_ALIVE;
	if (max_links == 0)
		max_links = KP_MAX_IFACES;
	if (max_addrs > (1u << 24) || max_links > (1u << 20)) {
		kp_setwhy(why, whylen, "map sizes out of range (%u addresses, %u links)", max_addrs,
		    max_links);
		goto fail;
	}
	if (bpf_map__set_max_entries(kp->skel->maps.kp_alive, max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_answers, 2 * max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_ifaces, max_links) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_links, max_links) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_counters,
	    (max_links + 1) * KP_NCOUNTERS) != 0) {
		kp_setwhy(why, whylen, "cannot size the maps");
		goto fail;
	}
	if ((r = kp_bpf__load(kp->skel)) != 0) {
		e = -r;
		log_tail(klog, tail, sizeof(tail));
		if (tail[0] != '\0')
			kp_setwhy(why, whylen, "the kernel's verifier refused the program: %s%s", tail,
			    strstr(tail, "spilled pointer") != NULL ? " (this kernel needs CAP_PERFMON "
			    "for the load as well: see kernel-path.conf)" : "");
		else if (e == EPERM || e == EACCES)
			kp_setwhy(why, whylen, "not permitted to load BPF programs (needs CAP_BPF and "
			    "CAP_NET_ADMIN): %s", strerror(e));
		else {
			log_tail(g_log, tail, sizeof(tail));
			kp_setwhy(why, whylen, "the kernel refused the BPF object (%s)%s%s", strerror(e),
			    tail[0] ? ": " : "", tail);
		}
		goto fail;
	}
	kp->fd_ifaces = bpf_map__fd(kp->skel->maps.kp_ifaces);
	kp->fd_links = bpf_map__fd(kp->skel->maps.kp_links);
	kp->fd_alive = bpf_map__fd(kp->skel->maps.kp_alive);
	kp->fd_answers = bpf_map__fd(kp->skel->maps.kp_answers);
	kp->fd_senders = bpf_map__fd(kp->skel->maps.kp_senders);
	kp->fd_watch = bpf_map__fd(kp->skel->maps.kp_watch);
	kp->fd_conf = bpf_map__fd(kp->skel->maps.kp_conf);
	kp->fd_counters = bpf_map__fd(kp->skel->maps.kp_counters);
	if ((kp->ncpu = libbpf_num_possible_cpus()) <= 0 ||
	    (kp->pcpu = calloc((size_t)kp->ncpu, sizeof(*kp->pcpu))) == NULL) {
		kp_setwhy(why, whylen, "cannot count the CPUs");
		goto fail;
	}
	if (counters_make(kp, 0) == -1) {
		kp_setwhy(why, whylen, "cannot write the counters: %s", strerror(errno));
		goto fail;
	}
	memset(&cf, 0, sizeof(cf));
	if ((kp->live_sock = kpm_live_open(kp, &cf)) == -1) {
		kp_setwhy(why, whylen, "cannot open the liveness socket (AF_INET UDP): %s", strerror(errno));
		goto fail;
	}
	if (kpm_write_conf(kp, &cf) == -1) {
		kp_setwhy(why, whylen, "cannot write the configuration map: %s", strerror(errno));
		goto fail;
	}
	if ((kp->watch_sock = kpm_watch_open(kp)) == -1) {
		kp_setwhy(why, whylen, "cannot start the netlink watcher: %s", strerror(errno));
		goto fail;
	}
	if (kpm_resync(kp, false) == -1) {
		kp_setwhy(why, whylen, "cannot read the kernel's links and addresses: %s", strerror(errno));
		goto fail;
	}
	kp->rb = ring_buffer__new(bpf_map__fd(kp->skel->maps.kp_events), on_event, kp, NULL);
	if (kp->rb == NULL) {
		kp_setwhy(why, whylen, "cannot map the event ring: %s", strerror(errno));
		goto fail;
	}
	return kp;
fail:
	kp_close(kp);
	return NULL;
}

static struct kp_att *
att_find(struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < kp->natt; i++)
		if (kp->att[i].ifindex == ifindex)
			return &kp->att[i];
	return NULL;
}

void
kp_close(struct kp *kp)
{
	if (kp == NULL)
		return;
	while (kp->natt > 0)
		kp_detach(kp, kp->att[kp->natt - 1].ifindex);
	free(kp->att);
	ring_buffer__free(kp->rb);
	if (kp->watch_sock != -1)
		close(kp->watch_sock);
	if (kp->live_sock != -1)
		close(kp->live_sock);
	kp_bpf__destroy(kp->skel);
	free(kp->pcpu);
	free(kp);
}

int
kp_attach(struct kp *kp, int ifindex, char *why, size_t whylen)
{
	struct kp_att *at;
	bool made;

	if (att_find(kp, ifindex) != NULL)
		return 0;
	if (kp->natt == kp->aatt) {
		size_t na = kp->aatt ? kp->aatt * 2 : 16;
		struct kp_att *nv = realloc(kp->att, na * sizeof(*nv));

		if (nv == NULL) {
			kp_setwhy(why, whylen, "out of memory");
			return -1;
		}
		kp->att = nv;
		kp->aatt = na;
	}
	/* counters before the program can count */
	if (counters_make(kp, ifindex) == -1) {
		kp_setwhy(why, whylen, "cannot make the counters: %s", strerror(errno));
		return -1;
	}
	if (kpt_attach(ifindex, bpf_program__fd(kp->skel->progs.arpownd_answer), &made, why,
	    whylen) == -1) {
		counters_drop(kp, ifindex);
		return -1;
	}
	at = &kp->att[kp->natt++];
	at->ifindex = ifindex;
	at->made_qdisc = made;
	return 0;
}

int
kp_detach(struct kp *kp, int ifindex)
{
	struct kp_att *at = att_find(kp, ifindex);
	uint32_t k = (uint32_t)ifindex;
	int r;

	if (at == NULL)
		return 0;
	r = kpt_detach(ifindex, at->made_qdisc);
	bpf_map_delete_elem(kp->fd_ifaces, &k);
	counters_drop(kp, ifindex);
	*at = kp->att[--kp->natt];
	return r;
}

/* ------------------------------------------------------------- grants */

/* ifindex has a grant or a setting the mirror cannot confirm yet. */
static void
unconfirmed(struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < kp->nunconf; i++)
		if (kp->unconf[i] == ifindex)
			return;
	if (kp->nunconf < KP_UNCONF_MAX)
		kp->unconf[kp->nunconf++] = ifindex;
	else
		kp->unconf_all = true;
}

size_t
kp_take_unconfirmed(struct kp *kp, int *v, size_t max, bool *all)
{
	size_t n = kp->nunconf < max ? kp->nunconf : max;

	memcpy(v, kp->unconf, n * sizeof(*v));
	*all = kp->unconf_all || kp->nunconf > max;
	kp->nunconf = 0;
	kp->unconf_all = false;
	return n;
}

int
kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags)
{
	struct kp_iface v;
	struct kp_link l;
	uint32_t k = (uint32_t)ifindex;

	memset(&v, 0, sizeof(v));
	memcpy(v.mac, mac, 6);
	v.mode = (uint8_t)mode;
	v.flags = (uint8_t)flags;
	/* the link instance the kernel has now, if it has the daemon's MAC
	 * and master: otherwise an event the daemon has not read yet changed
	 * them, and nothing is answered until it has */
	if (bpf_map_lookup_elem(kp->fd_links, &k, &l) == 0 && memcmp(l.mac, mac, 6) == 0 &&
	    l.master == (uint32_t)master && l.id != 0)
		v.link_id = l.id;
	else
		unconfirmed(kp, ifindex);
	return bpf_map_update_elem(kp->fd_ifaces, &k, &v, BPF_ANY);
}

int
kp_del_iface(struct kp *kp, int ifindex)
{
	uint32_t k = (uint32_t)ifindex;

	if (bpf_map_delete_elem(kp->fd_ifaces, &k) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

/* The refs of a grant, each with the instance the kernel has now: a
 * missing entry gets id 0, which never confirms. */
static void
fill_refs(struct kp *kp, struct kp_answer *a, const struct kp_ifa *refs, size_t n, bool holders)
{
	struct kp_link l;
	size_t i;

	if (n > KP_NREF)
		n = KP_NREF;
	a->nref = (uint8_t)n;
	for (i = 0; i < n; i++) {
		struct kp_ref *r = &a->ref[i];
		uint32_t li = (uint32_t)refs[i].ifindex;

		kp_ifa_key(&r->ifa, refs[i].ifindex, refs[i].local, refs[i].prefix, refs[i].plen);
		r->kind = refs[i].kind;
		/* 0 is no instance (the watcher's ids start at 1, ours at
		 * USER_ID_BASE + 1); on 6.1 a lookup racing the watcher's
		 * insert was seen to return it */
		if (bpf_map_lookup_elem(kp->fd_alive, &r->ifa, &r->id) == -1 || r->id == 0) {
			r->id = 0;
			unconfirmed(kp, refs[i].ifindex);
		}
		if (holders) {
			r->link_id = bpf_map_lookup_elem(kp->fd_links, &li, &l) == 0 ? l.id : 0;
			if (r->link_id == 0)
				unconfirmed(kp, refs[i].ifindex);
		}
	}
}

int
kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	struct kp_answer a;

	memset(&a, 0, sizeof(a));
	fill_refs(kp, &a, refs, n, false);
	return bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY);
}

int
kp_set_published(struct kp *kp, int ifindex, uint32_t addr, const uint8_t mac[6])
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };
	struct kp_answer a;

	memset(&a, 0, sizeof(a));
	memcpy(a.mac, mac, 6);
	a.flags = KP_ANS_PUBLISHED;
	return bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY);
}

int
kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{
	struct kp_ans_key k = { (uint32_t)ifindex, addr };

	if (bpf_map_delete_elem(kp->fd_answers, &k) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

int
kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{
	struct kp_ans_key k = { 0, addr };
	struct kp_answer a;
	struct kp_conf c;
	int e;

	memset(&a, 0, sizeof(a));
	a.flags = KP_ANS_LOCAL;
	fill_refs(kp, &a, holders, n, true);
	if (bpf_map_update_elem(kp->fd_answers, &k, &a, BPF_ANY) == 0)
		return 0;
	/* a sender using addr would not be known as one of ours: the program
	 * answers nothing more (kp_open sized the maps too small) */
	e = errno;
	if (kpm_read_conf(kp, &c) == 0) {
		c.flags |= KP_CF_FULL;
		kpm_write_conf(kp, &c);
	}
	errno = e;
	return -1;
}

int
kp_del_local(struct kp *kp, uint32_t addr)
{
	return kp_del_answer(kp, 0, addr);
}

/* ------------------------------------------------------------ senders */

static void
lpm_key(struct kp_lpm_key *k, int ifindex, uint32_t addr, unsigned len)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 32 + len;
	k->ifindex = htonl((uint32_t)ifindex);
	k->addr = htonl(addr);
}

int
kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{
	struct kp_lpm_key k, *prev = NULL, *old = NULL, *nk, want;
	struct kp_iface cur, hold;
	uint32_t key = (uint32_t)ifindex;
	bool have = bpf_map_lookup_elem(kp->fd_ifaces, &key, &cur) == 0, keep;
	size_t nold = 0, aold = 0, i, j;
	int rc = -1, e = 0;
	uint8_t bits;

	/* while the trie changes, nothing is answered on ifindex */
	if (have) {
		hold = cur;
		hold.mode = KP_MODE_NONE;
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &hold, BPF_ANY) == -1)
			return -1;
	}
	/* what ifindex has now */
	while (bpf_map_get_next_key(kp->fd_senders, prev, &k) == 0) {
		if (nold == aold) {
			aold = aold ? aold * 2 : 64;
			if ((nk = realloc(old, (aold + 1) * sizeof(*old))) == NULL)
				goto out;
			old = nk;
		}
		if (k.ifindex == htonl((uint32_t)ifindex))
			old[nold++] = k;
		old[aold] = k;		/* the walk's position, past the kept ones */
		prev = &old[aold];
	}
	for (i = 0; i < n; i++) {
		lpm_key(&want, ifindex, v[i].addr, v[i].len);
		bits = v[i].bits;
		if (v[i].len > 32 || bpf_map_update_elem(kp->fd_senders, &want, &bits, BPF_ANY) == -1)
			goto out;
	}
	for (i = 0; i < nold; i++) {
		for (j = 0, keep = false; j < n && !keep; j++) {
			lpm_key(&want, ifindex, v[j].addr, v[j].len);
			keep = memcmp(&old[i], &want, sizeof(want)) == 0;
		}
		if (!keep)
			bpf_map_delete_elem(kp->fd_senders, &old[i]);
	}
	rc = 0;
out:
	e = errno;
	if (have && rc == 0) {
		cur.flags = (uint8_t)((cur.flags & ~(KP_IF_SENDERS | KP_IF_ALLOWLIST)) |
		    (n > 0 || allowlist ? KP_IF_SENDERS : 0) | (allowlist ? KP_IF_ALLOWLIST : 0));
		if (bpf_map_update_elem(kp->fd_ifaces, &key, &cur, BPF_ANY) == -1) {
			e = errno;
			rc = -1;
		}
	}
	free(old);
	errno = e;
	return rc;
}

int
kp_set_limits(struct kp *kp, long sender_rate, long total_rate, long learn_rate)
{
	struct kp_conf c;

	if (kpm_read_conf(kp, &c) == -1)
		return -1;
	c.sender_rate = sender_rate > 0 ? (uint64_t)sender_rate : 0;
	c.total_rate = total_rate > 0 ? (uint64_t)total_rate : 0;
	c.learn_rate = learn_rate > 0 ? (uint64_t)learn_rate : 0;
	return kpm_write_conf(kp, &c);
}

/* ----------------------------------------------------- counters, events */

int
kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS])
{
	struct kp_cnt_key k, *prev = NULL, next;
	int c, i;

	memset(out, 0, KP_NCOUNTERS * sizeof(out[0]));
	while (bpf_map_get_next_key(kp->fd_counters, prev, &next) == 0) {
		k = next;
		prev = &k;
		if ((ifindex != 0 && k.ifindex != (uint32_t)ifindex) || k.what >= KP_NCOUNTERS ||
		    bpf_map_lookup_elem(kp->fd_counters, &k, kp->pcpu) == -1)
			continue;
		for (c = 0; c < kp->ncpu; c++)
			out[k.what] += kp->pcpu[c];
	}
	/* every frame seen has one outcome */
	for (i = KP_C_ANSWERED; i <= KP_C_PASS_TRIM; i++)
		out[KP_C_RX] += out[i];
	return 0;
}

static const char *const counter_names[KP_NCOUNTERS] = {
	[KP_C_RX] = "received",
	[KP_C_ANSWERED] = "answered",
	[KP_C_LIMITED_SENDER] = "limited-sender",
	[KP_C_LIMITED_TOTAL] = "limited-total",
	[KP_C_PASS_INVALID] = "pass-invalid",
	[KP_C_PASS_REPLY] = "pass-reply",
	[KP_C_PASS_GRATUITOUS] = "pass-gratuitous",
	[KP_C_PASS_VLAN] = "pass-vlan",
	[KP_C_PASS_MODE] = "pass-mode",
	[KP_C_PASS_STALE] = "pass-stale",
	[KP_C_PASS_OURS] = "pass-ours",
	[KP_C_PASS_SENDER] = "pass-sender",
	[KP_C_PASS_PROBE] = "pass-probe",
	[KP_C_PASS_NO_ENTRY] = "pass-no-entry",
	[KP_C_PASS_UNCONFIRMED] = "pass-unconfirmed",
	[KP_C_PASS_NOT_SUBNET] = "pass-not-subnet",
	[KP_C_PASS_TRIM] = "pass-trim",
	[KP_C_RING_DROPS] = "ring-drops",
	[KP_C_EVENTS] = "events",
};

const char *
kp_counter_name(int i)
{
	return i >= 0 && i < KP_NCOUNTERS ? counter_names[i] : "?";
}

int
kp_events_fd(const struct kp *kp)
{
	return ring_buffer__epoll_fd(kp->rb);
}

int
kp_consume(struct kp *kp, kp_event_fn *fn, void *arg)
{
	int r;

	kp->fn = fn;
	kp->fnarg = arg;
	kp->nconsumed = 0;
	r = ring_buffer__consume(kp->rb);
	kp->fn = NULL;
	return r < 0 ? -1 : kp->nconsumed;
}
