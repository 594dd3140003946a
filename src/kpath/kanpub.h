/* kanpub.h — the published set as the kernel answer path holds it: the
 * CIDRs of each entry on each interface the program is on. */
#ifndef ARPOWND_KANPUB_H
#define ARPOWND_KANPUB_H

#include <stdbool.h>
#include <stddef.h>

struct kp;
struct kpf_pub;
struct pub;
struct tbl;

/* What is written now, sorted. */
struct kanpub {
	struct kpf_pub	*v;
	size_t		 n;
};

/* Is the program on ifindex? */
typedef bool kanpub_on_fn(void *arg, int ifindex);

/* Make the written CIDRs what p publishes on the interfaces on() says
 * the program is on: the stale ones deleted first (a withdraw is never
 * answered once it returned), then every wanted one written. */
void kanpub_sync(struct kanpub *s, struct kp *kp, const struct tbl *t, const struct pub *p,
    kanpub_on_fn *on, void *arg);
/* ifindex is gone: delete what was written there (the next sync forgets it). */
void kanpub_forget(struct kanpub *s, struct kp *kp, int ifindex);
/* Free what s holds (the maps are left as they are). */
void kanpub_free(struct kanpub *s);

#endif
