/* fake_kanswer.c — kanswer.h for unit tests of the features that tell
 * the kernel answer path of changes: no BPF, nothing told. */
#include <stdbool.h>
#include <stddef.h>

#include "kanswer.h"

void
kan_set_pub(struct kan *k, const struct pub *p)
{
	(void)k;
	(void)p;
}

void
kan_reconf(struct kan *k, const struct conf *c)
{
	(void)k;
	(void)c;
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
