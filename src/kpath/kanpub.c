/* kanpub.c — the published set as the kernel answer path holds it: each
 * entry's ranges as CIDRs (kpf_pub), on each interface the program is
 * on, in its LPM trie (a /16 is one entry); written and withdrawn as the
 * set or those interfaces change.  An address an interface holds
 * meanwhile is refused by the program itself (its "one of ours" marker),
 * as pol_decide refuses it: no per-address work here. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kanpub.h"
#include "kpath.h"
#include "kpfeed.h"
#include "log.h"
#include "table.h"

static int
cmp(const void *a, const void *b)
{
	const struct kpf_pub *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->addr != y->addr)
		return ntohl(x->addr) < ntohl(y->addr) ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

struct want {
	const struct pub	*p;
	kanpub_on_fn		*on;
	void			*arg;
	struct kpf_pub		*v;
	size_t			 n, a;
	bool			 oom;
};

static int
want_cb(struct tbl_iface *ifp, void *arg)
{
	struct want *w = arg;
	struct kpf_pub *v;
	size_t n;

	if (!w->on(w->arg, ifp->ifindex))
		return 0;
	if ((n = kpf_pub(w->p, ifp, NULL, 0)) == 0)
		return 0;	/* nothing here (and w->v may be NULL yet) */
	if (w->n + n > w->a) {
		w->a = w->n + n + 64;
		if ((v = realloc(w->v, w->a * sizeof(*v))) == NULL) {
			w->oom = true;
			return 1;
		}
		w->v = v;
	}
	w->n += kpf_pub(w->p, ifp, w->v + w->n, w->a - w->n);
	return 0;
}

void
kanpub_sync(struct kanpub *s, struct kp *kp, const struct tbl *t, const struct pub *p,
    kanpub_on_fn *on, void *arg)
{
	struct want w = { p, on, arg, NULL, 0, 0, false };
	size_t i, j;

	if (p != NULL)
		tbl_iface_each(t, want_cb, &w);
	if (w.oom) {
		/* not knowing what to grant, grant nothing: the capture answers */
		w.n = 0;
		log_warnx("kernel answer path: out of memory; published addresses left "
		    "to the capture path");
	}
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), cmp);
	for (i = 0, j = 0; i < s->n; i++) {
		while (j < w.n && cmp(&w.v[j], &s->v[i]) < 0)
			j++;
		if (j == w.n || cmp(&w.v[j], &s->v[i]) != 0)
			(void)kp_del_pub(kp, s->v[i].ifindex, s->v[i].addr, s->v[i].len);
	}
	/* every one again: cheap (CIDRs), and one a full trie refused is
	 * tried again so (kanroom.c calls this when there is room) */
	for (j = 0; j < w.n; j++)
		if (kp_set_pub(kp, w.v[j].ifindex, w.v[j].addr, w.v[j].len,
		    w.v[j].has_mac ? w.v[j].mac : NULL) == -1 && errno != E2BIG)
			(void)kp_del_pub(kp, w.v[j].ifindex, w.v[j].addr, w.v[j].len);
	free(s->v);
	s->v = w.v;
	s->n = w.n;
}

void
kanpub_forget(struct kanpub *s, struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].ifindex == ifindex)
			(void)kp_del_pub(kp, ifindex, s->v[i].addr, s->v[i].len);
}

void
kanpub_free(struct kanpub *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
