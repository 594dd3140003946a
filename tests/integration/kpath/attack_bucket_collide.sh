#!/bin/bash
# attack_bucket_collide.sh on the kernel answer path (answer_path =
# kernel): the program's sender slots are keyed as the capture path's.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../limits/attack_bucket_collide.sh" "$@"
