#!/bin/bash
# attack_bucket_collide.sh at XDP (answer_path = xdp): the same answers, from
# arpownd_xdp (XDP_TX) where the maps make it certain, the capture path
# behind it.
ARPOWND_ANSWER_PATH=xdp exec "${BASH:-bash}" "$(dirname "$0")/../limits/attack_bucket_collide.sh" "$@"
