/* kpath_abi.h — the maps shared by the in-kernel answer path
 * (src/kpath/bpf/answer.bpf.c) and its loader (src/kpath/kpath.c): keys, values,
 * constants.  Included by both sides; only linux/types.h types.
 *
 * Who writes what:
 *   kp_ifaces   the daemon: per managed interface, its mode, MAC, flags
 *   kp_answers  the daemon: (ifindex, target) may be answered, under the
 *               conditions in its refs
 *   kp_locals   the daemon: addr is a host address (and, for system mode,
 *               who holds it).  The netlink watcher adds markers for
 *               addresses added meanwhile.  A map of its own: grants
 *               filling kp_answers never crowd out a marker
 *   kp_pub      the daemon: published ranges per interface, as an LPM trie
 *               of CIDRs (a /16 is one entry, not 65,536)
 *   kp_senders  the daemon: per interface, what a sender IP is
 *               (allow_senders, deny_senders, published, in a subnet of
 *               the interface), as an LPM trie
 *   kp_links    the kernel's truth, kept by the netlink watcher: one
 *               instance id per link while it is up with a given MAC
 *   kp_alive    the kernel's truth, kept by the netlink watcher: one
 *               instance id per IPv4 address entry (struct in_ifaddr)
 *   kp_watch    the watcher: id counter, revocation count
 *   kp_conf     the loader: limits, the liveness socket, resync state,
 *               "a marker did not fit"
 *   kp_buckets  the program: token buckets (sender slots, total, learn)
 *   kp_counters the program: per-CPU counters per arrival interface
 *   kp_events   the program: learning and probe events (ring buffer)
 *
 * A grant in kp_answers holds the instance ids it was given for; the
 * program answers only while kp_alive and kp_links still hold those very
 * instances.  The watcher deletes an instance synchronously, in the
 * kernel, while the address delete is being notified (before the kernel
 * acknowledges it), so no request that arrives after the acknowledgement
 * is answered from a grant made for the deleted address: whatever the
 * daemon is doing, stopped or not.
 */
#ifndef ARPOWND_KPATH_ABI_H
#define ARPOWND_KPATH_ABI_H

#include <linux/bpf.h>
#include <linux/types.h>

/* Program names (bpf_prog_info.name, at most 15 characters): the TC
 * filter is recognised as ours by its name, whatever handle it sits at. */
#define KP_PROG_NAME		"arpownd_answer"
#define KP_WATCH_NAME		"arpownd_nlwatch"
#define KP_XDP_NAME		"arpownd_xdp"	/* the same steps and maps at XDP */
/* The TC filter's place on clsact ingress: the last preference there is
 * (0xffff), so that every other filter runs before it, as every filter
 * runs before the kernel's own ARP responder (doc/kpath.md, "A shared
 * clsact").  The handle is ours to find it by; the name says whose it is. */
#define KP_TC_HANDLE		0xa4d0u
#define KP_TC_PRIO		0xffffu

/* Map sizes as compiled; the loader sets them from kp_open's arguments
 * (a hash map allocates its buckets when made: 16 bytes each). */
#define KP_MAX_IFACES		1024
#define KP_MAX_ANSWERS		16384
#define KP_MAX_LOCALS		16384
#define KP_MAX_ALIVE		16384
#define KP_MAX_SENDERS		65536
#define KP_MAX_PUB		65536	/* published CIDRs (LPM: allocated when written) */
#define KP_SENDER_SLOTS		4096	/* as limit.h's LIM_SENDER_SLOTS */
#define KP_BUCKET_TOTAL		KP_SENDER_SLOTS
#define KP_BUCKET_LEARN		(KP_SENDER_SLOTS + 1)
#define KP_NBUCKETS		(KP_SENDER_SLOTS + 2)
#define KP_RING_BYTES		(128 * 1024)
#define KP_NREF			4	/* address entries a grant may depend on */
/* A request the program answered (or refused by a limit) goes on with
 * this skb->hash and the packet type PACKET_OTHERHOST: the capture
 * path's socket filter (capture.c) drops what has both, and keeps a
 * frame that was for another host (a hash is that only by chance, and
 * such a frame is never answered anyway: only a counter would miss it). */
#define KP_DECIDED_HASH		0x6172706fu	/* "arpo"; capture.h's CAP_DECIDED_HASH */

/* kp_ifaces: modes the program answers in (any other value: pass up). */
enum {
	KP_MODE_NONE = 0,	/* not answered here: off, monitor, unmanaged */
	KP_MODE_OWNER,		/* the target on this interface */
	KP_MODE_SUBNET,		/* and the sender in one of its subnets holding the target */
	KP_MODE_SYSTEM,		/* any host address held by a usable interface */
};

/* kp_iface.flags */
#define KP_IF_PROBES		0x01	/* answer RFC 5227 probes (sender 0.0.0.0) */
#define KP_IF_LEARN		0x02	/* learning events for answered requesters */
#define KP_IF_SENDERS		0x04	/* look the sender up in kp_senders */
#define KP_IF_ALLOWLIST		0x08	/* allow_senders set: a sender must be in it */
#define KP_IF_PROBE_EVENTS	0x10	/* an event for every probe answered */
#define KP_IF_RPCHECK		0x20	/* rp_filter or arp_filter in force: a request
					 * with a sender goes up (the capture path asks
					 * the kernel's routing: rpf.c) */

struct kp_iface {
	__u64	link_id;	/* the kp_links instance this was written for */
	__u8	mac[6];		/* reply MAC (the interface's) */
	__u8	mode;		/* KP_MODE_* */
	__u8	flags;		/* KP_IF_* */
};

/* kp_links: key ifindex (__u32). */
struct kp_link {
	__u64	id;		/* instance: renewed on each down/up, NOARP, MAC or master change */
	__u8	mac[6];
	__u8	pad[2];
	__u32	master;		/* IFLA_MASTER: the bridge, bond... it is a port of; 0 none */
	__u32	pad2;
};

/* kp_alive: one kernel address entry; value: its instance id (__u64, never 0). */
struct kp_ifa_key {
	__u32	ifindex;
	__u32	local;		/* IFA_LOCAL, network order */
	__u32	net;		/* IFA_ADDRESS masked to plen, network order */
	__u8	plen;
	__u8	pad[3];
};

/* kp_ref.kind */
#define KP_REF_OWN		0x01	/* an entry of the target itself */
#define KP_REF_COVER		0x02	/* its subnet holds the target */

/* One address entry a grant depends on, with the instance it was made for. */
struct kp_ref {
	__u64			id;		/* kp_alive instance; 0 never matches */
	__u64			link_id;	/* holder's kp_links instance (system mode), else 0 */
	struct kp_ifa_key	ifa;
	__u8			kind;		/* KP_REF_* */
	__u8			pad[7];
};

struct kp_ans_key {
	__u32	ifindex;	/* 0: host-wide (system mode, and the "is ours" marker) */
	__u32	addr;		/* network order */
};

/* kp_answer.flags */
#define KP_ANS_LOCAL		0x01	/* kp_locals: addr is one of the host's */

/* kp_answers: key (ifindex, addr); kp_locals: key addr (__u32, network
 * order), holders (system mode) as refs. */
struct kp_answer {
	__u8		pad[6];
	__u8		flags;		/* KP_ANS_* */
	__u8		nref;
	struct kp_ref	ref[KP_NREF];
};

/* kp_pub: LPM trie keyed by kp_lpm_key (ifindex, published CIDR). */
#define KP_PUB_MAC		0x01	/* answered with mac; else the link's own,
					 * as the kernel has it now (kp_links) */

struct kp_pub {
	__u8	mac[6];
	__u8	flags;		/* KP_PUB_* */
	__u8	pad;
};

/* kp_senders: LPM trie, prefixlen = 32 + the CIDR's length. */
struct kp_lpm_key {
	__u32	prefixlen;
	__u32	ifindex;	/* big-endian, so that the trie matches it whole */
	__u32	addr;		/* network order */
};

/* kp_senders values (bits) */
#define KP_SND_ALLOW		0x01	/* in allow_senders */
#define KP_SND_DENY		0x02	/* in deny_senders */
#define KP_SND_OURS		0x04	/* published on this interface: a claim on ours */
#define KP_SND_SUBNET		0x08	/* in a subnet of the interface (learnable) */

/* kp_watch: one entry, key 0; written by the watcher alone (atomically):
 * the loader only reads it, never writes it (a write would lose updates). */
struct kp_watch {
	__u64	next_id;	/* instance ids handed out */
	__u64	revokes;	/* revoking events seen, counted before acting */
	__u64	bad_gen;	/* notifications it could not read */
	__u64	alive_full;	/* address entries kp_alive had no room for */
};

/* kp_conf: one entry, key 0; written by the loader alone. */
#define KP_CF_LIVENESS		0x01	/* answer only while the daemon's socket lives */
#define KP_CF_FULL		0x02	/* a "one of ours" marker did not fit: answer
					 * nothing until the daemon clears it (every
					 * marker written again, kp_locals had room) */

struct kp_conf {
	__u64	ok_gen;		/* the bad_gen a full resync covered: answer while equal */
	__u64	sender_rate;	/* replies/s to one sender slot, 0 = no limit */
	__u64	total_rate;	/* replies/s in all, 0 = no limit */
	__u64	learn_rate;	/* learning events/s, 0 = none */
	__u32	flags;		/* KP_CF_* */
	/* the liveness socket: a UDP socket of the daemon's bound (IP_FREEBIND)
	 * to live_addr:live_port; gone when the daemon is.  Its SO_MARK, a
	 * random one: the address and port are public (/proc/net/udp) and any
	 * local user may bind them once the daemon is gone, but setting a
	 * mark takes CAP_NET_ADMIN */
	__u32	live_addr;	/* network order */
	__u16	live_port;	/* network order */
	__u16	pad;
	__u32	live_mark;	/* never 0 */
	/* the sender slots' SipHash key (siphash.h), drawn by the loader at
	 * each start: a slot no sender can aim at */
	__u64	slot_k0, slot_k1;
};

/* kp_buckets: a token bucket; tokens in 1e-9 units. */
struct kp_bucket {
	struct bpf_spin_lock	lock;
	__u32			pad;
	__u64			tokens;
	__u64			last_ns;	/* 0: never used, starts full */
};

/* kp_counters: per CPU, per arrival ifindex (0: interfaces without an
 * entry in kp_ifaces) and counter, one u64 each. */
enum {
	KP_C_RX = 0,		/* ARP frames the program saw: the sum of the next ones
				 * up to KP_C_PASS_TRIM, summed by the loader */
	KP_C_ANSWERED,		/* answered (final) */
	KP_C_LIMITED_SENDER,	/* dropped by sender_rate (final) */
	KP_C_LIMITED_TOTAL,	/* dropped by total_rate (final) */
	/* passed up to the capture path, which sees and counts them again */
	KP_C_PASS_INVALID,	/* failed validation (arp_check would refuse) */
	KP_C_PASS_REPLY,	/* an ARP reply: may be a conflict */
	KP_C_PASS_GRATUITOUS,	/* sender IP = target IP */
	KP_C_PASS_VLAN,		/* carries a VLAN tag the device has not taken off */
	KP_C_PASS_MODE,		/* no answering mode here (unmanaged, off, monitor) */
	KP_C_PASS_STALE,	/* link instance, resync or liveness not current */
	KP_C_PASS_OURS,		/* the sender IP is one of ours: conflict or own */
	KP_C_PASS_SENDER,	/* allow_senders / deny_senders */
	KP_C_PASS_PROBE,	/* a probe, not answered here */
	KP_C_PASS_NO_ENTRY,	/* no grant for the target */
	KP_C_PASS_UNCONFIRMED,	/* the grant's address entries are gone */
	KP_C_PASS_NOT_SUBNET,	/* subnet mode: the sender outside */
	KP_C_PASS_RPF,		/* rp_filter or arp_filter to check: the capture path's */
	KP_C_PASS_TRIM,		/* could not make the reply (pull, trim, clone),
				 * or a frame longer than the minimum (60) */
	KP_C_RING_DROPS,	/* events lost: the ring was full */
	KP_C_EVENTS,		/* events written */
	KP_NCOUNTERS
};

struct kp_cnt_key {
	__u32	ifindex;
	__u32	what;		/* KP_C_* */
};

/* kp_events: one record each. */
enum {
	KP_EV_LEARN = 1,	/* answered sender_ip/sender_mac on ifindex: learn it */
	KP_EV_PROBE,		/* answered a probe for target_ip from sender_mac */
};

struct kp_event {
	__u32	type;		/* KP_EV_* */
	__u32	ifindex;
	__u32	sip, tip;	/* network order */
	__u8	sha[6];
	__u8	flags;		/* KP_EVF_* */
	__u8	pad;
};

#define KP_EVF_IN_SUBNET	0x01	/* the sender is in a subnet the grant holds */

#endif
