/* stateframe.h — the checksummed frame around a saved text (the header
 * with its kind and generation, the CRC-32 trailer); pure. */
#ifndef ARPOWND_STATEFRAME_H
#define ARPOWND_STATEFRAME_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 (IEEE 802.3, zlib's crc32()) of len bytes at p. */
uint32_t state_crc32(const char *p, size_t len);
/* len bytes of body framed as a v2 text of kind and generation gen (header
 * line, body, checksum line), malloc'd and NUL-terminated, its length in
 * *outlen unless NULL; NULL with errno. */
char *state_frame(const char *kind, uint64_t gen, const char *body, size_t len,
    size_t *outlen);
/* Check the frame of a v2 text of kind: 0 with its generation and its body
 * at [*body, *bodyend), or -1 with "line N: why" in err. */
int state_unframe(const char *buf, size_t len, const char *kind, uint64_t *gen,
    size_t *body, size_t *bodyend, char *err, size_t errlen);
/* state_unframe for a parser that goes on counting lines: -1 with the line
 * in *line and why in why (whylen bytes); *line is 1 on success. */
int state_frame_check(const char *buf, size_t len, const char *kind, uint64_t *gen,
    size_t *body, size_t *bodyend, unsigned *line, char *why, size_t whylen);
/* A decimal number in 0..max, digits only (the generation, a record's values); 0 or -1. */
int state_uint(const char *s, size_t len, uint64_t max, uint64_t *out);

#endif
