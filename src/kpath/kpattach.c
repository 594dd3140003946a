/* kpattach.c — the kernel answer path on interfaces: its TC filter put
 * on (a batch of interfaces at a time, kptc.c does the rtnetlink side)
 * and taken off, each attached interface's counters made at zero and
 * dropped with it, the record of where it is. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "answer.skel.h"
#include "kpint.h"

static struct kp_att *
att_find(struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < kp->natt; i++)
		if (kp->att[i].ifindex == ifindex)
			return &kp->att[i];
	return NULL;
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
			util_seterr(why, whylen, 0, "out of memory");
			return -1;
		}
		kp->att = nv;
		kp->aatt = need;
	}
	if ((v = calloc(n, sizeof(*v))) == NULL) {
		util_seterr(why, whylen, 0, "out of memory");
		return -1;
	}
	/* counters before the program can count */
	for (i = 0; i < n; i++) {
		if (att_find(kp, ifindex[i]) != NULL)
			continue;
		if (kp_counters_make(kp, ifindex[i]) == -1) {
			util_seterr(why, whylen, 0, "ifindex %d: cannot make the counters: %s",
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
			util_seterr(why, whylen, 0, "%s: %s", v[i].what, strerror(v[i].err));
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
			util_seterr(why, whylen, 0, "not attached");
			return -1;
		}
	}
	if (others != NULL)
		*others = at->before;
	return 0;
}

/* Our filters off the interfaces of v (n of them), their entries gone. */
int
kp_detach_jobs(struct kp *kp, struct kpt_job *v, size_t n)
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
	return kp_detach_jobs(kp, &j, 1);
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
