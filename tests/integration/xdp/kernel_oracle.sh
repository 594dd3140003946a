#!/bin/bash
# kernel_oracle.sh at XDP (answer_path = xdp): the same answers, from
# arpownd_xdp (XDP_TX) where the maps make it certain, the capture path
# behind it.  Five seeds of its own (11-15) rather than the ten the
# capture and TC paths draw (1-10): the decisions are the TC program's
# steps on the same maps, which those run; what is XDP's own (the frame
# view, the reply in place) every seed runs.  ORACLE_SEEDS overrides.
ORACLE_SEEDS=${ORACLE_SEEDS:-11-15} ORACLE_BUDGET_S=${ORACLE_BUDGET_S:-60} ARPOWND_ANSWER_PATH=xdp \
	exec "${BASH:-bash}" "$(dirname "$0")/../answer/kernel_oracle.sh" "$@"
