/* kanxdp.h — which hook the kernel answer path takes on an interface
 * (XDP or TC), and why: src/kanxdp.c. */
#ifndef ARPOWND_KANXDP_H
#define ARPOWND_KANXDP_H

#include <stddef.h>

#include "conf.h"
#include "table.h"

#define KANX_TC		-1	/* TC: the reason in why */
#define KANX_ANY	0	/* XDP, native where the driver has it, else generic */
/* XDP in mode KP_XDP_* (>0), KANX_ANY, or KANX_TC with why filled, for
 * ifp as its answer_path, kind, master and upper devices say; the XDP
 * attach may still fail (another program there: kp_xdp_attach's why). */
int kanx_choose(const struct tbl *t, const struct tbl_iface *ifp, char *why, size_t len);

#endif
