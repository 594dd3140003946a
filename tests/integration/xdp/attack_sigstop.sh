#!/bin/bash
# attack_kpath_sigstop.sh at XDP (answer_path = xdp): the delete
# invariant, a published address taken, a MAC change and a bridge port,
# all while the daemon is SIGSTOPped; arpownd_xdp answers none of them.
ARPOWND_ANSWER_PATH=xdp exec "${BASH:-bash}" "$(dirname "$0")/../kpath/attack_kpath_sigstop.sh" "$@"
