/* kpint.h — what the kernel answer path's own files share: kpath.c (load,
 * close, events), kpattach.c (the filters on interfaces), kpcount.c (the
 * counters), kpgrant.c (the grants), kproom.c (what the maps refused),
 * kpsender.c (the sender sets), kpmirror.c (the kernel's links and
 * addresses in the maps), kpnl.c (rtnetlink), kptc.c (TC) and kplog.c
 * (libbpf's messages).  Nothing else includes it: the rest of arpownd
 * sees kpath.h. */
#ifndef ARPOWND_KPINT_H
#define ARPOWND_KPINT_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kpath.h"
#include "rules.h"
#include "util.h"

struct kp_bpf;
struct kp_xatt;
struct ring_buffer;
struct nlmsghdr;

struct kp_att {
	int	ifindex;
	int	before;		/* other TC filters that ran before ours at attach */
};

/* A set of 64-bit keys (open addressing): what a full map refused. */
struct kp_keys {
	uint64_t	*v;		/* 0: an empty slot (no key is 0) */
	size_t		 n, cap;
};

/* The sender keys written for one interface (kp_set_senders): the trie
 * is the daemon's alone, so this copy is its contents, and a change needs
 * no walk of every interface's keys. */
struct kp_snd {
	int			 ifindex;
	struct kp_lpm_key	*k;		/* sorted */
	uint8_t			*bits;		/* each key's value */
	size_t			 n;
	/* kp_ifaces' entry as last written (have: it was): a reload that
	 * changes one interface of 1,000 writes that one's */
	struct kp_iface		 iface;
	bool			 have;
};

#define KP_BATCH	4096	/* entries a batched write takes at a time */

/* kpbatch.c: writes to one map gathered, a syscall for many */
struct kpb {
	int		 fd;
	size_t		 ksz, vsz, n, max;
	uint64_t	 flags;		/* each entry's: BPF_ANY, BPF_NOEXIST */
	void		*keys, *vals;
	uint64_t	*tags;		/* the caller's word for each entry */
};
/* Told of each entry written (rc 0) or refused (rc -1, errno e). */
typedef void kpb_done_fn(void *arg, uint64_t tag, const void *key, int rc, int e);
/* A batch of up to max entries for map fd; 0, or -1 on ENOMEM. */
int kpb_init(struct kpb *b, int fd, size_t ksz, size_t vsz, uint64_t elem_flags, size_t max);
void kpb_free(struct kpb *b);
/* key -> val into the batch, written (and done told) when it is full; 0 or -1. */
int kpb_put(struct kpb *b, const void *key, const void *val, uint64_t tag, kpb_done_fn *done,
    void *arg);
/* Write what is gathered, done told of each; 0, or -1 when one was refused. */
int kpb_flush(struct kpb *b, kpb_done_fn *done, void *arg);

/* kpmirror.c: the instance ids a resync wrote, for a start's grants to
 * stamp without a lookup each (kp_batch); open addressing */
struct kpm_ids {
	struct kp_ifa_key	*k;
	uint64_t		*id;
	size_t			 n, cap;
};

struct kp {
	struct kp_bpf	*skel;
	int		 fd_ifaces, fd_links, fd_alive, fd_answers, fd_locals, fd_pub;
	int		 fd_senders, fd_watch, fd_conf, fd_counters;
	unsigned	 max_addrs, max_links;	/* what the maps were sized for */
	int		 watch_sock, live_sock;
	struct ring_buffer *rb;
	kp_event_fn	*fn;
	void		*fnarg;
	int		 nconsumed;
	int		 ncpu;
	uint64_t	 user_id;
	struct kp_att	*att;
	size_t		 natt, aatt;
	struct kp_xatt	*xatt;		/* kpxdp.c: arpownd_xdp's links */
	size_t		 nxatt, axatt;
	uint64_t	*pcpu;		/* ncpu values, for reads and writes */
	/* grants written before the mirror held their entry (kp_take_unconfirmed) */
	struct util_ifset unconf;
	/* writes a full map refused, until written or withdrawn: grants and
	 * markers ((ifindex, addr), ifindex 0 a marker), published CIDRs
	 * ((ifindex, len, addr)), interfaces whose sender sets did not fit */
	struct kp_keys	 unheld, unheld_pub;
	size_t		 unheld_locals;	/* markers among them: answers stop */
	struct kp_keys	 unheld_ifs;
	bool		 room;		/* something deleted since kp_take_room */
	struct kp_snd	*snd;		/* per interface, what kp_senders holds */
	size_t		 nsnd, asnd;
	/* kp_batch: grants and markers gathered, and the ids the last full
	 * resync wrote (links by ifindex in link_ids, addresses in ids) */
	bool		 batching;
	bool		 keep_ids;	/* the next resync's ids kept (kp_open's) */
	struct kpb	 b_answers, b_locals;
	struct kpm_ids	 ids;
	uint64_t	*link_ids;	/* index ifindex, 0 none */
	size_t		 nlink_ids;
	uint64_t	 alive_seen;	/* kp_watch.alive_full at the last mirror read */
	uint64_t	 mirror_short;	/* address entries that read found no room for */
};

/* kpcount.c: ifindex's counters at zero (one batched write); 0 or -1 with errno */
int kp_counters_make(struct kp *kp, int ifindex);
/* kpcount.c: ifindex's counters deleted */
void kp_counters_drop(struct kp *kp, int ifindex);
/* kpxdp.c: every XDP link closed (kp_close) */
void kp_xdp_close(struct kp *kp);

/* kproom.c: is k in s (at: its slot, or where it would go)? */
bool kp_keys_find(const struct kp_keys *s, uint64_t k, size_t *at);
/* kproom.c: k into s; 1 added, 0 there already, -1 out of memory */
int kp_keys_add(struct kp_keys *s, uint64_t k);
/* kproom.c: k out of s; whether it was there */
bool kp_keys_del(struct kp_keys *s, uint64_t k);
/* kproom.c: the unheld key of a grant (ifindex 0: a marker) */
uint64_t kp_grant_key(int ifindex, uint32_t addr);
/* kproom.c: the "a marker did not fit" flag in kp_conf, set or cleared */
void kp_set_full(struct kp *kp, bool on);
/* kproom.c: a write of k returned rc (errno e): a full map's refusal kept, a success forgotten */
void kp_note_write(struct kp *kp, struct kp_keys *s, uint64_t k, int rc, int e, bool marker);
/* kproom.c: k no longer wanted (deleted: room was made) */
void kp_note_gone(struct kp *kp, struct kp_keys *s, uint64_t k, bool deleted, bool marker);
/* kpsender.c: the copy of ifindex's sender keys (made empty when make and missing) */
struct kp_snd *kp_snd_of(struct kp *kp, int ifindex, bool make);

/* kplog.c: libbpf's messages kept from now on (the old ones dropped), not printed */
void kp_log_setup(void);
/* kplog.c: what libbpf said since kp_log_setup */
const char *kp_log_text(void);
/* kplog.c: the last lines of a verifier or libbpf log that say something, into out */
void kp_log_tail(const char *log, char *out, size_t len);

/* kpnl.c: a dump of type with hdr, every reply to cb; 0 or -1 with errno */
typedef int kpn_cb(const struct nlmsghdr *nlh, void *arg);
int kpn_dump(uint16_t type, const void *hdr, size_t hdrlen, kpn_cb *cb, void *arg);

#define KPN_REQ		512	/* room for one request in a kpn_run batch */
/* kpnl.c: one rtnetlink socket for a whole batch of TC work */
struct mnl_socket;
struct kpn_sock {
	struct mnl_socket	*nl;
	unsigned		 portid, seq;
	char			*buf;
	size_t			 blen;
};
/* kpnl.c: s opened (acks without the request echoed); 0 or -1 */
int kpn_open(struct kpn_sock *s);
void kpn_close(struct kpn_sock *s);
/* kpnl.c: a dump of req's kind on s, every reply to cb; 0 or -1 with errno */
int kpn_dump_on(struct kpn_sock *s, struct nlmsghdr *req, kpn_cb *cb, void *arg);
/* kpnl.c: n requests (each in its own KPN_REQ-byte slot of reqs) sent a
 * window at a time, err[i] the errno request i got (0: done); 0, or -1
 * when the socket failed */
int kpn_run(struct kpn_sock *s, char *reqs, size_t n, int *err);
/* kptc.c: one interface's part of a batch of TC work */
struct kpt_job {
	int		 ifindex;
	int		 before;	/* attach: other filters that run before ours */
	int		 err;		/* 0, or the errno of the step that failed */
	const char	*what;		/* that step */
};
/* kptc.c: prog_fd (its filter named name) at each job's clsact ingress
 * (the qdisc made if missing, and left there), a killed run's filter
 * there removed first; 0, or -1 when a job failed (its err, what) */
int kpt_attach_all(int prog_fd, const char *name, struct kpt_job *v, size_t n);
/* kptc.c: the filters of program prog_id off each job's interface,
 * nothing else; 0 or -1 (a job's err, what) */
int kpt_detach_all(uint32_t prog_id, struct kpt_job *v, size_t n);
/* kpattach.c: the program's filters off each job's interface, its counters
 * and record dropped; 0 or -1 (a job's err, what) */
int kp_detach_jobs(struct kp *kp, struct kpt_job *v, size_t n);

/* kpmirror.c: the configuration map's one entry, the watcher's */
int kpm_read_conf(struct kp *kp, struct kp_conf *c);
int kpm_read_watch(struct kp *kp, struct kp_watch *w);
/* The memory the kernel charges for the maps (their memlock), in bytes. */
uint64_t kpm_map_bytes(const struct kp *kp);
int kpm_write_conf(struct kp *kp, const struct kp_conf *c);
/* kpmirror.c: kp_links and kp_alive filled from the kernel (full: from
 * nothing); 0 or -1 */
int kpm_resync(struct kp *kp, bool full);
/* kpmirror.c: the id the last resync wrote for k (or for link ifindex);
 * false when it wrote none (ask the map) */
bool kpm_id(const struct kp *kp, const struct kp_ifa_key *k, uint64_t *id);
bool kpm_link_id(const struct kp *kp, uint32_t ifindex, uint64_t *id);
/* kpmirror.c: forget them (they go stale with the next event) */
void kpm_ids_clear(struct kp *kp);
/* kpmirror.c: the netlink watcher's socket, and the liveness socket
 * (its address and port written into cf); fd or -1 */
int kpm_watch_open(struct kp *kp);
int kpm_live_open(struct kp *kp, struct kp_conf *cf);

/* The key of one kernel address entry in kp_alive. */
static inline void
kp_ifa_key(struct kp_ifa_key *k, int ifindex, uint32_t local, uint32_t prefix, uint8_t plen)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = (uint32_t)ifindex;
	k->local = local;
	k->net = prefix & rule_mask_n(plen);
	k->plen = plen;
}

#endif
