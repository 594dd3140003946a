#!/bin/bash
# The seed's two NICs on the kernel answer path, in Debian 12's own kernel
# (make check-vm).
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/kpath/seed_two_nics.sh
