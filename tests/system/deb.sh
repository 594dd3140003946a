# deb.sh — sourced after tests/system/lib.sh by the tests that need the
# Debian package (package.sh, recipes.sh, restart.sh):
#   . "${top_srcdir:-.}/tests/system/deb.sh"
# shellcheck shell=bash disable=SC2034 # its variables are the tests'
#
# build_deb builds arpownd_*.deb from this tree the way a fresh Debian 12
# machine would: dpkg-buildpackage -us -uc in a clean chroot that holds
# only minbase, build-essential and debian/control's Build-Depends
# (cached under the tree cache, keyed by the Build-Depends), as root,
# unit tests included; DEB, CHANGES and VERSION name the result, and it
# is kept in the cache under its source's key (deb_keep).
# deb_cached KEY SRCDIR builds any source tree's package (the previous
# release's, for restart.sh) without the unit tests, once per KEY;
# deb_this sets DEB to the package of exactly this source (the one
# package.sh built, or one built now: recipes.sh, restart.sh).

ARCH=$(dpkg --print-architecture)

# ---- the version, as configure.ac says -------------------------------
AC_VERSION=$(sed -n 's/^AC_INIT(\[arpownd\], *\[\([^]]*\)\].*/\1/p' "$SRC/configure.ac")
[ -n "$AC_VERSION" ] || fail "no version in AC_INIT of configure.ac"

# ---- the clean build chroot, cached ------------------------------------
# debootstrap minbase + build-essential, then apt-get build-dep on
# debian/control: nothing the host happens to have installed.
build_depends() {	# the Build-Depends field, one entry a line
	awk 'tolower($0) ~ /^build-depends(-arch|-indep)?:/ { f = 1; sub(/^[^:]*:/, ""); print; next }
		f && /^[ \t]/ { print; next } { f = 0 }' "$SRC/debian/control" |
		tr ',' '\n' | sed 's/^[ \t]*//; s/[ \t]*$//' | grep .
}

in_chroot() {		# in_chroot SECONDS TREE CMD...: own mount and pid namespace, /proc
	local t=$1 tree=$2
	shift 2
	timeout "$t" unshare -m -p -f --propagation private --mount-proc="$tree/proc" \
		chroot "$tree" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		HOME=/root DEBIAN_FRONTEND=noninteractive "$@"
}

setup_build_root() {	# SETUP for cached_tree: install the Build-Depends
	local t=$1
	printf '%s\n' "$HOST_RESOLV_CONF" >"$t/etc/resolv.conf"
	mkdir -p "$t/tmp/bd/debian"
	cp "$SRC/debian/control" "$t/tmp/bd/debian/control"
	say "build tree: apt-get build-dep (debian/control)"
	in_chroot 900 "$t" sh -c 'apt-get update -q && cd /tmp/bd &&
		apt-get build-dep -y -q --no-install-recommends ./ && apt-get clean' \
		>"$TMPDIR_T/build-dep.log" 2>&1 || { tail -n 20 "$TMPDIR_T/build-dep.log" >&2; return 1; }
	rm -rf "$t/tmp/bd"
}

# the source as git sees it (tracked and untracked files, not the ignored
# build products), else the whole directory without .git and .cache
copy_source() {
	local dst=$1
	mkdir -p "$dst"
	if command -v git >/dev/null && git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$SRC" ls-files -z --cached --others --exclude-standard |
			(cd "$SRC" && while IFS= read -r -d '' f; do
				{ [ -e "$f" ] || [ -L "$f" ]; } && printf '%s\0' "$f"
			done) |
			tar -C "$SRC" --null -T - -cf - | tar -C "$dst" -xf -
	else
		tar -C "$SRC" --exclude=./.git --exclude=./.cache -cf - . | tar -C "$dst" -xf -
	fi
}

# deb_key SRCDIR: the cache key of the package built from the source tree
# SRCDIR (copy_source's): what the build reads, not tests/ (a nocheck
# build skips them, and a build with them makes the same package)
deb_key() {
	echo "new-$(cd "$1" && find . -type f ! -path './tests/*' -print0 |
		sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
}

# deb_keep KEY DEB: a package built anyway (package.sh's, unit tests run)
# kept in the cache under KEY, for deb_cached (restart.sh) to find
deb_keep() {
	local dir=$CACHE/debs/$1 fd
	mkdir -p "$CACHE/debs"
	exec {fd}>"$CACHE/debs/.lock"
	timeout 900 flock -x "$fd" || fail "$CACHE/debs/.lock stayed locked 15 minutes"
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && cp "$2" "$dir.tmp/" && rm -rf "$dir" &&
		mv "$dir.tmp" "$dir" || fail "keeping $2 in $dir"
	exec {fd}>&-
}

# deb_cached KEY SRCDIR: DEB set to arpownd_*.deb built from SRCDIR (a
# source tree with debian/) by dpkg-buildpackage -us -uc -b in the clean
# chroot, without the unit tests (package.sh runs them): built once per
# KEY and kept in $CACHE/debs/KEY.
deb_cached() {
	local key=$1 src=$2 dir=$CACHE/debs/$1 v br rc log fd
	v=$(sed -n '1s/^arpownd (\([^)]*\)).*/\1/p' "$src/debian/changelog")
	[ -n "$v" ] || fail "no version in $src/debian/changelog"
	DEB=$dir/arpownd_${v}_$(dpkg --print-architecture).deb
	mkdir -p "$CACHE/debs"
	exec {fd}>"$CACHE/debs/.lock"
	timeout 900 flock -x "$fd" || fail "$CACHE/debs/.lock stayed locked 15 minutes"
	if [ -f "$DEB" ]; then
		say "package $key: cached $DEB"
		exec {fd}>&-
		return
	fi
	# once per test: cached_tree keeps its lock shared until the exit
	if [ -z "${BUILD_TREE:-}" ]; then
		cached_tree "build-$SUITE" build-essential "1 $(build_depends | tr '\n' ' ')" setup_build_root
		BUILD_TREE=$TREE
	fi
	TREE=$BUILD_TREE
	br=$TMPDIR_T/buildroot-$key
	mkdir -p "$br.u" "$br.w" "$br"
	mount -t overlay arpownd-build-root -o "lowerdir=$TREE,upperdir=$br.u,workdir=$br.w" "$br" ||
		skip "cannot mount an overlay on $TREE"
	mkdir -p "$br/build"
	cp -a "$src" "$br/build/arpownd-$v"
	say "package $key: dpkg-buildpackage -b in the clean chroot (no unit tests)"
	log=$TMPDIR_T/dpkg-buildpackage-$key.log
	rc=0
	in_chroot 900 "$br" sh -c "cd /build/arpownd-$v &&
		DEB_BUILD_OPTIONS='nocheck parallel=$(nproc)' dpkg-buildpackage -us -uc -b" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		umount -l "$br"
		fail "package $key: dpkg-buildpackage status $rc"
	fi
	mkdir -p "$dir.tmp"
	cp "$br/build/"*.deb "$dir.tmp/" && rm -rf "$dir" && mv "$dir.tmp" "$dir" ||
		fail "package $key: no .deb"
	umount -l "$br"
	[ -f "$DEB" ] || fail "package $key: dpkg-buildpackage made no $(basename "$DEB")"
	exec {fd}>&-
	say "package $key: built $DEB"
}

OUT=$TMPDIR_T/out
mkdir -p "$OUT"
build_deb() {
	local v br t0 rc log=$TMPDIR_T/dpkg-buildpackage.log
	[ -f "$SRC/debian/control" ] || skip "no debian/ in $SRC (a dist tarball?): nothing to build"
	v=$(sed -n '1s/^arpownd (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
	expect_eq "${v%-*}" "$AC_VERSION" "debian/changelog's version is configure.ac's ($AC_VERSION)"
	VERSION=$v
	cached_tree "build-$SUITE" build-essential "1 $(build_depends | tr '\n' ' ')" setup_build_root
	br=$TMPDIR_T/buildroot
	mkdir -p "$TMPDIR_T/bupper" "$TMPDIR_T/bwork" "$br"
	mount -t overlay arpownd-build-root \
		-o "lowerdir=$TREE,upperdir=$TMPDIR_T/bupper,workdir=$TMPDIR_T/bwork" "$br" ||
		skip "cannot mount an overlay on $TREE"
	# shellcheck disable=SC2016 # expanded at cleanup
	at_cleanup 'umount -l "$TMPDIR_T/buildroot" 2>/dev/null'
	copy_source "$br/build/arpownd-$VERSION"
	KEY=$(deb_key "$br/build/arpownd-$VERSION")
	[ -x "$br/build/arpownd-$VERSION/debian/rules" ] || fail "debian/rules is not executable"
	say "dpkg-buildpackage -us -uc in the clean chroot (as root)"
	t0=${EPOCHREALTIME/[.,]/}
	rc=0
	in_chroot 900 "$br" sh -c "cd /build/arpownd-$VERSION &&
		DEB_BUILD_OPTIONS=parallel=$(nproc) dpkg-buildpackage -us -uc" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		fail "dpkg-buildpackage -us -uc in a chroot with only build-essential and the Build-Depends: status $rc"
	fi
	pass "dpkg-buildpackage in a clean chroot (build-essential + Build-Depends only): $(((${EPOCHREALTIME/[.,]/} - t0) / 1000000)) s"
	# dh_auto_test ran the unit tests, and there were some (cmocka found)
	grep -q '^# TOTAL: [1-9]' "$log" && grep -q '^# FAIL: *0$' "$log" && grep -q '^# ERROR: *0$' "$log" ||
		fail "the build ran no unit tests, or some failed: $(grep '^# [A-Z]*:' "$log" | tr '\n' ' ')"
	pass "the build ran the unit tests: $(grep '^# [A-Z]*:' "$log" | tr -s ' ' | tr '\n' ' ')"
	# make install ran as root, with DESTDIR: no user made in the chroot
	grep -q 'creating the system user' "$log" && fail "make install created a user during the package build"
	grep -q '^arpownd:' "$br/etc/passwd" "$br/etc/group" &&
		fail "the package build (as root) created the user or group arpownd in the build chroot"
	pass "the build created no user (install-exec-hook idle under DESTDIR)"
	cp "$br/build/"*.deb "$br/build/"*.changes "$br/build/"*.dsc "$br/build/"*.tar.* \
		"$br/build/"*.buildinfo "$OUT/" || fail "no build results in the chroot"
	DEB=$OUT/arpownd_${VERSION}_$ARCH.deb
	CHANGES=$OUT/arpownd_${VERSION}_$ARCH.changes
	[ -f "$DEB" ] && [ -f "$CHANGES" ] || fail "dpkg-buildpackage made no $(basename "$DEB") / .changes: $(ls "$OUT")"
	# recipes.sh and restart.sh install the same package: built once
	deb_keep "$KEY" "$DEB"
}

# deb_this: DEB (and VERSION) of exactly this source, DEB_HOW how it came
deb_this() {
	local src=$TMPDIR_T/src-this key
	rm -rf "$src"
	copy_source "$src"
	key=$(deb_key "$src")
	DEB_HOW="built earlier from this source ($CACHE/debs/$key)"
	ls "$CACHE/debs/$key"/arpownd_*.deb >/dev/null 2>&1 || DEB_HOW="built by this run"
	deb_cached "$key" "$src"
	VERSION=$(dpkg-deb -f "$DEB" Version)
}
