/* priv.c — drop root with libcap-ng: setuid keeps no capabilities by
 * itself, and getting the keep-caps dance right by hand is what
 * capng_change_id() exists for. */
#include "config.h"

#include <sys/prctl.h>
#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>
#include <cap-ng.h>

#include "log.h"
#include "priv.h"

int
priv_drop(const char *user, const char *state_dir)
{
	struct passwd *pw;
	int r;

	if (geteuid() != 0)
		return 0;	/* systemd's User=/DynamicUser= did it already */
	errno = 0;
	if ((pw = getpwnam(user)) == NULL && strcmp(user, "arpownd") == 0)
		pw = getpwnam("nobody");
	if (pw == NULL) {
		log_warnx("user \"%s\" does not exist", user);
		return -1;
	}
	if (pw->pw_uid == 0)
		return 0;	/* asked to stay root */
	/* the state file is rewritten at run time, as that user */
	if (chown(state_dir, pw->pw_uid, pw->pw_gid) == -1) {
		log_warn("%s: chown to %s", state_dir, pw->pw_name);
		return -1;
	}
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
	if ((r = capng_change_id((int)pw->pw_uid, (int)pw->pw_gid,
	    CAPNG_DROP_SUPP_GRP)) != 0) {
		log_warnx("cannot become %s (libcap-ng error %d)", pw->pw_name, r);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		log_warn("no_new_privs");
		return -1;
	}
	log_info("running as %s (uid %u) with CAP_NET_RAW and CAP_NET_ADMIN",
	    pw->pw_name, (unsigned)pw->pw_uid);
	return 0;
}
