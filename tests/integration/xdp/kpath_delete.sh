#!/bin/bash
# kpath_delete.sh at XDP (kptest --xdp generic): the delete invariant of
# the program at XDP, fed by a feeder that is SIGSTOPped, 20 rounds, with
# 300 and 3,000 events queued behind the delete, a MAC change and a link
# bounce while stopped, a feeder that never reads rtnetlink.
KP_XDP=generic exec "${BASH:-bash}" "$(dirname "$0")/../kpath/kpath_delete.sh" "$@"
