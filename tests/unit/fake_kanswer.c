/* fake_kanswer.c — kanswer.h for unit tests of the features that tell
 * the kernel answer path of changes: no BPF, nothing told. */
#include <stdbool.h>
#include <stddef.h>

#include "kanswer.h"

void
kan_set_pub(void *arg, const struct conf *oc, const struct pub *op)
{
	(void)arg;
	(void)oc;
	(void)op;
}

void
kan_reconf(void *arg, const struct conf *oc, const struct pub *op)
{
	(void)arg;
	(void)oc;
	(void)op;
}

bool
kan_wanted(const struct conf *c)
{
	(void)c;
	return false;	/* the reload tests run without the kernel path */
}

bool
kan_required(const struct conf *c)
{
	(void)c;
	return false;
}

bool
kan_xdp_conflict(struct kan *k, const struct conf *nc, char *err, size_t errlen)
{
	(void)k;
	(void)nc;
	(void)err;
	(void)errlen;
	return false;
}

const char *
kan_required_name(const struct conf *c)
{
	(void)c;
	return "kernel";
}
