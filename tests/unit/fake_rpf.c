/* fake_rpf.c — rpf.h for unit tests: no netlink; rpf_check answers the
 * verdict the test set and records what it was asked. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fakes.h"
#include "rpf.h"

static enum rpf_verdict verdict;
static size_t nchecks;
static uint32_t last_dst;

void
fake_rpf_reset(void)
{
	verdict = RPF_OK;
	nchecks = 0;
	last_dst = 0;
}

void
fake_rpf_set(int v)
{
	verdict = (enum rpf_verdict)v;
}

size_t
fake_rpf_nchecks(void)
{
	return nchecks;
}

uint32_t
fake_rpf_dst(void)
{
	return last_dst;
}

bool
rpf_active(const struct rpf *r)
{
	(void)r;
	return true;
}

void
rpf_read(struct rpf *r)
{
	(void)r;
}

enum rpf_verdict
rpf_check(struct rpf *r, const struct tbl_iface *in, uint32_t sip, uint32_t tip,
    uint32_t dst, double now)
{
	(void)r;
	(void)in;
	(void)sip;
	(void)tip;
	(void)now;
	nchecks++;
	last_dst = dst;
	return verdict;
}
