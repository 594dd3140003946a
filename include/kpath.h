/* kpath.h — the in-kernel answer path: load, attach and feed the eBPF
 * program of src/kpath/bpf/answer.bpf.c (maps in kpath_abi.h).  The daemon's
 * table stays the authority: it writes grants; the program answers what
 * they cover while the kernel's own state (watched synchronously through a
 * netlink socket filter) still confirms them, and passes up the rest.
 * Built with HAVE_BPF; without it every function fails with ENOSYS
 * (kp_open says why), so callers need no #ifdef. */
#ifndef ARPOWND_KPATH_H
#define ARPOWND_KPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kpath_abi.h"

struct kp;
struct util_ifset;

/* One kernel address entry (struct in_ifaddr) a grant depends on, as the
 * daemon's table holds it (tbl_addr); network byte order. */
struct kp_ifa {
	int		ifindex;
	uint32_t	local;		/* IFA_LOCAL */
	uint32_t	prefix;		/* IFA_ADDRESS: the subnet's, or the peer */
	uint8_t		plen;
	uint8_t		kind;		/* KP_REF_OWN | KP_REF_COVER */
};

/* One CIDR of a sender set, and what a sender in it is (KP_SND_*); host order. */
struct kp_cidr {
	uint32_t	addr;
	uint8_t		len;
	uint8_t		bits;
};

typedef void kp_event_fn(const struct kp_event *ev, void *arg);

/* Was this arpownd built with the kernel answer path (configure found
 * clang, libbpf and bpftool)?  Without it kp_open always fails. */
bool kp_built(void);
/* Load the programs and maps, sized for max_addrs IPv4 address entries
 * and max_links links in the namespace (0: 16384 and 1024; past them,
 * what does not fit is passed up), start the netlink watcher and the
 * liveness socket, read the kernel's links and addresses; NULL with why
 * filled (kernel too old, no CAP_BPF, verifier refusal...). */
/* The namespace's IPv4 address entries and links now, to size the maps
 * by; 0 or -1. */
int kp_count(unsigned *addrs, unsigned *links);
struct kp *kp_open(unsigned max_addrs, unsigned max_links, char *why, size_t whylen);
/* Detach from every interface attached, close everything; NULL is fine. */
void kp_close(struct kp *kp);
/* Attach to ifindex's clsact ingress (made if missing, never removed),
 * at the last preference, after removing a killed run's arpownd filter
 * there; *others (may be NULL): how many other filters run before it;
 * 0, or -1 with why filled. */
/* kp_attach for n interfaces at once (a start's thousand: one socket,
 * requests many at a time); 0, or -1 when one failed (why: the last
 * reason; kp_attach on it again says its own). */
int kp_attach_many(struct kp *kp, const int *ifindex, size_t n, char *why, size_t whylen);
int kp_attach(struct kp *kp, int ifindex, int *others, char *why, size_t whylen);
/* Remove our filter from ifindex, and nothing else; 0 or -1. */
int kp_detach(struct kp *kp, int ifindex);
/* ifindex is gone, and its filter with the device: forget it without a
 * word to TC (the index may already name a new device, which is attached
 * afresh when it is managed); 0. */
int kp_forget(struct kp *kp, int ifindex);
/* Answer on ifindex in mode KP_MODE_* with KP_IF_* flags; mac and master
 * are the interface's as the daemon's table has them (the program answers
 * only while the kernel's link has them too); 0 or -1 with errno. */
int kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags);
/* Stop answering on ifindex (frames pass up); 0 or -1. */
int kp_del_iface(struct kp *kp, int ifindex);
/* Grant addr on ifindex (owner and subnet modes) under the entries refs
 * (KP_NREF at most, own entries first); 0 or -1. */
int kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n);
/* On: grants and markers are gathered and written many to a syscall (a
 * start's hundred thousand), stamped with the ids kp_open's resync wrote;
 * off: the rest written, each outcome kept as one by one.  0, or -1 (on:
 * no memory, one by one then; off: an entry refused, kept for later). */
int kp_batch(struct kp *kp, bool on);
/* Withdraw the grant of addr on ifindex; 0 (also when there was none) or -1. */
int kp_del_answer(struct kp *kp, int ifindex, uint32_t addr);
/* Publish the CIDR addr/len (network order) on ifindex, answered with mac,
 * or (NULL) with the link's own MAC as the kernel has it when a request
 * comes; 0 or -1 (E2BIG: no room, kept for kp_room). */
int kp_set_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len, const uint8_t *mac);
/* Withdraw the published CIDR addr/len on ifindex; 0 (also when none) or -1. */
int kp_del_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len);
/* addr is one of the host's; holders: its entries on usable interfaces
 * (system mode answers it while one is alive); 0, or -1 and the program
 * answers nothing until every such address is written (kp_room). */
int kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n);
/* addr is no longer the host's; 0 or -1. */
int kp_del_local(struct kp *kp, uint32_t addr);
/* The senders of ifindex as disjoint CIDRs (kpf_senders makes them);
 * allowlist: allow_senders is set, a sender must be in it; replaces the
 * previous ones, nothing answered there meanwhile; 0, or -1 with the
 * interface left passing everything up. */
int kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist);
/* sender_rate, total_rate (replies/s, 0 = no limit) and learning events/s. */
int kp_set_limits(struct kp *kp, long sender_rate, long total_rate, long learn_rate);
/* The counters of ifindex (0: all), summed over the CPUs; 0 or -1. */
/* Every interface's counters, summed as kp_counters does, to fn, in a
 * few syscalls for all of them; 0 or -1. */
typedef void kp_counters_fn(void *arg, int ifindex, const uint64_t c[KP_NCOUNTERS]);
int kp_counters_all(struct kp *kp, kp_counters_fn *fn, void *arg);
int kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS]);
/* A stable name for counter i (KP_C_*). */
const char *kp_counter_name(int i);
/* The events' fd: readable when events wait (for the event loop). */
int kp_events_fd(const struct kp *kp);
/* Hand every waiting event to fn; how many, or -1. */
int kp_consume(struct kp *kp, kp_event_fn *fn, void *arg);
/* Into out, and emptied: the interfaces with a grant or setting written,
 * since the last call, before the mirror held the kernel entry or link
 * instance it depends on: the daemon read its netlink notification before
 * the watcher, on another socket of the same broadcast, had run.  Such a
 * grant is safe (it never confirms: frames go up to the capture path);
 * written again a moment later, it answers. */
void kp_take_unconfirmed(struct kp *kp, struct util_ifset *out);
/* The netlink watcher's own counters (struct kp_watch: ids handed out,
 * revoking events, notifications it could not read); 0 or -1.  For tests
 * and diagnosis: what the program made of the kernel's notifications. */
int kp_watch_stats(struct kp *kp, struct kp_watch *out);
/* Print the kernel's mirror (kp_alive) and the grants (kp_answers), one
 * line each, onto f: for diagnosis (kptest --dump). */
void kp_dump(struct kp *kp, FILE *f);
/* Did the watcher meet a notification it could not read (answers stop)? */
bool kp_needs_resync(struct kp *kp);
/* Read the kernel's links and addresses again; 0, or -1 (answers stay stopped). */
int kp_resync(struct kp *kp);
/* What the maps have no room for: each write a full map refused, kept
 * until it is written or no longer wanted; the capture path answers it
 * meanwhile. */
struct kp_room {
	size_t		grants;		/* addresses whose grant or marker did not fit */
	size_t		published;	/* published CIDRs that did not fit */
	size_t		ifaces;		/* interfaces whose sender sets did not fit */
	uint64_t	mirror;		/* address entries the mirror had no room for */
	bool		stalled;	/* a marker among them: nothing is answered */
	unsigned	max_addrs;	/* the address entries the maps were sized for */
	uint64_t	map_bytes;	/* the memory the kernel charges for them */
};
void kp_room(struct kp *kp, struct kp_room *out);
/* One of the addresses that did not fit, a marker's first: its interface
 * (0 for a marker) and the address (network order; 0: none); a walk of
 * them all, for a log line or a report. */
void kp_room_example(struct kp *kp, int *ifindex, uint32_t *addr);
/* Are ifindex's settings in the maps (else its sender sets did not fit,
 * and everything there is passed up)? */
bool kp_iface_held(struct kp *kp, int ifindex);
/* Was anything deleted from the maps since the last call (room, maybe)? */
bool kp_take_room(struct kp *kp);
/* The grants and markers a full map refused, as (ifindex << 32 | addr),
 * ifindex 0 for a marker; up to max into out; how many. */
size_t kp_unheld(struct kp *kp, uint64_t *out, size_t max);
/* Read the kernel's links and addresses into the mirror again, adding
 * what it had no room for (kp_room's mirror); 0 or -1. */
int kp_remirror(struct kp *kp);
/* XDP (src/kpath/kpxdp.c): arpownd_xdp, the same steps on the same maps,
 * answering with XDP_TX before the stack builds an skb. */
enum { KP_XDP_NATIVE = 1, KP_XDP_GENERIC = 2 };
/* Put arpownd_xdp on ifindex through a BPF link (gone with the process),
 * in mode (KP_XDP_*; 0: native where the driver has it, else generic),
 * never over another XDP program; *got the mode it got; 0, or -1 with
 * why filled (EEXIST: another program is there, named). */
int kp_xdp_attach(struct kp *kp, int ifindex, int mode, int *got, char *why, size_t whylen);
/* Take arpownd_xdp off ifindex (its settings too); 0. */
int kp_xdp_detach(struct kp *kp, int ifindex);
/* ifindex is gone: forget its link without a word to the kernel. */
void kp_xdp_forget(struct kp *kp, int ifindex);
/* The mode arpownd_xdp is on ifindex in (KP_XDP_*), 0 when not on it. */
int kp_xdp_mode(struct kp *kp, int ifindex);
/* The XDP program on ifindex now: its id (0 none, -1 cannot ask), its
 * name and id into name (id alone without the privilege to read it). */
int kp_xdp_other(int ifindex, char *name, size_t len);
/* Read the names of the XDP programs on the namespace's interfaces now
 * (before the privilege drop: another's program is only an id after). */
void kp_xdp_names(void);
/* How many links in this namespace sit on ifindex (IFLA_LINK: VLAN,
 * macvlan, ipvlan devices; not a veth peer), the first's name into
 * name; -1 when rtnetlink cannot be asked. */
int kp_uppers(int ifindex, char *name, size_t len);
/* Links came or went: kp_uppers asks rtnetlink again. */
void kp_uppers_forget(void);
/* How many TC filters of someone else's sit at ifindex's clsact ingress
 * or egress (at XDP arpownd would answer past them); -1 when they cannot
 * be listed. */
int kp_tc_others(int ifindex);
/* Take off every arpownd_xdp a netlink attach left (a link goes with its
 * process); how many, or -1 with why. */
int kp_xdp_purge(char *why, size_t whylen);
/* Remove every arpownd filter from every interface of this network
 * namespace (at a start, and for --restore after a crash); how many, or
 * -1 with why.  Other filters and the qdiscs stay.
 * Built without BPF it removes nothing (it needs libbpf's TC calls): a
 * filter a BPF build left behind then answers nothing, as its liveness
 * socket died with it, and the next BPF build's start replaces it. */
int kp_purge(char *why, size_t whylen);

#endif
