/* rpcache.c — the reverse-path verdicts cached, and the lookup budget.
 *
 * Every request whose sender is not cached costs a route lookup (a
 * netlink round trip), and the sender is the remote side's choice, so a
 * flood of spoofed senders could both spend the lookups and push the
 * real clients' verdicts out.  Two guards:
 *
 * The budget is the host's (rate) and, within it, each interface's
 * (share): a lookup takes from the interface's bucket first, so a flood
 * on one segment spends its own share and never the others' (a flood on
 * rate / share segments at once can still spend the host's: the host's
 * bound on the netlink work comes first).  The shares are indexed by
 * ifindex, which the kernel hands out in order: 1,024 interfaces get one
 * each.
 *
 * The cache is a two-way set-associative table indexed by a keyed hash;
 * a verdict found again (a sender that asks twice) is kept before one
 * put once, as a segmented LRU keeps its protected entries: a flood of
 * new senders replaces its own kind.  Among equals a refusal goes before
 * an answer, then the older.
 */
#include "config.h"

#include <string.h>

#include "rpcache.h"

void
rpc_init(struct rpc *c, const unsigned char key[16], long rate, long share)
{
	/* c comes zeroed (calloc): a memset here would touch its 180 KB,
	 * which the daemon pays in RSS before a single lookup */
	c->key = sip_key_of(key);
	c->gen = 1;
	c->rate = rate;
	c->share = share < rate ? share : rate;
}

void
rpc_forget(struct rpc *c)
{
	c->gen++;
}

static bool
live(const struct rpc *c, const struct rpc_ent *e)
{
	return e->ifindex != 0 && e->gen == c->gen;
}

static struct rpc_ent *
set_of(struct rpc *c, int ifindex, uint32_t sip, uint32_t tip)
{
	unsigned char kb[12];

	memcpy(kb, &sip, 4);
	memcpy(kb + 4, &tip, 4);
	memcpy(kb + 8, &ifindex, 4);
	return &c->v[2 * (size_t)(sip_hash(&c->key, kb, sizeof(kb)) & (RPC_SETS - 1))];
}

int
rpc_find(struct rpc *c, int ifindex, uint32_t sip, uint32_t tip)
{
	struct rpc_ent *e = set_of(c, ifindex, sip, tip), t;
	int i;

	for (i = 0; i < 2; i++)
		if (live(c, &e[i]) && e[i].ifindex == ifindex && e[i].sip == sip &&
		    e[i].tip == tip) {
			e[i].again = true;
			if (i == 0) {	/* the newer way holds the last found */
				t = e[0];
				e[0] = e[1];
				e[1] = t;
				return e[1].verdict;
			}
			return e[i].verdict;
		}
	return -1;
}

bool
rpc_budget(struct rpc *c, int ifindex, unsigned n, double now)
{
	/* the interface's share first: spent, it never touches the host's */
	return lim_take_n(&c->shares[(unsigned)ifindex % RPC_SHARES], c->share, n, now) &&
	    lim_take_n(&c->total, c->rate, n, now);
}

/* Which to keep: found again, then an answer, then (equal) the newer. */
static int
worth(const struct rpc_ent *e)
{
	return (e->again ? 2 : 0) + (e->verdict == 0 ? 1 : 0);
}

void
rpc_put(struct rpc *c, int ifindex, uint32_t sip, uint32_t tip, uint8_t verdict)
{
	struct rpc_ent *e = set_of(c, ifindex, sip, tip);

	/* e[0] the older, e[1] the newer: the new one goes to e[1], the
	 * one kept of the two to e[0] */
	if (!live(c, &e[0]) || (live(c, &e[1]) && worth(&e[1]) >= worth(&e[0])))
		e[0] = e[1];
	e[1] = (struct rpc_ent){ sip, tip, ifindex, c->gen, verdict, false };
}
