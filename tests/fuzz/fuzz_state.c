/* fuzz_state.c — libFuzzer: the state-file parser, and the round trip of
 * whatever it accepts through state_format.  Each input is parsed as it is
 * (v1 text, or a v2 file whose checksum the fuzzer has to get right) and
 * once more framed as the records of a v2 file with a correct header and
 * checksum, so that mutations reach the record parser past the CRC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* zlib's CRC-32, bit by bit: independent of statefile.c's */
static uint32_t
crc32_bits(const uint8_t *p, size_t len)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static void
same(const struct state *a, const struct state *b)
{
	size_t i;

	if (a->n != b->n || a->gen != b->gen)
		abort();
	for (i = 0; i < a->n; i++)
		if (a->v[i].ifindex != b->v[i].ifindex ||
		    strcmp(a->v[i].name, b->v[i].name) != 0 ||
		    a->v[i].arp_ignore != b->v[i].arp_ignore ||
		    a->v[i].arp_announce != b->v[i].arp_announce)
			abort();
}

/* What parses must format, parse back to the same, and format the same. */
static void
roundtrip(const char *buf, size_t len)
{
	struct state a = { 0 }, b = { 0 };
	char err[256], *text, *again;
	size_t i;

	if (state_parse(buf, len, &a, err, sizeof(err)) == 0) {
		for (i = 0; i < a.n; i++)
			if (a.v[i].arp_ignore == STATE_NONE && a.v[i].arp_announce == STATE_NONE)
				abort();	/* "no values" is refused */
		if ((text = state_format(&a)) == NULL)
			abort();
		if (state_parse(text, strlen(text), &b, err, sizeof(err)) != 0)
			abort();
		same(&a, &b);
		if ((again = state_format(&b)) == NULL || strcmp(text, again) != 0)
			abort();
		free(again);
		free(text);
	} else if (a.n != 0 || memchr(err, '\0', sizeof(err)) == NULL ||
	    strncmp(err, "line ", 5) != 0)
		abort();	/* refused: nothing kept, and a reason with its line */
	state_clear(&a);
	state_clear(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "arpownd originals v2 gen=1\n";
	char *framed;
	size_t n;

	roundtrip((const char *)data, size);

	if (size > (1 << 16) || (framed = malloc(sizeof(head) + size + 16)) == NULL)
		return 0;
	memcpy(framed, head, sizeof(head) - 1);
	memcpy(framed + sizeof(head) - 1, data, size);
	n = sizeof(head) - 1 + size;
	if (size > 0 && data[size - 1] != '\n')
		framed[n++] = '\n';
	n += (size_t)snprintf(framed + n, 16, "crc32=%08x\n", crc32_bits((uint8_t *)framed, n));
	roundtrip(framed, n);
	free(framed);
	return 0;
}
