#!/bin/bash
# sysctl.sh in Debian 12's own kernel (make check-vm): start and stop,
# SIGKILL and --restore, a crash and a restart: the originals come back,
# never 8, on the kernel users run.  (Not timing-sensitive: its only
# bounds are the 5 s READY and stop waits of lib.sh.)
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/lifecycle/sysctl.sh
