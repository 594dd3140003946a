/* kpint.h — what the kernel answer path's own files share: kpath.c (load,
 * grants, counters, events), kpmirror.c (the kernel's links and
 * addresses in the maps) and kptc.c (rtnetlink and TC).  Nothing else
 * includes it: the rest of arpownd sees kpath.h. */
#ifndef ARPOWND_KPINT_H
#define ARPOWND_KPINT_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kpath.h"
#include "util.h"

struct kp_bpf;
struct ring_buffer;
struct nlmsghdr;

struct kp_att {
	int	ifindex;
};

/* A set of 64-bit keys (open addressing): what a full map refused. */
struct kp_keys {
	uint64_t	*v;		/* 0: an empty slot (no key is 0) */
	size_t		 n, cap;
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
	uint64_t	 alive_seen;	/* kp_watch.alive_full at the last mirror read */
	uint64_t	 mirror_short;	/* address entries that read found no room for */
};

/* kpath.c: why, formatted (nothing when why is NULL or len 0) */
void kp_setwhy(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* kpath.c: libbpf's messages kept for the reasons, not printed */
void kp_log_setup(void);

/* kptc.c: a dump of type with hdr, every reply to cb; 0 or -1 with errno */
typedef int kpn_cb(const struct nlmsghdr *nlh, void *arg);
int kpn_dump(uint16_t type, const void *hdr, size_t hdrlen, kpn_cb *cb, void *arg);
/* kptc.c: prog_fd at ifindex's clsact ingress (the qdisc made if
 * missing, and left there), a killed run's filter there removed first;
 * *before: how many other filters run before ours; 0 or -1 */
int kpt_attach(int ifindex, int prog_fd, int *before, char *why, size_t whylen);
/* kptc.c: the filters of program prog_id off ifindex, nothing else */
int kpt_detach(int ifindex, uint32_t prog_id);

/* kpmirror.c: the configuration map's one entry, the watcher's */
int kpm_read_conf(struct kp *kp, struct kp_conf *c);
int kpm_read_watch(struct kp *kp, struct kp_watch *w);
int kpm_write_conf(struct kp *kp, const struct kp_conf *c);
/* kpmirror.c: kp_links and kp_alive filled from the kernel (full: from
 * nothing); 0 or -1 */
int kpm_resync(struct kp *kp, bool full);
/* kpmirror.c: the netlink watcher's socket, and the liveness socket
 * (its address and port written into cf); fd or -1 */
int kpm_watch_open(struct kp *kp);
int kpm_live_open(struct kp *kp, struct kp_conf *cf);

static inline uint32_t
kp_mask(uint8_t plen)
{
	return plen == 0 ? 0 : htonl(0xffffffffu << (32 - plen));
}

/* The key of one kernel address entry in kp_alive. */
static inline void
kp_ifa_key(struct kp_ifa_key *k, int ifindex, uint32_t local, uint32_t prefix, uint8_t plen)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = (uint32_t)ifindex;
	k->local = local;
	k->net = prefix & kp_mask(plen);
	k->plen = plen;
}

#endif
