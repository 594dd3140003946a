#!/bin/bash
# seed_two_nics.sh in Debian 12's own kernel (make check-vm): the seed,
# two NICs on one segment, on the kernel users run.
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/answer/seed_two_nics.sh
