#!/bin/bash
# noarp_link.sh on the kernel answer path (answer_path = kernel): a link
# made NOARP while the daemon is SIGSTOPped is revoked by the program's
# netlink watcher at once, as a link going down is.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/noarp_link.sh" "$@"
