/* main.c — command line, then hand over to the daemon. */
#include "config.h"

#include <linux/capability.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "conf.h"
#include "daemon.h"
#include "kanswer.h"
#include "kpath.h"
#include "log.h"
#include "offline.h"
#include "reload.h"
#include "statedir.h"
#include "unitcaps.h"
#include "stopping.h"

/* -n speaks to a person at a terminal: plain lines, no priorities. */
static void
print_err(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

static void
print_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "warning: %s\n", msg);
}

/*
 * -n runs as the admin, who holds every capability: whether the service
 * could load the kernel answer path is the unit's to say (CAP_BPF, given
 * by its drop-in).  Asked of systemd for the file the unit reads; -1
 * after the error when the file requires the kernel path and the unit
 * cannot give it (a start would fail: 78), a warning for auto.
 */
static int
unit_cannot(const struct conf *c, bool quiet)
{
	uint64_t caps;

	if (!kp_built() || !kan_wanted(c) || c->path == NULL ||
	    strcmp(c->path, CONF_DEFAULT_PATH) != 0 || uc_caps(UC_UNIT, &caps) != 1 ||
	    (caps & (UINT64_C(1) << CAP_BPF)) != 0)
		return 0;
	if (kan_required(c)) {
		fprintf(stderr, "%s: answer_path = kernel: %s, which runs arpownd, gives "
		    "it no CAP_BPF, without which the kernel answer path cannot load and "
		    "the service would not start: " KAN_DROPIN_HINT "; or set "
		    "answer_path = auto or capture\n", c->path, UC_UNIT);
		return -1;
	}
	if (!quiet)
		fprintf(stderr, "warning: %s: answer_path = auto: %s gives arpownd no CAP_BPF: "
		    "the capture path will answer; for the kernel path, " KAN_DROPIN_HINT
		    "\n", c->path, UC_UNIT);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: arpownd [-c FILE] [--state-dir DIR] [-d] [--monitor] [-n [-q]]\n"
	    "               [--restore[=originals]] [--stopping] [--withdraw ADDR[/LEN]]\n"
	    "               [-V] [-h]\n"
	    "Answer ARP requests only from the interface that owns the address.\n"
	    "\n"
	    "  -c, --config FILE   configuration file (default %s)\n"
	    "      --state-dir DIR saved sysctl originals and lock (default %s)\n"
	    "  -d, --debug         debug logging to stderr\n"
	    "      --monitor       watch only: every managed interface in monitor mode,\n"
	    "                      whatever the configuration says (try it first)\n"
	    "  -n, --check-config  validate the configuration, print it, exit\n"
	    "  -q, --quiet         with -n: print only the errors\n"
	    "      --restore       leave what a stop leaves (stop_leaves: the kernel's\n"
	    "                      strict mode, or the saved sysctls) and exit\n"
	    "      --restore=originals\n"
	    "                      give the saved sysctls back, and exit\n"
	    "      --stopping      the unit's ExecStop, as root: note whether systemd\n"
	    "                      stops it for good; take over from a daemon that\n"
	    "                      would give the originals back at its stop\n"
	    "      --withdraw ADDR[/LEN]\n"
	    "                      while arpownd is not running: drop a runtime-\n"
	    "                      published entry from the state dir, and exit\n"
	    "  -V, --version       print the version and exit\n"
	    "  -h, --help          print this help and exit\n",
	    CONF_DEFAULT_PATH, SDIR_DEFAULT_DIR);
}

int
main(int argc, char *argv[])
{
	enum { OPT_STATE_DIR = 256, OPT_RESTORE, OPT_WITHDRAW, OPT_MONITOR, OPT_STOPPING };
	static const struct option longopts[] = {
		{ "config",		required_argument,	NULL, 'c' },
		{ "state-dir",		required_argument,	NULL, OPT_STATE_DIR },
		{ "debug",		no_argument,		NULL, 'd' },
		{ "check-config",	no_argument,		NULL, 'n' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "restore",		optional_argument,	NULL, OPT_RESTORE },
		{ "withdraw",		required_argument,	NULL, OPT_WITHDRAW },
		{ "stopping",		no_argument,		NULL, OPT_STOPPING },
		{ "monitor",		no_argument,		NULL, OPT_MONITOR },
		{ "version",		no_argument,		NULL, 'V' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon_opts o = { CONF_DEFAULT_PATH, false, SDIR_DEFAULT_DIR, false, false };
	struct rld_source src;
	bool check = false, restore = false, quiet = false, originals = false;
	bool stopping = false;
	const char *withdraw = NULL;
	struct conf *c;
	int ch;

	while ((ch = getopt_long(argc, argv, "c:dnqVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			o.conf_path = optarg;
			o.conf_explicit = true;
			break;
		case OPT_STATE_DIR:
			o.state_dir = optarg;
			break;
		case 'd':
			o.debug = true;
			break;
		case 'n':
			check = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_RESTORE:
			restore = true;
			if (optarg != NULL && strcmp(optarg, "originals") != 0) {
				fprintf(stderr, "arpownd: --restore=%s: only --restore=originals\n",
				    optarg);
				return EX_USAGE;
			}
			originals = optarg != NULL;
			break;
		case OPT_WITHDRAW:
			withdraw = optarg;
			break;
		case OPT_STOPPING:
			stopping = true;
			break;
		case OPT_MONITOR:
			o.monitor = true;
			break;
		case 'V':
			printf("arpownd %s (kernel answer path: %s)\n", PACKAGE_VERSION,
			    kp_built() ? "built" : "not built");
			return EX_OK;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "arpownd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}
	if (quiet && !check) {
		fprintf(stderr, "arpownd: -q goes with -n\n");
		return EX_USAGE;
	}
	if ((check ? 1 : 0) + (restore ? 1 : 0) + (withdraw != NULL ? 1 : 0) +
	    (stopping ? 1 : 0) > 1) {
		fprintf(stderr, "arpownd: -n, --restore, --withdraw and --stopping exclude "
		    "each other\n");
		return EX_USAGE;
	}
	log_init(LOG_INFO, o.debug);
	if (check || restore || withdraw != NULL || stopping)
		log_command_mode();
	if (check) {
		src = (struct rld_source){ o.conf_path, o.conf_explicit, o.monitor, { NULL, NULL } };
		if ((c = rld_load_conf(&src, print_err)) == NULL)
			return EX_CONFIG;
		if (unit_cannot(c, quiet) == -1) {
			conf_free(c);
			return EX_CONFIG;
		}
		/* -n -q is for scripts (a package's postinst, a deploy check):
		 * a good file is no news; the daemon logs the warnings itself
		 * when it starts */
		if (!quiet) {
			/* what the file names that is not there: a warning, exit 0 */
			rld_lint(c, print_warn, NULL);
			/* answer_path = kernel does not parse in such a build */
			if (!kp_built() && kan_wanted(c))
				fprintf(stderr, "warning: %s: answer_path = auto: this arpownd is "
				    "built without the kernel answer path; the capture path "
				    "answers\n", c->path != NULL ? c->path : "configuration");
			conf_print(c, stdout);
			printf("configuration OK\n");
		}
		conf_free(c);
		return EX_OK;
	}
	if (restore) 		{
		src = (struct rld_source){ o.conf_path, o.conf_explicit, false, { NULL, NULL } };
		return off_restore(o.state_dir, &src, originals);
	}
	if (stopping)
		return stp_run(&o);
	if (withdraw != NULL)
		return off_withdraw(o.state_dir, withdraw);
	return daemon_run(&o);
}
