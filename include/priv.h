/* priv.h — drop root: an unprivileged uid keeping CAP_NET_RAW and CAP_NET_ADMIN. */
#ifndef ARPOWND_PRIV_H
#define ARPOWND_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

/* The uid the daemon runs as once priv_drop(user) is done: ours when not
 * root; (uid_t)-1 when user does not resolve. */
uid_t priv_target(const char *user);
/* As root, become user (name, UID or UID:GID; "root" stays) with the two caps; 0, or -1 logged. */
int priv_drop(const char *user);
/* May this process load a BPF program: CAP_BPF (or CAP_SYS_ADMIN) permitted? */
bool priv_has_bpf(void);
/* Not root (systemd gave the user and the capabilities): keep only
 * CAP_NET_RAW and CAP_NET_ADMIN of what we hold (CAP_BPF served the load
 * of the kernel answer path, and goes); 0, or -1 logged. */
int priv_keep_net(void);

#endif
