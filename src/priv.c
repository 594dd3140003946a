/* priv.c — drop root with libcap-ng: setuid keeps no capabilities by
 * itself, and getting the keep-caps dance right by hand is what
 * capng_change_id() exists for.
 *
 * The uid dropped to owns nothing: the state directory stays root's and
 * the daemon keeps the files it opened there as root (statedir.c).  A uid
 * shared with other processes could still signal or stop the daemon, so
 * there is no fallback to "nobody": a missing user is an error. */
#include "config.h"

#include <sys/prctl.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cap-ng.h>

#include "log.h"
#include "priv.h"

#define UID_NOBODY	65534

/* A decimal id below (uid_t)-1, which means "no change" to setresuid(). */
static int
parse_id(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

/*
 * user: a name from the passwd database, or "UID" or "UID:GID" with no
 * entry needed (a dedicated uid, as systemd's DynamicUser allocates; the
 * gid is the uid unless given).  Digits are always an id, as for systemd.
 */
static int
resolve(const char *user, uid_t *uid, gid_t *gid)
{
	const char *colon = strchr(user, ':');
	size_t ulen = colon ? (size_t)(colon - user) : strlen(user);
	unsigned long u, g;
	struct passwd *pw;

	if (strspn(user, "0123456789") == ulen && ulen > 0) {
		if (parse_id(user, ulen, &u) == -1 ||
		    (colon && parse_id(colon + 1, strlen(colon + 1), &g) == -1)) {
			log_warnx("user = %s: expected a name, a uid or uid:gid, each "
			    "below 4294967295", user);
			return -1;
		}
		*uid = (uid_t)u;
		*gid = (gid_t)(colon ? g : u);
		return 0;
	}
	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		/* "not found" is 0, ENOENT, ESRCH, EBADF or EPERM (getpwnam(3)) */
		if (errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF &&
		    errno != EPERM)
			log_warn("user \"%s\": cannot look it up", user);
		else
			log_warnx("user \"%s\" does not exist: create it (useradd --system "
			    "--no-create-home --shell /usr/sbin/nologin %s), or set user = "
			    "to a uid no other process uses (user = 61234), or to root",
			    user, user);
		return -1;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

uid_t
priv_target(const char *user)
{
	const char *colon = strchr(user, ':');
	size_t ulen = colon ? (size_t)(colon - user) : strlen(user);
	unsigned long u;
	struct passwd *pw;

	if (geteuid() != 0 || strcmp(user, "root") == 0)
		return geteuid();
	if (strspn(user, "0123456789") == ulen && ulen > 0)
		return parse_id(user, ulen, &u) == -1 ? (uid_t)-1 : (uid_t)u;
	/* quietly: priv_drop says what is wrong with it */
	return (pw = getpwnam(user)) != NULL ? pw->pw_uid : (uid_t)-1;
}

int
priv_drop(const char *user)
{
	uid_t uid;
	gid_t gid;
	int r;

	if (geteuid() != 0)
		return 0;	/* systemd's User=/DynamicUser= did it already */
	if (strcmp(user, "root") == 0 || strcmp(user, "0") == 0)
		return 0;	/* asked to stay root */
	if (resolve(user, &uid, &gid) == -1)
		return -1;
	if (uid == 0)
		return 0;
	if (uid == UID_NOBODY)
		log_warnx("user = %s: the uid of nobody is shared with other services, "
		    "and any of them can stop or kill arpownd; give it a user of its own",
		    user);
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED |
	    CAPNG_BOUNDING_SET, CAP_NET_RAW, CAP_NET_ADMIN, -1) != 0) {
		log_warnx("libcap-ng: cannot select capabilities");
		return -1;
	}
	/* The bounding set first, while we still hold CAP_SETPCAP:
	 * capng_change_id() applies only the capability sets, and its
	 * CAPNG_CLEAR_BOUNDING would empty the bounding set altogether. */
	if (capng_apply(CAPNG_SELECT_BOUNDS) != 0) {
		log_warnx("libcap-ng: cannot reduce the bounding set");
		return -1;
	}
	if ((r = capng_change_id((int)uid, (int)gid, CAPNG_DROP_SUPP_GRP)) != 0) {
		log_warnx("cannot become %s (uid %u gid %u, libcap-ng error %d)", user,
		    (unsigned)uid, (unsigned)gid, r);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		log_warn("no_new_privs");
		return -1;
	}
	log_info("running as %s (uid %u) with CAP_NET_RAW and CAP_NET_ADMIN", user,
	    (unsigned)uid);
	return 0;
}

bool
priv_has_bpf(void)
{
	capng_get_caps_process();
	return capng_have_capability(CAPNG_PERMITTED, CAP_BPF) ||
	    capng_have_capability(CAPNG_PERMITTED, CAP_SYS_ADMIN);
}

int
priv_keep_net(void)
{
	if (geteuid() == 0)
		return 0;	/* priv_drop chose */
	capng_get_caps_process();
	if (!capng_have_capability(CAPNG_PERMITTED, CAP_BPF) &&
	    !capng_have_capability(CAPNG_PERMITTED, CAP_PERFMON) &&
	    !capng_have_capability(CAPNG_PERMITTED, CAP_SYS_ADMIN))
		return 0;	/* nothing to give up */
	capng_clear(CAPNG_SELECT_CAPS);
	/* the ambient set follows: nothing permitted and inheritable is left
	 * to keep in it but these two */
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_RAW,
	    CAP_NET_ADMIN, -1) != 0 || capng_apply(CAPNG_SELECT_CAPS) != 0) {
		log_warnx("libcap-ng: cannot give up the capabilities beyond CAP_NET_RAW "
		    "and CAP_NET_ADMIN");
		return -1;
	}
	log_info("kept CAP_NET_RAW and CAP_NET_ADMIN; the others given up");
	return 0;
}
