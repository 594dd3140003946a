/* msgid.h — the journal's MESSAGE_IDs: one per kind of event, stable
 * across releases (journalctl MESSAGE_ID=...). */
#ifndef ARPOWND_MSGID_H
#define ARPOWND_MSGID_H

#define MSGID_START	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b01"
#define MSGID_STOP	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b02"
#define MSGID_RELOAD	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b03"
#define MSGID_IFACE	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b04"
#define MSGID_ADDR	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b05"
#define MSGID_REFUSED	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b06"
#define MSGID_CONFLICT	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b07"
#define MSGID_SYSCTL	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b08"
#define MSGID_ANSWER	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b09"
#define MSGID_PROBE	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b0a"	/* asked for what is elsewhere, or probed for ours */
#define MSGID_PUBLISH	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b0c"	/* published or withdrawn at run time */
#define MSGID_MONITOR	"6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b0b"	/* the kernel answered what arpownd would not */

#endif
