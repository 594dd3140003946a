/* commands.c — one cmd_<name> per control command.  Reports are rendered
 * by report.c and metrics.c from a view the daemon fills; announce,
 * publish, withdraw and reload go to the announcer, the publisher and the
 * reloader, which say what went wrong in words for the client. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "announce.h"
#include "announcer.h"
#include "commands.h"
#include "jsonw.h"
#include "log.h"
#include "metrics.h"
#include "publish.h"
#include "pubops.h"
#include "reload.h"
#include "table.h"

struct cmd {
	struct cmd_deps	d;
};

struct cmd *
cmd_new(const struct cmd_deps *d)
{
	struct cmd *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->d = *d;
	return c;
}

void
cmd_free(struct cmd *c)
{
	free(c);
}

/* The opening of every action's reply. */
static void
reply_open(struct jw *w, FILE *out)
{
	jw_init(w, out);
	jw_obj(w, NULL, false);
	jw_int(w, "schema", RPT_SCHEMA);
}

/* "announce ADDR|IFACE": a burst from the interface that owns the address
 * (or publishes it), or for every address of one interface (one burst per
 * interface however often asked); uid: who asks. */
static int
cmd_announce(struct cmd *c, const struct ctlp_req *req, uid_t uid, FILE *out)
{
	const char *ifname = NULL;
	struct tbl_iface *ifp;
	struct jw w;
	int r;

	if (req->has_ifname) {
		if ((ifp = tbl_iface_byname(c->d.tbl, req->ifname)) == NULL ||
		    !anr_speaks(ifp)) {
			fprintf(out, "%s: %s\n", req->ifname, ifp == NULL ? "no such interface" :
			    "not managed, in monitor or off mode, or announce = no there: "
			    "arpownd does not announce there");
			return EX_DATAERR;
		}
		anr_start(c->d.anr, ifp->ifindex, 0);
		ifname = ifp->name;
	} else if ((r = anr_request(c->d.anr, req->addr, uid, &ifname)) == ANR_NONE) {
		fprintf(out, "%s: neither an address of an interface arpownd manages and "
		    "announces on, nor published\n", log_ip(req->addr));
		return EX_DATAERR;
	} else if (r == ANR_BUSY) {
		/* told, not logged: the peer may ask in a loop */
		fprintf(out, "%s: busy: uid %u may have at most %d announcements it asked "
		    "for pending (only root has no such limit); try again once they are "
		    "sent\n", log_ip(req->addr), (unsigned)uid, ANN_PEER_PENDING);
		return EX_TEMPFAIL;
	}
	reply_open(&w, out);
	jw_bool(&w, "announced", true);
	if (req->has_addr)
		jw_str(&w, "address", log_ip(req->addr));
	else
		jw_null(&w, "address");
	if (ifname != NULL)
		jw_strn(&w, "interface", ifname, strnlen(ifname, IF_NAMESIZE));
	else
		jw_null(&w, "interface");	/* published: from each interface it names */
	jw_end(&w);
	return 0;
}

/* "publish ADDR[/LEN] IFACE" and "withdraw ADDR[/LEN]". */
static int
cmd_publish(struct cmd *c, const struct ctlp_req *req, FILE *out)
{
	char cidr[INET_ADDRSTRLEN + 4], err[320];
	bool pub = req->cmd == CTLP_PUBLISH;
	struct jw w;
	int code;

	snprintf(cidr, sizeof(cidr), "%s/%u", log_ip(req->addr), req->plen);
	err[0] = '\0';
	code = pub ? pop_publish(c->d.pop, req->addr, req->plen, req->ifname, req->force, err,
	    sizeof(err)) : pop_withdraw(c->d.pop, req->addr, req->plen, err, sizeof(err));
	if (code != 0) {
		fprintf(out, "%s\n", err);
		return code;
	}
	if (c->d.status != NULL)
		c->d.status(c->d.status_arg);	/* "8 published" */
	reply_open(&w, out);
	jw_bool(&w, pub ? "published" : "withdrawn", true);
	jw_str(&w, "address", cidr);
	if (pub)
		jw_str(&w, "interface", req->ifname);
	jw_end(&w);
	return 0;
}

/* "reload": fd is the file root passed, or -1. */
static int
cmd_reload(struct cmd *c, int fd, FILE *out)
{
	char *warn = NULL, *line, *nl;
	struct rpt_view v;
	size_t wlen = 0;
	struct jw w;
	FILE *wf;
	int code;

	if ((wf = open_memstream(&warn, &wlen)) == NULL) {
		fprintf(out, "out of memory\n");
		return EX_TEMPFAIL;
	}
	code = rld_reload(c->d.rld, fd, out, wf);
	if (fclose(wf) != 0) {
		free(warn);
		warn = NULL;
		wlen = 0;
	}
	if (code != 0) {
		free(warn);
		return code;
	}
	c->d.view(c->d.view_arg, &v);	/* the new configuration's */
	reply_open(&w, out);
	jw_bool(&w, "reloaded", true);
	jw_str(&w, "config", v.conf_path);
	jw_bool(&w, "passed", fd != -1);
	jw_arr(&w, "warnings", false);
	for (line = warn; line != NULL && line < warn + wlen; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(warn + wlen - line))) == NULL)
			nl = warn + wlen;
		jw_strn(&w, NULL, line, (size_t)(nl - line));
	}
	jw_end(&w);
	jw_end(&w);
	free(warn);
	return 0;
}

int
cmd_handle(void *arg, const struct ctlp_req *req, uid_t uid, int fd, FILE *out,
    const char **type)
{
	struct cmd *c = arg;
	struct rpt_view v;

	*type = "json";
	c->d.view(c->d.view_arg, &v);
	/* "counters eth0", "published 10.0.0.50": one item, or why not */
	if ((req->cmd == CTLP_INTERFACES || req->cmd == CTLP_COUNTERS) && req->has_ifname) {
		if (tbl_iface_byname(c->d.tbl, req->ifname) == NULL) {
			fprintf(out, "%s: no such interface\n", req->ifname);
			return EX_DATAERR;
		}
		v.only = req->ifname;
	}
	if (req->cmd == CTLP_PUBLISHED && req->has_addr) {
		if (v.pub == NULL || pub_find(v.pub, req->addr) == NULL) {
			fprintf(out, "%s: not published\n", log_ip(req->addr));
			return EX_DATAERR;
		}
		v.only_addr = req->addr;
	}
	switch (req->cmd) {
	case CTLP_STATUS:
		rpt_status(&v, out);
		return 0;
	case CTLP_INTERFACES:
		rpt_interfaces(&v, out);
		return 0;
	case CTLP_COUNTERS:
		rpt_counters(&v, out);
		return 0;
	case CTLP_CONFLICTS:
		rpt_conflicts(&v, out);
		return 0;
	case CTLP_METRICS:
		*type = "text";
		met_render(&v, out);
		return 0;
	case CTLP_RELOAD:
		return cmd_reload(c, fd, out);
	case CTLP_ANNOUNCE:
		return cmd_announce(c, req, uid, out);
	case CTLP_PUBLISH:
	case CTLP_WITHDRAW:
		return cmd_publish(c, req, out);
	case CTLP_PUBLISHED:
		rpt_published(&v, out);
		return 0;
	default:
		fprintf(out, "%s: not implemented\n", ctlp_cmd_str(req->cmd));
		return EX_SOFTWARE;
	}
}

void
cmd_dump(struct cmd *c)
{
	static void (*const fns[])(const struct rpt_view *, FILE *) = {
		rpt_status, rpt_counters,
	};
	static const char *const names[] = { "status: ", "counters: " };
	struct rpt_view v;
	char *buf;
	size_t len, i, j, o;
	FILE *f;

	c->d.view(c->d.view_arg, &v);
	for (i = 0; i < 2; i++) {
		buf = NULL;
		len = 0;
		if ((f = open_memstream(&buf, &len)) == NULL) {
			log_warn("SIGUSR1");
			return;
		}
		fns[i](&v, f);
		if (fclose(f) != 0) {
			free(buf);
			log_warn("SIGUSR1");
			return;
		}
		/* one entry, one line: the document's newlines only separate
		 * records (a string's are escaped), so without them it is the
		 * same JSON.  At notice: asked for by a person, who should
		 * see it at the shipped log_level. */
		for (j = o = 0; j < len; j++)
			if (buf[j] != '\n')
				buf[o++] = buf[j];
		log_text(LOG_NOTICE, NULL, names[i], buf, o);
		free(buf);
	}
}
