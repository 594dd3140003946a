/* test_reload.c — a reload with the real subsystems and faked edges: an
 * old and a new configuration, and what each subsystem was told (the
 * interfaces' modes, the frame path's published set, the announcer's
 * bursts); a bad file or an overlap changes nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <ev.h>
#include <cmocka.h>

#include "announcer.h"
#include "answer.h"
#include "conflict.h"
#include "fakes.h"
#include "iface.h"
#include "inforce.h"
#include "kanswer.h"
#include "limit.h"
#include "notes.h"
#include "policy.h"
#include "pubops.h"
#include "reload.h"
#include "report.h"
#include "statedir.h"
#include "statefile.h"
#include "stats.h"
#include "sync.h"
#include "table.h"
#include "textfile.h"

static const uint8_t MAC0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC1[6] = { 0x02, 0, 0, 0, 0, 0x11 };
static const uint8_t CMAC[6] = { 0x02, 0, 0, 0, 0, 0xc1 };

struct fx {
	char			 dir[64], path[96];
	struct ev_loop		*loop;
	struct sdir	*sd;
	struct tbl		*tbl;
	struct stats		 st;
	struct lim		 lim;
	struct cfl		*cfl;
	struct notes		*notes;
	struct ifm		*ifm;
	struct syn		*syn;
	struct anr		*anr;
	struct ans		*ans;
	struct pop		*pop;
	struct tf		*tf;
	struct rld		*rld;
	int			 statuses;
};

static uint32_t
ip(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void
add_iface(struct tbl *t, int ifindex, const char *name, const uint8_t mac[6],
    const char *addr)
{
	struct tbl_iface *ifp = tbl_iface_add(t, ifindex);

	assert_non_null(ifp);
	snprintf(ifp->name, sizeof(ifp->name), "%s", name);
	memcpy(ifp->mac, mac, 6);
	ifp->type = ARPHRD_ETHER;
	ifp->flags = IFF_UP | IFF_RUNNING;
	ifp->conf_known = true;
	assert_int_equal(tbl_addr_add(t, ifindex, ip(addr), ip(addr), 24), 1);
}

static void
view(void *arg, struct rpt_view *v)
{
	struct fx *f = arg;

	memset(v, 0, sizeof(*v));
	v->conf = inf_conf();
	v->tbl = f->tbl;
	v->st = &f->st;
}

static void
status(void *arg)
{
	((struct fx *)arg)->statuses++;
}

static void
no_sync(void *arg)
{
	(void)arg;
}

static const char OLD[] =
    "[global]\nuser = root\nsender_rate = 0\ntotal_rate = 0\nannounce_count = 1\n";

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct state st = { 0 };
	char err[256];
	struct anr_deps ad;
	struct ans_deps nd;
	struct syn_deps sd;
	struct pop_deps pd;
	struct rld_deps rd;
	struct conf *c;
	struct pub *p;

	assert_non_null(f);
	fake_cap_reset();
	fake_rtnl_reset();
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_reload.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/arpownd.conf", f->dir);
	write_file(f->path, OLD);
	f->sd = sdir_open(f->dir, SDIR_DAEMON, err, sizeof(err));
	assert_non_null(f->sd);
	f->loop = ev_loop_new(EVFLAG_AUTO);
	f->tbl = tbl_new();
	add_iface(f->tbl, 2, "eth0", MAC0, "10.0.0.1");
	add_iface(f->tbl, 3, "eth1", MAC1, "10.0.0.2");
	c = rld_load_conf(&(struct rld_source){ f->path, true, false, { NULL, NULL } }, NULL);
	assert_non_null(c);
	inf_init(c);
	f->cfl = cfl_new(64);
	f->notes = note_new(f->tbl);
	f->ifm = ifm_new(f->tbl, NULL, f->sd, &st);
	sd = (struct syn_deps){ f->tbl, NULL, f->ifm, &f->st, NULL, NULL };
	f->syn = syn_new(&sd);
	/* made in the daemon's order: what each uses before it */
	ad = (struct anr_deps){ f->loop, f->tbl, NULL, &f->lim, &f->st };
	f->anr = anr_new(&ad);
	pd = (struct pop_deps){ f->tbl, f->sd, f->anr, NULL, NULL };
	f->pop = pop_new(&pd);
	p = pop_build(f->pop, c, NULL);
	assert_non_null(p);
	inf_init_pub(p);
	nd = (struct ans_deps){ f->tbl, NULL, NULL, f->anr, f->notes, f->cfl, &f->lim, &f->st,
	    no_sync, NULL, NULL };
	f->ans = ans_new(&nd);
	f->tf = tf_new(f->loop, view, f);
	rd = (struct rld_deps){ { f->path, true, false, { NULL, NULL } }, f->ifm, f->pop,
	    NULL, NULL, status, f, false };
	f->rld = rld_new(&rd, 1.0);
	/* told as the daemon tells them (daemon.c's subscribe) */
	assert_int_equal(inf_subscribe(kan_set_pub, NULL), 0);
	assert_int_equal(inf_subscribe(rld_apply, f->rld), 0);
	assert_int_equal(inf_subscribe(anr_reconf, f->anr), 0);
	assert_int_equal(inf_subscribe(tf_reconf, f->tf), 0);
	assert_int_equal(inf_subscribe(kan_reconf, NULL), 0);
	assert_int_equal(inf_subscribe(rld_settle, f->rld), 0);
	assert_int_equal(inf_subscribe(anr_changed, f->anr), 0);
	ifm_on_event(f->ifm, anr_ifm_event, f->anr);
	assert_int_equal(ifm_apply_all(f->ifm, c), 0);
	assert_true(tbl_iface(f->tbl, 3)->managed);
	assert_int_equal(tbl_iface(f->tbl, 3)->mode, POL_OWNER);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	rld_free(f->rld);
	tf_free(f->tf);
	ans_free(f->ans);
	anr_free(f->anr);
	pop_free(f->pop);
	syn_free(f->syn);
	ifm_free(f->ifm);
	note_free(f->notes);
	cfl_free(f->cfl);
	tbl_free(f->tbl);
	inf_free();
	ev_loop_destroy(f->loop);
	sdir_close(f->sd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Frames sent with target ip tip from ifindex (announcements). */
static int
announced(int ifindex, uint32_t tip)
{
	size_t i;
	int n = 0;

	for (i = 0; i < fake_cap_nsent(); i++) {
		const struct fake_sent *s = fake_cap_sent(i);

		if (s->ifindex == ifindex && memcmp(s->frame + 38, &tip, 4) == 0)
			n++;
	}
	return n;
}

static void
test_good_reload_tells_everyone(void **state)
{
	struct fx *f = *state;
	const struct conf *old = inf_conf();
	char *body = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&body, &len);
	uint8_t p[64];

	write_file(f->path, "[global]\nuser = root\nsender_rate = 0\ntotal_rate = 0\n"
	    "announce_count = 1\n"
	    "[interface uplink]\nmatch = eth1\nmode = subnet\n"
	    "[publish web]\naddresses = 10.0.0.48/29\ninterface = eth0\n");
	assert_int_equal(rld_reload(f->rld, -1, out, NULL), 0);
	fclose(out);
	free(body);
	assert_ptr_not_equal(inf_conf(), old);
	assert_int_equal(f->statuses, 1);
	/* the interface manager: eth1 now in subnet mode, eth0 unchanged */
	assert_int_equal(tbl_iface(f->tbl, 3)->mode, POL_SUBNET);
	assert_int_equal(tbl_iface(f->tbl, 2)->mode, POL_OWNER);
	/* the frame path answers the new section's addresses from eth0 */
	fake_cap_push(p, fake_frame(p, 2, 1, CMAC, "10.0.0.9", "10.0.0.50"), 1);
	ans_run(f->ans, ev_now(f->loop));
	assert_int_equal(fake_cap_nsent(), 1);
	assert_int_equal(fake_cap_sent(0)->ifindex, 2);
	/* the announcer: the new section's addresses announced from eth0 only */
	anr_run(f->anr);
	assert_int_equal(announced(2, ip("10.0.0.50")), 2);
	assert_int_equal(announced(3, ip("10.0.0.50")), 0);
}

static void
test_bad_reload_changes_nothing(void **state)
{
	struct fx *f = *state;
	const struct conf *old = inf_conf();
	const struct pub *oldp = inf_pub();
	char *body = NULL;
	size_t len = 0;
	double loaded, failed;
	FILE *out = open_memstream(&body, &len);

	write_file(f->path, "[global]\nmode = subnett\n");
	assert_int_equal(rld_reload(f->rld, -1, out, NULL), EX_CONFIG);
	fclose(out);
	assert_non_null(strstr(body, "not reloaded, the running configuration stays"));
	assert_non_null(strstr(body, f->path));
	free(body);
	assert_ptr_equal(inf_conf(), old);
	assert_ptr_equal(inf_pub(), oldp);
	assert_int_equal(tbl_iface(f->tbl, 3)->mode, POL_OWNER);
	rld_times(f->rld, &loaded, &failed);
	assert_true(failed > 0);
	assert_true(loaded == 1.0);
}

static void
test_overlap_with_runtime_refused(void **state)
{
	struct fx *f = *state;
	const struct conf *old = inf_conf();
	char err[320];

	assert_int_equal(pop_publish(f->pop, ip("10.0.0.48"), 29, "eth0", false, err, sizeof(err)), 0);
	write_file(f->path, "[global]\nuser = root\n"
	    "[publish web]\naddresses = 10.0.0.50\ninterface = eth0\n");
	assert_int_equal(rld_reload(f->rld, -1, NULL, NULL), EX_CONFIG);
	assert_ptr_equal(inf_conf(), old);
	assert_true(pub_find(inf_pub(), ip("10.0.0.50"))->runtime);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_reload_tells_everyone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_reload_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap_with_runtime_refused, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
