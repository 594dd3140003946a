/* ctlfile.c — a configuration file root passes the daemon with a reload
 * request (SCM_RIGHTS), for when the daemon, no longer root, may not read
 * it: checked to be the configured file, and copied into a memfd of at
 * most PASSED_MAX bytes.  A copy, because iniparser reads a path, and
 * opening the passed fd's /proc/self/fd link would check the file's mode
 * again: the check the daemon failed. */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "util.h"

#define PASSED_MAX	(1 << 20)	/* a configuration file, at most */

int
ctl_passed_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat a, b;
	char buf[8192];
	off_t off = 0;
	ssize_t r;
	int m;

	if (fstat(fd, &a) == -1)
		return util_seterr(err, errlen, -1, "the file passed: %s", strerror(errno));
	/* the same inode: what reload means is rereading our file, no other */
	if (!S_ISREG(a.st_mode) || stat(path, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		errno = EINVAL;
		return util_seterr(err, errlen, -1, "the file passed is not %s", path);
	}
	if (a.st_size > PASSED_MAX) {
		errno = EFBIG;
		return util_seterr(err, errlen, -1,
		    "%s: larger than %d bytes", path, PASSED_MAX);
	}
	if ((m = memfd_create("arpownd.conf", MFD_CLOEXEC)) == -1)
		return util_seterr(err, errlen, -1, "memfd_create: %s", strerror(errno));
	while ((r = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 || write(m, buf, (size_t)r) != r) {
			util_seterr(err, errlen, -1, "%s: %s", path, strerror(errno));
			close(m);
			return -1;
		}
		if ((off += r) > PASSED_MAX) {
			errno = EFBIG;
			util_seterr(err, errlen, -1,
			    "%s: larger than %d bytes", path, PASSED_MAX);
			close(m);
			return -1;
		}
	}
	return m;
}
