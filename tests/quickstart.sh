#!/bin/bash
# Quick start, step 1: install what is missing, build, and run the demo.
# For a fresh Debian 12 machine, as root.  Touches only namespaces it makes.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run as root (apt-get, network namespaces)" >&2; exit 77; }

# the one package list, shared with .ci/run
pkgs=$(sed 's/#.*//' tests/packages.txt)
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "== installing:$missing"
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
echo "== building"
[ -x configure ] || autoreconf -fi >/dev/null
[ -f Makefile ] || ./configure -q
make -s -j"$(nproc)" src/arpownd tests/tools/arpc
echo "== demo"
top_builddir=. top_srcdir=. exec bash tests/demo.sh
