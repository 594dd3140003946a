#!/bin/bash
# progtest.sh on the XDP program (arpownd_xdp, the TC program's object,
# maps and steps): the same frames, modes and buckets, run with
# BPF_PROG_TEST_RUN; an answer is XDP_TX with the kernel's reply, byte
# for byte, as the output frame; a limit's refusal XDP_DROP; the rest
# XDP_PASS with the frame as it came.
PROGTEST_FLAGS=--xdp exec "${BASH:-bash}" "$(dirname "$0")/../kpath/progtest.sh" "$@"
