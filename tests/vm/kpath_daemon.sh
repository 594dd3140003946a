#!/bin/bash
# kpath_daemon.sh in Debian 12's own kernel (make check-vm): the kernel
# answer path over the daemon's life on 6.1, the kernel users run (the
# program, its verifier and the privilege drop differ from the
# development kernel's).
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/kpath/kpath_daemon.sh
