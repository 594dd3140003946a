#!/bin/bash
# include/rules.h built for the BPF target (tests/tools/rules.bpf.c, the
# flags of the answer program) gives, through BPF_PROG_TEST_RUN, the
# answers of tests/unit/rules_table.h and of its C build (test_rules):
# martian, next martian, mask, broadcast, inet_ifa_match and the
# IFA_LOCAL/IFA_ADDRESS reading.  No namespace, nothing attached.
. "$(dirname "$0")/../lib.sh"
need_root
RT=$(_abs "${top_builddir:-.}/tests/tools/rulestest")
OBJ=$(_abs "${top_builddir:-.}/tests/tools/rules.bpf.o")
if [ ! -x "$RT" ] || [ ! -f "$OBJ" ]; then
	echo "SKIP: tests/tools/rulestest not built (configure found no BPF toolchain)"
	exit 77
fi
"$RT" "$OBJ"
