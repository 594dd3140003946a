/* fdclose.h — closing, off the daemon's loop, what a peer other than root
 * handed it: the last close of a file can block the closer (a TCP socket
 * with SO_LINGER whose peer does not read, a socket holding such files in
 * flight), and the loop is the ARP path. */
#ifndef ARPOWND_FDCLOSE_H
#define ARPOWND_FDCLOSE_H

/* Start the closing thread (after the drop of root); 0, or -1 with errno,
 * when fdc_close closes on the caller's thread instead. */
int fdc_start(void);
/* Close fd, a peer's or one that may hold a peer's files, never blocking. */
void fdc_close(int fd);
/* Close what is queued and end the thread (waiting half a second at most). */
void fdc_stop(void);

#endif
