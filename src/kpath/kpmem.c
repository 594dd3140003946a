/* kpmem.c — what the kernel answer path's maps cost: the memory the
 * kernel charges for each (its memlock, as /proc/self/fdinfo shows it),
 * summed, for status and the metrics.  The maps are sized from the table
 * at the start; this is what that sizing came to. */
#include "config.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.skel.h"
#include "kpint.h"

/* memlock of one BPF map fd, in bytes; 0 when unreadable */
static uint64_t
memlock_of(int fd)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "memlock:", 8) == 0) {
			v = strtoull(line + 8, NULL, 10);	/* the kernel's own number */
			break;
		}
	fclose(f);
	return v;
}

uint64_t
kpm_map_bytes(const struct kp *kp)
{
	const struct bpf_map *m;
	uint64_t sum = 0;

	/* every map of the object: those named in kpint.h, the buckets,
	 * the event ring, the globals' */
	bpf_object__for_each_map(m, kp->skel->obj)
		sum += memlock_of(bpf_map__fd(m));
	return sum;
}
