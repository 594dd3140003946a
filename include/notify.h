/* notify.h — systemd notification protocol on $NOTIFY_SOCKET. */
#ifndef ARPOWND_NOTIFY_H
#define ARPOWND_NOTIFY_H

#include <stdint.h>

/* Send a state string such as "READY=1"; silently nothing without $NOTIFY_SOCKET. */
void notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The watchdog interval in microseconds from $WATCHDOG_USEC, 0 when off. */
uint64_t notify_watchdog_usec(void);

#endif
