/* kpath.c — the in-kernel answer path's loader and feeder: loads the two
 * programs of src/bpf/answer.bpf.c (embedded as a bpftool skeleton),
 * attaches the answerer where the daemon asks (kptc.c does the TC side),
 * starts the kernel's mirror (kpmirror.c), and reads back the counters
 * and the events; kpgrant.c writes the daemon's grants into the maps.
 *
 * Privileges, measured on Linux 6.18 and read in 6.1's source: loading
 * (map, BTF and program creation) needs CAP_BPF + CAP_NET_ADMIN (or
 * CAP_SYS_ADMIN); everything after it works on the file descriptors made
 * then, with CAP_NET_ADMIN alone: map reads and writes, the ring buffer,
 * attaching to a new interface (a TC filter takes the program's fd) and
 * detaching.  See tests/integration/kpath/kpath_priv.sh.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "answer.skel.h"
#include "capture.h"
#include "kpint.h"

/* the program's mark and the capture's filter must agree */
_Static_assert(KP_DECIDED_HASH == CAP_DECIDED_HASH, "capture.h and kpath_abi.h disagree");

#define USER_ID_BASE	(1ull << 63)	/* the watcher's ids stay below */
#define LOG_KEEP	4096

/* ------------------------------------------------------------------ logs */

/* libbpf's messages: kept (the last LOG_KEEP bytes) for the reason a load
 * failed, shown on stderr only with ARPOWND_BPF_DEBUG set. */
static char g_log[LOG_KEEP];
static size_t g_loglen;

/* libbpf's format, passed on: clang's -Wformat-nonliteral wants it said */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

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

/* The counters of ifindex, at zero (kept when they are there): one
 * batched write of the KP_NCOUNTERS keys (a per-CPU entry each), not
 * KP_NCOUNTERS syscalls an interface. */
static void
counters_done(void *arg, uint64_t tag, const void *key, int rc, int e)
{
	int *err = arg;

	(void)tag;
	(void)key;
	if (rc != 0 && e != EEXIST && *err == 0)
		*err = e;
}

int
kp_counters_make(struct kp *kp, int ifindex)
{
	struct kp_cnt_key k;
	struct kpb b;
	int i, err = 0;

	memset(kp->pcpu, 0, (size_t)kp->ncpu * sizeof(*kp->pcpu));
	/* BPF_ANY: an attach is a fresh start of the interface's counts (a
	 * killed run's are the daemon's own; kp_counters folds from here) */
	if (kpb_init(&b, kp->fd_counters, sizeof(k), (size_t)kp->ncpu * sizeof(*kp->pcpu),
	    BPF_ANY, KP_NCOUNTERS) == -1)
		return -1;
	for (i = 0; i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		(void)kpb_put(&b, &k, kp->pcpu, 0, counters_done, &err);
	}
	(void)kpb_flush(&b, counters_done, &err);
	kpb_free(&b);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

void
kp_counters_drop(struct kp *kp, int ifindex)
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

bool
kp_built(void)
{
	return true;
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
	/* One size for what follows the host's address entries: the mirror,
	 * the grants (one per managed address), the markers (one per host
	 * address).  Hash maps allocate their elements when written, their
	 * buckets (16 bytes) when made; the tries allocate as written, so
	 * their bound is generous.  A map cannot grow once made, and making
	 * it again needs CAP_BPF, gone after the start: what does not fit is
	 * passed up and reported (kp_room), and a restart sizes afresh. */
	kp->max_addrs = max_addrs;
	kp->max_links = max_links;
	if (bpf_map__set_max_entries(kp->skel->maps.kp_alive, max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_answers, max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_locals, max_addrs) != 0 ||
	    bpf_map__set_max_entries(kp->skel->maps.kp_senders,
	    max_addrs > KP_MAX_SENDERS ? 2 * max_addrs : KP_MAX_SENDERS) != 0 ||
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
	kp->fd_locals = bpf_map__fd(kp->skel->maps.kp_locals);
	kp->fd_pub = bpf_map__fd(kp->skel->maps.kp_pub);
	kp->fd_senders = bpf_map__fd(kp->skel->maps.kp_senders);
	kp->fd_watch = bpf_map__fd(kp->skel->maps.kp_watch);
	kp->fd_conf = bpf_map__fd(kp->skel->maps.kp_conf);
	kp->fd_counters = bpf_map__fd(kp->skel->maps.kp_counters);
	if ((kp->ncpu = libbpf_num_possible_cpus()) <= 0 ||
	    (kp->pcpu = calloc((size_t)kp->ncpu, sizeof(*kp->pcpu))) == NULL) {
		kp_setwhy(why, whylen, "cannot count the CPUs");
		goto fail;
	}
	if (kp_counters_make(kp, 0) == -1) {
		kp_setwhy(why, whylen, "cannot write the counters: %s", strerror(errno));
		goto fail;
	}
	memset(&cf, 0, sizeof(cf));
	if (getrandom(&cf.slot_k0, sizeof(cf.slot_k0), 0) != (ssize_t)sizeof(cf.slot_k0) ||
	    getrandom(&cf.slot_k1, sizeof(cf.slot_k1), 0) != (ssize_t)sizeof(cf.slot_k1)) {
		kp_setwhy(why, whylen, "getrandom: the sender slots' key: %s", strerror(errno));
		goto fail;
	}
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
	/* its ids kept for the start's grants (kp_batch), not looked up
	 * one by one */
	kp->keep_ids = true;
	if (kpm_resync(kp, false) == -1) {
		kp_setwhy(why, whylen, "cannot read the kernel's links and addresses: %s", strerror(errno));
		goto fail;
	}
	kp->keep_ids = false;
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

static int detach(struct kp *kp, struct kpt_job *v, size_t n);

void
kp_close(struct kp *kp)
{
	if (kp == NULL)
		return;
	/* every interface in one batch (one at a time, a thousand of them
	 * took most of a stop) */
	if (kp->natt > 0) {
		struct kpt_job *v = calloc(kp->natt, sizeof(*v));
		size_t i;

		for (i = 0; v != NULL && i < kp->natt; i++)
			v[i].ifindex = kp->att[i].ifindex;
		if (v != NULL)
			(void)detach(kp, v, kp->natt);
		while (v == NULL && kp->natt > 0)
			kp_detach(kp, kp->att[kp->natt - 1].ifindex);
		free(v);
	}
	free(kp->att);
	kp_xdp_close(kp);
	ring_buffer__free(kp->rb);
	if (kp->watch_sock != -1)
		close(kp->watch_sock);
	if (kp->live_sock != -1)
		close(kp->live_sock);
	kp_bpf__destroy(kp->skel);
	free(kp->pcpu);
	free(kp->unheld.v);
	free(kp->unheld_pub.v);
	free(kp->unheld_ifs.v);
	while (kp->nsnd > 0) {
		free(kp->snd[--kp->nsnd].k);
		free(kp->snd[kp->nsnd].bits);
	}
	free(kp->snd);
	kpb_free(&kp->b_answers);
	kpb_free(&kp->b_locals);
	kpm_ids_clear(kp);
	free(kp);
}

/* The answering program's id: its filters are ours to remove. */
static uint32_t
prog_id(struct kp *kp)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(kp->skel->progs.arpownd_answer), &info,
	    &len) != 0)
		return 0;
	return info.id;
}

/* libbpf's name for a cls_bpf filter, "arpownd_answer:[ID]": how a filter
 * is known as ours (kptc.c), whoever attached it. */
static void
filter_name(struct kp *kp, char *buf, size_t len)
{
	snprintf(buf, len, "%s:[%u]", KP_PROG_NAME, prog_id(kp));
}

int
kp_attach_many(struct kp *kp, const int *ifindex, size_t n, char *why, size_t whylen)
{
	struct kpt_job *v;
	char name[64];
	size_t i, m = 0, need;
	int rc = 0;

	if (n == 0)
		return 0;
	need = kp->natt + n;
	if (need > kp->aatt) {
		struct kp_att *nv = realloc(kp->att, need * sizeof(*nv));

		if (nv == NULL) {
			kp_setwhy(why, whylen, "out of memory");
			return -1;
		}
		kp->att = nv;
		kp->aatt = need;
	}
	if ((v = calloc(n, sizeof(*v))) == NULL) {
		kp_setwhy(why, whylen, "out of memory");
		return -1;
	}
	/* counters before the program can count */
	for (i = 0; i < n; i++) {
		if (att_find(kp, ifindex[i]) != NULL)
			continue;
		if (kp_counters_make(kp, ifindex[i]) == -1) {
			kp_setwhy(why, whylen, "ifindex %d: cannot make the counters: %s",
			    ifindex[i], strerror(errno));
			rc = -1;
			continue;
		}
		v[m++].ifindex = ifindex[i];
	}
	filter_name(kp, name, sizeof(name));
	if (kpt_attach_all(bpf_program__fd(kp->skel->progs.arpownd_answer), name, v, m) == -1)
		rc = -1;
	for (i = 0; i < m; i++) {
		if (v[i].err != 0) {
			kp_counters_drop(kp, v[i].ifindex);
			kp_setwhy(why, whylen, "%s: %s", v[i].what, strerror(v[i].err));
			continue;
		}
		kp->att[kp->natt].ifindex = v[i].ifindex;
		kp->att[kp->natt++].before = v[i].before;
	}
	free(v);
	return rc;
}

int
kp_attach(struct kp *kp, int ifindex, int *others, char *why, size_t whylen)
{
	struct kp_att *at;

	if ((at = att_find(kp, ifindex)) == NULL) {
		if (kp_attach_many(kp, &ifindex, 1, why, whylen) == -1)
			return -1;
		if ((at = att_find(kp, ifindex)) == NULL) {
			kp_setwhy(why, whylen, "not attached");
			return -1;
		}
	}
	if (others != NULL)
		*others = at->before;
	return 0;
}

/* Our filters off the interfaces of v (n of them), their entries gone. */
static int
detach(struct kp *kp, struct kpt_job *v, size_t n)
{
	struct kp_att *at;
	size_t i;
	int r = kpt_detach_all(prog_id(kp), v, n);

	for (i = 0; i < n; i++) {
		(void)kp_del_iface(kp, v[i].ifindex);
		kp_counters_drop(kp, v[i].ifindex);
		if ((at = att_find(kp, v[i].ifindex)) != NULL)
			*at = kp->att[--kp->natt];
	}
	return r;
}

int
kp_detach(struct kp *kp, int ifindex)
{
	struct kpt_job j = { ifindex, 0, 0, NULL };

	if (att_find(kp, ifindex) == NULL)
		return 0;
	return detach(kp, &j, 1);
}

int
kp_forget(struct kp *kp, int ifindex)
{
	struct kp_att *at = att_find(kp, ifindex);

	(void)kp_del_iface(kp, ifindex);
	kp_xdp_forget(kp, ifindex);
	if (at == NULL)
		return 0;
	kp_counters_drop(kp, ifindex);
	*at = kp->att[--kp->natt];
	return 0;
}

/* ----------------------------------------------------- counters, events */

int
kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS])
{
	struct kp_cnt_key k, *prev = NULL, next;
	int c, i;

	memset(out, 0, KP_NCOUNTERS * sizeof(out[0]));
	/* one interface: its KP_NCOUNTERS keys, not a walk of every
	 * interface's (at 1,000 interfaces the walk per interface made the
	 * start quadratic: 20,000 keys, 1,000 times) */
	for (i = 0; ifindex != 0 && i < KP_NCOUNTERS; i++) {
		k.ifindex = (uint32_t)ifindex;
		k.what = (uint32_t)i;
		if (bpf_map_lookup_elem(kp->fd_counters, &k, kp->pcpu) != 0)
			continue;
		for (c = 0; c < kp->ncpu; c++)
			out[i] += kp->pcpu[c];
	}
	while (ifindex == 0 && bpf_map_get_next_key(kp->fd_counters, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (k.what >= KP_NCOUNTERS || bpf_map_lookup_elem(kp->fd_counters, &k, kp->pcpu) != 0)
			continue;
		for (c = 0; c < kp->ncpu; c++)
			out[k.what] += kp->pcpu[c];
	}
	/* every frame seen has one outcome */
	for (i = KP_C_ANSWERED; i <= KP_C_PASS_TRIM; i++)
		out[KP_C_RX] += out[i];
	return 0;
}

struct cnt_one {
	uint32_t	ifindex, what;
	uint64_t	sum;
};

static int
cnt_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct cnt_one *)a)->ifindex, y = ((const struct cnt_one *)b)->ifindex;

	return x < y ? -1 : x > y;
}

int
kp_counters_all(struct kp *kp, kp_counters_fn *fn, void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	struct kp_cnt_key *keys;
	struct cnt_one *all = NULL, *na;
	uint64_t *vals, out[KP_NCOUNTERS];
	uint32_t in = 0, cnt, max = 1024;
	size_t n = 0, a = 0, i, j;
	bool first = true;
	int r, c, rc = 0;

	/* a few syscalls for every interface's counters (kp_counters once per
	 * interface is 20 lookups each: 20,000 for a status at 1,000) */
	keys = calloc(max, sizeof(*keys));
	vals = calloc((size_t)max * (size_t)kp->ncpu, sizeof(*vals));
	if (keys == NULL || vals == NULL) {
		rc = -1;
		goto out;
	}
	for (;;) {
		cnt = max;
		r = bpf_map_lookup_batch(kp->fd_counters, first ? NULL : &in, &in, keys, vals,
		    &cnt, &o);
		if (r != 0 && errno != ENOENT) {
			rc = -1;
			goto out;
		}
		first = false;
		if (n + cnt > a) {
			a = (n + cnt) * 2;
			if ((na = realloc(all, a * sizeof(*all))) == NULL) {
				rc = -1;
				goto out;
			}
			all = na;
		}
		for (i = 0; i < cnt; i++) {
			if (keys[i].what >= KP_NCOUNTERS)
				continue;
			all[n].ifindex = keys[i].ifindex;
			all[n].what = keys[i].what;
			all[n].sum = 0;
			for (c = 0; c < kp->ncpu; c++)
				all[n].sum += vals[i * (size_t)kp->ncpu + (size_t)c];
			n++;
		}
		if (r != 0)
			break;		/* ENOENT: that was the last of them */
	}
	if (n > 0)
		qsort(all, n, sizeof(*all), cnt_cmp);
	for (i = 0; i < n; i = j) {
		memset(out, 0, sizeof(out));
		for (j = i; j < n && all[j].ifindex == all[i].ifindex; j++)
			out[all[j].what] += all[j].sum;
		for (c = KP_C_ANSWERED; c <= KP_C_PASS_TRIM; c++)
			out[KP_C_RX] += out[c];
		fn(arg, (int)all[i].ifindex, out);
	}
out:
	free(keys);
	free(vals);
	free(all);
	return rc;
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
	[KP_C_PASS_RPF] = "pass-rpf",
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
