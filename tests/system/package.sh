#!/bin/bash
# package.sh — the Debian package under a real systemd 252 (make check-system).
#
# Builds arpownd_*.deb from this tree the way a fresh Debian 12 machine
# would: dpkg-buildpackage -us -uc in a clean chroot that holds only
# minbase, build-essential and debian/control's Build-Depends (cached under
# .cache/system-root, keyed by the Build-Depends), as root (as pbuilder
# does: the Makefile's install-exec-hook must create no user under
# DESTDIR), unit tests included.  lintian (-I --pedantic) on the result
# must report no error and no warning that is not overridden.  Then it
# installs the .deb into the container tests/system/systemd.sh boots (same
# root tree, lib.sh) with apt-get, and checks what an admin relies on:
#
#   the first install watches before it answers: a non-interactive
#   apt-get install asks nothing, the postinst writes ARPOWND_OPTIONS=
#   --monitor to /etc/default/arpownd, the service watches every interface
#   at its original arp_ignore and says so, with the one command that
#   makes it answer (STATUS= in systemctl status, and the postinst's
#   message, which also says how to go back); then, that command run as
#   printed: the unit enabled and active (running) as the system
#   user arpownd the postinst made, /run/arpownd its own; arp_ignore 8 on
#   eth0..eth2, each address answered by its own NIC only;
#   /etc/arpownd.conf a conffile; a reinstall over it and an upgrade keep
#   the admin's edit and restart the daemon with it, each under 1,000
#   requests/s for an owned and a published address with none unanswered;
#   metrics_file into node_exporter's directory by README's steps: a fresh
#   arpownd.prom that promtool accepts; apt-get remove stops it: no
#   interface left at arp_ignore 8, eth1 back to its true original 2/1, the
#   kernel answering again, the configuration kept; dpkg --purge removes
#   /run/arpownd, the configuration, the metrics file and the enablement,
#   keeps the user; the journal's catalog holds arpownd's entries
#   (systemd's dpkg trigger) and journalctl -x explains the start entry
#   with them, until the purge; installing again over an admin's
#   ARPOWND_OPTIONS= answers at once and keeps that file, and the unit
#   starts at the next boot; a reinstall and an upgrade never write
#   /etc/default/arpownd; a first install after a purge watches again, and
#   the purge takes away the file it wrote.
#
# Exit 77 (SKIP) where the container cannot run (see systemd.sh) or there
# is no debian/ to build from; with ARPOWND_SYSTEM_REQUIRED=1 (CI) a skip
# is a failure.
#
# Environment: ARPOWND_DEB=path/arpownd_*.deb installs that file instead
# of building one (no build, lintian on the file only); ARPOWND_SYSTEM_CACHE,
# ARPOWND_SYSTEM_MIRROR, KEEP_TMP as for systemd.sh.

. "${top_srcdir:-.}/tests/system/lib.sh"
need_cmd debootstrap systemd-nspawn nsenter setpriv ip flock lintian dpkg-deb
need_netns

# the package's build (build_deb), the version and the architecture
. "${top_srcdir:-.}/tests/system/deb.sh"

run_lintian() {		# run_lintian FILE: no error, no warning that is not overridden
	local rc=0 log=$TMPDIR_T/lintian.log
	timeout 300 lintian -I -E --pedantic --fail-on error,warning "$1" >"$log" 2>&1 || rc=$?
	sed -i '/running with root privileges is not recommended/d' "$log"
	cat "$log"
	[ "$rc" -eq 0 ] || fail "lintian $(basename "$1"): status $rc (errors or warnings above)"
	pass "lintian -I -E --pedantic $(basename "$1"): no errors or warnings ($(grep -c '^[A-Z]: ' "$log") tags of lower severity)"
}

if [ -n "${ARPOWND_DEB:-}" ]; then
	DEB=$(_abs "$ARPOWND_DEB")
	[ -f "$DEB" ] || fail "ARPOWND_DEB=$ARPOWND_DEB: no such file"
	VERSION=$(dpkg-deb -f "$DEB" Version)
	say "installing the prebuilt $DEB"
	run_lintian "$DEB"
else
	build_deb
	run_lintian "$CHANGES"
fi

# ---- an upgrade: the same package, a higher version ---------------------
# (what dpkg does with it is what it does with the next release: unpack
# over the running one, then the postinst restarts the unit)
UPVERSION=$VERSION+test1
UPDEB=$OUT/arpownd_${UPVERSION}_$ARCH.deb
rm -rf "$TMPDIR_T/repack"
dpkg-deb -R "$DEB" "$TMPDIR_T/repack" || fail "dpkg-deb -R $DEB"
sed -i "s/^Version: .*/Version: $UPVERSION/" "$TMPDIR_T/repack/DEBIAN/control"
dpkg-deb -b "$TMPDIR_T/repack" "$UPDEB" >/dev/null || fail "dpkg-deb -b $UPDEB"

# ---- what is in the package ---------------------------------------------
dpkg-deb -c "$DEB" | awk '{ print substr($6, 2) }' >"$TMPDIR_T/contents"
has() { grep -qxF "$1" "$TMPDIR_T/contents" || fail "the package lacks $1"; }
# every program and man page that make install puts in place
for p in $(sed -n 's/^sbin_PROGRAMS *= *//p' "$SRC/Makefile.am"); do has "/usr/sbin/${p##*/}"; done
for p in $(sed -n 's/^bin_PROGRAMS *= *//p' "$SRC/Makefile.am"); do has "/usr/bin/${p##*/}"; done
# the client where a user's PATH finds it, as chronyc and networkctl are
has /usr/bin/arpownctl
for m in $(sed -n 's/^man_MANS *= *//p' "$SRC/Makefile.am"); do
	m=${m##*/}
	has "/usr/share/man/man${m##*.}/$m.gz"
done
has /lib/systemd/system/arpownd.service
has /etc/arpownd.conf
# what the README's Monitoring section promises
has /usr/lib/systemd/catalog/arpownd.catalog
has /usr/share/arpownd/prometheus/arpownd.rules.yml
has /usr/share/arpownd/grafana/arpownd.json
has /usr/share/bash-completion/completions/arpownctl
has /usr/share/zsh/vendor-completions/_arpownctl
has /usr/share/doc/arpownd/examples/keepalived.conf
has /usr/share/doc/arpownd/examples/kernel-path.conf
dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles 2>/dev/null | grep -qx /etc/arpownd.conf ||
	fail "/etc/arpownd.conf is not in the package's conffiles"
pass "the package: $(grep -c '[^/]$' "$TMPDIR_T/contents") files, /etc/arpownd.conf a conffile"

# ---- the container ---------------------------------------------------------
root_tree
# each dependency must be in the container's root tree: it has no way to a
# mirror (its network is the test's namespaces)
for d in $(dpkg-deb -f "$DEB" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
	sed 's/|.*//; s/(.*//; s/:any//; s/ //g' | grep .); do
	dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Status}' "$d" 2>/dev/null | grep -q 'ok installed' ||
		fail "the package depends on $d, which the container's root tree lacks: add it to ROOT_PKGS in tests/system/lib.sh"
done
seed_net
# true originals that are not the kernel's defaults: whatever the package
# does, eth1 must come back to these, never 8
sysctl_set h eth1 arp_ignore 2
sysctl_set h eth1 arp_announce 1
make_cgroups
mount_root
mkdir -p "$MERGED/var/cache/arpownd-test"
install -m 0644 "$DEB" "$UPDEB" "$MERGED/var/cache/arpownd-test/"
CDEB=/var/cache/arpownd-test/${DEB##*/}
CUPDEB=/var/cache/arpownd-test/${UPDEB##*/}
boot

capt() { ce_t 120 env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" </dev/null; }
status() { ce dpkg-query -W -f='${Status}' arpownd 2>/dev/null; }
user_line() { ce getent passwd arpownd; }
STATUS3="answering ARP on 3 interfaces for 3 addresses"
STATUS2="answering ARP on 2 interfaces for 2 addresses"
TO_ANSWER="rm /etc/default/arpownd && systemctl restart arpownd"
STATUSM="answering ARP on 0 interfaces for 0 addresses; 3 in monitor mode (the kernel answers there); to answer: $TO_ANSWER"
MANAGED3="eth0=8/2 eth1=8/2 eth2=8/2"

# arpownd processes in the container (its pid namespace), by the host's /proc
daemon_pids() {
	local p
	for p in $(ip netns pids "${NS_PREFIX}h" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = arpownd ] && echo "$p"
	done
}

# none of h's interfaces (nor all, default) at arp_ignore 8
none_at_8() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	ns h sh -c 'for f in /proc/sys/net/ipv4/conf/*/arp_ignore; do
		read -r v <"$f"; [ "$v" = 8 ] && echo "${f%/arp_ignore}"; done; true' |
		sed 's|.*/||' | tr '\n' ' '
}

# check_installed WHEN STATUS PAIRS: what an installed package gives
check_installed() {
	local when=$1 st=$2 want=$3 line uid gid pw_home pw_shell hp duid dgid
	expect_eq "$(status)" "install ok installed" "$when: dpkg says installed"
	expect_eq "$(ce systemctl is-enabled arpownd)" enabled "$when: systemctl is-enabled arpownd"
	expect_eq "$(ce systemctl is-active arpownd)" active "$when: systemctl is-active arpownd"
	expect_eq "$(prop SubState)" running "$when: running"
	wait_for 3000 _status_is "$st" || fail "$when: StatusText is '$(prop StatusText)', not '$st'"
	line=$(user_line) || fail "$when: no user arpownd"
	IFS=: read -r _ _ uid gid _ pw_home pw_shell <<<"$line"
	[ "$uid" -ge 100 ] && [ "$uid" -le 999 ] || fail "$when: arpownd's uid $uid is not a system uid (100..999)"
	expect_eq "$(ce getent group arpownd | cut -d: -f3)" "$gid" "$when: the group arpownd is the user's primary group"
	expect_eq "$pw_home:$pw_shell" /nonexistent:/usr/sbin/nologin "$when: no home, no login shell"
	hp=$(host_pid "$(prop MainPID)") || fail "$when: no host pid for MainPID $(prop MainPID)"
	duid=$(awk '/^Uid:/ { print ($2 == $3 && $3 == $4 && $4 == $5) ? $2 : "mixed" }' "/proc/$hp/status")
	dgid=$(awk '/^Gid:/ { print ($2 == $3 && $3 == $4 && $4 == $5) ? $2 : "mixed" }' "/proc/$hp/status")
	expect_eq "$duid:$dgid" "$uid:$gid" "$when: the daemon runs as the system user arpownd (uid $uid), not a dynamic one"
	expect_eq "$(ce stat -L -c '%U:%G %a' /run/arpownd)" "arpownd:arpownd 750" "$when: /run/arpownd is arpownd's, 0750 (the group reaches the control socket)"
	wait_for 3000 _pairs_are "$want" || fail "$when: $(pairs), not $want"
	pass "$when: $want"
	[ "$want" = "$ORIG" ] && return	# monitor mode: the kernel answers
	expect_reply c c0 10.0.0.1 "$MAC0" "$when: 10.0.0.1 answered by eth0 alone"
	expect_reply c c0 10.0.0.2 "$MAC1" "$when: 10.0.0.2 answered by eth1 alone"
}

# check_conffile WHEN: listed in ${Conffiles}, and whether it is the
# package's (unmodified) or edited, by its md5sum
conffile_sum() { ce dpkg-query -W -f='${Conffiles}\n' arpownd | awk '$1 == "/etc/arpownd.conf" { print $2 }'; }

# arpownd's entries in the journal's catalog database (systemd's dpkg
# trigger on /usr/lib/systemd/catalog rebuilds it)
catalog_ids() { ce journalctl --list-catalog 2>/dev/null | awk '/^6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b/ { print $1 }' | wc -l; }
NMSGID=$(grep -c '^#define[[:space:]]*MSGID_' "$SRC/include/msgid.h")

# ---- the first install watches before it answers ------------------------
# no /etc/default/arpownd: the postinst writes one with --monitor, every
# interface stays at its original, and the postinst and systemctl status
# say the one command that makes arpownd answer
ce getent passwd arpownd >/dev/null && fail "the container's root tree already has a user arpownd"
expect_eq "$(pairs)" "$ORIG" "before the install: the originals"
ce test -e /etc/default/arpownd && fail "the root tree has an /etc/default/arpownd already"
say "apt-get install $CDEB (a first install)"
# stdin at /dev/null: a question would end it with an error
out=$(capt install --no-install-recommends "$CDEB" 2>&1) || fail "apt-get install $CDEB: $out"
out=${out//$'\r'/}	# dpkg's output comes through apt's pseudo-terminal
pass "apt-get install, non-interactive: no question"
check_installed "first install: monitor mode" "$STATUSM" "$ORIG"
ce dpkg -S /etc/default/arpownd >/dev/null 2>&1 && fail "/etc/default/arpownd belongs to a package (a conffile would ask)"
grep -qx 'ARPOWND_OPTIONS=--monitor' "$MERGED/etc/default/arpownd" ||
	fail "first install: /etc/default/arpownd does not say --monitor: $(cat "$MERGED/etc/default/arpownd" 2>&1)"
# the postinst says what happened, the one command that answers, how to go back
for want in "arpownd is running; interfaces: answering on 0 of 4, 0 addresses; 3 in monitor mode" "eth0 .* yes  *monitor  *0 " "eth1 .* yes  *monitor  *2 " \
	"arpownctl counters" "^    $TO_ANSWER\$" "systemctl disable --now arpownd"; do
	grep -q -- "$want" <<<"$out" || fail "the postinst's message lacks '$want': $(sed -n '/arpownd is running/,$p' <<<"$out")"
done
pass "the postinst says: $(grep 'arpownd is running' <<<"$out"), each interface and its mode, the command that answers, how to go back"
ce systemctl status arpownd --no-pager 2>/dev/null | grep -qF "to answer: $TO_ANSWER" ||
	fail "systemctl status does not say the command that answers: $(ce systemctl status arpownd --no-pager 2>&1 | head -n 5)"
pass "systemctl status says: to answer: $TO_ANSWER"
UID1=$(user_line | cut -d: -f3)

# ---- then for real: the command, as the postinst printed it ----------------
cmd=$(sed -n '/To let arpownd answer/{n;s/^    //p}' <<<"$out")
expect_eq "$cmd" "$TO_ANSWER" "the postinst's command"
out=$(ce sh -c "$cmd" 2>&1) || fail "$cmd: $out"
check_installed "installed" "$STATUS3" "$MANAGED3"
expect_eq "$(catalog_ids)" "$NMSGID" "installed: systemd's trigger put arpownd's $NMSGID catalog entries in the journal's database"
ce journalctl -b -u arpownd -x MESSAGE_ID=6a4d0b1f8c1e4f7a9f3b2d8e5c7a1b01 2>/dev/null |
	grep -q 'Subject: arpownd started' || fail "installed: journalctl -x does not explain the start entry"
pass "installed: journalctl -x explains the daemon's start entry from the catalog"
expect_silence f f0 10.0.0.1 "installed: the outside cannot probe the inside 10.0.0.1"
expect_reply f f0 10.1.0.1 "$MAC2" "installed: 10.1.0.1 answered by eth2"
sum=$(conffile_sum)
[ -n "$sum" ] || fail "dpkg-query -W -f='\${Conffiles}' arpownd does not list /etc/arpownd.conf"
expect_eq "$(ce md5sum /etc/arpownd.conf | cut -d' ' -f1)" "$sum" "/etc/arpownd.conf is a conffile, unmodified"
cmp -s "$MERGED/etc/arpownd.conf" "$SRC/conf/arpownd.conf" || fail "/etc/arpownd.conf is not the example conf/arpownd.conf"
pass "/etc/arpownd.conf is the documented example"

# ---- a reinstall and an upgrade, under load, keep the admin's edit -------
# (sender_rate = 0: see under_load in lib.sh)
printf '# edited by the admin\n[global]\ninterfaces = eth0 eth1\nsender_rate = 0\n' >"$MERGED/etc/arpownd.conf"
out=$(ce systemctl reload arpownd 2>&1) || fail "systemctl reload with the edited file: $out"
out=$(ce arpownctl publish 10.0.0.50 eth0 2>&1) || fail "arpownctl publish 10.0.0.50 eth0: $out"
expect_reply c c0 10.0.0.50 "$MAC0" "10.0.0.50 published: answered from eth0"
# upgrade WHAT APT-ARGS...: apt-get under load, then what it must have done
upgrade() {
	local what=$1 old cur n
	shift
	old=$(prop MainPID)
	cur=$(journal_cursor)
	say "$what: apt-get $* under load"
	under_load "$what" capt_out "$@"
	[ "$CAPT_RC" = 0 ] || fail "$what: apt-get $*: $CAPT_OUT"
	grep -q "^arpownd restarted; interfaces: answering on 2 of 4, 2 addresses" <<<"$CAPT_OUT" ||
		fail "$what: the postinst did not say 'arpownd restarted; interfaces: answering on 2 of 4, 2 addresses': $CAPT_OUT"
	grep -q '^# edited by the admin' "$MERGED/etc/arpownd.conf" || fail "$what replaced the edited /etc/arpownd.conf"
	[ "$(prop MainPID)" != "$old" ] || fail "$what: the daemon was not restarted (MainPID still $old)"
	q=$(handovers "$cur")
	# How many requests it holds depends on where the client's ping-pong
	# stands when the gap opens (0 when its request was answered by the
	# old daemon's last drain and the next came after the new start):
	# what the user relies on is the next check, none lost.
	[[ $q =~ ^[0-9]+$ ]] ||
		fail "$what: the new daemon should take the ARP socket systemd kept; handovers seen: '$q'"
	pass "$what: the new daemon took the ARP socket systemd kept (the fd store, across the package's restart), holding $q requests"
	expect_eq "$LOST_OWN/$LOST_PUB" 0/0 "$what at 1,000 requests/s: none unanswered of $SENT_OWN to the owned 10.0.0.1 / $SENT_PUB to the published 10.0.0.50"
}
capt_out() { CAPT_RC=0; CAPT_OUT=$(capt "$@" 2>&1) || CAPT_RC=$?; }
upgrade reinstall install --reinstall "$CDEB"
upgrade upgrade install "$CUPDEB"
expect_eq "$(ce dpkg-query -W -f='${Version}' arpownd)" "$UPVERSION" "upgraded to $UPVERSION"
ce test -e /etc/default/arpownd && fail "the reinstall or the upgrade wrote /etc/default/arpownd again"
pass "reinstall and upgrade: what the admin had kept (no /etc/default/arpownd written)"
out=$(ce arpownctl withdraw 10.0.0.50 2>&1) || fail "arpownctl withdraw 10.0.0.50: $out"
# (the daemon sends no STATUS= after a publish or a withdraw; a reload does)
out=$(ce systemctl reload arpownd 2>&1) || fail "systemctl reload: $out"
check_installed "upgraded" "$STATUS2" "eth0=8/2 eth1=8/2 eth2=0/0"
pass "reinstall and upgrade: restarted with the edited configuration, eth2 back to its original 0/0"

# ---- metrics for node_exporter, README's steps -----------------------------
# the directory as prometheus-node-exporter ships it (root:root 0755),
# made writable for the group arpownd
TEXTDIR=/var/lib/prometheus/node-exporter
PROM=$TEXTDIR/arpownd.prom
ce mkdir -p "$TEXTDIR" || fail "mkdir $TEXTDIR"
ce chgrp arpownd "$TEXTDIR" && ce chmod 0775 "$TEXTDIR" || fail "chgrp arpownd, chmod 0775 $TEXTDIR"
printf 'metrics_file = %s\nmetrics_interval = 1\n' "$PROM" >>"$MERGED/etc/arpownd.conf"
# ReadWritePaths= is set up at start: the directory came after it
out=$(ce systemctl restart arpownd 2>&1) || fail "systemctl restart with metrics_file: $out"
wait_for 5000 test -s "$MERGED$PROM" || fail "no $PROM within 5 s: $(ce journalctl -u arpownd -n 5 --no-pager)"
expect_eq "$(ce stat -c '%U %a' "$PROM")" "arpownd 644" "$PROM: arpownd's, readable by node_exporter"
m0=$(stat -c %Y "$MERGED$PROM")
sleep 2.2
m1=$(stat -c %Y "$MERGED$PROM")
[ "$m1" -gt "$m0" ] || fail "$PROM not rewritten within 2.2 s (metrics_interval = 1)"
grep -qx 'arpownd_up 1' "$MERGED$PROM" || fail "$PROM: no 'arpownd_up 1'"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$MERGED$PROM" 2>&1) || fail "promtool check metrics $PROM: $out"
	pass "$PROM: rewritten every second, arpownd_up 1, promtool check metrics accepts it"
elif [ "${ARPOWND_SYSTEM_REQUIRED:-0}" = 1 ]; then
	fail "no promtool to check $PROM with (ARPOWND_SYSTEM_REQUIRED=1)"
else
	pass "$PROM: rewritten every second, arpownd_up 1 (no promtool here: the format is unchecked)"
fi

# ---- remove -------------------------------------------------------------
say "apt-get remove arpownd"
out=$(capt remove arpownd 2>&1) || fail "apt-get remove arpownd: $out"
expect_eq "$(status)" "deinstall ok config-files" "removed: dpkg keeps only the configuration"
expect_eq "$(ce systemctl is-active arpownd)" inactive "removed: the unit is stopped"
[ -z "$(daemon_pids)" ] || fail "removed: arpownd still runs (host pids $(daemon_pids))"
expect_eq "$(none_at_8)" "" "removed: no interface left at arp_ignore 8"
expect_eq "$(pairs)" "$ORIG" "removed: the true originals back (eth1 2/1, never 8)"
ask c c0 10.0.0.1
[[ ,$MACS, == *,$MAC0,* ]] || fail "removed: eth0 does not answer 10.0.0.1 (replies from '$MACS')"
pass "removed: the kernel answers 10.0.0.1 again ($NREPLY replies: $MACS)"
ce test -e /usr/sbin/arpownd && fail "removed: /usr/sbin/arpownd is still there"
grep -q '^# edited by the admin' "$MERGED/etc/arpownd.conf" || fail "removed: the edited /etc/arpownd.conf is gone"
pass "removed: the program is gone, the edited configuration kept"
ce test -d /run/arpownd || fail "removed: no /run/arpownd (the unit's RuntimeDirectoryPreserve=yes keeps it; purge has nothing to test)"
grep -qx 'arpownd_up 0' "$MERGED$PROM" || fail "removed: $PROM does not say arpownd_up 0"
pass "removed: $PROM says arpownd_up 0"

# ---- purge --------------------------------------------------------------
out=$(ce_t 60 dpkg --purge arpownd </dev/null 2>&1) || fail "dpkg --purge arpownd: $out"
st=$(status) || true
[ -z "$st" ] || [ "$st" = "unknown ok not-installed" ] || fail "purged: dpkg says '$st'"
# (systemd 252 keeps a DynamicUser's preserved runtime directory in
# /run/private/arpownd, /run/arpownd a link to it)
for d in /run/arpownd /run/private/arpownd; do
	ce test -e "$d" -o -L "$d" && fail "purged: $d is still there"
done
ce test -e /etc/arpownd.conf && fail "purged: /etc/arpownd.conf is still there"
ce test -e "$PROM" && fail "purged: $PROM is still there"
ce test -L /etc/systemd/system/multi-user.target.wants/arpownd.service &&
	fail "purged: the unit is still enabled (multi-user.target.wants)"
pass "purged: /run/arpownd, /etc/arpownd.conf, $PROM and the enablement gone"
expect_eq "$(catalog_ids)" 0 "purged: the trigger took arpownd's entries out of the catalog database"
user_line >/dev/null || fail "purged: the user arpownd was removed (README: it stays)"
pass "purged: the user arpownd stays (Debian practice, see README)"
expect_eq "$(pairs)" "$ORIG" "purged: the originals"

# ---- install again, then a boot ------------------------------------------
# the admin who wants it to answer from the start says so first
ce test -e /etc/default/arpownd && fail "purged: an /etc/default/arpownd came back"
echo 'ARPOWND_OPTIONS=' >"$MERGED/etc/default/arpownd"
out=$(capt install --no-install-recommends "$CDEB" 2>&1) || fail "apt-get install again: $out"
check_installed "installed again, ARPOWND_OPTIONS= written first" "$STATUS3" "$MANAGED3"
expect_eq "$(cat "$MERGED/etc/default/arpownd")" "ARPOWND_OPTIONS=" "installed again: the admin's /etc/default/arpownd untouched"
expect_eq "$(user_line | cut -d: -f3)" "$UID1" "installed again: the same user (uid $UID1)"
cmp -s "$MERGED/etc/arpownd.conf" "$SRC/conf/arpownd.conf" || fail "installed again: /etc/arpownd.conf is not the example"
expect_eq "$(ce md5sum /etc/arpownd.conf | cut -d' ' -f1)" "$(conffile_sum)" "installed again: a fresh, unmodified conffile"
poweroff
expect_eq "$(pairs)" "$ORIG" "after poweroff: the originals"
boot
check_installed "after a boot" "$STATUS3" "$MANAGED3"
out=$(ce_t 60 dpkg --purge arpownd </dev/null 2>&1) || fail "dpkg --purge arpownd: $out"
expect_eq "$(none_at_8)" "" "purged: no interface at arp_ignore 8"
expect_eq "$(cat "$MERGED/etc/default/arpownd")" "ARPOWND_OPTIONS=" "purged: the admin's /etc/default/arpownd stays"
# a first install again writes its own, and a purge takes that one away
rm "$MERGED/etc/default/arpownd"
out=$(capt install --no-install-recommends "$CDEB" 2>&1) || fail "apt-get install a third time: $out"
check_installed "installed a third time: monitor mode" "$STATUSM" "$ORIG"
out=$(ce_t 60 dpkg --purge arpownd </dev/null 2>&1) || fail "dpkg --purge arpownd: $out"
ce test -e /etc/default/arpownd && fail "purged: the first install's /etc/default/arpownd is still there"
pass "purged: the first install's /etc/default/arpownd gone"
expect_eq "$(none_at_8)" "" "purged at last: no interface at arp_ignore 8"
expect_eq "$(pairs)" "$ORIG" "purged at last: the originals"
poweroff

say "done: $BOOTS boots; the root tree was $ROOT_HOW"
