/* annrec.h — what a run announced, written at its stop so that the next
 * start does not announce again what nothing moved: per interface and MAC
 * announced with (its own, or a [publish] section's), the addresses, as
 * ranges.  Pure. */
#ifndef ARPOWND_ANNREC_H
#define ARPOWND_ANNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct annrec;

/* The record in text (lines "IFNAME MAC RANGE..." where a RANGE is
 * "LO" or "LO-HI", host-order hex); a line that does not parse is left out
 * (*bad counts them).  NULL on ENOMEM. */
struct annrec *annrec_parse(const char *text, size_t len, size_t *bad);
void annrec_free(struct annrec *r);
/* Did the record's run announce addr (network order) on ifname, with mac? */
bool annrec_has(const struct annrec *r, const char *ifname, const uint8_t mac[static 6],
    uint32_t addr);
/* Lines (interface and MAC) in the record. */
size_t annrec_count(const struct annrec *r);
/* Sort addrs (host order, n of them) and append their line for ifname and
 * mac to *buf (*len, *cap: a growing buffer); 0, or -1 on ENOMEM. */
int annrec_line(char **buf, size_t *len, size_t *cap, const char *ifname,
    const uint8_t mac[static 6], uint32_t *addrs, size_t n);

#endif
