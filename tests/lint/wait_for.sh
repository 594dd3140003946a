#!/bin/bash
# wait_for (tests/integration/lib.sh) runs its command again each round,
# but a "$(...)" among its own arguments is expanded once, before the
# first: `wait_for 3000 test "$(count)" -ge 2` compares the count taken
# at the call for 3 s, and passes or fails on a race (it failed CI once).
# The condition belongs in a function (or an sh -c with \$(...)) that
# wait_for calls.
cd "$(dirname "$0")/../.." || exit 99
bad=$(grep -rnE '(^|[;&|[:space:]])wait_for [0-9]+ (test|\[) [^|]*[^\\]\$\([^(]' \
	tests/integration tests/system tests/vm)
if [ -n "$bad" ]; then
	echo "FAIL: wait_for tests a value expanded once, at the call, not each round:"
	echo "$bad"
	exit 1
fi
echo "PASS: every wait_for condition is evaluated again each round"
