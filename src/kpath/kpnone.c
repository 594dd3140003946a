/* kpnone.c — the kernel answer path where arpownd is built without BPF
 * (configure --disable-bpf, or no clang/libbpf/bpftool): kp_open says so,
 * every other call fails with ENOSYS, and callers need no #ifdef. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kpath.h"
#include "util.h"

bool
kp_built(void)
{
	return false;
}

struct kp *
kp_open(unsigned max_addrs, unsigned max_links, char *why, size_t whylen)
{
	(void)max_addrs;
	(void)max_links;
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "built without BPF support (configure --enable-bpf)");
	errno = ENOSYS;
	return NULL;
}

void kp_close(struct kp *kp) { (void)kp; }
int kp_attach(struct kp *kp, int ifindex, int *others, char *why, size_t whylen)
{ (void)kp; (void)ifindex; (void)others; (void)why; (void)whylen; errno = ENOSYS; return -1; }
int kp_detach(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; errno = ENOSYS; return -1; }
int kp_set_iface(struct kp *kp, int ifindex, int mode, const uint8_t mac[6], int master,
    unsigned flags)
{ (void)kp; (void)ifindex; (void)mode; (void)mac; (void)master; (void)flags; errno = ENOSYS; return -1; }
int kp_forget(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; return 0; }
int kp_attach_many(struct kp *kp, const int *ifindex, size_t n, char *why, size_t whylen)
{ (void)kp; (void)ifindex; (void)n; (void)why; (void)whylen; errno = ENOSYS; return -1; }
int kp_count(unsigned *addrs, unsigned *links) { *addrs = *links = 0; errno = ENOSYS; return -1; }
int kp_counters_all(struct kp *kp, kp_counters_fn *fn, void *arg)
{ (void)kp; (void)fn; (void)arg; errno = ENOSYS; return -1; }
int kp_batch(struct kp *kp, bool on) { (void)kp; (void)on; errno = ENOSYS; return -1; }
int kp_del_iface(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; errno = ENOSYS; return -1; }
int kp_set_answer(struct kp *kp, int ifindex, uint32_t addr, const struct kp_ifa *refs, size_t n)
{ (void)kp; (void)ifindex; (void)addr; (void)refs; (void)n; errno = ENOSYS; return -1; }
int kp_set_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len, const uint8_t *mac)
{ (void)kp; (void)ifindex; (void)addr; (void)len; (void)mac; errno = ENOSYS; return -1; }
int kp_del_pub(struct kp *kp, int ifindex, uint32_t addr, uint8_t len)
{ (void)kp; (void)ifindex; (void)addr; (void)len; errno = ENOSYS; return -1; }
int kp_del_answer(struct kp *kp, int ifindex, uint32_t addr)
{ (void)kp; (void)ifindex; (void)addr; errno = ENOSYS; return -1; }
int kp_set_local(struct kp *kp, uint32_t addr, const struct kp_ifa *holders, size_t n)
{ (void)kp; (void)addr; (void)holders; (void)n; errno = ENOSYS; return -1; }
int kp_del_local(struct kp *kp, uint32_t addr) { (void)kp; (void)addr; errno = ENOSYS; return -1; }
int kp_set_senders(struct kp *kp, int ifindex, const struct kp_cidr *v, size_t n, bool allowlist)
{ (void)kp; (void)ifindex; (void)v; (void)n; (void)allowlist; errno = ENOSYS; return -1; }
int kp_set_limits(struct kp *kp, long sender_rate, long total_rate, long learn_rate)
{ (void)kp; (void)sender_rate; (void)total_rate; (void)learn_rate; errno = ENOSYS; return -1; }
int kp_counters(struct kp *kp, int ifindex, uint64_t out[KP_NCOUNTERS])
{ (void)kp; (void)ifindex; (void)out; errno = ENOSYS; return -1; }
const char *kp_counter_name(int i) { (void)i; return "?"; }
int kp_events_fd(const struct kp *kp) { (void)kp; return -1; }
int kp_consume(struct kp *kp, kp_event_fn *fn, void *arg)
{ (void)kp; (void)fn; (void)arg; errno = ENOSYS; return -1; }
int kp_watch_stats(struct kp *kp, struct kp_watch *out) { (void)kp; (void)out; errno = ENOSYS; return -1; }
void kp_dump(struct kp *kp, FILE *f) { (void)kp; (void)f; }
void kp_take_unconfirmed(struct kp *kp, struct util_ifset *out)
{ (void)kp; memset(out, 0, sizeof(*out)); }
bool kp_needs_resync(struct kp *kp) { (void)kp; return false; }
int kp_resync(struct kp *kp) { (void)kp; errno = ENOSYS; return -1; }
void kp_room(struct kp *kp, struct kp_room *out) { (void)kp; memset(out, 0, sizeof(*out)); }
void kp_room_example(struct kp *kp, int *ifindex, uint32_t *addr)
{ (void)kp; *ifindex = 0; *addr = 0; }
bool kp_iface_held(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; return false; }
bool kp_take_room(struct kp *kp) { (void)kp; return false; }
size_t kp_unheld(struct kp *kp, uint64_t *out, size_t max) { (void)kp; (void)out; (void)max; return 0; }
int kp_remirror(struct kp *kp) { (void)kp; errno = ENOSYS; return -1; }
int kp_purge(char *why, size_t whylen) { (void)why; (void)whylen; return 0; }
int kp_xdp_attach(struct kp *kp, int ifindex, int mode, int *got, char *why, size_t whylen)
{ (void)kp; (void)ifindex; (void)mode; (void)got; (void)why; (void)whylen; errno = ENOSYS; return -1; }
int kp_xdp_detach(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; return 0; }
void kp_xdp_forget(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; }
int kp_xdp_mode(struct kp *kp, int ifindex) { (void)kp; (void)ifindex; return 0; }
int kp_xdp_other(int ifindex, char *name, size_t len)
{ (void)ifindex; if (name != NULL && len > 0) name[0] = '\0'; return -1; }
int kp_xdp_purge(char *why, size_t whylen) { (void)why; (void)whylen; return 0; }
int kp_uppers(int ifindex, char *name, size_t len)
{ (void)ifindex; if (name != NULL && len > 0) name[0] = '\0'; return -1; }
void kp_uppers_forget(void) { }
int kp_tc_others(int ifindex) { (void)ifindex; return -1; }
void kp_xdp_names(void) { }
