#!/bin/bash
# learn_system_published.sh on the kernel answer path (answer_path =
# kernel): the program's learning events in system mode and for
# published addresses, as the capture path learns.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/learn_system_published.sh" "$@"
