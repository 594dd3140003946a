/* kpxdp.c — the kernel answer path at XDP: arpownd_xdp (answer.bpf.c,
 * xdp.bpf.h; the TC program's object and maps) put on an interface,
 * taken off, and what else sits at its XDP hook named.
 *
 * Through a BPF link (BPF_LINK_CREATE), not the netlink attach:
 * - a link is never put over another program: the kernel refuses it
 *   while any XDP program is on the interface, in either mode, and
 *   refuses a netlink attach over it; so arpownd never replaces, and is
 *   never silently replaced;
 * - a link goes with the last fd on it, the daemon's (made O_CLOEXEC):
 *   a killed daemon leaves no XDP program behind, and the interface is
 *   as before it came (the liveness check in the program stays, for the
 *   moment between the death and the fd's release).
 * libxdp's dispatcher (libxdp-dev 1.3.1 on Debian 12) was weighed and
 * is not used: it shares an interface only with programs loaded through
 * libxdp itself (a program attached otherwise still holds the hook), it
 * attaches the components with freplace, which needs the kernel's BTF
 * and CAP_SYS_ADMIN-era privileges at each change of the chain (gone
 * after the daemon's start), and it keeps its state pinned in bpffs,
 * where it outlives a killed daemon: the liveness a link gives for free
 * would be lost.  doc/kpath.md, "The XDP path". */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>

#include "answer.skel.h"
#include "kpint.h"

/* Every link of the namespace from one dump, kept until kp_uppers_forget:
 * the XDP program on it (anyone's), and whether it sits on another
 * (IFLA_LINK in this namespace: VLAN, macvlan, ipvlan; not a veth, whose
 * IFLA_LINK is its peer).  A start's thousand interfaces ask one dump,
 * not one each. */
struct lnk {
	int		ifindex;
	int		lower;		/* an upper device of lower; 0: none */
	uint32_t	xdp;		/* the XDP program's id on it; 0: none */
	char		name[IF_NAMESIZE];
};

static struct {
	struct lnk	*v;
	size_t		 n, a;
	bool		 valid;
} g_ln;

static int links_read(void);

/* One interface arpownd_xdp is on: the link's fd, the mode it got. */
struct kp_xatt {
	int	ifindex;
	int	fd;
	int	mode;		/* KP_XDP_NATIVE or KP_XDP_GENERIC */
};

static struct kp_xatt *
xatt_find(struct kp *kp, int ifindex)
{
	size_t i;

	for (i = 0; i < kp->nxatt; i++)
		if (kp->xatt[i].ifindex == ifindex)
			return &kp->xatt[i];
	return NULL;
}

/* The XDP programs' names read at the start (kp_xdp_names), while the
 * daemon may still read another's program: after the privilege drop only
 * their ids can be had. */
#define NAMES_KEEP	64
static struct {
	uint32_t	id;
	char		name[BPF_OBJ_NAME_LEN];
} g_names[NAMES_KEEP];
static size_t g_nnames;

/* Program id's own name into out (BPF_OBJ_NAME_LEN); 0, or -1 when it
 * cannot be read (another's program's fd takes CAP_SYS_ADMIN, gone
 * after the start) or has none. */
static int
info_name(uint32_t id, char *out)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	int fd, rc = -1;

	if ((fd = bpf_prog_get_fd_by_id(id)) < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0 && info.name[0] != '\0') {
		memcpy(out, info.name, BPF_OBJ_NAME_LEN);
		rc = 0;
	}
	close(fd);
	return rc;
}

/* The name of program id into name ("id N" when it cannot be read). */
static void
prog_name(uint32_t id, char *name, size_t len)
{
	char own[BPF_OBJ_NAME_LEN];
	size_t i;

	snprintf(name, len, "id %u", id);
	for (i = 0; i < g_nnames; i++)
		if (g_names[i].id == id) {
			snprintf(name, len, "%s (id %u)", g_names[i].name, id);
			return;
		}
	if (info_name(id, own) == 0)
		snprintf(name, len, "%.*s (id %u)", BPF_OBJ_NAME_LEN, own, id);
}

void
kp_xdp_names(void)
{
	size_t i;

	/* one dump of every link (at a thousand interfaces, a query each,
	 * itself a dump of every link, took seconds) */
	kp_uppers_forget();
	if (links_read() == -1)
		return;
	for (i = 0; i < g_ln.n && g_nnames < NAMES_KEEP; i++)
		if (g_ln.v[i].xdp != 0 && info_name(g_ln.v[i].xdp, g_names[g_nnames].name) == 0)
			g_names[g_nnames++].id = g_ln.v[i].xdp;
}

int
kp_xdp_other(int ifindex, char *name, size_t len)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	uint32_t id;

	if (name != NULL && len > 0)
		name[0] = '\0';
	if (bpf_xdp_query(ifindex, 0, &q) != 0)
		return -1;
	id = q.drv_prog_id != 0 ? q.drv_prog_id : q.skb_prog_id != 0 ? q.skb_prog_id :
	    q.hw_prog_id != 0 ? q.hw_prog_id : q.prog_id;
	if (id == 0)
		return 0;
	if (name != NULL && len > 0)
		prog_name(id, name, len);
	return (int)id;
}

/* A link of prog_fd at ifindex's XDP hook in mode (XDP_FLAGS_*): its fd,
 * or -1 with errno. */
static int
link_make(int prog_fd, int ifindex, unsigned flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .flags = flags);

	return bpf_link_create(prog_fd, ifindex, BPF_XDP, &o);
}

int
kp_xdp_attach(struct kp *kp, int ifindex, int mode, int *got, char *why, size_t whylen)
{
	int prog_fd = bpf_program__fd(kp->skel->progs.arpownd_xdp), fd = -1, e = 0;
	char other[64];
	struct kp_xatt *nv, *x;

	if ((x = xatt_find(kp, ifindex)) != NULL) {
		if (got != NULL)
			*got = x->mode;
		return 0;
	}
	if (kp->nxatt == kp->axatt) {
		size_t a = kp->axatt ? 2 * kp->axatt : 16;

		if ((nv = realloc(kp->xatt, a * sizeof(*nv))) == NULL) {
			util_seterr(why, whylen, 0, "out of memory");
			return -1;
		}
		kp->xatt = nv;
		kp->axatt = a;
	}
	/* the counters before the program can count.  No query for
	 * another program first (each is a dump of every link: at a
	 * thousand interfaces, seconds): the kernel refuses a link over
	 * one, in either mode, and the failure below names it */
	if (kp_counters_make(kp, ifindex) == -1) {
		util_seterr(why, whylen, 0, "cannot make the counters: %s", strerror(errno));
		return -1;
	}
	if (mode != KP_XDP_GENERIC) {
		fd = link_make(prog_fd, ifindex, XDP_FLAGS_DRV_MODE);
		e = errno;
		if (fd >= 0)
			mode = KP_XDP_NATIVE;
		else if (mode == KP_XDP_NATIVE || e == EEXIST || e == EBUSY)
			goto fail;
	}
	if (fd < 0) {
		/* the driver has no native XDP (or generic was asked for) */
		fd = link_make(prog_fd, ifindex, XDP_FLAGS_SKB_MODE);
		e = errno;
		mode = KP_XDP_GENERIC;
	}
	if (fd < 0)
		goto fail;
	kp->xatt[kp->nxatt].ifindex = ifindex;
	kp->xatt[kp->nxatt].fd = fd;
	kp->xatt[kp->nxatt++].mode = mode;
	if (got != NULL)
		*got = mode;
	return 0;
fail:
	kp_counters_drop(kp, ifindex);
	if ((e == EEXIST || e == EBUSY) && kp_xdp_other(ifindex, other, sizeof(other)) > 0)
		util_seterr(why, whylen, 0, "another XDP program is on it: %s", other);
	else if (e == EEXIST)
		/* none on it: the kernel allows no XDP program below an upper
		 * device that has one (a container's macvlan, whose namespace
		 * kp_uppers does not see) */
		util_seterr(why, whylen, 0, "an upper device of it (maybe in another "
		    "namespace) has an XDP program");
	else if (e == EOPNOTSUPP || e == EINVAL)
		util_seterr(why, whylen, 0, "its driver has no %s XDP: %s",
		    mode == KP_XDP_NATIVE ? "native" : "generic", strerror(e));
	else
		util_seterr(why, whylen, 0, "cannot attach at XDP: %s", strerror(e));
	errno = e;
	return -1;
}

int
kp_xdp_detach(struct kp *kp, int ifindex)
{
	struct kp_xatt *x = xatt_find(kp, ifindex);

	if (x == NULL)
		return 0;
	/* frames pass while the link goes; then the program is off */
	(void)kp_del_iface(kp, ifindex);
	close(x->fd);
	kp_counters_drop(kp, ifindex);
	*x = kp->xatt[--kp->nxatt];
	return 0;
}

void
kp_xdp_forget(struct kp *kp, int ifindex)
{
	struct kp_xatt *x = xatt_find(kp, ifindex);

	if (x == NULL)
		return;
	close(x->fd);		/* the device went, and the link's hold with it */
	kp_counters_drop(kp, ifindex);
	*x = kp->xatt[--kp->nxatt];
}

int
kp_xdp_mode(struct kp *kp, int ifindex)
{
	struct kp_xatt *x = xatt_find(kp, ifindex);

	return x != NULL ? x->mode : 0;
}

void
kp_xdp_close(struct kp *kp)
{
	while (kp->nxatt > 0)
		(void)kp_xdp_detach(kp, kp->xatt[kp->nxatt - 1].ifindex);
	free(kp->xatt);
	kp->xatt = NULL;
	kp->axatt = 0;
}

int
kp_xdp_purge(char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, o);
	char name[64];
	size_t i;
	int n = 0, fd;

	/* a link goes with its process; what a netlink attach left (a tool,
	 * or an arpownd that attached so) stays until it is taken off: by
	 * name, that very program (old_prog_fd), nothing else; the links
	 * from one dump (a query per interface is a dump each) */
	kp_uppers_forget();
	if (links_read() == -1) {
		util_seterr(why, whylen, 0, "cannot list the interfaces: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < g_ln.n; i++) {
		if (g_ln.v[i].xdp == 0)
			continue;
		prog_name(g_ln.v[i].xdp, name, sizeof(name));
		if (strncmp(name, KP_XDP_NAME " ", sizeof(KP_XDP_NAME)) != 0 ||
		    (fd = bpf_prog_get_fd_by_id(g_ln.v[i].xdp)) < 0)
			continue;
		o.old_prog_fd = fd;
		if (bpf_xdp_detach(g_ln.v[i].ifindex, XDP_FLAGS_REPLACE, &o) == 0 ||
		    bpf_xdp_detach(g_ln.v[i].ifindex, XDP_FLAGS_REPLACE | XDP_FLAGS_SKB_MODE, &o) == 0)
			n++;
		close(fd);
	}
	return n;
}

/* IFLA_XDP's program id, as kp_xdp_other reads it: the driver's, the
 * generic one, the offloaded one, else the one attached alone. */
static uint32_t
xdp_id(const struct nlattr *nest)
{
	uint32_t id[4] = { 0, 0, 0, 0 };
	const struct nlattr *a;
	int t;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) != 0)
			continue;
		t = mnl_attr_get_type(a);
		if (t == IFLA_XDP_DRV_PROG_ID)
			id[0] = mnl_attr_get_u32(a);
		else if (t == IFLA_XDP_SKB_PROG_ID)
			id[1] = mnl_attr_get_u32(a);
		else if (t == IFLA_XDP_HW_PROG_ID)
			id[2] = mnl_attr_get_u32(a);
		else if (t == IFLA_XDP_PROG_ID)
			id[3] = mnl_attr_get_u32(a);
	}
	return id[0] != 0 ? id[0] : id[1] != 0 ? id[1] : id[2] != 0 ? id[2] : id[3];
}

static int
links_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *li;
	const char *name = NULL, *kind = NULL;
	uint32_t xdp = 0;
	int lower = 0;
	bool other_ns = false;
	struct lnk *nv;

	(void)arg;
	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_LINK:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				lower = (int)mnl_attr_get_u32(a);
			break;
		case IFLA_LINK_NETNSID:
			other_ns = true;	/* its IFLA_LINK names another namespace's */
			break;
		case IFLA_IFNAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = mnl_attr_get_str(a);
			break;
		case IFLA_LINKINFO:
			mnl_attr_for_each_nested(li, a)
				if (mnl_attr_get_type(li) == IFLA_INFO_KIND &&
				    mnl_attr_validate(li, MNL_TYPE_NUL_STRING) == 0)
					kind = mnl_attr_get_str(li);
			break;
		case IFLA_XDP:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				xdp = xdp_id(a);
			break;
		default:
			break;
		}
	}
	if (lower == ifi->ifi_index || other_ns || (kind != NULL && strcmp(kind, "veth") == 0))
		lower = 0;
	if (g_ln.n == g_ln.a) {
		g_ln.a = g_ln.a ? 2 * g_ln.a : 64;
		if ((nv = realloc(g_ln.v, g_ln.a * sizeof(*nv))) == NULL)
			return -1;
		g_ln.v = nv;
	}
	g_ln.v[g_ln.n].ifindex = ifi->ifi_index;
	g_ln.v[g_ln.n].lower = lower;
	g_ln.v[g_ln.n].xdp = xdp;
	snprintf(g_ln.v[g_ln.n++].name, IF_NAMESIZE, "%s", name != NULL ? name : "?");
	return 0;
}

/* The snapshot, read when it is not; 0 or -1 with errno. */
static int
links_read(void)
{
	struct ifinfomsg ifi;

	if (g_ln.valid)
		return 0;
	g_ln.n = 0;
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	if (kpn_dump(RTM_GETLINK, &ifi, sizeof(ifi), links_cb, NULL) == -1)
		return -1;
	g_ln.valid = true;
	return 0;
}

void
kp_uppers_forget(void)
{
	g_ln.valid = false;
}

int
kp_uppers(int ifindex, char *name, size_t len)
{
	size_t i;
	int n = 0;

	if (name != NULL && len > 0)
		name[0] = '\0';
	if (links_read() == -1)
		return -1;
	for (i = 0; i < g_ln.n; i++)
		if (g_ln.v[i].lower == ifindex && n++ == 0 && name != NULL && len > 0)
			snprintf(name, len, "%s", g_ln.v[i].name);
	return n;
}
