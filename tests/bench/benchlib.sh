# benchlib.sh — what bench.sh and kbench.sh share: the veth pair both
# measure on, the daemon's configuration for it, and the measurements
# (ping-pong, a bounded flood with a probe beside it) with the rule that
# turns three runs into one figure.  Sourced after lib.sh and topo.sh.

# bench_pair: h's hv (10.0.0.1/24) wired to c's cv, the client; CONF, the
# daemon's configuration with the limits off (the benchmark measures the
# responder, not the rate limiter) and no -d (nothing per packet logged),
# run as a uid:gid no other process uses, as the integration tests do
bench_pair() {
	pair_net
	CONF=$TMPDIR_T/bench.conf
	printf '[global]\nuser = %s\nlog_level = info\nsender_rate = 0\ntotal_rate = 0\n' \
		"${ARPOWND_TEST_USER:-61999:61999}" >"$CONF"
	wait_for 3000 ns c "$ARPC" -q -i cv -w 100 10.0.0.1 >/dev/null || fail "veth pair not up"
}

ratio() { awk -v a="$1" -v k="$2" 'BEGIN { if (k + 0 > 0) printf "%.2f", a / k; else print "-" }'; }
field() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$2"; }
# med3 A B C: the median of three runs (where the scheduler puts the two
# processes moves a single run's figures by 2x; the same rule serves the
# kernel)
med3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# pingpong: one request in flight, 10,000 of them, three times: PP50 and
# PP99, the medians.  The client spins (--busy) so that the round trip is
# the responder's, not the client's own wake-up; PP_SLEEP=1 measures with
# a sleeping client, PP_TARGET asks for another address than 10.0.0.1.
pingpong() {
	local out i p50s=() p99s=() busy=--busy
	[ -z "${PP_SLEEP:-}" ] || busy=
	for i in 1 2 3; do
		out=$(ns c "$ARPC" -q -i cv --pingpong $busy -c 10000 --wait-reply 100 -t 20000 "${PP_TARGET:-10.0.0.1}")
		p50s+=("$(field p50 "$out")")
		p99s+=("$(field p99 "$out")")
	done
	PP50=$(med3 "${p50s[@]}")
	PP99=$(med3 "${p99s[@]}")
}

# flood RATE COUNT: arpc's load generator, one sending thread per CPU (on
# veth the path of a request runs on the CPU that sent it), replies read
# from a ring, 64 senders (10.0.0.128-191) so that every reply is matched
# to a request of its sender.  Its figures: sent, answered, dup,
# achieved_rate, rx_drops (its ring).
NT=$(nproc)
[ "$NT" -le 16 ] || NT=16
flood() {
	ns c "$ARPC" -q -i cv --stats --threads "$NT" --vary 64 -s 10.0.0.128 \
		-r "$1" -c "$2" -w 300 -t $((2000 * $2 / $1 + 6000)) 10.0.0.1
}

# The responder's side of the same run: the daemon's own counters
# (received answered capture-drops, cumulative; "- - -" for the kernel,
# DPID unset) and the frames veth dropped on the way, both directions.
dcount() {
	if [ -z "${DPID:-}" ]; then
		echo "- - -"
		return
	fi
	ctl_get counters "'%d %d %d' % (d['all']['received'], d['all']['replies'], d['daemon']['capture_drops'])"
}
vdrops() {
	cat <(ns c cat /sys/class/net/cv/statistics/{tx,rx}_dropped) \
		<(ns h cat /sys/class/net/hv/statistics/{tx,rx}_dropped) | awk '{ s += $1 } END { print s }'
}

# load RATE: three runs of 2 s at RATE, the median by loss reported:
# LOSS (percent of requests not answered), RATE (achieved, requests/s),
# CLI "sent / answered / dup / ring drops; veth drops", DMN "received /
# answered / capture drops" (deltas over the run), OFFERED (yes when the
# client reached 99% of RATE and its ring dropped nothing).  Then again,
# with a 1,000/s ping-pong probe beside it, three times: LP99, LRATE
# (medians: p99 beside a flood is the scheduler's as much as the
# responder's).
load() {
	local r=$1 i out c0 c1 v0 v1 runs=() med probe p99s=() rates=()
	for i in 1 2 3; do
		c0=$(dcount); v0=$(vdrops)
		out=$(flood "$r" $((2 * r)))
		c1=$(dcount); v1=$(vdrops)
		runs+=("$(awk -v r="$r" -v c0="$c0" -v c1="$c1" -v v=$((v1 - v0)) -v o="$out" 'BEGIN {
			n = split(o, f, " ")
			for (i = 1; i < n; i++) x[f[i]] = f[i + 1]
			split(c0, a, " "); split(c1, b, " ")
			loss = x["sent"] ? 100 * (x["sent"] - x["answered"]) / x["sent"] : 100
			ok = (x["achieved_rate"] >= 0.99 * r && x["sent"] == 2 * r && x["rx_drops"] == 0) ? "yes" : "no"
			d = (a[1] == "-") ? "-" : sprintf("%d / %d / %d", b[1] - a[1], b[2] - a[2], b[3] - a[3])
			printf "%.3f|%d|%d / %d / %d / %d; %d|%s|%s\n", loss, x["achieved_rate"], x["sent"],
				x["answered"], x["dup"], x["rx_drops"], v, d, ok }')")
	done
	med=$(printf '%s\n' "${runs[@]}" | sort -t '|' -k1,1g | sed -n 2p)
	IFS='|' read -r LOSS RATE CLI DMN OFFERED <<<"$med"
	for i in 1 2 3; do
		bg_run c "$ARPC" -q -i cv -s 10.0.0.101 --pingpong -r 1000 -c 1800 --wait-reply 50 \
			-t 4000 10.0.0.1 >"$TMPDIR_T/probe.out" 2>&1
		probe=$LAST_PID
		out=$(flood "$r" $((2 * r)))
		wait "$probe"
		rates+=("$(field achieved_rate "$out")")
		p99s+=("$(field p99 "$(cat "$TMPDIR_T/probe.out")")")
	done
	LRATE=$(med3 "${rates[@]}")
	LP99=$(med3 "${p99s[@]}")
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# per_100k TICKS_CMD...: CPU seconds per 100k answered, over 400k
# requests at 100k/s, as TICKS_CMD counts them (clock ticks, before and
# after)
per_100k() {
	local t0 t1 out answered
	t0=$("$@")
	out=$(ns c "$ARPC" -q -i cv --stats -r 100000 -c 400000 -w 300 -t 8000 10.0.0.1)
	t1=$("$@")
	answered=$(sed -n 's/^sent [0-9]* received \([0-9]*\).*/\1/p' <<<"$out")
	awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v n="$answered" \
		'BEGIN { printf "%.3f", n ? t / hz / (n / 100000) : 0 }'
}
cpu_per_100k() { per_100k cpu_ticks "$DPID"; }

# the whole box's CPU seconds (every CPU's non-idle time, /proc/stat:
# softirq included, where the kernel and the eBPF program answer) per
# 100k answered; the client's own share is the same in every column
box_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
box_per_100k() { per_100k box_ticks; }

# box3: box_per_100k three times, the median (BOX): one run swings with
# what else the box does
box3() {
	local i v=()
	for i in 1 2 3; do v+=("$(box_per_100k)"); done
	BOX=$(printf '%s\n' "${v[@]}" | sort -g | sed -n 2p)
}

# spin MS: iterations of a busy loop in ns h in MS ms (one CPU's worth
# of work the host has to do)
spin() {
	ns h perl -e '$SIG{ALRM} = sub { print "$n\n"; exit 0 }; alarm($ARGV[0] / 1000); $n++ while 1;' "$1"
}

# storm: two sender threads as fast as they go (bounded: 1,000,000
# requests, 8 s), 64 senders, the limits as configured; while it runs, a
# busy loop on the host.  STORM_OFF (requests/s offered), STORM_ANS
# (answered/s), STORM_LEFT (the loop's iterations as a percentage of
# the same loop on the idle box, SPIN0: measured first).
storm() {
	local out n
	[ -n "${SPIN0:-}" ] || SPIN0=$(spin 2000)
	bg_run c "$ARPC" -q -i cv --stats --threads 2 --vary 64 -s 10.0.0.128 -r 0 -c 1000000 \
		-w 300 -t 8000 10.0.0.1 >"$TMPDIR_T/storm.out" 2>&1
	local p=$LAST_PID
	sleep 0.3
	n=$(spin 2000)
	wait "$p" || true
	out=$(cat "$TMPDIR_T/storm.out")
	STORM_OFF=$(field achieved_rate "$out")
	STORM_ANS=$(awk -v o="$out" 'BEGIN { n = split(o, f, " "); for (i = 1; i < n; i++) x[f[i]] = f[i + 1]
		if (x["sent"] > 0 && x["achieved_rate"] > 0) printf "%d", x["answered"] * x["achieved_rate"] / x["sent"]; else print 0 }')
	STORM_LEFT=$(awk -v n="$n" -v z="$SPIN0" 'BEGIN { printf "%.0f", z ? 100 * n / z : 0 }')
}
