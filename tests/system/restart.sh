#!/bin/bash
# restart.sh — restarts and upgrades keep the promise (issue 20), under
# a real systemd 252, with the package's shipped configuration and one
# published address (arpownctl publish), on both answer paths.
#
# Three NICs of the host on one LAN (eth0 10.0.0.1, eth1 10.0.0.2, eth2
# 10.0.0.3 on bridge br0), eth3 10.1.0.1 to the firewall side f.  Other
# hosts (namespace a) send ambient ARP, 5,000 frames/s: requests for an
# address nobody holds (from 250 senders) and gratuitous announcements.
# Four clients (namespace c) ask 1,000 times a second each: for the owned
# 10.0.0.1 and the published 10.0.0.50, each closed loop (the next request
# after the reply, a second's wait, no burst to catch up) and open loop
# (at its rate whatever comes back); every reply is matched to its
# request (arpc --vary-mac) and its MAC checked (--owner); and the outside
# (f) probes the inside 10.0.0.1, 200 times a second.  Per event:
#   wrong   replies from a MAC that does not own the address, and replies
#           to the outside's probes (must be 0)
#   late    requests with no reply within 1 s (must be 0 for a planned
#           restart, an upgrade, a reinstall): closed loop, the requests
#           that waited in vain; open loop, each request's own deadline
#   drops   what the next start said the kernel dropped from the kept
#           socket (PACKET_STATISTICS; exact against a count the test
#           makes itself: tests/integration/lifecycle/handover_drops.sh)
# and the timeline of each restart from the journal (each start, stop and
# --restore logs its steps): from the old daemon's SIGTERM, when the
# strict mode was written, the process torn down, ExecStopPost, the new
# exec, its capture live, the kept requests answered, the sysctls at 8,
# READY; "published gap" is how long a published request waited at most.
# Events: an upgrade from the previous release (the package of
# UPGRADE_FROM, built from git), systemctl restart x2, apt-get install
# --reinstall, a running daemon that hangs (SIGSTOP: the watchdog); and
# the bounds arpownd(8) states: stop, SIGKILL, a failed start (78), a
# start that hangs before it changes anything, one that hangs once it has
# silenced the kernel (tests/tools/faultinj.so), a running daemon that
# hangs: the owned address answered again within each one's bound, by its
# own NIC only.  Then the package purged: the true originals back (eth1
# 2/1).  The table is printed at the end.
#
# Exit 77 (SKIP) where the container cannot run (see systemd.sh), or the
# previous release's commit is not in the repository; with
# ARPOWND_SYSTEM_REQUIRED=1 (CI) a skip is a failure.
# Environment: as systemd.sh; UPGRADE_FROM (default b313595, 0.1.0 as
# last built before issue 20); RESTART_PATHS (default "capture kernel")
# and RESTART_EVENTS (default "upgrade restart reinstall hang bounds") to
# run a part while working on it.

. "${top_srcdir:-.}/tests/system/lib.sh"
. "${top_srcdir:-.}/tests/system/deb.sh"
need_cmd debootstrap systemd-nspawn nsenter setpriv ip flock dpkg-deb git python3
need_netns

UPGRADE_FROM=${UPGRADE_FROM:-b313595}
PATHS=${RESTART_PATHS:-capture kernel}
EVENTS=${RESTART_EVENTS:-upgrade restart reinstall hang bounds}
want() { [[ " $EVENTS " == *" $1 "* ]]; }
ARCH=$(dpkg --print-architecture)
FAULTINJ=$BUILD/tests/tools/faultinj.so
[ -f "$FAULTINJ" ] || fail "no $FAULTINJ (make check builds it)"

# The bounds arpownd(8) states, in ms: how long the owned address may go
# unanswered (the probe asks every 5 ms and gives each request 50 ms)
KILL_BOUND=500		# SIGKILL: until ExecStopPost has set the strict mode
HANG_BOUND=3000		# a running daemon that hangs: WatchdogSec=2s, the abort, ExecStopPost
START_BOUND=2500	# a start that hangs silenced: the test's TimeoutStartSec=2s, the stop

# ---- the packages: this tree's, and the previous release's -------------
if want upgrade; then
	git -C "$SRC" rev-parse -q --verify "$UPGRADE_FROM^{commit}" >/dev/null ||
		skip "the previous release's commit $UPGRADE_FROM is not in $SRC (a shallow clone?)"
	mkdir -p "$TMPDIR_T/src-old"
	git -C "$SRC" archive "$UPGRADE_FROM" | tar -C "$TMPDIR_T/src-old" -xf - ||
		fail "git archive $UPGRADE_FROM"
	deb_cached "old-$(git -C "$SRC" rev-parse --short=12 "$UPGRADE_FROM")" "$TMPDIR_T/src-old"
	OLDDEB=$DEB
fi
copy_source "$TMPDIR_T/src-new"
# (package.sh, run before, keeps the one it builds under this key)
deb_cached "$(deb_key "$TMPDIR_T/src-new")" "$TMPDIR_T/src-new"
NEWDEB=$DEB
V=$(dpkg-deb -f "$NEWDEB" Version)
if want upgrade; then
	# the previous release under a lower version, so that this one upgrades it
	rm -rf "$TMPDIR_T/repack"
	dpkg-deb -R "$OLDDEB" "$TMPDIR_T/repack" || fail "dpkg-deb -R $OLDDEB"
	sed -i "s/^Version: .*/Version: $V~prev/" "$TMPDIR_T/repack/DEBIAN/control"
	PREVDEB=$TMPDIR_T/arpownd_${V}~prev_$ARCH.deb
	dpkg-deb -b "$TMPDIR_T/repack" "$PREVDEB" >/dev/null || fail "dpkg-deb -b $PREVDEB"
fi

# ---- the network ------------------------------------------------------------
ns_new h
ns_new sw
ns_new c
ns_new a
ns_new f
bridge_new sw br0
for i in 0 1 2; do
	veth h "eth$i" sw "p$i"
	bridge_add sw br0 "p$i"
	addr_add h "eth$i" "10.0.0.$((i + 1))/24"
done
veth c c0 sw pc
bridge_add sw br0 pc
veth a a0 sw pa
bridge_add sw br0 pa
veth h eth3 f f0
addr_add h eth3 10.1.0.1/24
addr_add c c0 10.0.0.100/24
addr_add a a0 10.0.0.99/24
addr_add f f0 10.1.0.100/24
for n in h sw c a f; do
	ns "$n" sh -c 'for f in /proc/sys/net/ipv6/conf/*/disable_ipv6; do echo 1 > "$f"; done' 2>/dev/null || true
done
ns sw ip link set br0 type bridge forward_delay 0 2>/dev/null || true
MAC0=$(mac_of h eth0)
wait_for 3000 ns c "$ARPC" -q -i c0 -w 100 10.0.0.1 >/dev/null || fail "segment A did not come up"
# true originals that are not the kernel's defaults
sysctl_set h eth1 arp_ignore 2
sysctl_set h eth1 arp_announce 1
pairs() {
	local i out=
	for i in 0 1 2 3; do out+="$(sysctl_get h "eth$i" arp_ignore)/$(sysctl_get h "eth$i" arp_announce) "; done
	echo "${out% }"
}
ORIG="0/0 2/1 0/0 0/0"
_pairs_are() { [ "$(pairs)" = "$1" ]; }

# ---- the container -------------------------------------------------------------
root_tree
make_cgroups
mount_root
mkdir -p "$MERGED/var/cache/arpownd-test" "$MERGED/usr/local/lib/arpownd-test"
install -m 0644 "$NEWDEB" ${PREVDEB:+"$PREVDEB"} "$MERGED/var/cache/arpownd-test/"
install -m 0644 "$FAULTINJ" "$MERGED/usr/local/lib/arpownd-test/"
CNEW=/var/cache/arpownd-test/${NEWDEB##*/}
CPREV=/var/cache/arpownd-test/${PREVDEB##*/}
boot
capt() {
	ce_t 120 env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null
}

# ---- under load -----------------------------------------------------------------
# load NAME CMD...: the ambient traffic, the four clients and the outside's
# probes start; CMD runs 0.5 s in; a second after it returns the clients stop
# sending (SIGUSR1), wait a second for the last replies and report.  Sets
# WRONG, LATE, L_oc/L_oo/L_pc/L_po, DROPS (the journal's), TIMES (the
# restarts' timelines) and a row of the table.
ROWS=()
load() {
	local name=$1 cur out w l p pids=() t=120000
	shift
	cur=$(journal_cursor)
	EVN=$((${EVN:-0} + 1))
	local o=$TMPDIR_T/ev$EVN c="$ARPC -q -i c0 -t $t"
	local n=$((t / 1000 * 1000))	# more than the event lasts: stopped by SIGUSR1
	bg_run a "$ARPC" -q -i a0 -s 10.0.0.150 --vary 250 -r 2500 -c $((n * 5 / 2)) -w 0 -t "$t" 10.0.0.222 >/dev/null
	pids+=("$LAST_PID")
	bg_run a "$ARPC" -q -i a0 -s 10.0.0.240 -r 2500 -c $((n * 5 / 2)) -w 0 -t "$t" 10.0.0.240 >/dev/null
	pids+=("$LAST_PID")
	bg_run c sh -c "exec $c -s 10.0.0.101 --pingpong --steady -r 1000 -c $n --wait-reply 1000 --vary-mac 4096 --owner $MAC0 -v 10.0.0.1 >$o.oc 2>$o.oc.err"
	pids+=("$LAST_PID")
	bg_run c sh -c "exec $c -s 10.0.0.102 --steady -r 1000 -c $n -w 1000 --deadline 1000 --vary-mac 8192 --owner $MAC0 -v 10.0.0.1 >$o.oo 2>$o.oo.err"
	pids+=("$LAST_PID")
	bg_run c sh -c "exec $c -s 10.0.0.103 --pingpong --steady -r 1000 -c $n --wait-reply 1000 --vary-mac 4096 --owner $MAC0 -v 10.0.0.50 >$o.pc 2>$o.pc.err"
	pids+=("$LAST_PID")
	bg_run c sh -c "exec $c -s 10.0.0.104 --steady -r 1000 -c $n -w 1000 --deadline 1000 --vary-mac 8192 --owner $MAC0 -v 10.0.0.50 >$o.po 2>$o.po.err"
	pids+=("$LAST_PID")
	bg_run f sh -c "exec $ARPC -q -i f0 -r 200 -c $((n / 5)) -w 300 -t $t 10.0.0.1 >$o.fw 2>&1"
	pids+=("$LAST_PID")
	sleep 0.5
	"$@"
	sleep 1
	kill -USR1 "${pids[@]}" 2>/dev/null
	for p in "${pids[@]}"; do wait "$p" || true; done
	WRONG=0 LATE=0 SKIPPED=0
	for w in oc oo pc po; do
		out=$(cat "$o.$w")
		grep -q '^sent ' <<<"$out" || fail "$name: client $w: $out $(head -n 5 "$o.$w.err")"
		WRONG=$((WRONG + $(sed -n 's/.* wrong \([0-9]*\).*/\1/p' <<<"$out")))
		l=$(sed -n 's/.* lost \([0-9]*\).*/\1/p; s/.* late \([0-9]*\).*/\1/p' <<<"$out")
		LATE=$((LATE + l))
		eval "L_$w=$l"
		SKIPPED=$((SKIPPED + $(sed -n 's/.* skipped \([0-9]*\).*/\1/p' <<<"$out") + 0))
	done
	out=$(cat "$o.fw")
	grep -q '^sent [0-9]* received 0 ' <<<"$out" || {
		echo "not ok - $PATHNAME, $name: the outside's probes of 10.0.0.1 were answered: $out"
		FAILS+=("$name: the outside's probes answered")
	}
	ce journalctl -u arpownd -o short-unix --no-pager --after-cursor="$cur" >"$o.journal"
	DROPS=$(sed -n 's/.*handover: .*; \([0-9]*\) dropped by the kernel.*/\1/p' "$o.journal" |
		awk '{ s += $1 } END { print s + 0 }')
	TIMES=$(timelines "$o.journal" "$o")
	# LATE_SINCE_RESTART=1 (an upgrade): what the previous release did
	# before its restart is its own (a backlog charged as a burst, fixed
	# by this one), counted apart
	if [ -n "${LATE_SINCE_RESTART:-}" ]; then
		local before=$LATE
		eval "$(sed -n 's/^SINCE /local /p' <<<"$TIMES")"
		L_oc=$oc L_oo=$oo L_pc=$pc L_po=$po
		LATE=$((oc + oo + pc + po))
		say "$name: $((before - LATE)) late before the restart (the previous release's, under dpkg's load)"
	fi
	TIMES=$(grep -v '^SINCE ' <<<"$TIMES")
	say "$name: wrong $WRONG, late $LATE (owned closed/open $L_oc/$L_oo, published $L_pc/$L_po), drops $DROPS; the open-loop clients skipped $SKIPPED requests after stalls of their own"
	[ -z "$TIMES" ] || sed 's/^/    /' <<<"$TIMES"
	ROWS+=("$PATHNAME|$name|$WRONG|$L_oc/$L_oo/$L_pc/$L_po|$DROPS")
}

# timelines JOURNAL O: one line per restart in a journal excerpt
# (short-unix), each step in ms from the old daemon's SIGTERM, from the
# lines each stop, --restore and start logs (phases.c); "published gap":
# from the kept socket stored to the kept requests answered.  Then the
# requests the clients O.{oc,oo,pc,po}.err name as late or unanswered, in
# ms from the SIGTERM before them.
timelines() {
	python3 - "$@" <<'PY'
import re, sys
ev = []
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\d+\.\d+) \S+ ([^:]+): (.*)", line)
    if m:
        ev.append((float(m.group(1)), m.group(2), m.group(3)))
def steps(msg):
    return [(k.strip(), float(v)) for k, v in re.findall(r"([^,]+?) \+(-?\d+) ms", msg)]
out, cur = [], None
for ts, who, msg in ev:
    if msg.startswith("stopping on signal"):
        cur = {"t0": ts, "s": []}
    elif msg.startswith("takeover: "):
        st = steps(msg[10:])
        t0 = ts - (st[-1][1] if st else 0) / 1e3
        cur = {"t0": t0, "s": [("takeover " + k, v) for k, v in st],
               "stored": dict(st).get("SIGSTOP")}
    elif cur is None:
        continue
    elif msg.startswith("stop: "):
        cur["s"] += [("old " + k, v) for k, v in steps(msg[6:])]
        cur["stored"] = dict(steps(msg[6:])).get("kept socket stored")
    elif msg.startswith("restore: "):
        m = re.search(r" in (\d+) ms", msg)
        if m:
            d = (ts - cur["t0"]) * 1e3
            cur["s"] += [("ExecStopPost", d - float(m.group(1))), ("ExecStopPost done", d)]
    elif msg.startswith("start: "):
        st = steps(msg[7:])
        ready = dict(st).get("READY", 0)
        exe = (ts - cur["t0"]) * 1e3 - ready
        cur["s"] += [("exec", exe)] + [(k, exe + v) for k, v in st]
        kept = dict(st).get("kept requests answered")
        gap = ""
        if kept is not None and cur.get("stored") is not None:
            gap = "; published gap %.0f ms" % (exe + kept - cur["stored"])
        out.append(", ".join("%s %+.0f" % (k, v) for k, v in cur["s"]) + gap)
        cur = None
sig = [ts for ts, who, msg in ev if msg.startswith("stopping on signal")]
sig += [ts - steps(msg[10:])[-1][1] / 1e3 for ts, who, msg in ev
        if msg.startswith("takeover: ") and steps(msg[10:])]
sig.sort()
since = {}
for w in ("oc", "oo", "pc", "po"):
    late = []
    try:
        for line in open("%s.%s.err" % (sys.argv[2], w)):
            m = re.search(r"sent at (\d+\.\d+) (late|unanswered)", line)
            if m:
                late.append(float(m.group(1)))
    except OSError:
        pass
    since[w] = len([t for t in late if sig and t >= sig[0] - 1.0])
    if not late:
        continue
    desc = []
    for t in late[:40]:
        before = [x for x in sig if x <= t]
        ref = before[-1] if before else (sig[0] if sig else None)
        desc.append("%+.0f" % ((t - ref) * 1e3) if ref is not None else "@%.3f" % t)
    out.append("late %s (%d), ms from the SIGTERM before: %s" % (w, len(late), " ".join(desc)))
# the late requests sent from a second before the first restart on
out.append("SINCE " + " ".join("%s=%d" % (w, since.get(w, 0)) for w in ("oc", "oo", "pc", "po")))
print("\n".join(out))
PY
}

FAILS=()
soft() {	# soft GOT WANT MSG: each failure noted, the test carried on (the table whole)
	if [ "$1" = "$2" ]; then pass "$3"; else echo "not ok - $3: got '$1', want '$2'"; FAILS+=("$3: got '$1'"); fi
}
# planned NAME CMD...: load, and the bar of a planned restart
planned() {
	load "$@"
	soft "$WRONG" 0 "$PATHNAME, $1: no reply from a NIC that does not own the address"
	soft "$LATE" 0 "$PATHNAME, $1: every request answered within 1 s"
	soft "$DROPS" 0 "$PATHNAME, $1: the kept socket dropped nothing"
}

restart() { ce systemctl restart arpownd || fail "systemctl restart"; }
restarts() { restart; sleep 1; restart; }
install_new() { capt install "$CNEW" >"$TMPDIR_T/apt.out" 2>&1 || fail "apt-get install $CNEW: $(cat "$TMPDIR_T/apt.out")"; }
reinstall() { capt install --reinstall "$CNEW" >"$TMPDIR_T/apt.out" 2>&1 || fail "apt-get install --reinstall: $(cat "$TMPDIR_T/apt.out")"; }
_active_not() { [ "$(prop ActiveState)/$(prop SubState)" = active/running ] && [ "$(prop MainPID)" != "$1" ]; }

# the owned address's gap as a client sees it: a request every 5 ms, each
# given 50 ms; GAP is the longest run of unanswered ones, in ms
probe_start() {	# probe_start SECONDS
	bg_run c sh -c "exec $ARPC -q -i c0 -s 10.0.0.105 --pingpong -r 200 -c $(($1 * 200)) --wait-reply 50 -v -t $((($1 + 3) * 1000)) 10.0.0.1 >$TMPDIR_T/probe.out 2>$TMPDIR_T/probe.err"
	PROBE=$LAST_PID
}
probe_gap() {
	wait "$PROBE" || true
	grep -q '^sent ' "$TMPDIR_T/probe.out" || fail "the probe: $(cat "$TMPDIR_T/probe.out" "$TMPDIR_T/probe.err")"
	GAP=$(awk '/unanswered/ { n = $3; t = $6 * 1000
			if (seen && n == last + 1) run = t - first; else { first = t; run = 0 }
			seen = 1; last = n; if (run + 55 > max) max = run + 55 }
		END { printf "%d\n", max }' "$TMPDIR_T/probe.err")
}
bound() {	# bound NAME MAX: GAP within MAX ms, a row of the table
	ROWS+=("$PATHNAME|$1 (bound $2 ms)|-|gap $GAP ms|-")
	[ "$GAP" -le "$2" ] || fail "$PATHNAME, $1: 10.0.0.1 unanswered for $GAP ms, more than $2"
	pass "$PATHNAME, $1: 10.0.0.1 unanswered for at most $GAP ms (bound $2 ms)"
}
dropin() {	# dropin NAME TEXT: a drop-in for the unit, and daemon-reload
	mkdir -p "$MERGED/etc/systemd/system/arpownd.service.d"
	printf '[Service]\n%s\n' "$2" >"$MERGED/etc/systemd/system/arpownd.service.d/50-test-$1.conf"
	ce systemctl daemon-reload
}
dropin_rm() { rm -f "$MERGED/etc/systemd/system/arpownd.service.d/50-test-$1.conf"; ce systemctl daemon-reload; }
started() { ce systemctl reset-failed arpownd; ce systemctl start arpownd || fail "$PATHNAME: start ($1)"; }

expect_eq "$(pairs)" "$ORIG" "before the install: the originals"

for PATHNAME in $PATHS; do
	if want upgrade; then
		say "==== $PATHNAME path: the previous release ($V~prev, $UPGRADE_FROM)"
		out=$(capt install --no-install-recommends "$CPREV" 2>&1) || fail "apt-get install $CPREV: $out"
	else
		say "==== $PATHNAME path: $V"
		out=$(capt install --no-install-recommends "$CNEW" 2>&1) || fail "apt-get install $CNEW: $out"
	fi
	if [ "$PATHNAME" = kernel ]; then
		ce mkdir -p /etc/systemd/system/arpownd.service.d
		ce cp /usr/share/doc/arpownd/examples/kernel-path.conf /etc/systemd/system/arpownd.service.d/ ||
			fail "kernel-path.conf"
		ce sed -i 's/^answer_path = .*/answer_path = kernel/' /etc/arpownd.conf
		ce systemctl daemon-reload
		restart
		ce journalctl -u arpownd --no-pager -n 40 | grep -q 'answered by the kernel path' ||
			fail "the kernel path does not answer"
	fi
	wait_for 3000 _pairs_are "8/2 8/2 8/2 8/2" || fail "$PATHNAME: installed, $(pairs)"
	ce arpownctl publish 10.0.0.50 eth0 >/dev/null || fail "arpownctl publish 10.0.0.50 eth0"
	expect_reply c c0 10.0.0.50 "$MAC0" "$PATHNAME: 10.0.0.50 published, answered from eth0"

	if want upgrade; then
		nr=$(prop NRestarts)
		LATE_SINCE_RESTART=1 planned "upgrade from $V~prev" install_new
		[ "$(ce dpkg-query -W -f='${Version}' arpownd)" = "$V" ] || fail "not upgraded"
		# the takeover killed the old daemon inside the postinst's restart:
		# one restart, not a crash systemd restarts on its own
		expect_eq "$(prop ActiveState)/$(prop SubState) $(prop NRestarts)" "active/running $nr" \
			"$PATHNAME, upgrade: running, restarted by the postinst alone (NRestarts $nr)"
		expect_eq "$(grep -c 'took over from pid' "$TMPDIR_T/ev$EVN.journal")" 1 \
			"$PATHNAME, upgrade: the new unit's ExecStop took over from the old daemon"
		soft "$(sysctl_get h all arp_ignore)" 0 "$PATHNAME, upgrade: net.ipv4.conf.all.arp_ignore untouched"
	fi
	# the baseline, once: the setup's own noise
	[ "$PATHNAME" != "${PATHS%% *}" ] || planned "no event" true
	want restart && planned "systemctl restart x2" restarts
	want reinstall && planned "apt-get install --reinstall" reinstall

	if want hang; then
		# a running daemon that hangs: SIGSTOP; the watchdog (the unit's
		# WatchdogSec=) aborts it, ExecStopPost sets the strict mode, and
		# Restart= starts it again
		hang() {
			local old
			old=$(prop MainPID)
			probe_start 5
			sleep 0.3
			kill -STOP "$(host_pid "$old")" || fail "SIGSTOP"
			wait_for 10000 _active_not "$old" || fail "watchdog: not restarted"
			probe_gap
		}
		load "a running daemon hangs (watchdog)" hang
		soft "$WRONG" 0 "$PATHNAME, a running daemon hangs: no reply from a NIC that does not own the address"
		bound "a running daemon hangs" "$HANG_BOUND"
	fi

	if want bounds; then
		probe_start 1
		sleep 0.3
		ce systemctl stop arpownd
		probe_gap
		expect_eq "$(pairs)" "1/2 1/2 1/2 1/2" "$PATHNAME, stopped: the kernel's strict mode (owner: arp_ignore 1)"
		bound stop 55
		expect_reply c c0 10.0.0.2 "$(mac_of h eth1)" "$PATHNAME, stopped: 10.0.0.2 answered by eth1 alone"
		expect_silence f f0 10.0.0.1 "$PATHNAME, stopped: the outside cannot probe 10.0.0.1"
		started "after the stop"
		probe_start 1
		sleep 0.3
		ce systemctl kill -s KILL arpownd
		probe_gap
		wait_for 10000 _pairs_are "8/2 8/2 8/2 8/2" || fail "$PATHNAME: not restarted after SIGKILL"
		bound SIGKILL "$KILL_BOUND"
		cp "$MERGED/etc/arpownd.conf" "$TMPDIR_T/good.conf"
		echo 'mode = bogus' >>"$MERGED/etc/arpownd.conf"
		probe_start 1
		sleep 0.3
		ce systemctl restart arpownd 2>/dev/null && fail "a bad configuration started"
		probe_gap
		expect_eq "$(prop ExecMainStatus)" 78 "$PATHNAME, failed start: 78"
		expect_eq "$(pairs)" "1/2 1/2 1/2 1/2" "$PATHNAME, failed start: the strict mode"
		bound "failed start" 55
		cp "$TMPDIR_T/good.conf" "$MERGED/etc/arpownd.conf"
		ce systemctl reset-failed arpownd
		# a start that hangs before it changes anything: the strict mode
		# the stop left stays
		dropin hang 'ExecStart=
ExecStart=/bin/sh -c "kill -STOP $$$$; exec /usr/sbin/arpownd"
TimeoutStartSec=2s
Restart=no'
		probe_start 3
		sleep 0.3
		ce systemctl start arpownd 2>/dev/null && fail "a hanging start succeeded"
		probe_gap
		expect_eq "$(pairs)" "1/2 1/2 1/2 1/2" "$PATHNAME, a start that hangs: the strict mode"
		bound "start hangs early" 55
		# a start that hangs once it has silenced the kernel on eth0 (the
		# first arp_ignore=8 it writes: faultinj.so stops it there):
		# TimeoutStartSec= ends it, and its stop the strict mode again
		dropin hang 'Environment=LD_PRELOAD=/usr/local/lib/arpownd-test/faultinj.so ARPOWND_FAULT_STOP_AT8=1
TimeoutStartSec=2s
Restart=no'
		ce systemctl reset-failed arpownd
		probe_start 3
		sleep 0.3
		ce systemctl start arpownd 2>/dev/null && fail "a start stopped at its first arp_ignore=8 succeeded"
		probe_gap
		wait_for 3000 _pairs_are "1/2 1/2 1/2 1/2" || fail "$PATHNAME, a start that hangs silenced: $(pairs)"
		bound "start hangs silenced" "$START_BOUND"
		dropin_rm hang
		started "after the hangs"
	fi

	# purged: the originals back
	out=$(capt purge arpownd 2>&1) || fail "apt-get purge: $out"
	ce rm -rf /etc/systemd/system/arpownd.service.d
	ce systemctl daemon-reload
	expect_eq "$(pairs)" "$ORIG" "$PATHNAME, purged: the true originals (eth1 2/1), never 1, 2 or 8"
done
poweroff

echo
echo "path     | event                                  | wrong NIC | late (owned closed/open, published closed/open) | drops (journal)"
for r in "${ROWS[@]}"; do
	IFS='|' read -r p e w l d <<<"$r"
	printf '%-8s | %-38s | %9s | %-47s | %s\n' "$p" "$e" "$w" "$l" "$d"
done
[ "${#FAILS[@]}" -eq 0 ] || fail "$(printf '%s; ' "${FAILS[@]}")"
say "done: $BOOTS boots; the root tree was $ROOT_HOW"
