#!/bin/bash
# One run under valgrind -- start, reload, interface churn, stop -- with no
# memory error, no definite leak and no file descriptor left open.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../topo.sh"
trap cleanup EXIT
need_cmd valgrind
if [ -n "${ARPOWND_SANITIZED:-}" ]; then
	echo "SKIP: this build is instrumented by ASan, which valgrind cannot run"
	exit 77
fi
seed_net
write_conf "[global]"
VG=$TMPDIR_T/valgrind.log
wrap=$TMPDIR_T/vg
cat >"$wrap" <<WRAP
#!/bin/sh
exec valgrind -q --vgdb=no --leak-check=full --errors-for-leak-kinds=definite \\
	--track-fds=yes --error-exitcode=9 --log-file="$VG" "$ARPOWND" "\$@"
WRAP
chmod 755 "$wrap"
ARPOWND=$wrap arpownd_start h -c "$CONF"
expect_reply c c0 10.0.0.1 "$MAC0" "under valgrind: answered"
write_conf "[global]
mode = subnet"
kill -HUP "$ARPOWND_PID"
wait_for 5000 grep -q 'reloaded' "$TMPDIR_T/arpownd.log" || fail "no reload"
for i in $(seq 5); do
	veth h eth3 sw p3
	ns h ip addr add 10.0.0.4/24 dev eth3
	sleep 0.2
	ns h ip link del eth3
done
addr_add h eth0 10.0.0.5/24
ns h ip addr del 10.0.0.5/24 dev eth0
kill -USR1 "$ARPOWND_PID"
sleep 0.5
expect_reply c c0 10.0.0.2 "$MAC1" "under valgrind: still answering after churn"
arpownd_stop
cat "$VG"
expect_eq "$ARPOWND_RC" 0 "valgrind: no errors, no definite leaks (exit 0)"
# --track-fds lists what is open at exit; only what the test's shell
# handed us may remain
leaked=$(awk '/Open file descriptor/ { fd = $0; getline; if ($0 !~ /inherited from parent/) print fd }' "$VG")
expect_eq "$leaked" "" "no file descriptor of ours left open at exit"
