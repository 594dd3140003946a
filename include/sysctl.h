/* sysctl.h — reading the per-interface IPv4 sysctls from /proc/sys. */
#ifndef ARPOWND_SYSCTL_H
#define ARPOWND_SYSCTL_H

/* net.ipv4.conf.IFNAME.KEY, IFNAME "all", "default" or an interface: 0 with
 * the value in *out, or -1 with errno (EINVAL: a name that could leave the
 * directory, or a value that is not a number). */
int sys_get(const char *ifname, const char *key, int *out);

#endif
