#!/bin/bash
# xdp/progtest.sh in Debian 12's own kernel (make check-vm): the XDP answer
# program (its verifier, bpf_xdp_get_buff_len, XDP_TX in generic mode,
# the BPF link) on 6.1, the kernel users run.
. "${top_srcdir:-.}/tests/vm/lib.sh"
vm_test tests/integration/xdp/progtest.sh
