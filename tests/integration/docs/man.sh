#!/bin/bash
# The man pages render without warnings and document every option that
# --help lists and every key the configuration parser accepts.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
M8=${top_srcdir:-.}/man/arpownd.8
M5=${top_srcdir:-.}/man/arpownd.conf.5
MC=${top_srcdir:-.}/man/arpownctl.8
ARPOWNCTL=${ARPOWNCTL:-${top_builddir:-.}/src/arpownctl}
if command -v mandoc >/dev/null; then
	w=$(mandoc -Tlint -W warning "$M8" "$M5" "$MC" 2>&1) || true
	[ -z "$w" ] || fail "mandoc -Tlint: $w"
	pass "mandoc -Tlint: no warnings"
fi
need_cmd groff
w=$(groff -ww -z -man "$M8" "$M5" "$MC" 2>&1)
[ -z "$w" ] || fail "groff -ww: $w"
pass "groff -ww -z -man: no warnings"

# man renders "\-" as "-": compare against the text as a reader sees it
text8=$(groff -man -Tutf8 -P-c "$M8" 2>/dev/null | col -b 2>/dev/null || groff -man -Tascii "$M8")
text5=$(groff -man -Tutf8 -P-c "$M5" 2>/dev/null | col -b 2>/dev/null || groff -man -Tascii "$M5")
for opt in $("$ARPOWND" --help | grep -oE -- '(^| )--?[a-zA-Z][-a-zA-Z]*' | tr -d ' ' | sort -u); do
	grep -qF -- "$opt" <<<"$text8" || fail "option $opt from --help is not in arpownd(8)"
done
pass "every option of --help is in arpownd(8)"
textc=$(groff -man -Tutf8 -P-c "$MC" 2>/dev/null | col -b 2>/dev/null || groff -man -Tascii "$MC")
for opt in $("$ARPOWNCTL" --help | grep -oE -- '(^| )--?[a-zA-Z][-a-zA-Z]*' | tr -d ' ' | sort -u); do
	grep -qF -- "$opt" <<<"$textc" || fail "option $opt from arpownctl --help is not in arpownctl(8)"
done
for cmd in $("$ARPOWNCTL" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
	grep -qw -- "$cmd" <<<"$textc" || fail "command $cmd from arpownctl --help is not in arpownctl(8)"
	grep -qw -- "$cmd" <<<"$text8" || fail "command $cmd is not in arpownd(8)'s protocol"
done
pass "every option and command of arpownctl --help is in arpownctl(8) and arpownd(8)"

printf '[interface x]\nmatch = eth9\nmode = off\n' >"$TMPDIR_T/sec.conf"
keys=$( { "$ARPOWND" -n -c /dev/null 2>/dev/null; "$ARPOWND" -n -c "$TMPDIR_T/sec.conf"; } |
	sed -n 's/^\([a-z_]*\) *=.*/\1/p' | sort -u)
[ -n "$keys" ] || fail "arpownd -n printed no keys"
for k in $keys; do
	grep -qw -- "$k" <<<"$text5" || fail "key $k is not in arpownd.conf(5)"
done
pass "every configuration key ($(echo $keys)) is in arpownd.conf(5)"
