#!/bin/bash
# macvlan_upper.sh on the kernel answer path (answer_path = kernel): the
# program answers with a copy and lets the broadcast go on to mv0.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/macvlan_upper.sh" "$@"
