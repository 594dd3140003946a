/* rtnl.h — rtnetlink through libmnl: link and IPv4 address tracking,
 * per-device ARP sysctls over IFLA_INET_CONF, neighbour learning. */
#ifndef ARPOWND_RTNL_H
#define ARPOWND_RTNL_H

#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtnlmsg.h"

/* Parse one message; 0 and out filled (kind may be RTNL_IGNORE), -1 if malformed. */
int rtnl_parse(const struct nlmsghdr *nlh, struct rtnl_msg *out);

struct rtnl;
typedef void rtnl_fn(const struct rtnl_msg *m, void *arg);

/* Open the event socket (link + IPv4 address groups) and a request socket. */
struct rtnl *rtnl_open(void);
void rtnl_close(struct rtnl *r);
/* The event socket's fd, for the event loop. */
int rtnl_fd(const struct rtnl *r);
/* Dump all links then all IPv4 addresses through fn; redone when interrupted. */
int rtnl_dump(struct rtnl *r, rtnl_fn *fn, void *arg);
/* Dump the links alone (their IFLA_INET_CONF shows sysctl rewrites). */
int rtnl_dump_links(struct rtnl *r, rtnl_fn *fn, void *arg);
/* Read events through fn until none is queued; 0, 1 when events were lost
 * (ENOBUFS: re-dump), -1 error. */
int rtnl_read(struct rtnl *r, rtnl_fn *fn, void *arg);
/* When the last rtnl_read found the queue empty (CLOCK_REALTIME ns): every
 * event queued before then has been read. */
uint64_t rtnl_drained(const struct rtnl *r);
/* Set arp_ignore / arp_announce on ifindex (-1 leaves one as it is); 0 or -1 with errno. */
int rtnl_set_arp(struct rtnl *r, int ifindex, int arp_ignore, int arp_announce);
/* Add ip -> mac on ifindex as a STALE neighbour unless one exists; fire and forget. */
void rtnl_learn(struct rtnl *r, int ifindex, uint32_t ip, const uint8_t mac[static 6]);

#endif
