#!/bin/bash
# make bench: the kernel's own ARP responder and arpownd, side by side on
# the same veth pair, in one run; then arpownd with 1,000 interfaces and
# 100,000 addresses.  Prints a markdown table (also to $BENCH_OUT if set).
# Every flood is bounded in count and time; everything lives in namespaces
# this script makes and removes.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/topo.sh"
. "$here/benchlib.sh"
trap cleanup EXIT
need_netns
REACT=${top_builddir:-.}/tests/bench/react
[ -x "$REACT" ] || fail "build tests/bench/react first (make bench does)"

bench_pair
DLOG=$TMPDIR_T/arpownd.log

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

# --- reaction to an address added / deleted, 50 times
react() {
	local idx out
	idx=$(ns h cat /sys/class/net/hv/ifindex)
	out=$("$REACT" "${NS_PREFIX}h" "$idx" "${NS_PREFIX}c" cv 10.0.0.9/24 50)
	RADD=$(sed -n 's/^add_us p50 \([0-9.]*\) max \([0-9.]*\).*/\1 (max \2)/p' <<<"$out")
	RDEL=$(sed -n 's/.*del_us p50 \([0-9.]*\) max \([0-9.]*\).*/\1 (max \2)/p' <<<"$out")
}

# ctl_probe SECONDS: "counters" on the control socket 100 times a second,
# a connection each as arpownctl makes them; prints "p50 p99 max" in ms
# and the requests that failed.  python3 is in the package list.
ctl_probe() {
	python3 - "$ARPOWND_STATE_DIR/control" "$1" <<'PY'
import socket, sys, time
path, secs = sys.argv[1], float(sys.argv[2])
lat, bad, t = [], 0, time.monotonic()
end = t + secs
while t < end:
    s0 = time.monotonic()
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(5)
        c.connect(path)
        c.sendall(b"counters\n")
        buf = b""
        while b"\n" not in buf:
            b = c.recv(65536)
            if not b:
                raise OSError("closed")
            buf += b
        head, _, body = buf.partition(b"\n")
        f = head.split()
        if f[0] != b"OK":
            raise OSError(head.decode())
        need = int(f[1])
        while len(body) < need:
            b = c.recv(65536)
            if not b:
                raise OSError("cut short")
            body += b
        c.close()
        lat.append((time.monotonic() - s0) * 1000)
    except OSError:
        bad += 1
    t += 0.01
    time.sleep(max(0.0, t - time.monotonic()))
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else 0
print("%.2f %.2f %.2f %d %d" % (q(0.5), q(0.99), lat[-1] if lat else 0, len(lat), bad))
PY
}

measure() {
	PP_SLEEP=1 pingpong
	eval "$1_SP50=$PP50"
	pingpong
	eval "$1_PP50=$PP50 $1_PP99=$PP99"
	for r in 50000 200000 400000; do
		load "$r"
		eval "$1_LOSS_$r=\$LOSS $1_RATE_$r=\$RATE $1_LP99_$r=\$LP99 $1_LRATE_$r=\$LRATE"
		eval "$1_CLI_$r=\$CLI $1_DMN_$r=\$DMN $1_OFF_$r=\$OFFERED"
	done
	react
	eval "$1_RADD='$RADD' $1_RDEL='$RDEL'"
}

# cpu_ticks, per_100k, cpu_per_100k, box_ticks, box_per_100k: benchlib.sh

# Start arpownd in ns h as a service would (no -d: nothing logged per
# packet), wait for READY=1; DPID, READY_MS.  It drops to an unprivileged
# user, so the notify socket must be writable by it.
NRUN=0
bench_start() {
	local sock=$TMPDIR_T/bench$NRUN.sock s0 s1
	NOTIFY_LOG=$TMPDIR_T/bench$NRUN.notify
	NRUN=$((NRUN + 1))
	"$ARPC" --notify-listen "$sock" --notify-timeout 300000 >"$NOTIFY_LOG" 2>&1 &
	_track $!
	wait_for 2000 test -S "$sock" || fail "notify listener"
	chmod 666 "$sock"
	s0=${EPOCHREALTIME/[.,]/}
	bg_run h env NOTIFY_SOCKET="$sock" "$ARPOWND" -c "$CONF" --state-dir "$ARPOWND_STATE_DIR" \
		>>"$TMPDIR_T/arpownd.log" 2>&1
	DPID=$LAST_PID
	until grep -q READY=1 "$NOTIFY_LOG"; do
		kill -0 "$DPID" 2>/dev/null || fail "arpownd died before READY; $(tail -n 5 "$TMPDIR_T/arpownd.log")"
		[ $(( ${EPOCHREALTIME/[.,]/} - s0 )) -lt 60000000 ] || fail "no READY=1 in 60 s"
		sleep 0.001
	done
	s1=${EPOCHREALTIME/[.,]/}
	READY_MS=$(( (s1 - s0) / 1000 ))
}

bench_stop() {
	local s0=${EPOCHREALTIME/[.,]/}
	kill -TERM "$DPID"
	wait "$DPID" || true
	STOP_MS=$(( (${EPOCHREALTIME/[.,]/} - s0) / 1000 ))
	DPID=
}

echo "== kernel"
measure K
K_BOX=$(box_per_100k)
# BENCH_BASELINE=path/to/an/older/arpownd: the same measures of that build,
# in this run, beside this one (a refactoring shows no regression as ratios)
if [ -n "${BENCH_BASELINE:-}" ]; then
	echo "== arpownd, baseline: $BENCH_BASELINE"
	A_BIN=$ARPOWND
	ARPOWND=$BENCH_BASELINE
	bench_start
	measure B
	B_CPU=$(cpu_per_100k)
	bench_stop
	ARPOWND=$A_BIN
fi
echo "== arpownd"
bench_start
READY1_MS=$READY_MS
measure A
CPU=$(cpu_per_100k)
A_BOX=$(box_per_100k)
# the control socket asked 100 times a second through a 200k/s flood:
# its latency, and whether answering suffers
c0=$(dcount)
ctl_probe 2.5 >"$TMPDIR_T/ctl.out" &
cp=$!
out=$(flood 200000 400000)
wait "$cp"
c1=$(dcount)
read -r CTL50 CTL99 CTLMAX CTLN CTLBAD <"$TMPDIR_T/ctl.out"
CTLLOSS=$(awk -v o="$out" 'BEGIN { n = split(o, f, " "); for (i = 1; i < n; i++) x[f[i]] = f[i + 1]
	printf "%.3f", x["sent"] ? 100 * (x["sent"] - x["answered"]) / x["sent"] : 100 }')
CTLRATE=$(field achieved_rate "$out")
RSS1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status")
bench_stop
# the kernel answer path (answer_path = auto), where it was built: the
# same measures, beside the kernel's and the capture path's, in this run.
# Since issue 24 auto prefers XDP: on this veth pair, generic XDP; the
# TC program's rows beside it are make bench-kpath's (kbench.sh)
P_ON=
echo "== arpownd, answer_path = auto (the kernel path where it loads)"
printf 'answer_path = auto\n' >>"$CONF"
bench_start
if grep -q 'hv: answered by the kernel path' "$TMPDIR_T/arpownd.log"; then
	P_ON=1
	measure P
	P_CPU=$(cpu_per_100k)
	P_BOX=$(box_per_100k)
else
	echo "(the kernel path did not load: $(grep -m1 'kernel answer path' "$TMPDIR_T/arpownd.log"))"
fi
bench_stop
sed -i '$d' "$CONF"
# the same without busy polling: what the polling costs
printf 'busy_poll_us = 0\n' >>"$CONF"
bench_start
CPU0=$(cpu_per_100k)
pingpong
NP50=$PP50
bench_stop
sed -i '$d' "$CONF"
# qdisc_bypass = yes: what the opt-in saves on the reply path
printf 'qdisc_bypass = yes\n' >>"$CONF"
bench_start
pingpong
QP50=$PP50
bench_stop
sed -i '$d' "$CONF"
# 1,048,576 published addresses (one [publish] range, as ranges are kept),
# announcements off (the burst of a million is not what is measured): the
# memory, the start and the lookup of the range's last address
cp "$CONF" "$TMPDIR_T/conf.saved"
printf 'announce = no\n[publish big]\naddresses = 10.128.0.0/12\ninterface = hv\n' >>"$CONF"
bench_start
PUB_READY=$READY_MS
PUB_RSS=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status")
PUB_N=$(ctl_get published "sum(e['addresses'] for e in d['published'])" 2>/dev/null || echo "?")
PP_TARGET=10.143.255.254 pingpong
PUB_PP50=$PP50
PUB_MAC=$(ns c "$ARPC" -q -i cv -w 100 10.143.255.254 | sed -n 's/.* macs \([^ ]*\).*/\1/p')
bench_stop
# the same range on the kernel path (its LPM trie holds ranges, not one
# entry per address): answered at the kernel path's speed, nothing unheld
if [ -n "$P_ON" ]; then
	cp "$TMPDIR_T/conf.saved" "$CONF"
	printf 'answer_path = auto\nannounce = no\n[publish big]\naddresses = 10.128.0.0/12\ninterface = hv\n' >>"$CONF"
	bench_start
	PK_READY=$READY_MS
	PK_UNHELD=$(ctl_get status "d['kernel_path']['unheld']['published_ranges']" 2>/dev/null || echo "?")
	PP_TARGET=10.143.255.254 pingpong
	PK_PP50=$PP50
	bench_stop
fi
cp "$TMPDIR_T/conf.saved" "$CONF"

# --- scale: 500 veth pairs = 1,000 interfaces, 100 addresses each, plus hv
echo "== scale: building 1,000 interfaces and 100,000 addresses"
b=$TMPDIR_T/scale.batch
{
	for i in $(seq 0 499); do echo "link add s${i}a type veth peer name s${i}b"; done
	for i in $(seq 0 499); do echo "link set s${i}a up"; echo "link set s${i}b up"; done
	for k in $(seq 0 999); do
		if [ $((k % 2)) = 0 ]; then n=s$((k / 2))a; else n=s$((k / 2))b; fi
		for j in $(seq 1 100); do echo "addr add 10.$((64 + k / 256)).$((k % 256)).$j/32 dev $n"; done
	done
	for j in $(seq 2 100); do echo "addr add 10.0.1.$j/32 dev hv"; done
} >"$b"
ns h ip -batch "$b" || fail "ip -batch"
NADDR=$(ns h ip -4 -o addr show | wc -l)
NIF=$(ns h ip -o link show | grep -vc ': lo:')
bench_start
dp=$DPID
S_READY=$READY_MS
RSS=$(awk '/^VmRSS:/ { print $2 }' "/proc/$dp/status")
MANAGED=$(grep -o 'STATUS=answering ARP on [0-9]* interfaces for [0-9]* addresses' "$NOTIFY_LOG" | tail -n 1)
# what the start put on the segment in its first 15 s (the announcer is
# the same on both paths): announce_rate, 1,000 a second by default, is
# the bound, whatever the number of addresses
sleep "$(awk -v r="$S_READY" 'BEGIN { printf "%.3f", r < 15000 ? (15000 - r) / 1000 : 0 }')"
FRAMES15=$(ctl_get counters "d['all']['announcements']")
ANN_RATE=$("$ARPOWND" -n -c "$CONF" 2>/dev/null | awk -F' *= *' '$1 == "announce_rate" { print $2 }')
# Every newly managed interface announces its addresses (announce_count
# bursts, announce_interval apart; the first before READY): 100,100
# addresses are ~200k frames a burst.  The ping-pong below measures the
# lookups at scale, so it waits until the bursts are over.
ANN_WAIT=$("$ARPOWND" -n -c "$CONF" 2>/dev/null | awk -F' *= *' '
	$1 == "announce" { on = ($2 == "yes") } $1 == "announce_count" { c = $2 }
	$1 == "announce_interval" { i = $2 } END { printf "%.1f", on ? c * i + 0.5 : 0 }')
# Past the bursts' length, wait until the announcements counter stands
# still for a second: 100,100 addresses go at one loop turn's budget of
# frames at a time, some 4 s a round (30 s at most)
sleep "$ANN_WAIT"
prev=-1
for i in $(seq 30); do
	cur=$(ctl_get counters "d['all']['announcements']")
	[ "$cur" != "$prev" ] || break
	prev=$cur
	sleep 1
done
ANN_SENT=$cur
pingpong
S_PP50=$PP50
S_PP99=$PP99
# reload_one: the configuration changed for one interface of 1,000 (a
# section of its own, mode subnet), arpownctl reload's round trip
reload_one() {
	local r0 r1
	printf '[interface one]\nmatch = s7a\nmode = subnet\n' >>"$CONF"
	r0=${EPOCHREALTIME/[.,]/}
	ctl reload -c "$CONF" >/dev/null 2>&1 ||
		fail "arpownctl reload at scale"
	r1=${EPOCHREALTIME/[.,]/}
	RELOAD_MS=$(( (r1 - r0) / 1000 ))
	head -n -3 "$CONF" >"$CONF.tmp" && cat "$CONF.tmp" >"$CONF" && rm -f "$CONF.tmp"
}
reload_one
S_RELOAD=$RELOAD_MS
bench_stop
S_STOP=$STOP_MS
if [ -n "$P_ON" ]; then
	# the same scale on the kernel path: the maps' memory, and the lookups
	printf 'answer_path = auto\nannounce = no\n' >>"$CONF"
	bench_start
	PS_READY=$READY_MS
	# bpftool: "ID: TYPE  name NAME ..." then, indented, "... memlock NB"
	PS_MAPS=$(bpftool map show 2>/dev/null | awk '
		/^[0-9]+:/ { ours = / name kp_/ }
		ours { for (i = 1; i <= NF; i++) if ($i == "memlock") { v = $(i + 1); sub(/B$/, "", v); s += v; n++ } }
		END { printf "%.1f MiB in %d maps", s / 1048576, n }')
	pingpong
	PS_PP50=$PP50
	reload_one
	PS_RELOAD=$RELOAD_MS
	bench_stop
	PS_STOP=$STOP_MS
	sed -i '$d' "$CONF"
	sed -i '$d' "$CONF"
fi
restored=$(ns h sh -c 'grep -l 8 /proc/sys/net/ipv4/conf/s*/arp_ignore 2>/dev/null | wc -l')
# The kernel in the same namespace, arp_ignore back at 0: what 1,001
# interfaces and 100,101 local addresses cost the kernel's own path for
# the frame (arp_rcv's route lookup runs for every request, also the ones
# arp_ignore = 8 then drops), against the kernel at one address
pingpong
SK_PP50=$PP50

met() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v + 0 <= lim + 0) ? "yes" : "**no**" }'; }
row "ping-pong p50 (us)" "$K_PP50" "$A_PP50" "$(ratio "$A_PP50" "$K_PP50")" "<= 2.5x kernel" \
	"$(met "$(ratio "$A_PP50" "$K_PP50")" 2.5)"
row "ping-pong p99 (us)" "$K_PP99" "$A_PP99" "$(ratio "$A_PP99" "$K_PP99")" "" ""
row "ping-pong p50 (us), client sleeping" "$K_SP50" "$A_SP50" "$(ratio "$A_SP50" "$K_SP50")" "" ""
krate() { awk -v r="$1" 'BEGIN { printf "%.1fk/s", r / 1000 }'; }
for r in 50000 200000 400000; do
	for v in LOSS RATE LP99 LRATE CLI DMN OFF; do
		eval "k$v=\$K_${v}_$r a$v=\$A_${v}_$r"
	done
	# a target is judged only where the rate was offered: the client
	# reached it, and the kernel, in the same run, answered all of it
	case $r in 200000) tgt="0 %"; lim=0 ;; 400000) tgt="<= 0.1 %"; lim=0.1 ;; *) tgt=""; lim= ;; esac
	ok=
	if [ -n "$lim" ]; then
		if [ "$kOFF" != yes ] || [ "$kLOSS" != 0.000 ]; then
			ok="not measured (client or path: kernel $kLOSS % at $(krate "$kRATE"))"
		elif [ "$aOFF" != yes ]; then
			ok="not measured (client reached $(krate "$aRATE"))"
		else
			ok=$(met "$aLOSS" "$lim")
		fi
	fi
	row "loss at $((r / 1000))k/s offered, median of 3 (achieved rate)" \
		"$kLOSS % ($(krate "$kRATE"))" "$aLOSS % ($(krate "$aRATE"))" "" "$tgt" "$ok"
	row "- client: sent / answered / dup / ring drops; veth drops" "$kCLI" "$aCLI" "" "" ""
	row "- arpownd: received / answered / capture drops" "-" "$aDMN" "" "" ""
	lbl="p99 under $((r / 1000))k/s (us), 1,000/s probe"
	if awk -v k="$kLRATE" -v a="$aLRATE" -v r="$r" 'BEGIN { exit !(k < 0.99 * r || a < 0.99 * r) }'; then
		lbl="$lbl (flood reached $(krate "$kLRATE") / $(krate "$aLRATE"))"
	fi
	row "$lbl" "$kLP99" "$aLP99" "$(ratio "$aLP99" "$kLP99")" "" ""
done
row "address added -> first answer (us, p50)" "$K_RADD" "$A_RADD" "" "<= 1000" "$(met "${A_RADD%% *}" 1000)"
row "address deleted -> last answer (us, p50)" "$K_RDEL" "$A_RDEL" "" "<= 1000" "$(met "${A_RDEL%% *}" 1000)"
row "daemon CPU s per 100k answered (at 100k/s)" "n/a (softirq)" "$CPU" "" "" ""
row "whole box CPU s per 100k answered (at 100k/s, /proc/stat)" "$K_BOX" "$A_BOX" "$(ratio "$A_BOX" "$K_BOX")" "" ""
row "same, busy_poll_us = 0" "n/a (softirq)" "$CPU0" "" "" ""
row "ping-pong p50 (us), busy_poll_us = 0" "$K_PP50" "$NP50" "$(ratio "$NP50" "$K_PP50")" "" ""
row "ping-pong p50 (us), qdisc_bypass = yes" "$K_PP50" "$QP50" "$(ratio "$QP50" "$K_PP50")" "" ""
row "control socket, counters at 100/s during 200k/s: p50 / p99 / max (ms)" "-" \
	"$CTL50 / $CTL99 / $CTLMAX ($CTLN answered, $CTLBAD failed)" "" "" ""
if awk -v r="$CTLRATE" 'BEGIN { exit !(r >= 0.99 * 200000) }'; then
	ok=$(met "$CTLLOSS" "$A_LOSS_200000")
else
	ok="not measured (client reached $(krate "$CTLRATE"))"
fi
row "- loss at 200k/s with it (achieved rate); without it: $A_LOSS_200000 %" "-" \
	"$CTLLOSS % ($(krate "$CTLRATE"))" "" "no loss added" "$ok"
row "published: 1,048,576 addresses in one range, RSS (KiB)" "-" "$PUB_RSS (vs $RSS1)" "" "a few MiB" \
	"$(met "$((PUB_RSS - RSS1))" 4096)"
row "- time to READY (ms); published count reported" "-" "$PUB_READY; $PUB_N" "" "" ""
row "- ping-pong p50 (us), last address of the range vs an owned one" "$A_PP50" "$PUB_PP50" \
	"$(ratio "$PUB_PP50" "$A_PP50")" "<= 1.10x" "$(met "$(ratio "$PUB_PP50" "$A_PP50")" 1.10)"
row "RSS, 1 interface (KiB)" "-" "$RSS1" "" "" ""
row "time to READY, 1 interface (ms)" "-" "$READY1_MS" "" "" ""
row "scale: time to READY (ms)" "-" "$S_READY" "" "<= 1000" "$(met "$S_READY" 1000)"
row "scale: RSS (KiB)" "-" "$RSS" "" "< 16384" "$(met "$RSS" 16383)"
row "scale: ping-pong p50 (us) vs 1 address" "$A_PP50" "$S_PP50" "$(ratio "$S_PP50" "$A_PP50")" "<= 1.10x" \
	"$(met "$(ratio "$S_PP50" "$A_PP50")" 1.10)"
row "scale: the kernel's ping-pong p50 (us), 1 address vs scale" "$K_PP50" "$SK_PP50" "$(ratio "$SK_PP50" "$K_PP50")" "" ""
row "scale: announcements sent at start (frames)" "-" "$ANN_SENT" "" "" ""
row "scale: stop, 1,000 interfaces restored (ms)" "-" "$S_STOP" "" "<= 1000" "$(met "$S_STOP" 1000)"
row "scale: reload of one interface (ms)" "-" "$S_RELOAD" "" "<= 100" "$(met "$S_RELOAD" 100)"
row "scale: announcement frames in the first 15 s (announce_rate $ANN_RATE)" "0" "$FRAMES15" "" \
	"<= $((ANN_RATE * 15 + ANN_RATE / 20))" "$(met "$FRAMES15" $((ANN_RATE * 15 + ANN_RATE / 20)))"

KP=()
if [ -n "$P_ON" ]; then
	kp_row() { KP+=("| $1 | $2 | $3 | $4 | $(ratio "$4" "$2") | $5 | $6 |"); }
	kp_row "ping-pong p50 (us), client spinning" "$K_PP50" "$A_PP50" "$P_PP50" "<= 1.0x" \
		"$(met "$(ratio "$P_PP50" "$K_PP50")" 1.0)"
	kp_row "ping-pong p99 (us), client spinning" "$K_PP99" "$A_PP99" "$P_PP99" "" ""
	kp_row "ping-pong p50 (us), client sleeping" "$K_SP50" "$A_SP50" "$P_SP50" "<= 1.2x" \
		"$(met "$(ratio "$P_SP50" "$K_SP50")" 1.2)"
	for r in 50000 200000 400000; do
		eval "kl=\$K_LOSS_$r al=\$A_LOSS_$r pl=\$P_LOSS_$r kp=\$K_LP99_$r ap=\$A_LP99_$r pp=\$P_LP99_$r"
		KP+=("| loss at $((r / 1000))k/s (%) | $kl | $al | $pl | - | no more than the kernel | $(met "$pl" "$kl") |")
		case $r in 50000) t=""; m="" ;; *) t="<= 2x"; m=$(met "$(ratio "$pp" "$kp")" 2) ;; esac
		kp_row "p99 under $((r / 1000))k/s (us), 1,000/s probe" "$kp" "$ap" "$pp" "$t" "$m"
	done
	kp_row "address added -> first answer (us, p50)" "${K_RADD%% *}" "${A_RADD%% *}" "${P_RADD%% *}" \
		"<= 1000" "$(met "${P_RADD%% *}" 1000)"
	kp_row "address deleted -> last answer (us, p50)" "${K_RDEL%% *}" "${A_RDEL%% *}" "${P_RDEL%% *}" "" ""
	kp_row "whole box CPU s per 100k answered (at 100k/s)" "$K_BOX" "$A_BOX" "$P_BOX" \
		"<= kernel" "$(met "$P_BOX" "$K_BOX")"
	KP+=("| daemon CPU s per 100k answered | - | $CPU | $P_CPU | - | | |")
	KP+=("| scale ($NIF interfaces, $NADDR addresses): time to READY (ms) | - | $S_READY | $PS_READY | - | <= 1000 | $(met "$PS_READY" 1000) |")
	KP+=("| scale: stop (ms) | - | $S_STOP | $PS_STOP | - | <= 1000 | $(met "$PS_STOP" 1000) |")
	KP+=("| scale: reload of one interface (ms) | - | $S_RELOAD | $PS_RELOAD | - | <= 100 | $(met "$PS_RELOAD" 100) |")
	KP+=("| scale: map memory | - | - | $PS_MAPS | - | reported | |")
	KP+=("| published 1,048,576 addresses (a /12): ping-pong p50 (us), its last address | - | $PUB_PP50 | $PK_PP50 | $(ratio "$PK_PP50" "$P_PP50") (vs an owned one, $P_PP50) | <= 1.1x | $(met "$(ratio "$PK_PP50" "$P_PP50")" 1.1) |")
	KP+=("| - time to READY (ms); published ranges the maps could not hold | - | $PUB_READY | $PK_READY; $PK_UNHELD | - | 0 unheld | $([ "$PK_UNHELD" = 0 ] && echo yes || echo '**no**') |")
	kp_row "scale: ping-pong p50 (us) vs 1 address" "$P_PP50" "" "$PS_PP50" "<= 1.1x" \
		"$(met "$(ratio "$PS_PP50" "$P_PP50")" 1.1)"
fi

CMP=()
if [ -n "${BENCH_BASELINE:-}" ]; then
	cmp_row() { CMP+=("| $1 | $2 | $3 | $4 | $(ratio "$4" "$3") |"); }
	cmp_row "ping-pong p50 (us)" "$K_PP50" "$B_PP50" "$A_PP50"
	cmp_row "ping-pong p99 (us)" "$K_PP99" "$B_PP99" "$A_PP99"
	cmp_row "ping-pong p50 (us), client sleeping" "$K_SP50" "$B_SP50" "$A_SP50"
	for r in 50000 200000 400000; do
		eval "kl=\$K_LOSS_$r bl=\$B_LOSS_$r al=\$A_LOSS_$r"
		CMP+=("| loss at $((r / 1000))k/s (%) | $kl | $bl | $al | - |")
		eval "kp=\$K_LP99_$r bp=\$B_LP99_$r ap=\$A_LP99_$r"
		cmp_row "p99 under $((r / 1000))k/s (us)" "$kp" "$bp" "$ap"
	done
	cmp_row "address added -> first answer (us, p50)" "${K_RADD%% *}" "${B_RADD%% *}" "${A_RADD%% *}"
	cmp_row "daemon CPU s per 100k answered" "-" "$B_CPU" "$CPU"
fi

{
	echo "arpownd benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r)"
	echo "scale run: $NIF interfaces, $NADDR IPv4 addresses in the namespace; daemon: ${MANAGED#STATUS=}; still at 8 after stop: $restored"
	echo
	echo "| metric | kernel | arpownd | ratio | target | met |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${ROWS[@]}"
	if [ "${#KP[@]}" -gt 0 ]; then
		echo
		echo "the kernel answer path (answer_path = kernel), same run; ratio: kernel path / kernel:"
		echo
		echo "| metric | kernel | arpownd capture | arpownd kernel path | ratio | target | met |"
		echo "| --- | --- | --- | --- | --- | --- | --- |"
		printf '%s\n' "${KP[@]}"
	fi
	if [ "${#CMP[@]}" -gt 0 ]; then
		echo
		echo "this build against the baseline $BENCH_BASELINE, same run:"
		echo
		echo "| metric | kernel | baseline | this build | this / baseline |"
		echo "| --- | --- | --- | --- | --- |"
		printf '%s\n' "${CMP[@]}"
	fi
} | tee "${BENCH_OUT:-/dev/null}"
