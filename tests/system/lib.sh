# lib.sh — sourced by the tests under real systemd (tests/system/*.sh):
#   . "${top_srcdir:-.}/tests/system/lib.sh"
# shellcheck shell=bash disable=SC2034 # its variables are the tests'
#
# On sourcing: re-runs the test in a private mount namespace (unshare -m)
# with a tmpfs on /run, sources tests/integration/lib.sh and topo.sh and
# sets the EXIT trap.  Then it offers: the cached Debian root trees
# (cached_tree, root_tree), the container's root as an overlay over the
# cache (mount_root), booting it with systemd-nspawn in namespace h in a
# cgroup of its own (make_cgroups, boot, poweroff; stopped and its cgroups
# removed at exit, by a reaper if the test is SIGKILLed), commands in the
# container (ce, ce_t, prop, host_pid) and the sysctls of eth0..eth2 in
# namespace h (pair, pairs, ORIG).
#
# skip REASON: exit 77, or fail when ARPOWND_SYSTEM_REQUIRED=1 (CI).

skip() {
	if [ "${ARPOWND_SYSTEM_REQUIRED:-0}" = 1 ]; then
		echo "FAIL: would skip (ARPOWND_SYSTEM_REQUIRED=1): $*" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# ---- a private mount namespace for all of it ----------------------------
if [ -z "${_ARPOWND_SYSTEM_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	command -v unshare >/dev/null || skip "needs unshare (util-linux)"
	unshare -m --propagation private true 2>/dev/null ||
		skip "cannot make a private mount namespace (unshare -m)"
	_ARPOWND_SYSTEM_NS=1 exec unshare -m --propagation private "$BASH" "$0" "$@"
fi
# The machine's resolver, for a chroot that downloads packages: read before
# /run is replaced (/etc/resolv.conf may be a link into it).
HOST_RESOLV_CONF=$(cat /etc/resolv.conf 2>/dev/null)
# Own /run: ip netns, nspawn (/run/systemd/nspawn) and anything else that
# writes there leave nothing on the host's /run.
mount -t tmpfs -o mode=0755,nosuid,nodev arpownd-system /run ||
	skip "cannot mount a tmpfs on /run in the private mount namespace"

T_START=${EPOCHREALTIME/[.,]/}
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "${top_srcdir:-.}/tests/integration/topo.sh"
trap cleanup EXIT

# (lib.sh's need_cmd, but through skip(): CI can refuse to skip)
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs $c"
	done
}

SRC=$(cd "${top_srcdir:-.}" && pwd)
BUILD=$(cd "${top_builddir:-.}" && pwd)
[ -f "$BUILD/Makefile" ] || fail "no configured build tree at $BUILD"

elapsed() {		# seconds since the start, one decimal
	local now=${EPOCHREALTIME/[.,]/}
	printf '%d.%d' $(((now - T_START) / 1000000)) $(((now - T_START) / 100000 % 10))
}
say() { echo "[$(elapsed) s] $*"; }

# ---- the root trees, cached ------------------------------------------
# The container's root tree: runtime libraries of the daemon (ldd
# src/arpownd, Debian 12 names), what the package's Depends name (adduser:
# tests/system/package.sh checks that each one is here) and what the tests
# need inside: systemd + dbus to boot, iproute2 for the stand-in network
# manager.  Changing this list (or the suite) changes the key and builds a
# new tree.
SUITE=bookworm
ROOT_PKGS="systemd dbus iproute2 adduser libpcap0.8 libmnl0 libev4 libiniparser1 libcap-ng0 libsystemd0 libbpf1"
ROOT_RECIPE=1	# bump when the steps below change what the tree holds
CACHE=${ARPOWND_SYSTEM_CACHE:-$SRC/.cache/system-root}

mirror() {
	local m
	if [ -n "${ARPOWND_SYSTEM_MIRROR:-}" ]; then
		echo "$ARPOWND_SYSTEM_MIRROR"
		return
	fi
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

# cached_tree NAME PKGS RECIPE [SETUP]: sets TREE to $CACHE/NAME-KEY, a
# debootstrap --variant=minbase of $SUITE with PKGS included, KEY hashed
# from the suite, PKGS and RECIPE (a string that changes whenever SETUP
# would make something else).  Built once, by the first run that needs it;
# SETUP, if given, is then called with the new tree's path before it is
# marked complete.  Exclusive while a tree is built (and stale ones of the
# same NAME removed), shared while one is in use: no run deletes the tree
# another one uses.  The lock stays held until the test exits.
cached_tree() {
	local name=$1 pkgs=$2 recipe=$3 setup=${4:-} key tmp rc lock fd
	key=$({ printf '%s\n' "$SUITE" minbase "$recipe"; tr ' ' '\n' <<<"$pkgs" | grep . | sort; } |
		sha256sum | cut -c1-16)
	TREE=$CACHE/$name-$key
	mkdir -p "$CACHE" || fail "mkdir $CACHE"
	lock=$CACHE/.lock
	[ "$name" = "$SUITE" ] || lock=$CACHE/.lock-$name
	exec {fd}>"$lock"
	timeout 900 flock -x "$fd" || fail "the tree cache $lock stayed locked 15 minutes"
	if [ -f "$TREE/.complete" ]; then
		TREE_HOW=cached
		flock -s "$fd"
		say "$name tree: cached $TREE"
		return
	fi
	TREE_HOW="built by this run"
	MIRROR=$(mirror)
	say "$name tree: debootstrap $SUITE from $MIRROR into $TREE (first run only)"
	tmp=$CACHE/.build-$name-$key
	rm -rf "$tmp"
	rc=0
	timeout 900 debootstrap --variant=minbase --include="${pkgs// /,}" \
		"$SUITE" "$tmp" "$MIRROR" >"$TMPDIR_T/debootstrap-$name.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$TMPDIR_T/debootstrap-$name.log" >&2
		rm -rf "$tmp"
		# no way to the mirror is a reason to skip; anything else a failure
		wget -q -T 20 -t 1 -O /dev/null "$MIRROR/dists/$SUITE/Release" 2>/dev/null ||
			skip "cannot reach $MIRROR (debootstrap status $rc)"
		fail "debootstrap $SUITE from $MIRROR failed with status $rc although the mirror answers"
	fi
	if [ -n "$setup" ]; then
		"$setup" "$tmp" || { rm -rf "$tmp"; fail "$name tree: $setup failed"; }
	fi
	# the downloaded packages are not needed any more
	rm -f "$tmp"/var/cache/apt/archives/*.deb
	touch "$tmp/.complete"
	mv "$tmp" "$TREE" || fail "mv $tmp $TREE"
	# trees of other keys are stale
	find "$CACHE" -mindepth 1 -maxdepth 1 -type d -name "$name-*" ! -path "$TREE" \
		-exec rm -rf {} + 2>/dev/null
	flock -s "$fd"
	say "$name tree: built ($(du -sh "$TREE" | cut -f1))"
}

# root_tree: the container's root tree, in ROOT (ROOT_HOW: cached or built).
root_tree() {
	cached_tree "$SUITE" "$ROOT_PKGS" "$ROOT_RECIPE"
	ROOT=$TREE
	ROOT_HOW=$TREE_HOW
}

# ---- the container's root: an overlay over the cached tree -------------
# Each run boots a fresh copy; the cache itself is never written.
MERGED=$TMPDIR_T/root
mount_root() {
	mkdir -p "$TMPDIR_T/upper" "$TMPDIR_T/work" "$MERGED"
	mount -t overlay arpownd-system-root \
		-o "lowerdir=$ROOT,upperdir=$TMPDIR_T/upper,workdir=$TMPDIR_T/work" "$MERGED" ||
		skip "cannot mount an overlay on $ROOT"
	# shellcheck disable=SC2016 # expanded at cleanup
	at_cleanup 'umount -l "$MERGED" 2>/dev/null'
	# no console to log in on: the getty would only fail
	ln -sf /dev/null "$MERGED/etc/systemd/system/console-getty.service"
	echo arpownd-test >"$MERGED/etc/hostname"
}

# ---- booting --------------------------------------------------------------
# The container's systemd gets a cgroup of its own under ours, in the
# unified hierarchy and in name=systemd; nspawn --keep-unit would otherwise
# create payload/ and supervisor/ in whatever cgroup we are in.
CGROUPS=()
make_cgroups() {
	local mnt opts rel
	while read -r mnt opts; do
		case $opts in
		cgroup2) rel=$(sed -n 's/^0:://p' /proc/self/cgroup) ;;
		*name=systemd*) rel=$(sed -n 's/^[0-9]*:name=systemd://p' /proc/self/cgroup) ;;
		*) continue ;;
		esac
		[ -n "$rel" ] || continue
		CGROUPS+=("$mnt${rel%/}/arpownd-system.$$")
	done < <(findmnt -rn -t cgroup,cgroup2 -o TARGET,FSTYPE,OPTIONS | awk '{ print $1, ($2 == "cgroup2" ? "cgroup2" : $3) }')
	local cg
	for cg in "${CGROUPS[@]}"; do
		mkdir "$cg" || fail "mkdir $cg"
	done
	at_cleanup stop_container
	at_cleanup remove_cgroups
	start_reaper
}

# Should this shell be SIGKILLed, no trap runs, and the container's
# processes outlive nspawn (its --pdeathsig does not reach them): a reaper
# in a session of its own waits for this shell to go, then kills what is
# left in the cgroups and removes them and the temporary directory.  A
# normal exit ends it (SIGTERM from lib.sh's cleanup, after the hooks).
start_reaper() {
	local st
	st=$(awk '{ print $22 }' "/proc/$$/stat")
	# shellcheck disable=SC2016 # expanded by the inner bash
	setsid bash -c '
		me=$1 st=$2 tmp=$3 merged=$4
		shift 4
		trap "exit 0" TERM
		alive() { [ "$(awk "{ print \$22 }" "/proc/$me/stat" 2>/dev/null)" = "$st" ]; }
		while alive; do sleep 1 & wait $!; done
		trap "" TERM
		for cg in "$@"; do [ -e "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill"; done
		for i in 1 2 3 4 5; do
			p=$(cat $(find "$@" -name cgroup.procs 2>/dev/null) 2>/dev/null)
			[ -z "$p" ] && break
			kill -KILL $p 2>/dev/null
			sleep 0.2
		done
		for cg in "$@"; do find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null; done
		umount -l "$merged" 2>/dev/null
		rm -rf "$tmp"' reaper "$$" "$st" "$TMPDIR_T" "$MERGED" "${CGROUPS[@]}" \
		</dev/null >/dev/null 2>&1 &
	_track "$!"
}

remove_cgroups() {
	local cg i
	for cg in "${CGROUPS[@]}"; do
		[ -d "$cg" ] || continue
		# anything left inside is ours: the container
		[ -e "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill" 2>/dev/null
		for ((i = 0; i < 200; i++)); do
			[ -z "$(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null)" ] && break
			# shellcheck disable=SC2046 # pids
			kill -KILL $(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null) 2>/dev/null
			sleep 0.01
		done
		find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
		[ -d "$cg" ] && echo "warning: could not remove cgroup $cg" >&2
	done
}

NSPAWN_PID=
LEADER=
BOOTS=0
_nspawn_gone() { ! _alive "$NSPAWN_PID"; }

# The container's PID 1 as seen from here: a child of nspawn, in namespace
# h, pid 1 of a pid namespace of its own.
_find_leader() {
	local p
	for p in $(ip netns pids "${NS_PREFIX}h" 2>/dev/null); do
		if awk -v n="$NSPAWN_PID" '/^PPid:/ { pp = $2 } /^NSpid:/ { last = $NF; k = NF }
			END { exit !(pp == n && last == 1 && k > 2) }' "/proc/$p/status" 2>/dev/null; then
			LEADER=$p
			return 0
		fi
	done
	return 1
}
_leader_or_gone() { _nspawn_gone || _find_leader; }
_bus_or_gone() { _nspawn_gone || test -S "/proc/$LEADER/root/run/systemd/private"; }

# boot: start the container on $MERGED in namespace h; returns once its
# systemd finished starting up (is-system-running --wait), at most 60 s.
# nspawn keeps CAP_NET_ADMIN out of the container's bounding set unless it
# made the network itself (--private-network); a host's systemd has it, and
# without it the unit cannot grant it to the daemon.  CAP_BPF, CAP_PERFMON
# and bpf()
# likewise, for the kernel answer path's drop-in (kernel-path.conf).
boot() {
	local log st t0
	BOOTS=$((BOOTS + 1))
	LEADER=
	log=$TMPDIR_T/nspawn.$BOOTS.log
	t0=${EPOCHREALTIME/[.,]/}
	# a unified cgroup hierarchy in the container, as on a Debian 12 host
	local uni=
	[ -n "$(findmnt -rn -t cgroup2)" ] && uni=1
	# --pdeathsig: should this shell be SIGKILLed, nspawn goes too (and the
	# reaper sees to the container)
	# shellcheck disable=SC2016 # expanded by the inner sh
	SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=$uni setpriv --pdeathsig KILL sh -c '
		root=$1 netns=$2; shift 2
		for cg in "$@"; do echo $$ >"$cg/cgroup.procs" || exit 1; done
		[ -n "$SYSTEMD_NSPAWN_UNIFIED_HIERARCHY" ] || unset SYSTEMD_NSPAWN_UNIFIED_HIERARCHY
		exec systemd-nspawn --quiet --boot --directory="$root" --machine=arpownd-test \
			--register=no --keep-unit --link-journal=no --resolv-conf=off \
			--timezone=off --console=pipe --network-namespace-path="$netns" \
			--capability=CAP_NET_ADMIN,CAP_BPF,CAP_PERFMON --system-call-filter=bpf' \
		sh "$MERGED" "/run/netns/${NS_PREFIX}h" "${CGROUPS[@]}" </dev/null >"$log" 2>&1 &
	NSPAWN_PID=$!
	_track "$NSPAWN_PID"
	wait_for 20000 _leader_or_gone || fail "boot $BOOTS: no container pid 1 within 20 s"
	if _nspawn_gone; then
		cat "$log" >&2
		[ "$BOOTS" -eq 1 ] && skip "systemd-nspawn refused to boot the container: $(tail -n 1 "$log")"
		fail "boot $BOOTS: systemd-nspawn exited"
	fi
	wait_for 20000 _bus_or_gone || fail "boot $BOOTS: the container's systemd opened no bus within 20 s"
	_nspawn_gone && fail "boot $BOOTS: systemd-nspawn exited; log: $(cat "$log")"
	st=$(ce_t 60 systemctl is-system-running --wait)
	if [ "$st" != running ]; then
		ce systemctl --failed --no-pager >&2
		fail "boot $BOOTS: the container's systemd is '$st', not 'running'"
	fi
	local now=${EPOCHREALTIME/[.,]/}
	say "boot $BOOTS: $(ce systemctl --version | head -n 1) running in $(((now - t0) / 1000)) ms"
}

# poweroff: shut the container down, at most 30 s; nspawn's status must be 0.
poweroff() {
	local rc=0
	ce systemctl poweroff >/dev/null 2>&1
	wait_for 30000 _nspawn_gone || fail "boot $BOOTS: the container did not power off within 30 s"
	wait "$NSPAWN_PID" 2>/dev/null || rc=$?
	NSPAWN_PID=
	LEADER=
	expect_eq "$rc" 0 "boot $BOOTS: powered off cleanly"
}

# At exit: power the container off (15 s), then kill what is left in its
# cgroup.  Runs before lib.sh deletes the namespaces.
stop_container() {
	[ -n "$NSPAWN_PID" ] && _alive "$NSPAWN_PID" || return 0
	if [ -n "$_FAILED" ] && [ -n "$LEADER" ]; then
		echo "----- journalctl -u arpownd (boot $BOOTS) -----" >&2
		ce journalctl -u arpownd --no-pager -n 40 -o short-monotonic >&2
	fi
	# nspawn asks the container's systemd to halt on SIGTERM
	kill -TERM "$NSPAWN_PID" 2>/dev/null
	wait_for 15000 _nspawn_gone || kill -KILL "$NSPAWN_PID" 2>/dev/null
	if [ -n "$_FAILED" ] || [ -n "${KEEP_TMP:-}" ]; then
		echo "----- container console (boot $BOOTS) -----" >&2
		tail -n 40 "$TMPDIR_T/nspawn.$BOOTS.log" >&2
	fi
}

# ce CMD...: run CMD in the booted container (all its namespaces, its root),
# with a clean environment, bounded to 30 s.  ce_t SECONDS CMD... likewise.
ce_t() {
	local t=$1
	shift
	[ -n "$LEADER" ] || fail "ce $*: no container running"
	nsenter -a -t "$LEADER" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb timeout "$t" "$@"
}
ce() { ce_t 30 "$@"; }

prop() { ce systemctl show -p "$1" --value "${2:-arpownd}"; }

# host_pid CPID: the host's pid of the container's pid CPID.
host_pid() {
	local p ns
	ns=$(readlink "/proc/$LEADER/ns/pid")
	for p in $(ip netns pids "${NS_PREFIX}h"); do
		[ "$(readlink "/proc/$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
		if awk -v w="$1" '/^NSpid:/ { exit !($NF == w) }' "/proc/$p/status" 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# pair IF: "arp_ignore/arp_announce" of IF in the container's namespace.
pair() {
	echo "$(sysctl_get h "$1" arp_ignore)/$(sysctl_get h "$1" arp_announce)"
}
# the originals: eth1 is preset to 2/1 before the first start, the others
# are the kernel's 0/0
ORIG="eth0=0/0 eth1=2/1 eth2=0/0"
pairs() { echo "eth0=$(pair eth0) eth1=$(pair eth1) eth2=$(pair eth2)"; }

_running_pid_not() {	# running, with a MainPID other than $1
	local p
	[ "$(prop ActiveState)/$(prop SubState)" = active/running ] || return 1
	p=$(prop MainPID)
	[ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ]
}
_status_is() { [ "$(prop StatusText)" = "$1" ]; }
# the cursor of the unit's last journal entry, to read what follows it
journal_cursor() { ce journalctl -u arpownd -n 1 -o cat --show-cursor --no-pager | sed -n 's/^-- cursor: //p'; }
# handovers CURSOR: how many requests each start after CURSOR found queued
# on the ARP socket systemd kept for it, space-separated
handovers() {
	ce journalctl -u arpownd -o cat --no-pager --after-cursor="$1" |
		sed -n 's/^handover: \([0-9]*\) requests for published addresses kept.*/\1/p' | paste -sd ' '
}
_pairs_are() { [ "$(pairs)" = "$1" ]; }

# under_load NAME CMD...: while CMD runs and for a second after it, the
# client c asks for the owned 10.0.0.1 (as 10.0.0.101) and for 10.0.0.50
# (which the test publishes), 1,000 requests/s each, every request given a
# second to be answered (as a Linux host gives it before it asks again).
# arpc makes a fixed number of requests: runs of 500 follow each other
# until CMD is done, whatever it takes.  SENT_OWN, SENT_PUB, LOST_OWN and
# LOST_PUB add them up.  Mind sender_rate: arpc's pacing catches up after
# a late reply, and at the default (1,000/s, a burst of 100) one limited
# reply starts a cascade of them that has nothing to do with CMD.
under_load() {
	local name=$1 stop=$TMPDIR_T/$1.stop pp po w
	shift
	rm -f "$stop" "$TMPDIR_T/$name.pub" "$TMPDIR_T/$name.own"
	# shellcheck disable=SC2016 # expanded by the inner bash
	local loop='stop=$1 out=$2; shift 2
		for ((i = 0; i < 200; i++)); do
			"$@" >>"$out" 2>&1
			[ -e "$stop" ] && break
		done'
	bg_run c bash -c "$loop" loop "$stop" "$TMPDIR_T/$name.pub" "$ARPC" -q -i c0 \
		--pingpong -r 1000 -c 500 --wait-reply 1000 -t 10000 10.0.0.50
	pp=$LAST_PID
	bg_run c bash -c "$loop" loop "$stop" "$TMPDIR_T/$name.own" "$ARPC" -q -i c0 \
		-s 10.0.0.101 --pingpong -r 1000 -c 500 --wait-reply 1000 -t 10000 10.0.0.1
	po=$LAST_PID
	sleep 0.5
	"$@"
	sleep 1
	touch "$stop"
	wait "$pp" "$po"
	for w in pub own; do
		grep -v '^sent [0-9]* received' "$TMPDIR_T/$name.$w" | grep . >&2 &&
			fail "$name: the $w client said more than its summaries (above)"
		printf -v "SENT_${w^^}" '%s' "$(awk '/^sent / { s += $2 } END { print s + 0 }' "$TMPDIR_T/$name.$w")"
		printf -v "LOST_${w^^}" '%s' "$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$TMPDIR_T/$name.$w" |
			awk '{ s += $1 } END { print s + 0 }')"
	done
	[ "$SENT_PUB" -ge 1000 ] && [ "$SENT_OWN" -ge 1000 ] ||
		fail "$name: the clients sent $SENT_OWN and $SENT_PUB requests, fewer than 1,000"
}
