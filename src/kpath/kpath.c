/* kpath.c — the in-kernel answer path's loader: loads the two programs
 * of src/kpath/bpf/answer.bpf.c (embedded as a bpftool skeleton), starts the
 * kernel's mirror (kpmirror.c), reads the events, and unloads it all;
 * kpattach.c attaches the answerer where the daemon asks (kptc.c does
 * the TC side), kpcount.c reads back the counters, kpgrant.c writes the
 * daemon's grants into the maps.
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

	kp_log_setup();
	klog[0] = '\0';
	if ((kp = calloc(1, sizeof(*kp))) == NULL) {
		util_seterr(why, whylen, 0, "out of memory");
		return NULL;
	}
	kp->watch_sock = kp->live_sock = -1;
	kp->user_id = USER_ID_BASE + 1;

	/* privileges, then features, asked before the load so that the
	 * reason is plain (libbpf's probes say "unsupported" for EPERM too) */
	if ((r = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL)) < 0) {
		e = errno;
		if (e == EPERM || e == EACCES)
			util_seterr(why, whylen, 0, "not permitted to use BPF (needs CAP_BPF and CAP_NET_ADMIN, "
			    "or root; the system call may also be filtered out)");
		else
			util_seterr(why, whylen, 0, "cannot create a BPF map: %s", strerror(e));
		goto fail;
	}
	close(r);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		util_seterr(why, whylen, 0, kernel_at_least(5, 8) ? "the kernel (%s) refused a BPF ring buffer" :
		    "kernel %s has no BPF ring buffer (needs Linux 5.8)", kernel_release());
		goto fail;
	}
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_loop, NULL) != 1) {
		util_seterr(why, whylen, 0, kernel_at_least(5, 17) ? "the kernel (%s) refused a TC program "
		    "calling bpf_loop (CAP_NET_ADMIN missing?)" :
		    "kernel %s has no bpf_loop (needs Linux 5.17)", kernel_release());
		goto fail;
	}
	if ((kp->skel = kp_bpf__open_opts(&oo)) == NULL) {
		util_seterr(why, whylen, 0, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (max_addrs == 0)
		max_addrs = KP_MAX_ALIVE;
	if (max_links == 0)
		max_links = KP_MAX_IFACES;
	if (max_addrs > (1u << 24) || max_links > (1u << 20)) {
		util_seterr(why, whylen, 0, "map sizes out of range (%u addresses, %u links)", max_addrs,
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
		util_seterr(why, whylen, 0, "cannot size the maps");
		goto fail;
	}
	if ((r = kp_bpf__load(kp->skel)) != 0) {
		e = -r;
		kp_log_tail(klog, tail, sizeof(tail));
		if (tail[0] != '\0')
			util_seterr(why, whylen, 0, "the kernel's verifier refused the program: %s%s", tail,
			    strstr(tail, "spilled pointer") != NULL ? " (this kernel needs CAP_PERFMON "
			    "for the load as well: see kernel-path.conf)" : "");
		else if (e == EPERM || e == EACCES)
			util_seterr(why, whylen, 0, "not permitted to load BPF programs (needs CAP_BPF and "
			    "CAP_NET_ADMIN): %s", strerror(e));
		else {
			kp_log_tail(kp_log_text(), tail, sizeof(tail));
			util_seterr(why, whylen, 0, "the kernel refused the BPF object (%s)%s%s", strerror(e),
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
		util_seterr(why, whylen, 0, "cannot count the CPUs");
		goto fail;
	}
	if (kp_counters_make(kp, 0) == -1) {
		util_seterr(why, whylen, 0, "cannot write the counters: %s", strerror(errno));
		goto fail;
	}
	memset(&cf, 0, sizeof(cf));
	if (getrandom(&cf.slot_k0, sizeof(cf.slot_k0), 0) != (ssize_t)sizeof(cf.slot_k0) ||
	    getrandom(&cf.slot_k1, sizeof(cf.slot_k1), 0) != (ssize_t)sizeof(cf.slot_k1)) {
		util_seterr(why, whylen, 0, "getrandom: the sender slots' key: %s", strerror(errno));
		goto fail;
	}
	if ((kp->live_sock = kpm_live_open(kp, &cf)) == -1) {
		util_seterr(why, whylen, 0, "cannot open the liveness socket (AF_INET UDP): %s", strerror(errno));
		goto fail;
	}
	if (kpm_write_conf(kp, &cf) == -1) {
		util_seterr(why, whylen, 0, "cannot write the configuration map: %s", strerror(errno));
		goto fail;
	}
	if ((kp->watch_sock = kpm_watch_open(kp)) == -1) {
		util_seterr(why, whylen, 0, "cannot start the netlink watcher: %s", strerror(errno));
		goto fail;
	}
	/* its ids kept for the start's grants (kp_batch), not looked up
	 * one by one */
	kp->keep_ids = true;
	if (kpm_resync(kp, false) == -1) {
		util_seterr(why, whylen, 0, "cannot read the kernel's links and addresses: %s", strerror(errno));
		goto fail;
	}
	kp->keep_ids = false;
	kp->rb = ring_buffer__new(bpf_map__fd(kp->skel->maps.kp_events), on_event, kp, NULL);
	if (kp->rb == NULL) {
		util_seterr(why, whylen, 0, "cannot map the event ring: %s", strerror(errno));
		goto fail;
	}
	return kp;
fail:
	kp_close(kp);
	return NULL;
}

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
			(void)kp_detach_jobs(kp, v, kp->natt);
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

/* ---------------------------------------------------------------- events */

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
