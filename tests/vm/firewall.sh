#!/bin/bash
# firewall.sh in Debian 12's own kernel (make check-vm): the seed's
# firewall, on the kernel users run.
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/answer/firewall.sh
