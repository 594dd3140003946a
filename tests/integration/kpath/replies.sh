#!/bin/bash
# replies.sh on the kernel answer path (answer_path = kernel): the same
# answers, from the eBPF program where it is sure, the capture behind it
# (-d: the refusals logged; the program's answers are not lines).
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/replies.sh" "$@"
