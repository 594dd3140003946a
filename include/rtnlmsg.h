/* rtnlmsg.h — one rtnetlink link or address message as rtnl_parse leaves
 * it: pure data, apart from rtnl.h (libmnl, sockets) so that the pure
 * code that applies it to the table (linksync.c) need not include rtnl.h. */
#ifndef ARPOWND_RTNLMSG_H
#define ARPOWND_RTNLMSG_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

enum rtnl_kind { RTNL_IGNORE = 0, RTNL_NEWLINK, RTNL_DELLINK, RTNL_NEWADDR, RTNL_DELADDR };

/* One link or address message, validated; pure data. */
struct rtnl_msg {
	enum rtnl_kind	kind;
	int		ifindex;
	/* links */
	char		name[IF_NAMESIZE];
	uint8_t		mac[6];
	bool		has_mac;
	uint16_t	type;		/* ARPHRD_* */
	unsigned	flags;		/* IFF_* */
	bool		has_conf;	/* IFLA_INET_CONF was there: the two below hold */
	int		arp_ignore;	/* as the kernel has it: any int */
	int		arp_announce;
	int		rp_filter;	/* the device's own (the kernel uses max(all, dev)) */
	int		arp_filter;	/* the device's own (the kernel uses all || dev) */
	int		master;		/* IFLA_MASTER: the bridge, bond, vrf... 0 = none */
	char		link_kind[16];	/* IFLA_INFO_KIND: "bridge", "vlan"... "" = none */
	char		slave_kind[16];	/* IFLA_INFO_SLAVE_KIND: what master is */
	bool		has_xdp;	/* IFLA_XDP was there: xdp_id holds */
	uint32_t	xdp_id;		/* IFLA_XDP_PROG_ID: the XDP program on it; 0 none */
	/* addresses */
	uint32_t	addr;		/* IFA_LOCAL, network order */
	uint32_t	prefix;		/* IFA_ADDRESS: the peer on p-t-p, else addr */
	uint8_t		plen;
};

#endif
