/* kpcount.c — the kernel answer path's counters: per interface and
 * per CPU in kp_counters, made at zero when an interface is attached,
 * dropped when it goes, read one interface at a time or all at once
 * (one batched lookup), and their names. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kpint.h"

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
