#!/bin/bash
# kernel_oracle.sh on the kernel answer path (answer_path = kernel): the
# replies of the eBPF program, and of the capture path behind it, must be
# the kernel's own, byte for byte, on random topologies.
ARPOWND_ANSWER_PATH=kernel exec "${BASH:-bash}" "$(dirname "$0")/../answer/kernel_oracle.sh" "$@"
