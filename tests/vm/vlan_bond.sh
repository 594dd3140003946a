#!/bin/bash
# vlan_bond.sh in Debian 12's own kernel (make check-vm): VLAN and bond,
# whose modules (8021q, bonding) the development kernel lacks.
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/answer/vlan_bond.sh
