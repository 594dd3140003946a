/* kptc.c — the kernel answer path's rtnetlink plumbing: one-shot requests
 * and dumps, and the TC side of an interface: the arpownd filter at its
 * clsact ingress (the qdisc made where there is none), put there, taken
 * off, and every one of them purged from the namespace (at a start, and
 * for --restore after a crash).  Anyone else's filters, and every qdisc,
 * stay as they are. */
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

/* The filters on ifindex's clsact ingress; 0 or -1. */
static int
tc_filters(int ifindex, struct tcf *f)
{
	struct tcmsg tcm;

	memset(f, 0, sizeof(*f));
	f->ifindex = ifindex;
	f->parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS);
	memset(&tcm, 0, sizeof(tcm));
	tcm.tcm_family = AF_UNSPEC;
	tcm.tcm_ifindex = ifindex;
	tcm.tcm_parent = f->parent;
	return kpn_dump(RTM_GETTFILTER, &tcm, sizeof(tcm), tcf_cb, f);
}

/* Remove the filters of ours f lists (all of them, or program id's
 * alone); how many went, -1 when one would not. */
static int
tc_remove(int ifindex, const struct tcf *f, uint32_t id)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	int i, n = 0, err = 0;

	for (i = 0; i < f->nours; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = f->our_handle[i],
		    .priority = f->our_prio[i]);

		if (id != 0 && f->our_id[i] != id)
			continue;
		if (bpf_tc_detach(&hook, &d) == 0)
			n++;
		else
			err = -1;
	}
	return err == -1 ? -1 : n;
}

int
kpt_attach(int ifindex, int prog_fd, int *before, char *why, size_t whylen)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	/* no BPF_TC_F_REPLACE: made exclusively (NLM_F_EXCL), so that what
	 * came to our place meanwhile is never replaced */
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = KP_TC_HANDLE, .priority = KP_TC_PRIO);
	struct tcf f;
	int r;

	*before = 0;
	r = bpf_tc_hook_create(&hook);
	if (r != 0 && r != -EEXIST) {
		kp_setwhy(why, whylen, "cannot add the clsact qdisc: %s", strerror(-r));
		errno = -r;
		return -1;
	}
	if (tc_filters(ifindex, &f) == -1) {
		r = errno;
		kp_setwhy(why, whylen, "cannot list the TC filters: %s", strerror(r));
		errno = r;
		return -1;
	}
	if (f.found) {
		kp_setwhy(why, whylen, "another program holds TC handle 0x%x pref %u",
		    KP_TC_HANDLE, KP_TC_PRIO);
		errno = EEXIST;
		return -1;
	}
	/* a killed run's, wherever it sits (an older version's preference
	 * too): gone first, by name */
	if (f.nours > 0 && tc_remove(ifindex, &f, 0) == -1) {
		kp_setwhy(why, whylen, "cannot remove a previous run's filter");
		errno = EBUSY;
		return -1;
	}
	opts.prog_fd = prog_fd;
	if ((r = bpf_tc_attach(&hook, &opts)) != 0) {
		kp_setwhy(why, whylen, "cannot attach to TC ingress: %s", strerror(-r));
		errno = -r;
		return -1;
	}
	*before = f.foreign;
	return 0;
}

int
kpt_detach(int ifindex, uint32_t prog_id)
{
	struct tcf f;

	/* the device gone: its filters went with it */
	if (tc_filters(ifindex, &f) == -1)
		return if_indextoname((unsigned)ifindex, (char[IF_NAMESIZE]){ 0 }) != NULL ? -1 : 0;
	return tc_remove(ifindex, &f, prog_id) == -1 ? -1 : 0;
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
	int gone;

	kp_log_setup();
	memset(&p, 0, sizeof(p));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	if (kpn_dump(RTM_GETLINK, &ifi, sizeof(ifi), purge_link, &p) == -1) {
		kp_setwhy(why, whylen, "cannot list the interfaces: %s", strerror(errno));
		free(p.idx);
		return -1;
	}
	/* ours by name, whatever their place; the qdisc stays (kpt_attach) */
	for (i = 0; i < p.nidx; i++) {
		if (tc_filters(p.idx[i], &f) == -1 || f.nours == 0)
			continue;	/* no clsact there, or it went */
		if ((gone = tc_remove(p.idx[i], &f, 0)) == -1) {
			p.err = -1;
			kp_setwhy(why, whylen, "cannot remove the filter from ifindex %d", p.idx[i]);
			continue;
		}
		p.n += gone;
	}
	free(p.idx);
	return p.err == -1 ? -1 : p.n;
}
