/* kptc.c — the kernel answer path's TC side of the interfaces (over
 * kpnl.c's rtnetlink socket): the arpownd filter at each one's
 * clsact ingress (the qdisc made where there is none), put there, taken
 * off, and every one of them purged from the namespace (at a start, and
 * for --restore after a crash).  Anyone else's filters, and every qdisc,
 * stay as they are.
 *
 * The requests are rtnetlink's own, written here rather than through
 * libbpf's bpf_tc_hook_create/bpf_tc_attach/bpf_tc_detach: those open a
 * socket and wait for its answer once per call, five or six syscalls and
 * a round trip an interface; at 1,000 interfaces that was most of the
 * start and the stop.  Here one socket serves them all, a qdisc dump says
 * which interfaces have a clsact at all (a fresh host: none, so no filter
 * list to read), and the creates go out many at a time before their
 * acknowledgements are read. */
#include "config.h"

#include <errno.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/if_ether.h>

#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>

#include "kpint.h"

#ifndef TC_H_CLSACT
#define TC_H_CLSACT		TC_H_INGRESS
#endif
#ifndef TC_H_MIN_INGRESS
#define TC_H_MIN_INGRESS	0xFFF2U
#define TC_H_MIN_EGRESS		0xFFF3U
#endif

/* ------------------------------------------------------------- TC */

/*
 * What arpownd owns on a clsact qdisc: its filters, recognised by the
 * name of their program (KP_PROG_NAME), at ingress; nothing else.  Its
 * own go at handle KP_TC_HANDLE, preference KP_TC_PRIO (the last one, so
 * that every other filter runs first); a killed run's are found by name
 * wherever they sit.  A filter of anyone else's is never removed,
 * replaced or moved, and a qdisc never removed: deleting a clsact deletes
 * every filter in it, and the kernel has no "delete it if empty", so
 * between our look and our delete another program's filter could land
 * and be lost with it.  An empty clsact costs nothing per packet (its
 * hook is off while it holds no filter).
 */
struct tcf {
	int		 ifindex;
	uint32_t	 parent;
	/* out */
	bool		 found;		/* someone else's at our handle and preference */
	int		 nfilters, foreign;
	/* ours (by name): handle, preference, program id */
	uint32_t	 our_handle[16], our_prio[16], our_id[16];
	int		 nours;
};
static int
tcf_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct tcf *f = arg;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *o;
	const char *kind = NULL, *name = NULL;
	uint32_t id = 0;

	if (nlh->nlmsg_type != RTM_NEWTFILTER || mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm) ||
	    tcm->tcm_ifindex != f->ifindex || tcm->tcm_handle == 0)
		return 0;
	f->nfilters++;
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) == TCA_KIND && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			kind = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == TCA_OPTIONS)
			mnl_attr_for_each_nested(o, a) {
				if (mnl_attr_get_type(o) == TCA_BPF_NAME &&
				    mnl_attr_validate(o, MNL_TYPE_NUL_STRING) == 0)
					name = mnl_attr_get_str(o);
				else if (mnl_attr_get_type(o) == TCA_BPF_ID &&
				    mnl_attr_validate(o, MNL_TYPE_U32) == 0)
					id = mnl_attr_get_u32(o);
			}
	}
	/* libbpf names it "arpownd_answer:[ID]" */
	if (kind == NULL || strcmp(kind, "bpf") != 0 || name == NULL ||
	    strncmp(name, KP_PROG_NAME ":", sizeof(KP_PROG_NAME)) != 0) {
		f->foreign++;
		if (tcm->tcm_handle == KP_TC_HANDLE && TC_H_MAJ(tcm->tcm_info) >> 16 == KP_TC_PRIO)
			f->found = true;	/* someone else's, at our place */
		return 0;
	}
	if (f->nours < (int)(sizeof(f->our_id) / sizeof(f->our_id[0]))) {
		f->our_handle[f->nours] = tcm->tcm_handle;
		f->our_prio[f->nours] = TC_H_MAJ(tcm->tcm_info) >> 16;
		f->our_id[f->nours++] = id;
	}
	return 0;
}

/* The filters on ifindex's clsact at parent (ingress or egress), over s;
 * 0 or -1. */
static int
tc_filters_at(struct kpn_sock *s, int ifindex, uint32_t parent, struct tcf *f)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	memset(f, 0, sizeof(*f));
	f->ifindex = ifindex;
	f->parent = parent;
	nlh->nlmsg_type = RTM_GETTFILTER;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = f->parent;
	return kpn_dump_on(s, nlh, tcf_cb, f);
}

/* The filters on ifindex's clsact ingress, over s; 0 or -1. */
static int
tc_filters(struct kpn_sock *s, int ifindex, struct tcf *f)
{
	return tc_filters_at(s, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), f);
}

/* The interfaces that have a clsact qdisc (one dump for all of them). */
struct clsacts {
	int	*v;
	size_t	 n, a;
};

static int
clsact_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct clsacts *c = arg;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	int *nv;

	if (nlh->nlmsg_type != RTM_NEWQDISC || mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm) ||
	    tcm->tcm_parent != TC_H_CLSACT)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*tcm))
		if (mnl_attr_get_type(a) == TCA_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 &&
		    strcmp(mnl_attr_get_str(a), "clsact") == 0) {
			if (c->n == c->a) {
				c->a = c->a ? c->a * 2 : 64;
				if ((nv = realloc(c->v, c->a * sizeof(*nv))) == NULL)
					return -1;
				c->v = nv;
			}
			c->v[c->n++] = tcm->tcm_ifindex;
		}
	return 0;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static int
clsacts_read(struct kpn_sock *s, struct clsacts *c)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	memset(c, 0, sizeof(*c));
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	if (kpn_dump_on(s, nlh, clsact_cb, c) == -1) {
		free(c->v);
		return -1;
	}
	if (c->n > 1)	/* c->v is NULL while there is none */
		qsort(c->v, c->n, sizeof(*c->v), cmp_int);
	return 0;
}

static bool
has_clsact(const struct clsacts *c, int ifindex)
{
	return c->n > 0 && bsearch(&ifindex, c->v, c->n, sizeof(*c->v), cmp_int) != NULL;
}

/* A request's header in slot: type, flags, a tcmsg for ifindex. */
static struct nlmsghdr *
tc_req(char *slot, uint16_t type, uint16_t flags, int ifindex, uint32_t handle,
    uint32_t parent, uint32_t info)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(slot);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle;
	tcm->tcm_parent = parent;
	tcm->tcm_info = info;
	return nlh;
}

/* Delete a filter of ours at handle and preference prio, on ifindex's ingress. */
static void
del_req(char *slot, int ifindex, uint32_t handle, uint32_t prio)
{
	struct nlmsghdr *nlh = tc_req(slot, RTM_DELTFILTER, 0, ifindex, handle,
	    TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), TC_H_MAKE(prio << 16, htons(ETH_P_ALL)));

	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
}

/* A growing array of request slots, and which job each is for. */
struct reqs {
	char	*v;
	size_t	*job;
	size_t	 n, a;
};

static char *
req_slot(struct reqs *r, size_t job)
{
	char *nv;
	size_t *nj;

	if (r->n == r->a) {
		r->a = r->a ? r->a * 2 : 64;
		if ((nv = realloc(r->v, r->a * KPN_REQ)) == NULL)
			return NULL;
		r->v = nv;
		if ((nj = realloc(r->job, r->a * sizeof(*nj))) == NULL)
			return NULL;
		r->job = nj;
	}
	r->job[r->n] = job;
	memset(r->v + r->n * KPN_REQ, 0, KPN_REQ);
	return r->v + r->n++ * KPN_REQ;
}

/* Send r's requests; each failure noted on its job as what (ignoring
 * errno ok), r emptied.  0, or -1 when the socket failed. */
static int
run_reqs(struct kpn_sock *s, struct reqs *r, struct kpt_job *v, const char *what, int ok)
{
	int *err;
	size_t i;
	int rc;

	if (r->n == 0)
		return 0;
	if ((err = calloc(r->n, sizeof(*err))) == NULL)
		return -1;
	rc = kpn_run(s, r->v, r->n, err);
	for (i = 0; i < r->n; i++)
		if (err[i] != 0 && err[i] != ok && v[r->job[i]].err == 0) {
			v[r->job[i]].err = err[i];
			v[r->job[i]].what = what;
		}
	free(err);
	r->n = 0;
	return rc;
}

static void
reqs_free(struct reqs *r)
{
	free(r->v);
	free(r->job);
}

int
kpt_attach_all(int prog_fd, const char *name, struct kpt_job *v, size_t n)
{
	struct clsacts c;
	struct reqs r = { NULL, NULL, 0, 0 };
	struct nlmsghdr *nlh;
	struct nlattr *opt;
	struct kpn_sock s;
	struct tcf f;
	char *slot;
	size_t i;
	int k, rc = -1;

	for (i = 0; i < n; i++) {
		v[i].err = 0;
		v[i].what = NULL;
		v[i].before = 0;
	}
	if (kpn_open(&s) == -1)
		goto fail_all;
	if (clsacts_read(&s, &c) == -1) {
		kpn_close(&s);
		goto fail_all;
	}
	/* a clsact there: what sits on it (ours from a killed run go, by
	 * name, wherever they sit; someone else's at our place stops us);
	 * none: made, exclusively (one made meanwhile is fine) */
	for (i = 0; i < n; i++) {
		if (!has_clsact(&c, v[i].ifindex)) {
			if ((slot = req_slot(&r, i)) == NULL)
				goto out;
			nlh = tc_req(slot, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, v[i].ifindex,
			    TC_H_MAKE(TC_H_CLSACT, 0), TC_H_CLSACT, 0);
			mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
			continue;
		}
		if (tc_filters(&s, v[i].ifindex, &f) == -1) {
			v[i].err = errno;
			v[i].what = "cannot list the TC filters";
			continue;
		}
		if (f.found) {
			v[i].err = EEXIST;
			v[i].what = "another program holds our TC handle and preference";
			continue;
		}
		v[i].before = f.foreign;
		for (k = 0; k < f.nours; k++) {
			if ((slot = req_slot(&r, i)) == NULL)
				goto out;
			del_req(slot, v[i].ifindex, f.our_handle[k], f.our_prio[k]);
		}
	}
	if (run_reqs(&s, &r, v, "cannot add the clsact qdisc, or remove a previous run's "
	    "filter", EEXIST) == -1)
		goto out;
	/* made exclusively (NLM_F_EXCL, no replace): what came to our place
	 * meanwhile is never replaced */
	for (i = 0; i < n; i++) {
		if (v[i].err != 0)
			continue;
		if ((slot = req_slot(&r, i)) == NULL)
			goto out;
		nlh = tc_req(slot, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, v[i].ifindex,
		    KP_TC_HANDLE, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		    TC_H_MAKE(KP_TC_PRIO << 16, htons(ETH_P_ALL)));
		mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
		opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
		mnl_attr_put_u32(nlh, TCA_BPF_FD, (uint32_t)prog_fd);
		mnl_attr_put_strz(nlh, TCA_BPF_NAME, name);
		mnl_attr_put_u32(nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
		mnl_attr_nest_end(nlh, opt);
	}
	if (run_reqs(&s, &r, v, "cannot attach to TC ingress", 0) == -1)
		goto out;
	rc = 0;
	for (i = 0; i < n; i++)
		if (v[i].err != 0)
			rc = -1;
out:
	/* the socket failed half-way: nothing after it is known to be done */
	for (i = 0; rc == -1 && i < n; i++)
		if (v[i].err == 0 && v[i].what == NULL) {
			v[i].err = EIO;
			v[i].what = "rtnetlink failed on the way";
		}
	reqs_free(&r);
	free(c.v);
	kpn_close(&s);
	return rc;
fail_all:
	for (i = 0; i < n; i++) {
		v[i].err = errno != 0 ? errno : EIO;
		v[i].what = "cannot talk to rtnetlink";
	}
	return -1;
}

int
kpt_detach_all(uint32_t prog_id, struct kpt_job *v, size_t n)
{
	struct reqs r = { NULL, NULL, 0, 0 };
	struct kpn_sock s;
	struct tcf f;
	char *slot;
	size_t i;
	int k, rc = 0;

	if (kpn_open(&s) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		v[i].err = 0;
		v[i].what = NULL;
		/* the device gone: its filters went with it */
		if (tc_filters(&s, v[i].ifindex, &f) == -1) {
			if (if_indextoname((unsigned)v[i].ifindex, (char[IF_NAMESIZE]){ 0 }) != NULL) {
				v[i].err = errno;
				v[i].what = "cannot list the TC filters";
				rc = -1;
			}
			continue;
		}
		/* the filters of our program, by id: nothing else */
		for (k = 0; k < f.nours; k++) {
			if (f.our_id[k] != prog_id)
				continue;
			if ((slot = req_slot(&r, i)) == NULL) {
				rc = -1;
				goto out;
			}
			del_req(slot, v[i].ifindex, f.our_handle[k], f.our_prio[k]);
		}
	}
	if (run_reqs(&s, &r, v, "cannot remove the filter", ENOENT) == -1)
		rc = -1;
	for (i = 0; i < n; i++)
		if (v[i].err != 0)
			rc = -1;
out:
	reqs_free(&r);
	kpn_close(&s);
	return rc;
}

int
kp_tc_others(int ifindex)
{
	struct kpn_sock s;
	struct tcf f;
	int n;

	/* someone else's filters at its clsact ingress (they see a request
	 * before arpownd at TC) and egress (they see its reply: an XDP_TX
	 * one goes past them), arpownd's own (by name) not counted; no
	 * clsact there: the dump is empty (the kernel finds no qdisc and
	 * lists nothing), no qdisc dump needed */
	if (kpn_open(&s) == -1)
		return -1;
	n = -1;
	if (tc_filters(&s, ifindex, &f) == 0) {
		int in = f.foreign;

		if (tc_filters_at(&s, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS), &f) == 0)
			n = in + f.foreign;
	}
	kpn_close(&s);
	return n;
}

int
kp_purge(char *why, size_t whylen)
{
	struct reqs r = { NULL, NULL, 0, 0 };
	struct kpt_job *v = NULL;
	struct clsacts c;
	struct kpn_sock s;
	struct tcf f;
	char *slot;
	size_t i;
	int k, n = 0, rc = 0;

	kp_log_setup();
	if (kpn_open(&s) == -1 || clsacts_read(&s, &c) == -1) {
		util_seterr(why, whylen, 0, "cannot list the qdiscs: %s", strerror(errno));
		kpn_close(&s);
		return -1;
	}
	/* ours by name, whatever their place, only where there is a clsact;
	 * the qdisc stays (kpt_attach_all) */
	if (c.n > 0 && (v = calloc(c.n, sizeof(*v))) == NULL) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		v[i].ifindex = c.v[i];
		if (tc_filters(&s, c.v[i], &f) == -1)
			continue;	/* it went */
		for (k = 0; k < f.nours; k++) {
			if ((slot = req_slot(&r, i)) == NULL) {
				rc = -1;
				goto out;
			}
			del_req(slot, c.v[i], f.our_handle[k], f.our_prio[k]);
			n++;
		}
	}
	if (run_reqs(&s, &r, v, "cannot remove the filter", ENOENT) == -1)
		rc = -1;
	for (i = 0; i < c.n; i++)
		if (v[i].err != 0) {
			rc = -1;
			util_seterr(why, whylen, 0, "cannot remove the filter from ifindex %d: %s",
			    v[i].ifindex, strerror(v[i].err));
		}
out:
	reqs_free(&r);
	free(v);
	free(c.v);
	kpn_close(&s);
	if (rc == -1 && (why == NULL || why[0] == '\0'))
		util_seterr(why, whylen, 0, "out of memory");
	return rc == -1 ? -1 : n;
}
