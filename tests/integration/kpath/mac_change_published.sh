#!/bin/bash
# mac_change_published.sh on the kernel answer path (answer_path =
# kernel): published addresses answered with the link's MAC as the
# kernel has it now, never the one before a change.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/mac_change_published.sh" "$@"
