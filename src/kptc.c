/* kptc.c — the kernel answer path's rtnetlink plumbing: one-shot requests
 * and dumps, and the TC side of an interface: the clsact qdisc and the
 * arpownd filter at its ingress, put there, taken off, and every one of
 * them purged from the namespace (for --restore after a crash).  Whose a
 * qdisc is: the one we made, or a killed run's (nothing in it but our
 * stale filters); anyone else's stays, with its filters. */
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

/* ------------------------------------------------------------- netlink */

struct nl_run {
	kpn_cb	*cb;
	void	*arg;
	int	 rc;
};

static int
nl_one(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *r = data;

	if (r->cb != NULL && r->cb(nlh, r->arg) == -1)
		r->rc = -1;
	return MNL_CB_OK;
}

/* Send req on a fresh rtnetlink socket and hand every reply to cb until
 * the dump is done or the ACK arrives; 0, or -1 with errno. */
static int
nl_talk(struct nlmsghdr *req, kpn_cb *cb, void *arg)
{
	struct mnl_socket *nl;
	struct nl_run r = { cb, arg, 0 };
	char *buf;
	size_t blen = MNL_SOCKET_BUFFER_SIZE > 32768 ? MNL_SOCKET_BUFFER_SIZE : 32768;
	unsigned portid, seq = (unsigned)time(NULL);
	ssize_t n;
	int ret, err = 0;

	if ((buf = malloc(blen)) == NULL)
		return -1;
	if ((nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL) {
		free(buf);
		return -1;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	portid = mnl_socket_get_portid(nl);
	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		goto fail;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, blen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, nl_one, &r);
		if (ret == MNL_CB_ERROR) {
			err = errno;
			goto fail;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
	mnl_socket_close(nl);
	free(buf);
	if (r.rc == -1) {
		errno = EIO;
		return -1;
	}
	return 0;
fail:
	if (err == 0)
		err = errno;
	mnl_socket_close(nl);
	free(buf);
	errno = err;
	return -1;
}

int
kpn_dump(uint16_t type, const void *hdr, size_t hdrlen, kpn_cb *cb, void *arg)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	memcpy(mnl_nlmsg_put_extra_header(nlh, hdrlen), hdr, hdrlen);
	return nl_talk(nlh, cb, arg);
}

/* ------------------------------------------------------------- TC */

struct tcf {
	int		 ifindex;
	uint32_t	 parent;
	/* out */
	uint32_t	 handle, prio;
	bool		 ours, found;
	int		 nfilters;
	/* purge: delete ours as they come */
	uint32_t	 del_handle[16], del_prio[16];
	int		 ndel;
};

static int
tcf_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct tcf *f = arg;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *o;
	const char *kind = NULL, *name = NULL;

	if (nlh->nlmsg_type != RTM_NEWTFILTER || mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm) ||
	    tcm->tcm_ifindex != f->ifindex || tcm->tcm_handle == 0)
		return 0;
	f->nfilters++;
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) == TCA_KIND && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			kind = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == TCA_OPTIONS)
			mnl_attr_for_each_nested(o, a)
				if (mnl_attr_get_type(o) == TCA_BPF_NAME &&
				    mnl_attr_validate(o, MNL_TYPE_NUL_STRING) == 0)
					name = mnl_attr_get_str(o);
	}
	/* libbpf names it "arpownd_answer:[ID]" */
	if (kind == NULL || strcmp(kind, "bpf") != 0 || name == NULL ||
	    strncmp(name, KP_PROG_NAME ":", sizeof(KP_PROG_NAME)) != 0) {
		if (tcm->tcm_handle == KP_TC_HANDLE && TC_H_MAJ(tcm->tcm_info) >> 16 == KP_TC_PRIO)
			f->found = true;	/* someone else's, at our place */
		return 0;
	}
	if (f->ndel < (int)(sizeof(f->del_handle) / sizeof(f->del_handle[0]))) {
		f->del_handle[f->ndel] = tcm->tcm_handle;
		f->del_prio[f->ndel++] = TC_H_MAJ(tcm->tcm_info) >> 16;
	}
	f->ours = true;
	return 0;
}

/* The filters on ifindex's clsact ingress (or egress); 0 or -1. */
static int
tc_filters(int ifindex, uint32_t min, struct tcf *f)
{
	struct tcmsg tcm;

	memset(f, 0, sizeof(*f));
	f->ifindex = ifindex;
	f->parent = TC_H_MAKE(TC_H_CLSACT, min);
	memset(&tcm, 0, sizeof(tcm));
	tcm.tcm_family = AF_UNSPEC;
	tcm.tcm_ifindex = ifindex;
	tcm.tcm_parent = f->parent;
	return kpn_dump(RTM_GETTFILTER, &tcm, sizeof(tcm), tcf_cb, f);
}

/* Is ifindex's clsact free of other filters than ours (ingress: n of them)? */
static bool
only_ours(int ifindex, int ours)
{
	struct tcf in, eg;

	return tc_filters(ifindex, TC_H_MIN_INGRESS, &in) == 0 &&
	    tc_filters(ifindex, TC_H_MIN_EGRESS, &eg) == 0 && in.nfilters == ours &&
	    eg.nfilters == 0;
}

int
kpt_attach(int ifindex, int prog_fd, bool *made, char *why, size_t whylen)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = KP_TC_HANDLE, .priority = KP_TC_PRIO,
	    .flags = BPF_TC_F_REPLACE);
	struct tcf f;
	int r, i;

	*made = false;
	r = bpf_tc_hook_create(&hook);
	if (r == 0)
		*made = true;
	else if (r != -EEXIST) {
		kp_setwhy(why, whylen, "cannot add the clsact qdisc: %s", strerror(-r));
		errno = -r;
		return -1;
	}
	if (tc_filters(ifindex, TC_H_MIN_INGRESS, &f) == -1) {
		r = errno;
		kp_setwhy(why, whylen, "cannot list the TC filters: %s", strerror(r));
		goto undo;
	}
	if (f.found) {
		kp_setwhy(why, whylen, "another program holds TC handle 0x%x prio 0x%x",
		    KP_TC_HANDLE, KP_TC_PRIO);
		r = EEXIST;
		goto undo;
	}
	/* A qdisc that holds nothing but stale filters of ours is a killed
	 * run's: ours to remove at stop, as if we had made it.  One with
	 * anything else in it is someone else's and stays. */
	if (!*made && f.ndel > 0 && only_ours(ifindex, f.ndel))
		*made = true;
	/* stale ones of ours elsewhere (another handle): gone first */
	for (i = 0; i < f.ndel; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = f.del_handle[i], .priority = f.del_prio[i]);

		if (f.del_handle[i] != KP_TC_HANDLE || f.del_prio[i] != KP_TC_PRIO)
			bpf_tc_detach(&hook, &d);
	}
	opts.prog_fd = prog_fd;
	if ((r = bpf_tc_attach(&hook, &opts)) != 0) {
		kp_setwhy(why, whylen, "cannot attach to TC ingress: %s", strerror(-r));
		r = -r;
		goto undo;
	}
	return 0;
undo:
	/* a qdisc made here for nothing goes (both hooks: libbpf's ingress
	 * destroy would only empty it) */
	if (*made) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
		*made = false;
	}
	errno = r;
	return -1;
}

int
kpt_detach(int ifindex, bool made)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = KP_TC_HANDLE, .priority = KP_TC_PRIO);
	int r = 0;

	if (bpf_tc_detach(&hook, &opts) != 0 && if_indextoname((unsigned)ifindex, (char[IF_NAMESIZE]){ 0 }))
		r = -1;
	/* the qdisc we made, when nothing else came to use it */
	if (made && only_ours(ifindex, 0)) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	return r;
}

struct purge {
	int	 n, err;
	int	*idx;
	size_t	 nidx, aidx;
};

static int
purge_link(const struct nlmsghdr *nlh, void *arg)
{
	struct purge *p = arg;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int *nv;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return 0;
	if (p->nidx == p->aidx) {
		p->aidx = p->aidx ? p->aidx * 2 : 64;
		if ((nv = realloc(p->idx, p->aidx * sizeof(*nv))) == NULL)
			return -1;
		p->idx = nv;
	}
	p->idx[p->nidx++] = ifi->ifi_index;
	return 0;
}

int
kp_purge(char *why, size_t whylen)
{
	struct purge p;
	struct ifinfomsg ifi;
	struct tcf f;
	size_t i;
	int k, gone;

	kp_log_setup();
	memset(&p, 0, sizeof(p));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	if (kpn_dump(RTM_GETLINK, &ifi, sizeof(ifi), purge_link, &p) == -1) {
		kp_setwhy(why, whylen, "cannot list the interfaces: %s", strerror(errno));
		free(p.idx);
		return -1;
	}
	for (i = 0; i < p.nidx; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = p.idx[i], .attach_point = BPF_TC_INGRESS);

		if (tc_filters(p.idx[i], TC_H_MIN_INGRESS, &f) == -1)
			continue;	/* no clsact there, or it went */
		for (gone = 0, k = 0; k < f.ndel; k++) {
			DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = f.del_handle[k],
			    .priority = f.del_prio[k]);

			if (bpf_tc_detach(&hook, &d) == 0)
				gone++;
			else {
				p.err = -1;
				kp_setwhy(why, whylen, "cannot remove the filter from ifindex %d",
				    p.idx[i]);
			}
		}
		p.n += gone;
		/* the qdisc left empty by our filters' going was the crashed
		 * run's (the daemon makes one where there is none): a qdisc
		 * with any other filter in it stays */
		if (gone > 0 && only_ours(p.idx[i], 0)) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
	}
	free(p.idx);
	return p.err == -1 ? -1 : p.n;
}
