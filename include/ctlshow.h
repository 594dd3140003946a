/* ctlshow.h — arpownctl's rendering of the daemon's JSON for a person. */
#ifndef ARPOWND_CTLSHOW_H
#define ARPOWND_CTLSHOW_H

#include <stddef.h>

/* s for a terminal, malloc'd: printable ASCII and UTF-8 from U+00A0 as
 * they are, any other byte as \xHH. */
char *show_safe(const char *s);
/* Print a body as the daemon sent it: byte for byte into a pipe, each line
 * through show_safe onto a terminal. */
void show_raw(const char *body, size_t len);
/* Print the reply body of cmd as columns; EX_OK, or EX_PROTOCOL when it
 * is not the JSON object it should be. */
int show(const char *cmd, const char *body, size_t len);

#endif
