/* kpbatch.c — many writes into one map, a syscall a few thousand of them
 * (BPF_MAP_UPDATE_BATCH, Linux 5.6): a start with 100,000 addresses made
 * 200,000 bpf() calls of one entry each, seconds of a virtual machine's
 * syscall cost.  Each entry's outcome is still told one by one (what a
 * full map refused is kept for later).  The kernel's batch stops at the
 * first entry it refuses; the ones after it are written on.  It takes no
 * BPF_NOEXIST (elem_flags: BPF_F_LOCK alone): a batch with it is written
 * one by one. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kpint.h"

#ifndef ENOTSUPP
#define ENOTSUPP	524	/* the kernel's own, for an op a map lacks */
#endif

int
kpb_init(struct kpb *b, int fd, size_t ksz, size_t vsz, uint64_t elem_flags, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->ksz = ksz;
	b->vsz = vsz;
	b->flags = elem_flags;
	b->max = max;
	b->keys = malloc(max * ksz);
	b->vals = malloc(max * vsz);
	b->tags = malloc(max * sizeof(*b->tags));
	if (b->keys == NULL || b->vals == NULL || b->tags == NULL) {
		kpb_free(b);
		return -1;
	}
	return 0;
}

void
kpb_free(struct kpb *b)
{
	free(b->keys);
	free(b->vals);
	free(b->tags);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

int
kpb_flush(struct kpb *b, kpb_done_fn *done, void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = b->flags);
	size_t at = 0, i;
	uint32_t count;
	int r, e, rc = 0;

	while (at < b->n) {
		count = (uint32_t)(b->n - at);
		r = bpf_map_update_batch(b->fd, (char *)b->keys + at * b->ksz,
		    (char *)b->vals + at * b->vsz, &count, &o);
		e = r != 0 ? errno : 0;
		if (r != 0 && (e == EINVAL || e == ENOTSUPP || e == EOPNOTSUPP)) {
			/* refused before any entry (no batch for this map, or
			 * these flags): count is not the kernel's; one by one */
			for (; at < b->n; at++) {
				r = bpf_map_update_elem(b->fd, (char *)b->keys + at * b->ksz,
				    (char *)b->vals + at * b->vsz, b->flags);
				done(arg, b->tags[at], (char *)b->keys + at * b->ksz,
				    r == 0 ? 0 : -1, r == 0 ? 0 : errno);
				if (r != 0)
					rc = -1;
			}
			break;
		}
		/* count: how many went in, in order; the next one (if any) failed */
		if (count > b->n - at)
			count = (uint32_t)(b->n - at);
		for (i = 0; i < count; i++)
			done(arg, b->tags[at + i], (char *)b->keys + (at + i) * b->ksz, 0, 0);
		at += count;
		if (r != 0 && at < b->n) {
			done(arg, b->tags[at], (char *)b->keys + at * b->ksz, -1, e);
			rc = -1;
			at++;
		}
	}
	b->n = 0;
	return rc;
}

int
kpb_put(struct kpb *b, const void *key, const void *val, uint64_t tag, kpb_done_fn *done,
    void *arg)
{
	int rc = 0;

	memcpy((char *)b->keys + b->n * b->ksz, key, b->ksz);
	memcpy((char *)b->vals + b->n * b->vsz, val, b->vsz);
	b->tags[b->n++] = tag;
	if (b->n == b->max)
		rc = kpb_flush(b, done, arg);
	return rc;
}
