#!/bin/bash
# attack_rp_filter.sh on the kernel answer path (answer_path = kernel):
# where rp_filter or arp_filter is on, the program passes requests with a
# sender up to the capture path, which asks the kernel's routing.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../limits/attack_rp_filter.sh" "$@"
