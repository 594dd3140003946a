/* kanifs.c — the kernel answer path's record of each interface it is on,
 * or was meant to be on (struct kan_if: attached, its failure said, its
 * counters folded so far), found by ifindex and made on first use; the
 * daemon's side of the path (kanint.h) reads and writes it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kanint.h"

struct kan_if *
kan_slot(struct kan *k, int ifindex, bool make)
{
	struct kan_if *v;
	size_t i;

	for (i = 0; i < k->nifs; i++)
		if (k->ifs[i].ifindex == ifindex)
			return &k->ifs[i];
	if (!make)
		return NULL;
	if (k->nifs == k->aifs) {
		k->aifs = k->aifs ? 2 * k->aifs : 16;
		if ((v = realloc(k->ifs, k->aifs * sizeof(*v))) == NULL)
			return NULL;
		k->ifs = v;
	}
	memset(&k->ifs[k->nifs], 0, sizeof(k->ifs[0]));
	k->ifs[k->nifs].ifindex = ifindex;
	return &k->ifs[k->nifs++];
}
