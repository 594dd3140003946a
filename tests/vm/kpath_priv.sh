#!/bin/bash
# kpath_priv.sh in Debian 12's own kernel (make check-vm): what the
# kernel answer path needs on 6.1 (CAP_BPF for the load; the maps, the
# ring and new attachments with CAP_NET_ADMIN alone afterwards), measured
# there rather than read in its source.
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/kpath/kpath_priv.sh
