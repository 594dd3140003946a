#!/bin/bash
# The command line contract: options, exit codes (sysexits), -n output.
# Needs no root: nothing here touches the network.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
A=$ARPOWND
rc() { local r=0; "$@" >"$TMPDIR_T/out" 2>&1 || r=$?; echo "$r"; }

expect_eq "$(rc "$A" -h)" 0 "-h exits 0"
grep -q -- '--state-dir' "$TMPDIR_T/out" || fail "-h does not list --state-dir"
expect_eq "$(rc "$A" --help)" 0 "--help exits 0"
expect_eq "$(rc "$A" -V)" 0 "-V exits 0"
grep -q '^arpownd [0-9]' "$TMPDIR_T/out" || fail "-V prints '$(cat "$TMPDIR_T/out")'"
expect_eq "$(rc "$A" --bogus)" 64 "unknown option: exit 64 (EX_USAGE)"
expect_eq "$(rc "$A" extra)" 64 "stray argument: exit 64"
expect_eq "$(rc "$A" -n --restore)" 64 "-n with --restore: exit 64"
expect_eq "$(rc "$A" -c)" 64 "-c without a file: exit 64"

expect_eq "$(rc "$A" -n -c "$TMPDIR_T/absent.conf")" 78 "named config absent: exit 78 (EX_CONFIG)"
grep -q "absent.conf" "$TMPDIR_T/out" || fail "the error does not name the file: $(cat "$TMPDIR_T/out")"

printf '[global]\nmode = owner\n' >"$TMPDIR_T/good.conf"
expect_eq "$(rc "$A" -n -c "$TMPDIR_T/good.conf")" 0 "-n on a good file: exit 0"
tail -n 1 "$TMPDIR_T/out" | grep -qx 'configuration OK' || fail "-n does not end with 'configuration OK'"
grep -q '^arp_announce *= *2' "$TMPDIR_T/out" || fail "-n does not print the defaults: $(cat "$TMPDIR_T/out")"
pass "-n prints the effective configuration with defaults, then 'configuration OK'"

expect_eq "$(rc "$A" -n -q -c "$TMPDIR_T/good.conf")" 0 "-n -q on a good file: exit 0"
[ -s "$TMPDIR_T/out" ] && fail "-n -q printed something for a good file: $(cat "$TMPDIR_T/out")"
pass "-n -q prints nothing for a good file"
expect_eq "$(rc "$A" -q)" 64 "-q without -n: exit 64"

# answer_path with or without the kernel path built (make check builds it
# where the toolchain is; distcheck builds without, so both branches run)
printf '[global]\nanswer_path = kernel\n' >"$TMPDIR_T/kpath.conf"
printf '[global]\nanswer_path = auto\n' >"$TMPDIR_T/kauto.conf"
rc "$A" -V >/dev/null
if grep -q '(kernel answer path: built)$' "$TMPDIR_T/out"; then
	expect_eq "$(rc "$A" -n -q -c "$TMPDIR_T/kpath.conf")" 0 "built with the kernel path: -n accepts answer_path = kernel"
elif grep -q '(kernel answer path: not built)$' "$TMPDIR_T/out"; then
	expect_eq "$(rc "$A" -n -q -c "$TMPDIR_T/kpath.conf")" 78 \
		"built without the kernel path: -n -q refuses answer_path = kernel (the start would)"
	grep -q 'kpath.conf:2: .*answer_path.*built without the kernel answer path' "$TMPDIR_T/out" ||
		fail "the refusal does not say where and why: $(cat "$TMPDIR_T/out")"
	printf '[global]\nmode = owner\n\n[interface lan]\nmatch = eth*\nanswer_path = kernel\n' \
		>"$TMPDIR_T/ksect.conf"
	expect_eq "$(rc "$A" -n -q -c "$TMPDIR_T/ksect.conf")" 78 "built without: refused in a section too"
	grep -q 'ksect.conf:6: .*lan.*answer_path' "$TMPDIR_T/out" ||
		fail "the refusal does not name the line and section: $(cat "$TMPDIR_T/out")"
	expect_eq "$(rc "$A" -n -c "$TMPDIR_T/kauto.conf")" 0 "built without: -n accepts answer_path = auto"
	grep -q '^warning: .*kauto.conf: answer_path = auto: .*the capture path answers' "$TMPDIR_T/out" ||
		fail "auto without the kernel path: no warning: $(cat "$TMPDIR_T/out")"
	pass "built without: auto is a warning that the capture path answers"
else
	fail "-V does not say whether the kernel path is built: $(cat "$TMPDIR_T/out")"
fi

printf '[global]\nmode = ownr\nintrfaces = *\n' >"$TMPDIR_T/bad.conf"
expect_eq "$(rc "$A" -n -c "$TMPDIR_T/bad.conf")" 78 "-n on a bad file: exit 78"
grep -q 'bad.conf:2.*mode.*ownr' "$TMPDIR_T/out" || fail "bad value not reported with file:line: $(cat "$TMPDIR_T/out")"
grep -q 'did you mean "interfaces"' "$TMPDIR_T/out" || fail "no suggestion for a misspelt key"
pass "-n reports every error, with file, line and a suggestion"
expect_eq "$(rc "$A" -n -q -c "$TMPDIR_T/bad.conf")" 78 "-n -q on a bad file: exit 78"
grep -q 'bad.conf:2.*mode.*ownr' "$TMPDIR_T/out" || fail "-n -q hides the errors: $(cat "$TMPDIR_T/out")"
pass "-n -q still prints the errors"

# the shipped example is valid and equals the built-in defaults
expect_eq "$(rc "$A" -n -c "${top_srcdir:-.}/conf/arpownd.conf")" 0 "conf/arpownd.conf is valid"
sed 1d "$TMPDIR_T/out" >"$TMPDIR_T/example.eff"
printf '' >"$TMPDIR_T/empty.conf"
rc "$A" -n -c "$TMPDIR_T/empty.conf" >/dev/null
sed 1d "$TMPDIR_T/out" >"$TMPDIR_T/empty.eff"
cmp -s "$TMPDIR_T/example.eff" "$TMPDIR_T/empty.eff" ||
	fail "conf/arpownd.conf differs from the defaults: $(diff "$TMPDIR_T/example.eff" "$TMPDIR_T/empty.eff")"
pass "conf/arpownd.conf equals the built-in defaults"
# its settings are commented out (a key appended to [global], as README's
# recipes do, is then its only one), and each shows the default: every
# key once, uncommented, still gives the defaults
n=$(grep -c '^#[a-z_]* =' "${top_srcdir:-.}/conf/arpownd.conf")
[ "$n" -ge 20 ] || fail "conf/arpownd.conf shows only $n commented-out settings"
grep -q '^[a-z_]* *=' "${top_srcdir:-.}/conf/arpownd.conf" && fail "conf/arpownd.conf sets a key: $(grep '^[a-z_]* *=' "${top_srcdir:-.}/conf/arpownd.conf")"
sed 's/^#\([a-z_]* =\)/\1/' "${top_srcdir:-.}/conf/arpownd.conf" >"$TMPDIR_T/uncommented.conf"
expect_eq "$(rc "$A" -n -c "$TMPDIR_T/uncommented.conf")" 0 "conf/arpownd.conf with its $n settings uncommented is valid"
sed 1d "$TMPDIR_T/out" >"$TMPDIR_T/uncommented.eff"
cmp -s "$TMPDIR_T/uncommented.eff" "$TMPDIR_T/empty.eff" ||
	fail "a commented-out value of conf/arpownd.conf is not the default: $(diff "$TMPDIR_T/uncommented.eff" "$TMPDIR_T/empty.eff")"
pass "conf/arpownd.conf: the $n commented-out settings are the built-in defaults"
