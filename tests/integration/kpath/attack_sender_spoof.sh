#!/bin/bash
# attack_sender_spoof.sh on the kernel answer path (answer_path =
# kernel): the program's sender slots are the capture path's, (address, MAC).
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../limits/attack_sender_spoof.sh" "$@"
