/* stopping.c — arpownd --stopping, the unit's ExecStop: what is done as
 * root while the daemon still answers, before systemd sends it SIGTERM.
 *
 * Whether the stop is for good (the unit disabled or masked, the system
 * shutting down) is asked of systemd here (sdunit.c), not in the
 * ExecStopPost that follows the daemon's exit: the answer is left as a
 * note in the state directory (the stop's INVOCATION_ID), and --restore
 * reads it without a bus round trip in the gap of a restart.
 *
 * And the takeover.  A daemon whose saved records name no strict mode
 * (0.1.0, which knows no stop_leaves) gives the weak-host originals back
 * at its stop: through the restart of an upgrade every NIC would answer
 * for every address.  Only keeping it from running its stop prevents
 * that, so when the configuration the next start reads leaves the strict
 * mode, this: a ring for every ARP request is put in systemd's store in
 * the main process's name (the next start answers from it, owned and
 * published, what came while nobody did), the daemon is stopped (SIGSTOP:
 * it would put its 8 back as soon as it read of a change), the strict
 * mode written on each recorded interface (the kernel answers from the
 * owning NIC from then on), the daemon SIGKILLed, and the records given
 * the strict mode they leave, so that ExecStopPost keeps it.  systemd
 * then sees its main process killed ("failed with result 'signal'", once)
 * and goes on with the restart. */
#include "config.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <net/if.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "handover.h"
#include "ifaceval.h"
#include "log.h"
#include "phases.h"
#include "reload.h"
#include "rtnl.h"
#include "sdunit.h"
#include "statedir.h"
#include "statefile.h"
#include "stopping.h"
#include "sysctl.h"

#define GONE_WAIT_MS	3000	/* a SIGKILLed process is gone by then */
/* From the ring on, every request is kept; what came before it is in the
 * old daemon's capture, answered if it runs long enough to read it (it
 * answers in microseconds, a busy host makes it wait for a CPU) */
#define CATCH_UP_MS	200

/* Record o's interface, as it is named now (renames while it ran are
 * followed by the daemon), in now; false when it is gone. */
static bool
current(const struct state_orig *o, char now[static IF_NAMESIZE])
{
	if (o->ifindex > 0)
		return if_indextoname((unsigned)o->ifindex, now) != NULL;
	if (if_nametoindex(o->name) == 0)
		return false;
	snprintf(now, IF_NAMESIZE, "%s", o->name);
	return true;
}

/* The strict mode on every recorded interface that is not in it already;
 * the number written. */
static size_t
write_strict(struct rtnl *r, const struct state *st, const struct conf *c)
{
	char now[IF_NAMESIZE];
	size_t i, n = 0;
	int leave, v;

	for (i = 0; i < st->n; i++) {
		if (st->v[i].arp_ignore == STATE_NONE || !current(&st->v[i], now))
			continue;
		if ((leave = ifm_leave_named(c, now)) == STATE_NONE)
			continue;
		if (sys_get(now, "arp_ignore", &v) == 0 && v == leave)
			continue;
		if (rtnl_set_arp(r, (int)if_nametoindex(now), leave, -1) == -1)
			log_warn("%s: cannot set arp_ignore=%d", now, leave);
		else
			n++;
	}
	return n;
}

/* How many recorded interfaces are in the strict mode c leaves. */
static size_t
in_strict(const struct state *st, const struct conf *c)
{
	char now[IF_NAMESIZE];
	size_t i, n = 0;
	int leave, v;

	for (i = 0; i < st->n; i++)
		if (st->v[i].arp_ignore != STATE_NONE && current(&st->v[i], now) &&
		    (leave = ifm_leave_named(c, now)) != STATE_NONE &&
		    sys_get(now, "arp_ignore", &v) == 0 && v == leave)
			n++;
	return n;
}

/* Wait until pid is gone (its fds closed: the state directory's lock
 * free), at most GONE_WAIT_MS; 0, or -1. */
static int
wait_gone(int pid)
{
	struct pollfd p = { -1, POLLIN, 0 };
	char path[64], st[256], *s;
	FILE *f;
	int i;

#ifdef SYS_pidfd_open
	if ((p.fd = (int)syscall(SYS_pidfd_open, pid, 0)) != -1) {
		i = poll(&p, 1, GONE_WAIT_MS);
		close(p.fd);
		return i == 1 ? 0 : -1;
	}
#endif
	/* no pidfd: the state in /proc (a zombie is gone for us) */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < GONE_WAIT_MS / 10; i++) {
		if ((f = fopen(path, "re")) == NULL)
			return 0;
		s = fgets(st, sizeof(st), f);
		fclose(f);
		if (s == NULL || ((s = strrchr(st, ')')) != NULL && s[1] == ' ' && s[2] == 'Z'))
			return 0;
		usleep(10000);
	}
	return -1;
}

/* Does the running daemon give originals back at its stop that c would
 * keep in the strict mode?  Records that name no strict mode say so. */
static bool
gives_back(const struct state *st, const struct conf *c)
{
	char now[IF_NAMESIZE];
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].arp_ignore != STATE_NONE && st->v[i].leave == STATE_NONE &&
		    current(&st->v[i], now) && ifm_leave_named(c, now) != STATE_NONE)
			return true;
	return false;
}

/* After the kill: the records say what the stop left, for ExecStopPost. */
static int
record_strict(const char *state_dir, const struct conf *c)
{
	char err[512], now[IF_NAMESIZE];
	struct state st = { 0 };
	struct sdir *sd;
	size_t i;
	int r = -1;

	if ((sd = sdir_open(state_dir, SDIR_RESTORE, err, sizeof(err))) == NULL ||
	    sdir_load(sd, &st, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		goto out;
	}
	for (i = 0; i < st.n; i++)
		if (st.v[i].arp_ignore != STATE_NONE && st.v[i].leave == STATE_NONE &&
		    current(&st.v[i], now))
			st.v[i].leave = ifm_leave_named(c, now);
	if ((r = sdir_save(sd, &st)) == -1)
		log_warn("%s: the records", state_dir);
out:
	state_clear(&st);
	sdir_close(sd);
	return r;
}

/* Does pid hold the lock of state_dir (flock on its "lock", which every
 * daemon takes before it touches a sysctl and holds until it is gone)?
 * MAINPID comes from the environment: a stale one, a forged one or one
 * a compromised daemon had systemd take names a process that is not the
 * daemon of these records, which root must never stop or kill.  The
 * kernel's table of locks says who holds it, not anything the daemon
 * wrote. */
static bool
holds_lock(const char *state_dir, int pid)
{
	char path[4096], line[256];
	unsigned maj, min;
	unsigned long ino;
	struct stat sb;
	bool r = false;
	FILE *f;
	int who;

	if ((size_t)snprintf(path, sizeof(path), "%s/lock", state_dir) >= sizeof(path) ||
	    stat(path, &sb) == -1 || (f = fopen("/proc/locks", "re")) == NULL)
		return false;
	/* "1: FLOCK  ADVISORY  WRITE 1234 00:19:5678 0 EOF"; waiters ("->")
	 * hold nothing */
	while (!r && fgets(line, sizeof(line), f) != NULL)
		/* the kernel's own text: a field out of range fails the comparison */
		r = sscanf(line, "%*d: FLOCK %*s WRITE %d %x:%x:%lu", &who, &maj, &min,	/* NOLINT(cert-err34-c) */
		    &ino) == 4 && who == pid && maj == major(sb.st_dev) &&
		    min == minor(sb.st_dev) && ino == (unsigned long)sb.st_ino;
	fclose(f);
	return r;
}

/* MAINPID as systemd sets it, a positive number; anything else is 0 (no
 * daemon to take over from) */
static int
pid_of(const char *s)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && *end == '\0' && v > 0 && v <= INT_MAX ? (int)v : 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The takeover of pid (see above); a sysexits code. */
static int
take_over(int pid, const struct daemon_opts *o, const struct state *st, const struct conf *c)
{
	char steps[256];
	struct phs ph;
	struct rtnl *r;
	size_t n;
	int fd;

	phs_begin(&ph, now_s());
	if ((r = rtnl_open()) == NULL) {
		log_warn("rtnetlink");
		return EX_OSERR;
	}
	/* first the ring: from here on, what nobody answers is kept.
	 * systemd gives its control processes no NOTIFY_SOCKET (unless
	 * NotifyAccess=all): the system manager's own is this one */
	if (getenv("NOTIFY_SOCKET") == NULL)
		(void)setenv("NOTIFY_SOCKET", "/run/systemd/notify", 0);
	if ((fd = ho_keep_for(pid)) == -1)
		log_warn("the takeover's ring (requests for published addresses "
		    "will wait for their sender's next try)");
	phs_mark(&ph, "ring stored", now_s());
	if (fd != -1)
		usleep(CATCH_UP_MS * 1000);
	/* stopped first: it would put its 8 back as soon as it read of our
	 * change (it heals rewritten sysctls); from here until the strict
	 * mode is written (a millisecond) nobody answers, and what comes
	 * then is on the ring */
	if (kill(pid, SIGSTOP) == -1 && errno != ESRCH) {
		log_warn("kill -STOP %d", pid);
		rtnl_close(r);
		if (fd != -1)
			close(fd);
		return EX_OSERR;
	}
	phs_mark(&ph, "SIGSTOP", now_s());
	(void)write_strict(r, st, c);
	phs_mark(&ph, "strict mode written", now_s());
	if (kill(pid, SIGKILL) == -1 && errno != ESRCH) {
		log_warn("kill %d", pid);
		rtnl_close(r);
		if (fd != -1)
			close(fd);
		return EX_OSERR;
	}
	phs_mark(&ph, "SIGKILL", now_s());
	if (wait_gone(pid) == -1)
		log_warnx("pid %d: still there %d ms after SIGKILL", pid, GONE_WAIT_MS);
	phs_mark(&ph, "gone", now_s());
	/* a write it had under way when it stopped may have landed after
	 * ours */
	(void)write_strict(r, st, c);
	n = in_strict(st, c);
	rtnl_close(r);
	(void)record_strict(o->state_dir, c);
	phs_mark(&ph, "records", now_s());
	if (fd != -1)
		close(fd);	/* systemd holds its own */
	log_notice("took over from pid %d, which would have given the interfaces' "
	    "originals back at its stop (its records name no strict mode: a release "
	    "before stop_leaves, or stop_leaves = originals until now): the kernel's "
	    "strict mode set on %zu interfaces, every ARP request kept for the next "
	    "start, the process killed", pid, n);
	log_info("takeover: %s", phs_format(&ph, steps, sizeof(steps)));
	return EX_OK;
}

int
stp_run(const struct daemon_opts *o)
{
	char err[512], unit[256];
	struct rld_source src = { .path = o->conf_path, .explicit_path = o->conf_explicit };
	struct state st = { 0 };
	const char *mp = getenv("MAINPID"), *inv = getenv("INVOCATION_ID");
	struct conf *c;
	struct sdir *sd;
	int code = EX_OK, pid = pid_of(mp);

	if ((sd = sdir_open(o->state_dir, SDIR_PEEK, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return EX_OK;	/* nothing saved, nothing to take over */
	}
	if (inv != NULL && sdu_leaving(unit, sizeof(unit))) {
		log_info("%s is being stopped for good: its ExecStopPost gives the "
		    "originals back", unit);
		(void)sdir_note_put(sd, inv);
	}
	if (pid <= 1 || sdir_load(sd, &st, err, sizeof(err)) == -1 || st.n == 0)
		goto out;
	/* the configuration the next start reads; unreadable, owner's */
	if ((c = rld_load_conf(&src, NULL)) == NULL)
		log_warnx("the configuration cannot be read: the strict mode of owner "
		    "(arp_ignore 1) for a takeover");
	if (!gives_back(&st, c))
		;
	else if (!holds_lock(o->state_dir, pid))
		log_warnx("MAINPID %d does not hold %s/lock: not the daemon of these "
		    "records (no arpownd runs, or it is another process); no takeover, "
		    "nothing signalled", pid, o->state_dir);
	else
		code = take_over(pid, o, &st, c);
	conf_free(c);
out:
	state_clear(&st);
	sdir_close(sd);
	return code;
}
