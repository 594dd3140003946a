/* fuzz_state.c — libFuzzer: the state-file parser, and the round trip of
 * whatever it accepts through state_format. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state a = { 0 }, b = { 0 };
	char err[128], *text;
	size_t i;

	if (state_parse((const char *)data, size, &a, err, sizeof(err)) == 0) {
		if ((text = state_format(&a)) == NULL)
			abort();
		/* what we write we must read back, the same */
		if (state_parse(text, strlen(text), &b, err, sizeof(err)) != 0 || a.n != b.n)
			abort();
		for (i = 0; i < a.n; i++)
			if (strcmp(a.v[i].name, b.v[i].name) != 0 ||
			    a.v[i].arp_ignore != b.v[i].arp_ignore ||
			    a.v[i].arp_announce != b.v[i].arp_announce)
				abort();
		free(text);
	}
	state_clear(&a);
	state_clear(&b);
	return 0;
}
