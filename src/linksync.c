/* linksync.c — rtnetlink messages into the table.  One message at a time,
 * in the order the kernel sent them: a link's name, MAC, flags, master
 * and devconf as it last described them; address entries as it holds
 * them.  Nothing here logs, manages or announces: it says what changed
 * and the features decide (sync.c), so the rules are unit-tested
 * without a socket. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "linksync.h"

static void
on_link(struct tbl *t, const struct rtnl_msg *m, unsigned gen, bool dumping,
    struct ls_change *c)
{
	struct tbl_iface *ifp = tbl_iface(t, m->ifindex);
	bool isnew = ifp == NULL;

	if (m->kind == RTNL_DELLINK) {
		if (ifp == NULL)
			return;
		c->what = LS_GONE;
		c->was_managed = ifp->managed;
		memcpy(c->oldname, ifp->name, sizeof(c->oldname));
		tbl_iface_del(t, m->ifindex);
		return;
	}
	if (ifp == NULL && (ifp = tbl_iface_add(t, m->ifindex)) == NULL) {
		c->what = LS_NOMEM;
		return;
	}
	c->ifp = ifp;
	if (isnew)
		c->what |= LS_NEW;
	ifp->gen = gen;
	/* a rename: records keyed by ifindex follow it */
	if (strcmp(ifp->name, m->name) != 0) {
		if (!isnew) {
			c->what |= LS_RENAMED;
			memcpy(c->oldname, ifp->name, sizeof(c->oldname));
		}
		memcpy(ifp->name, m->name, sizeof(ifp->name));
	}
	if (m->has_mac && memcmp(ifp->mac, m->mac, 6) != 0) {
		if (!isnew)
			c->what |= LS_MAC;
		memcpy(ifp->mac, m->mac, 6);
	}
	if (!isnew && ((ifp->flags ^ m->flags) & IFF_UP))
		c->what |= LS_UPDOWN;
	if (!isnew && (m->flags & LS_LINK_READY) == LS_LINK_READY &&
	    (ifp->flags & LS_LINK_READY) != LS_LINK_READY)
		c->what |= LS_READY;
	if (m->has_xdp) {
		if (!isnew && ifp->xdp_id != m->xdp_id)
			c->what |= LS_XDP;
		ifp->xdp_id = m->xdp_id;
	}
	ifp->type = m->type;
	ifp->flags = m->flags;
	ifp->master = m->master;
	memcpy(ifp->kind, m->link_kind, sizeof(ifp->kind));
	memcpy(ifp->slave_kind, m->slave_kind, sizeof(ifp->slave_kind));
	/* Link messages queued before our RTM_SETLINK still show the old
	 * values; believe them again once the kernel echoed ours, or when a
	 * dump says what is (a down link sends no echo at all: else a value
	 * rewritten there would never be seen, nor healed). */
	if (m->has_conf) {
		if (dumping || (ifp->conf_pending && m->arp_ignore == ifp->arp_ignore &&
		    m->arp_announce == ifp->arp_announce))
			ifp->conf_pending = false;
		if (!ifp->conf_pending) {
			ifp->arp_ignore = m->arp_ignore;
			ifp->arp_announce = m->arp_announce;
		}
		ifp->rp_filter = m->rp_filter;
		ifp->arp_filter = m->arp_filter;
		ifp->conf_known = true;
	}
}

static void
on_addr(struct tbl *t, const struct rtnl_msg *m, struct ls_change *c)
{
	struct tbl_iface *ifp = tbl_iface(t, m->ifindex);
	int r;

	c->addr = m->addr;
	c->prefix = m->prefix;
	c->plen = m->plen;
	if (m->kind == RTNL_DELADDR) {
		if (ifp == NULL || tbl_addr_del(t, m->ifindex, m->addr, m->prefix, m->plen) != 1)
			return;
		c->ifp = ifp;
		c->what = LS_ADDR_REMOVED;
		if (!tbl_addr_on(t, m->ifindex, m->addr))
			c->what |= LS_ADDR_LAST;
		return;
	}
	/* the link message always comes first; be safe if it did not */
	if (ifp == NULL && (ifp = tbl_iface_add(t, m->ifindex)) == NULL) {
		c->what = LS_NOMEM;
		return;
	}
	c->ifp = ifp;
	if ((r = tbl_addr_add(t, m->ifindex, m->addr, m->prefix, m->plen)) == -1)
		c->what = LS_NOMEM;
	else if (r == 1)
		c->what = LS_ADDR_ADDED;
}

void
ls_apply(struct tbl *t, const struct rtnl_msg *m, unsigned gen, bool dumping,
    struct ls_change *c)
{
	memset(c, 0, sizeof(*c));
	c->ifindex = m->ifindex;
	switch (m->kind) {
	case RTNL_NEWLINK:
	case RTNL_DELLINK:
		on_link(t, m, gen, dumping, c);
		break;
	case RTNL_NEWADDR:
	case RTNL_DELADDR:
		on_addr(t, m, c);
		break;
	default:
		break;
	}
}

struct sweep {
	ls_fn		*fn;
	void		*arg;
	unsigned	 gen;
	int		*v;
	size_t		 n, cap;
};

static void
addr_swept(struct tbl_iface *ifp, const struct tbl_addr *e, void *arg)
{
	struct sweep *s = arg;
	struct ls_change c;

	memset(&c, 0, sizeof(c));
	c.what = LS_ADDR_REMOVED;
	c.ifp = ifp;
	c.ifindex = ifp->ifindex;
	c.addr = e->addr;
	c.prefix = e->prefix;
	c.plen = e->plen;
	s->fn(s->arg, &c);
}

static int
stale_cb(struct tbl_iface *ifp, void *arg)
{
	struct sweep *s = arg;
	int *v;

	if (ifp->gen == s->gen)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		if ((v = realloc(s->v, s->cap * sizeof(*v))) == NULL)
			return 1;
		s->v = v;
	}
	s->v[s->n++] = ifp->ifindex;
	return 0;
}

int
ls_sweep(struct tbl *t, unsigned gen, ls_fn *fn, void *arg)
{
	struct sweep s = { fn, arg, gen, NULL, 0, 0 };
	struct tbl_iface *ifp;
	struct ls_change c;
	size_t i;
	int r;

	tbl_addr_sweep(t, gen, addr_swept, &s);
	/* collected first: the table is not changed under its iterator */
	r = tbl_iface_each(t, stale_cb, &s) != 0 ? -1 : 0;
	for (i = 0; i < s.n; i++) {
		if ((ifp = tbl_iface(t, s.v[i])) == NULL)
			continue;
		memset(&c, 0, sizeof(c));
		c.what = LS_GONE;
		c.ifindex = ifp->ifindex;
		c.was_managed = ifp->managed;
		memcpy(c.oldname, ifp->name, sizeof(c.oldname));
		tbl_iface_del(t, c.ifindex);
		fn(arg, &c);
	}
	free(s.v);
	return r;
}

void
ls_conf_written(struct tbl_iface *ifp, int ign, int ann)
{
	if (ign >= 0)
		ifp->arp_ignore = ign;
	if (ann >= 0)
		ifp->arp_announce = ann;
	/* link messages queued before ours still show the old values */
	ifp->conf_pending = true;
}
