/* priv.h — drop root: an unprivileged user keeping CAP_NET_RAW and CAP_NET_ADMIN. */
#ifndef ARPOWND_PRIV_H
#define ARPOWND_PRIV_H

/* When root, become user (or "nobody" when user is "arpownd" and absent),
 * give state_dir to it, keep only the two capabilities, set no_new_privs.
 * Not root: nothing to drop.  0, or -1 with the reason logged. */
int priv_drop(const char *user, const char *state_dir);

#endif
