#!/bin/bash
# iniparser joins a line that ends in a backslash with the next one, comment
# lines included, before it parses either; conf.c's own scan() reads the
# lines one by one.  So a comment such as "# logs go to C:\arpownd\" makes
# the next line, "mode = off", part of the comment: arpownd -n says
# "configuration OK", prints mode = owner, and the interface the admin
# switched off answers.  (The same happens after a value ending in "\":
# "match = eth1 \" + "mode = off" becomes the globs "eth1 mode = off".)
# Expected: the file is refused, naming the line iniparser swallowed, or
# the line counts as written.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
seed_net

write_conf '[global]

[interface quiet]
match = eth1
# copied from the old box, C:\arpownd\
mode = off'
rc=0
out=$("$ARPOWND" -n -c "$CONF" 2>&1) || rc=$?
if [ "$rc" -eq 0 ]; then
	grep -qx 'mode = off' <<<"$out" ||
		fail "arpownd -n accepts the file but 'mode = off' (line 6) is not in effect: $(tr '\n' '|' <<<"$out")"
	arpownd_start h -c "$CONF"
	expect_silence c c0 10.0.0.2 "eth1 (mode = off) does not answer"
	arpownd_stop
else
	# where write_conf put the lines: it adds its own to [global]
	ln=$(grep -n 'C:\\arpownd' "$CONF" | cut -d: -f1)
	grep -q ":$ln: .*line $((ln + 1))" <<<"$out" ||
		fail "refused, but without naming lines $ln and $((ln + 1)): $out"
	pass "the swallowed line is reported"
fi

write_conf '[global]

[interface quiet]
match = eth1 \
mode = off'
rc=0
out=$("$ARPOWND" -n -c "$CONF" 2>&1) || rc=$?
if [ "$rc" -eq 0 ]; then
	grep -qx 'mode = off' <<<"$out" ||
		fail "a value ending in '\\': arpownd -n accepts the file but 'mode = off' is not in effect: $(tr '\n' '|' <<<"$out")"
fi
pass "a value ending in '\\' is refused or its next line counts"
