/* fake_rtnl.c — rtnl.h for unit tests: no netlink socket; the calls a
 * feature makes are recorded, the parser stays the real one (rtnl.c is
 * not linked: rtnl_parse is not needed by the features). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "fakes.h"
#include "rtnl.h"

static struct fake_learn learned[FAKE_FRAMES];
static struct fake_setarp setarp[FAKE_FRAMES];
static size_t nlearned, nsetarp;
static uint64_t drained;
static int fail_ifindex, fail_err;

void
fake_rtnl_reset(void)
{
	nlearned = nsetarp = 0;
	drained = 0;
	fail_ifindex = fail_err = 0;
}

void
fake_rtnl_set_drained(uint64_t ns)
{
	drained = ns;
}

size_t
fake_rtnl_nlearn(void)
{
	return nlearned;
}

const struct fake_learn *
fake_rtnl_learn(size_t i)
{
	return i < nlearned ? &learned[i] : NULL;
}

size_t
fake_rtnl_nsetarp(void)
{
	return nsetarp;
}

const struct fake_setarp *
fake_rtnl_setarp(size_t i)
{
	return i < nsetarp ? &setarp[i] : NULL;
}

void
fake_rtnl_fail(int ifindex, int err)
{
	fail_ifindex = ifindex;
	fail_err = err;
}

struct rtnl *
rtnl_open(void)
{
	return NULL;
}

void
rtnl_close(struct rtnl *r)
{
	(void)r;
}

int
rtnl_fd(const struct rtnl *r)
{
	(void)r;
	return -1;
}

int
rtnl_dump(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	(void)r;
	(void)fn;
	(void)arg;
	return 0;
}

int
rtnl_dump_links(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	(void)r;
	(void)fn;
	(void)arg;
	return 0;
}

int
rtnl_read(struct rtnl *r, rtnl_fn *fn, void *arg)
{
	(void)r;
	(void)fn;
	(void)arg;
	return 0;
}

uint64_t
rtnl_drained(const struct rtnl *r)
{
	(void)r;
	return drained;
}

int
rtnl_set_arp(struct rtnl *r, int ifindex, int arp_ignore, int arp_announce)
{
	(void)r;
	if (ifindex == fail_ifindex)
		return errno = fail_err, -1;
	assert_true(nsetarp < FAKE_FRAMES);
	setarp[nsetarp++] = (struct fake_setarp){ ifindex, arp_ignore, arp_announce };
	return 0;
}

void
rtnl_learn(struct rtnl *r, int ifindex, uint32_t ip, const uint8_t mac[static 6])
{
	(void)r;
	assert_true(nlearned < FAKE_FRAMES);
	learned[nlearned].ifindex = ifindex;
	learned[nlearned].ip = ip;
	memcpy(learned[nlearned].mac, mac, 6);
	nlearned++;
}
