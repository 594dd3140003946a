/* reload.c — a new configuration, all or nothing.  As OpenBSD's rad does
 * (main_reload, merge_config): parse the new configuration and build its
 * published set, validate them, and only then swap them in whole
 * (inforce.c), which tells the features that act on a change, in the
 * order daemon.c subscribed them; two of those steps are the reload's
 * own (rld_apply, rld_settle).  A root-passed descriptor lets a daemon that runs
 * unprivileged reload a file only root can read. */
#include "config.h"

#include <net/if.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ev.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sysexits.h>
#include <unistd.h>

#include "capture.h"
#include "ctl.h"
#include "iface.h"
#include "inforce.h"
#include "kanswer.h"
#include "log.h"
#include "msgid.h"
#include "notify.h"
#include "policy.h"
#include "pubops.h"
#include "reload.h"
#include "textfile.h"
#include "util.h"

struct rld {
	struct rld_deps	 d;
	double		 loaded;	/* the configuration in force read */
	double		 failed;	/* last refused reload, 0 = never */
};

static void
log_conf_err(void *arg, const char *msg)
{
	(void)arg;
	log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_RELOAD, NULL, 0, 0, NULL }, "%s", msg);
}

/* No published address may be on lo (LVS direct-routing VIPs are answered
 * by no one); lo's addresses are read here, the configuration can't. */
static int
published_on_lo(const struct conf *c, conf_err_fn *err)
{
	struct ifaddrs *ifa, *i;
	char msg[512], a[INET_ADDRSTRLEN];
	uint32_t addr;
	size_t k;
	int bad = 0;

	if (c->npubs == 0 || getifaddrs(&ifa) == -1)
		return 0;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_LOOPBACK))
			continue;
		memcpy(&addr, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
		for (k = 0; k < c->npubs; k++) {
			if (!rng_has(&c->pubs[k].set, addr))
				continue;
			inet_ntop(AF_INET, &addr, a, sizeof(a));
			snprintf(msg, sizeof(msg), "%s: [publish %s] addresses: %s is an "
			    "address of %s, which arpownd never answers for", c->path,
			    c->pubs[k].label, a, i->ifa_name);
			err(NULL, msg);
			bad = 1;
		}
	}
	freeifaddrs(ifa);
	return bad;
}

/* --monitor: whatever the file says, every interface it manages is
 * watched, none answered, no sysctl written (try it first).  Did the
 * file ask for answering somewhere (a mode set aside)? */
static bool
force_monitor(struct conf *c)
{
	bool asked = pol_answers(c->set.mode);
	size_t i;

	c->set.mode = POL_MONITOR;
	for (i = 0; i < c->nsections; i++)
		if (c->sections[i].set.mode >= 0) {
			asked = asked || pol_answers(c->sections[i].set.mode);
			c->sections[i].set.mode = POL_MONITOR;
		}
	return asked;
}

/* The credential systemd passed for the default path, or NULL. */
static const char *
credential(char *buf, size_t len)
{
	const char *d = getenv("CREDENTIALS_DIRECTORY");

	if (d == NULL || d[0] != '/' ||
	    (size_t)snprintf(buf, len, "%s/arpownd.conf", d) >= len || access(buf, R_OK) == -1)
		return NULL;
	return buf;
}

/* Messages about the credential name the file it is a copy of. */
struct renamed {
	conf_err_fn	*err;
	const char	*read_as, *path;
};

static void
renamed_err(void *arg, const char *msg)
{
	const struct renamed *r = arg;
	size_t n = strlen(r->read_as);
	char buf[1024];

	if (strncmp(msg, r->read_as, n) == 0) {
		snprintf(buf, sizeof(buf), "%s%s", r->path, msg + n);
		r->err(NULL, buf);
	} else
		r->err(NULL, msg);
}

/* /dev/null: the empty file, the defaults (arpownd -n -c /dev/null) */
static bool
dev_null(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && major(sb->st_rdev) == 1 && minor(sb->st_rdev) == 3;
}

/* Is path something a start may read?  A FIFO would block the start
 * (deaf to SIGTERM, and after a crash with the interfaces at 8), a
 * device read forever: only a regular file, or what cannot be opened
 * (conf_load says why).  false after the error went to err. */
static bool
readable_kind(const char *path, conf_err_fn *err)
{
	char msg[PATH_MAX + 64];
	struct stat sb;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) == -1)
		return true;
	if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode) && !dev_null(&sb)) {
		close(fd);
		snprintf(msg, sizeof(msg), "%s: not a regular file", path);
		err(NULL, msg);
		return false;
	}
	close(fd);
	return true;
}

struct conf *
rld_load_conf(const struct rld_source *src, conf_err_fn *err)
{
	char cred[PATH_MAX];
	struct renamed r;
	struct conf *c;

	if (err == NULL)
		err = log_conf_err;
	if (!src->explicit_path && access(src->path, F_OK) == -1 && errno == ENOENT)
		c = conf_defaults();
	else if (!src->explicit_path && credential(cred, sizeof(cred)) != NULL) {
		r = (struct renamed){ err, cred, src->path };
		if ((c = conf_load(cred, renamed_err, &r)) != NULL) {
			free(c->path);
			if ((c->path = strdup(src->path)) == NULL) {
				conf_free(c);
				err(NULL, "out of memory");
				return NULL;
			}
		}
	} else if (!readable_kind(src->path, err))
		return NULL;
	else
		c = conf_load(src->path, err, NULL);
	if (c != NULL && published_on_lo(c, err)) {
		conf_free(c);
		return NULL;
	}
	if (c != NULL && src->monitor)
		(void)force_monitor(c);
	return c;
}

/* The interface names that exist now, space-separated, into buf. */
static void
iface_names(struct if_nameindex *ni, char *buf, size_t len)
{
	size_t o = 0;
	int w;

	buf[0] = '\0';
	for (; ni != NULL && ni->if_index != 0 && o < len; ni++) {
		w = snprintf(buf + o, len - o, "%s%s", o ? " " : "", ni->if_name);
		if (w < 0 || (size_t)w >= len - o) {
			if (len > 4)
				memcpy(buf + len - 4, "...", 4);
			return;
		}
		o += (size_t)w;
	}
}

/* Does glob match an interface of ni? */
static bool
matches(struct if_nameindex *ni, const char *glob)
{
	for (; ni != NULL && ni->if_index != 0; ni++)
		if (fnmatch(glob, ni->if_name, 0) == 0)
			return true;
	return false;
}

/* The name of ni nearest to name, within two edits; NULL if none. */
static const char *
nearest(struct if_nameindex *ni, const char *name)
{
	const char *best = NULL;
	size_t bd = 3, d;

	for (; ni != NULL && ni->if_index != 0; ni++)
		if ((d = util_distance(name, ni->if_name)) < bd) {
			bd = d;
			best = ni->if_name;
		}
	return best;
}

/* One warning about glob, in what (e.g. "[global] interfaces"). */
static void
lint_glob(const struct conf *c, struct if_nameindex *ni, const char *what, const char *glob,
    const char *names, conf_err_fn *warn, void *arg)
{
	const char *near;
	char msg[768];

	if (strchr(glob, ',') != NULL && !matches(ni, glob))
		snprintf(msg, sizeof(msg), "%s: %s: \"%s\" matches no interface: a list "
		    "is separated by spaces, not commas", c->path, what, glob);
	else if (!matches(ni, glob) && strpbrk(glob, "*?[") == NULL &&
	    (near = nearest(ni, glob)) != NULL)
		/* a name, not a pattern: most likely a typo */
		snprintf(msg, sizeof(msg), "%s: %s: \"%s\" matches no interface now; "
		    "did you mean \"%s\"? (there are: %s)", c->path, what, glob, near,
		    names);
	else if (!matches(ni, glob))
		snprintf(msg, sizeof(msg), "%s: %s: \"%s\" matches no interface now "
		    "(there are: %s); one that comes later is managed then", c->path, what,
		    glob, names);
	else
		return;
	warn(arg, msg);
}

void
rld_lint(const struct conf *c, conf_err_fn *warn, void *arg)
{
	struct if_nameindex *ni;
	char names[512], what[160];
	size_t i, j;

	if (c->path == NULL || (ni = if_nameindex()) == NULL)
		return;
	iface_names(ni, names, sizeof(names));
	for (i = 0; i < c->nifaces; i++)
		if (!c->ifaces[i].neg)
			lint_glob(c, ni, "[global] interfaces", c->ifaces[i].pat, names, warn, arg);
	for (i = 0; i < c->nsections; i++) {
		snprintf(what, sizeof(what), "[interface %s] match", c->sections[i].label);
		for (j = 0; j < c->sections[i].nmatch; j++)
			if (!c->sections[i].match[j].neg)
				lint_glob(c, ni, what, c->sections[i].match[j].pat, names, warn,
				    arg);
	}
	for (i = 0; i < c->npubs; i++) {
		snprintf(what, sizeof(what), "[publish %s] interface", c->pubs[i].label);
		lint_glob(c, ni, what, c->pubs[i].ifglob, names, warn, arg);
	}
	if_freenameindex(ni);
}

void
rld_capture(struct cap *cap, const struct conf *c)
{
	if (cap_set_qdisc_bypass(cap, c->qdisc_bypass) == -1)
		log_warn("capture: cannot turn qdisc_bypass %s", c->qdisc_bypass ? "on" : "off");
}

struct rld *
rld_new(const struct rld_deps *d, double loaded)
{
	struct rld *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->d = *d;
	r->loaded = loaded;
	return r;
}

void
rld_free(struct rld *r)
{
	free(r);
}

void
rld_times(const struct rld *r, double *loaded, double *failed)
{
	*loaded = r->loaded;
	*failed = r->failed;
}

/* Where a configuration's errors go: the log, and a control client's reply. */
struct sink {
	FILE		*out;		/* NULL: the log alone */
	FILE		*warn;		/* warnings for the client, a line each, or NULL */
	const char	*read_as;	/* the memfd's path, named in conf_load's messages */
	const char	*path;		/* the file it is a copy of */
	bool		 set_aside;	/* --monitor overrode a mode the file asks for */
};

static void
sink_err(void *arg, const char *msg)
{
	const struct sink *k = arg;
	size_t n = strlen(k->read_as);

	/* the file's own name, not the copy's, in every message */
	if (k->read_as[0] != '\0' && strncmp(msg, k->read_as, n) == 0) {
		log_ctx(LOG_ERR, &(struct log_ctx){ MSGID_RELOAD, NULL, 0, 0, NULL },
		    "%s%s", k->path, msg + n);
		if (k->out != NULL)
			fprintf(k->out, "%s%s\n", k->path, msg + n);
		return;
	}
	log_conf_err(NULL, msg);
	if (k->out != NULL)
		fprintf(k->out, "%s\n", msg);
}

/* A warning about the new configuration: the log, and the client's reply. */
static void
sink_warn(void *arg, const char *msg)
{
	const struct sink *k = arg;

	log_ctx(LOG_WARNING, &(struct log_ctx){ MSGID_RELOAD, NULL, 0, 0, NULL }, "%s", msg);
	if (k != NULL && k->warn != NULL)
		fprintf(k->warn, "%s\n", msg);
}

void
rld_lint_log(const struct conf *c)
{
	rld_lint(c, sink_warn, NULL);
}

/* The new configuration from fd (a copy of our own, read through /proc:
 * iniparser reads a path) or from the path; NULL after the errors. */
static struct conf *
build(struct rld *r, int fd, struct sink *k)
{
	char copy[64], err[512];
	struct conf *nc = NULL;
	struct stat sb;
	int m, own = -1;

	if (fd == -1) {
		if (!r->d.src.explicit_path && access(r->d.src.path, F_OK) == -1 && errno == ENOENT) {
			nc = conf_defaults();
			if (nc != NULL && r->d.src.monitor)
				k->set_aside = force_monitor(nc);
			return nc;
		}
		/* Read in the one loop, while the interfaces are at 8: a FIFO
		 * would block the open, a device (/dev/zero) the read, and
		 * the host would be deaf.  Opened without blocking and read
		 * as a file root passes is (a regular file, bounded). */
		if ((own = open(r->d.src.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) == -1) {
			snprintf(err, sizeof(err), "%s: cannot read: %s", r->d.src.path,
			    strerror(errno));
			sink_err(k, err);
			return NULL;
		}
		if (fstat(own, &sb) == 0 && dev_null(&sb)) {
			close(own);
			nc = conf_load(r->d.src.path, sink_err, k);
			if (nc != NULL && r->d.src.monitor)
				k->set_aside = force_monitor(nc);
			return nc;
		}
		if (fstat(own, &sb) == -1 || !S_ISREG(sb.st_mode)) {
			snprintf(err, sizeof(err), "%s: not a regular file", r->d.src.path);
			sink_err(k, err);
			close(own);
			return NULL;
		}
		fd = own;
	}
	m = ctl_passed_file(fd, r->d.src.path, err, sizeof(err));
	if (own != -1)
		close(own);
	if (m == -1) {
		sink_err(k, err);
		return NULL;
	}
	snprintf(copy, sizeof(copy), "/proc/self/fd/%d", m);
	k->read_as = copy;
	if ((nc = conf_load(copy, sink_err, k)) != NULL) {
		free(nc->path);
		if ((nc->path = strdup(r->d.src.path)) == NULL) {
			conf_free(nc);
			nc = NULL;
			sink_err(k, "out of memory");
		}
	}
	close(m);
	k->read_as = "";
	if (nc != NULL && r->d.src.monitor)
		k->set_aside = force_monitor(nc);
	return nc;
}

void
rld_apply(void *arg, const struct conf *oc, const struct pub *op)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };
	const struct conf *nc = inf_conf();
	struct rld *r = arg;

	(void)op;
	/* the interfaces' settings point into nc from here on */
	if (ifm_apply_all(r->d.ifm, nc) == -1)
		log_ctx(LOG_ERR, &lc, "%s: the sysctl originals could not be saved: no "
		    "interface changed its sysctls (see above)", r->d.src.path);
	if (strcmp(nc->user, oc->user) != 0)
		log_ctx(LOG_NOTICE, &lc, "user = %s: takes effect at the next start "
		    "(running as %s)", nc->user, oc->user);
	/* The program loads with CAP_BPF, given up at start: auto asked for
	 * now is the next start's, and the capture path answers (kernel is
	 * refused before this: cannot_honour) */
	if (r->d.kan == NULL && kan_wanted(nc) && !kan_wanted(oc))
		log_ctx(LOG_NOTICE, &lc, "answer_path = auto: the kernel answer path loads "
		    "only at start (it needs CAP_BPF, given up after); the capture path "
		    "answers until a restart%s", r->d.bpf_at_start ? "" :
		    ", which needs the drop-in kernel-path.conf under systemd");
}

void
rld_settle(void *arg, const struct conf *oc, const struct pub *op)
{
	struct rld *r = arg;

	(void)oc;
	(void)op;
	log_setlevel(inf_conf()->log_level);
	rld_capture(r->d.cap, inf_conf());
}

/* Swap in nc and np: the subscribers told, the old ones freed. */
static void
swap_in(struct rld *r, struct conf *nc, struct pub *np)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };

	inf_swap(nc, np);
	r->loaded = ev_time();
	log_ctx(LOG_NOTICE, &lc, "reloaded %s", r->d.src.path);
}

/*
 * What a good file asks that this process cannot do now: refused like an
 * error, so that systemctl reload fails and says why, rather than accept
 * a configuration that is not in effect.  A metrics_file in a directory
 * the unit's mount namespace holds read-only (made after the start) or
 * the user cannot write.  answer_path = kernel means no
 * answering without the kernel path, which loads only at start: with
 * CAP_BPF (the unit's drop-in) a restart loads it, without it nothing
 * will.  1 after the error went to the sink, else 0.
 */
static int
cannot_honour(struct rld *r, const struct conf *nc, struct sink *k)
{
	const struct conf *oc = inf_conf();
	char msg[1024], why[768];

	/* a metrics file newly asked for, where this process cannot write:
	 * the error it would log once, said now to the one who reloads */
	if (nc->metrics_file != NULL && (oc->metrics_file == NULL ||
	    strcmp(nc->metrics_file, oc->metrics_file) != 0) &&
	    tf_writable(nc->metrics_file, why, sizeof(why)) == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", r->d.src.path, why);
		sink_err(k, msg);
		return 1;
	}
	/* answer_path = xdp onto an interface another XDP program holds:
	 * refused at a start (78), refused here alike */
	if (kan_xdp_conflict(r->d.kan, nc, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "%s: %s", r->d.src.path, why);
		sink_err(k, msg);
		return 1;
	}
	if (r->d.kan != NULL || !kan_required(nc))
		return 0;
	if (r->d.bpf_at_start)
		snprintf(msg, sizeof(msg), "%s: answer_path = %s: the kernel answer "
		    "path loads only at start (with CAP_BPF, given up after), and this "
		    "arpownd started without it: systemctl restart arpownd", r->d.src.path,
		    kan_required_name(nc));
	else
		snprintf(msg, sizeof(msg), "%s: answer_path = %s: this arpownd has no "
		    "CAP_BPF and cannot load the kernel answer path: under systemd, "
		    KAN_DROPIN_HINT "; or set answer_path = auto or capture", r->d.src.path,
		    kan_required_name(nc));
	sink_err(k, msg);
	return 1;
}

int
rld_reload(struct rld *r, int fd, FILE *out, FILE *warn)
{
	struct log_ctx lc = { MSGID_RELOAD, NULL, 0, 0, NULL };
	struct sink k = { out, warn, "", r->d.src.path, false };
	char msg[512];
	struct conf *nc;
	struct pub *np = NULL;

	notify_send("RELOADING=1");
	log_ctx(LOG_NOTICE, &lc, "reloading %s%s", r->d.src.path,
	    fd != -1 ? " (passed by root)" : "");
	if ((nc = build(r, fd, &k)) != NULL && cannot_honour(r, nc, &k)) {
		conf_free(nc);
		nc = NULL;
	}
	if (nc != NULL && (np = pop_build(r->d.pop, nc, inf_pub())) == NULL) {
		conf_free(nc);
		nc = NULL;
		if (out != NULL)
			fprintf(out, "%s: its published addresses cannot be taken (why is "
			    "in the log)\n", r->d.src.path);
	}
	/* last, as nothing may refuse it after: the originals the new file
	 * will change, saved before it is in force (all or nothing) */
	if (nc != NULL && ifm_prepare(r->d.ifm, nc) == -1) {
		pub_free(np);
		np = NULL;
		conf_free(nc);
		nc = NULL;
		if (out != NULL)
			fprintf(out, "%s: the sysctl originals it would change cannot be saved in "
			    "the state directory (why is in the log)\n", r->d.src.path);
	}
	if (nc == NULL) {
		/* an admin's action: never rate-limited */
		log_ctx(LOG_ERR, &lc, "%s: not reloaded, the running configuration stays",
		    r->d.src.path);
		if (out != NULL)
			fprintf(out, "%s: not reloaded, the running configuration stays\n",
			    r->d.src.path);
		/* read at start as root, now as the user we dropped to */
		if (fd == -1 && access(r->d.src.path, R_OK) == -1 && errno == EACCES) {
			log_ctx(LOG_ERR, &lc, "%s: not readable by uid %u, which arpownd "
			    "runs as: reload it as root, which passes the file (systemctl "
			    "reload arpownd, or arpownctl reload), or make it readable by "
			    "that user or group (chgrp arpownd %s; chmod 0640 %s)",
			    r->d.src.path, (unsigned)geteuid(), r->d.src.path, r->d.src.path);
			if (out != NULL)
				fprintf(out, "%s: not readable by uid %u, which arpownd runs "
				    "as: run arpownctl reload as root (it passes the file), "
				    "or make it readable by that user or group\n",
				    r->d.src.path, (unsigned)geteuid());
		}
		r->failed = ev_time();
	} else {
		rld_lint(nc, sink_warn, &k);
		/* editing the file cannot leave monitor mode: say what does */
		if (k.set_aside) {
			snprintf(msg, sizeof(msg), "%s: its mode is not in effect: %s keeps "
			    "every interface in monitor mode.  To answer: %s", r->d.src.path,
			    r->d.src.forced.by != NULL ? r->d.src.forced.by : "--monitor",
			    r->d.src.forced.to_answer != NULL ? r->d.src.forced.to_answer :
			    "start arpownd again without --monitor");
			sink_warn(&k, msg);
		}
		swap_in(r, nc, np);
	}
	if (r->d.status != NULL)
		r->d.status(r->d.status_arg);
	notify_send("READY=1");
	return nc == NULL ? EX_CONFIG : 0;
}
