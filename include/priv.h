/* priv.h — drop root: an unprivileged uid keeping CAP_NET_RAW and CAP_NET_ADMIN. */
#ifndef ARPOWND_PRIV_H
#define ARPOWND_PRIV_H

/* As root, become user (name, UID or UID:GID; "root" stays) with the two caps; 0, or -1 logged. */
int priv_drop(const char *user);
/* Not root (systemd gave the user and the capabilities): keep only
 * CAP_NET_RAW and CAP_NET_ADMIN of what we hold (CAP_BPF served the load
 * of the kernel answer path, and goes); 0, or -1 logged. */
int priv_keep_net(void);

#endif
