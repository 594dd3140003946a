/* rpcache.h — the reverse-path verdicts cached, and the lookup budget
 * shared fairly among interfaces (rpf.c asks the kernel; this decides
 * when and remembers). */
#ifndef ARPOWND_RPCACHE_H
#define ARPOWND_RPCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "limit.h"
#include "siphash.h"

#define RPC_SETS	4096	/* two ways each */
#define RPC_SHARES	1024	/* per-interface budgets, by ifindex */

struct rpc_ent {
	uint32_t	sip, tip;
	int		ifindex;	/* 0: empty */
	unsigned	gen;
	uint8_t		verdict;
	bool		again;		/* found here since it was put: asked again */
};

struct rpc {
	struct sip_key		 key;		/* the sets' key: a sender is chosen remotely */
	unsigned		 gen;		/* bumped to forget every verdict */
	long			 rate, share;	/* lookups a second: the host's, an interface's */
	struct lim_bucket	 total;
	struct lim_bucket	 shares[RPC_SHARES];
	struct rpc_ent		 v[2 * RPC_SETS];
};

/* Empty, keyed with key; rate lookups a second for the host, share for
 * any one interface (share <= rate).  c must come zeroed (calloc). */
void rpc_init(struct rpc *c, const unsigned char key[16], long rate, long share);
/* Forget every verdict (a route, rule, link or setting changed). */
void rpc_forget(struct rpc *c);
/* The verdict cached for (ifindex, sip, tip), or -1. */
int rpc_find(struct rpc *c, int ifindex, uint32_t sip, uint32_t tip);
/* May n lookups be made now for a request that arrived on ifindex? */
bool rpc_budget(struct rpc *c, int ifindex, unsigned n, double now);
/* Keep a verdict the kernel gave. */
void rpc_put(struct rpc *c, int ifindex, uint32_t sip, uint32_t tip, uint8_t verdict);

#endif
