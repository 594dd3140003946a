#!/bin/bash
# The layer check: every #include of src/ and include/ points at its own
# layer or one below (tests/lint/layers.txt), no circle, every module has
# a layer, and doc/architecture.md's map is that file's.  Reads the
# source tree only ($top_srcdir: distcheck's VPATH build has no sources
# in the build directory), no build needed, no root.
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
python3 "$top/tests/lint/layers.py" "$top" --doc "$top/doc/architecture.md" && exit 0
echo "FAIL: the layers (tests/lint/layers.txt; the map: python3 tests/lint/layers.py . --map)"
exit 1
