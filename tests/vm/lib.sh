# lib.sh — sourced by tests/vm/prepare, tests/vm/run and the tests/vm/*.sh
# tests:  . "$top_srcdir/tests/vm/lib.sh"
# shellcheck shell=bash disable=SC2034 # its variables are the callers'
#
# Debian 12's own kernel (6.1) under qemu, for what the development
# kernel cannot run (it has no 8021q, bonding or dummy modules).
#
# vm_prepare: the cache, $VM_CACHE (.cache/vm at the top of the source
# tree, beside tests/system's .cache/system-root; git clean in .ci/run
# leaves it), one directory per key: root/ is a debootstrap
# --variant=minbase tree of bookworm with the packages of
# tests/vm/guest-packages, and Debian 12's kernel in its /boot and
# /lib/modules (the package linux-image-amd64 currently depends on,
# fetched with apt-get download and unpacked with dpkg-deb -x: never
# installed on the host; depmod run in the tree).  The key hashes the
# suite, the package list, VM_RECIPE and the kernel package's name and
# version: a changed list or a new kernel in the archive builds a new tree
# and removes the old one.  Built under an exclusive lock, used under a
# shared one (held until the caller exits): no run deletes the tree
# another one boots.
#
# vm_skip REASON: exit 77, or 1 when ARPOWND_VM_REQUIRED=1 (CI).
# vm_fail REASON: exit $VM_FAIL_RC (1; tests/vm/run makes it 125).

VM_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_SUITE=bookworm
VM_RECIPE=2	# bump when vm_build changes what a tree holds
VM_PKGLIST=$VM_SRC/tests/vm/guest-packages
VM_CACHE=${ARPOWND_VM_CACHE:-$VM_SRC/.cache/vm}
VM_FAIL_RC=${VM_FAIL_RC:-1}
# the modules the boot needs before the root is mounted (all modules in
# Debian's kernel): tests/vm/init loads them, with their dependencies
VM_BOOT_MODULES="virtio_pci 9pnet_virtio 9p overlay virtio_console"

vm_skip() {
	if [ "${ARPOWND_VM_REQUIRED:-0}" = 1 ]; then
		echo "FAIL: would skip (ARPOWND_VM_REQUIRED=1): $*" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

vm_fail() {
	echo "FAIL: $*" >&2
	exit "$VM_FAIL_RC"
}

vm_say() {
	echo "[vm] $*" >&2
}

# The machine's Debian mirror (its apt source), as tests/system/lib.sh
# finds it; ARPOWND_VM_MIRROR overrides.
vm_mirror() {
	local m
	if [ -n "${ARPOWND_VM_MIRROR:-}" ]; then
		echo "$ARPOWND_VM_MIRROR"
		return
	fi
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

# vm_packages: the guest's package list, one a line, sorted.
vm_packages() {
	sed 's/#.*//' "$VM_PKGLIST" | tr -s ' \t' '\n' | grep . | sort -u
}

# vm_kernel_pkg: sets VM_KPKG and VM_KPKG_VERSION to the package the
# candidate linux-image-amd64 in apt's lists depends on (bookworm-security's,
# when the machine has it), and VM_KVER to its release (uname -r).  One
# apt-cache call: it takes seconds where apt keeps no binary cache.
vm_kernel_pkg() {
	local dep
	vm_need_cmd apt-cache
	dep=$(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-image-[0-9][^ ,]*\) (= \([^)]*\)).*/\1 \2/p' | head -n 1)
	[ -n "$dep" ] || vm_skip "apt knows no linux-image-amd64 depending on a linux-image-6.x (apt-get update?)"
	VM_KPKG=${dep% *}
	VM_KPKG_VERSION=${dep#* }
	VM_KVER=${VM_KPKG#linux-image-}
	VM_KVER=${VM_KVER%-unsigned}
}

# vm_need_cmd: skip unless each command it names is installed
# (tests/check_deps.sh checks that tests/packages.txt brings them).
vm_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || vm_skip "needs $c"
	done
}

# vm_prepare: sets VM_DIR (the key's directory), VM_ROOT (its tree),
# VM_KVER, VM_KERNEL (what qemu boots); builds them first if needed.  Holds a
# shared lock on the cache until the caller exits; takes the exclusive one
# only to build (a caller of tests/vm/run that prepared first, as vm_test
# does, keeps its shared lock and does not block the run).
vm_prepare() {
	local key fd
	vm_need_cmd qemu-system-x86_64 flock setpriv cpio
	[ -f "$VM_PKGLIST" ] || vm_fail "no package list $VM_PKGLIST"
	VM_DIR=
	[ -z "${_ARPOWND_VM:-}" ] || read -r VM_KPKG VM_KPKG_VERSION VM_KVER VM_DIR <<<"$_ARPOWND_VM"
	if [ -n "$VM_DIR" ] && [ -f "$VM_DIR/.complete" ]; then
		# prepared by the caller (vm_test), who holds a shared lock on it
		key=${VM_DIR##*-}
	else
		vm_kernel_pkg
		key=$({ printf '%s\n' "$VM_SUITE" minbase "$VM_RECIPE" "$VM_KPKG=$VM_KPKG_VERSION"; vm_packages; } |
			sha256sum | cut -c1-16)
		VM_DIR=$VM_CACHE/$VM_SUITE-$key
	fi
	VM_ROOT=$VM_DIR/root
	mkdir -p "$VM_CACHE" 2>/dev/null || vm_skip "cannot create the cache $VM_CACHE"
	exec {fd}>>"$VM_CACHE/.lock" || vm_skip "cannot open $VM_CACHE/.lock"
	VM_LOCK_FD=$fd
	VM_HOW=cached
	timeout 900 flock -s "$fd" || vm_fail "the VM cache $VM_CACHE stayed locked 15 minutes"
	if [ ! -f "$VM_DIR/.complete" ]; then
		# (flock converts the lock: it lets go of the shared one first)
		timeout 900 flock -x "$fd" || vm_fail "the VM cache $VM_CACHE stayed locked 15 minutes"
		if [ ! -f "$VM_DIR/.complete" ]; then
			VM_HOW=built
			vm_build "$key"
		fi
		flock -s "$fd"
	fi
	# the PVH ELF when there is one, else the bzImage
	VM_KERNEL=$VM_DIR/vmlinux
	[ -f "$VM_KERNEL" ] || VM_KERNEL=$VM_ROOT/boot/vmlinuz-$VM_KVER
	[ -f "$VM_KERNEL" ] || vm_fail "the cached tree $VM_DIR has no $VM_KERNEL"
	# a tests/vm/run started from here need not ask apt again
	export _ARPOWND_VM="$VM_KPKG $VM_KPKG_VERSION $VM_KVER $VM_DIR"
}

# vm_reachable URL: true when URL answers within 20 s (python3: no wget
# or curl in the package list).
vm_reachable() {
	timeout 30 python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20)' \
		"$1" >/dev/null 2>&1
}

# vm_build KEY: the tree of KEY, from nothing (holding the exclusive lock).
vm_build() {
	local key=$1 tmp mirror rc=0 deb t0=$SECONDS
	[ "$(id -u)" -eq 0 ] || vm_skip "building the VM's root tree needs root (debootstrap, chroot)"
	vm_need_cmd debootstrap apt-get dpkg-deb chroot unshare python3
	mirror=$(vm_mirror)
	tmp=$VM_CACHE/.build-$key
	rm -rf "$tmp"
	mkdir -p "$tmp/kernel"
	vm_say "first run for this key: debootstrap $VM_SUITE from $mirror and $VM_KPKG $VM_KPKG_VERSION into $VM_DIR"
	# in a mount namespace of its own: the /proc and /sys debootstrap
	# mounts in the tree cannot outlive it, even when it is killed
	timeout 900 unshare -m --propagation private \
		debootstrap --variant=minbase --include="$(vm_packages | paste -sd,)" \
		"$VM_SUITE" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$tmp/debootstrap.log" >&2
		rm -rf "$tmp"
		# no way to the mirror is a reason to skip; anything else a failure
		vm_reachable "$mirror/dists/$VM_SUITE/Release" ||
			vm_skip "cannot reach $mirror (debootstrap status $rc)"
		vm_fail "debootstrap $VM_SUITE from $mirror failed with status $rc although the mirror answers"
	fi
	# The kernel: unpacked beside the tree, then moved in (dpkg-deb -x
	# straight into a merged-/usr tree would replace its /lib link).
	(cd "$tmp/kernel" && timeout 600 apt-get -q -o APT::Sandbox::User=root download \
		"$VM_KPKG=$VM_KPKG_VERSION") >"$tmp/download.log" 2>&1 || {
		cat "$tmp/download.log" >&2
		rm -rf "$tmp"
		vm_reachable "$mirror/dists/$VM_SUITE/Release" ||
			vm_skip "cannot reach $mirror (apt-get download $VM_KPKG)"
		vm_fail "apt-get download $VM_KPKG=$VM_KPKG_VERSION failed although the mirror answers"
	}
	deb=$(ls "$tmp/kernel"/*.deb)
	dpkg-deb -x "$deb" "$tmp/kernel/x" || vm_fail "dpkg-deb -x $deb"
	[ -d "$tmp/kernel/x/lib/modules/$VM_KVER" ] && [ -f "$tmp/kernel/x/boot/vmlinuz-$VM_KVER" ] ||
		vm_fail "$deb holds no lib/modules/$VM_KVER and boot/vmlinuz-$VM_KVER"
	mkdir -p "$tmp/root/lib/modules" "$tmp/root/boot"
	mv "$tmp/kernel/x/lib/modules/$VM_KVER" "$tmp/root/lib/modules/" || vm_fail "moving the modules in"
	mv "$tmp/kernel/x/boot"/* "$tmp/root/boot/" || vm_fail "moving /boot in"
	rm -rf "$tmp/kernel"
	# modules.dep and its indexes, made by the tree's own kmod: the guest's
	# modprobe reads them, and vm_initrd resolves the boot modules' order
	chroot "$tmp/root" depmod -a "$VM_KVER" || vm_fail "depmod $VM_KVER in the tree"
	# the kernel without its decompressor, for a PVH boot (vm_kernel)
	vm_extract_vmlinux "$tmp/root/boot/vmlinuz-$VM_KVER" "$tmp/vmlinux" ||
		vm_say "no PVH entry in $VM_KVER's vmlinuz: it will boot through its decompressor"
	rm -f "$tmp/root/var/cache/apt/archives/"*.deb
	{ printf 'suite %s\nkernel %s=%s\n' "$VM_SUITE" "$VM_KPKG" "$VM_KPKG_VERSION"; vm_packages; } >"$tmp/key"
	touch "$tmp/.complete"
	rm -rf "$VM_DIR"
	mv "$tmp" "$VM_DIR" || vm_fail "mv $tmp $VM_DIR"
	# trees of other keys are stale, and so are builds that were cut short
	find "$VM_CACHE" -mindepth 1 -maxdepth 1 -type d \( -name "$VM_SUITE-*" -o -name ".build-*" \) \
		! -path "$VM_DIR" -exec rm -rf {} + 2>/dev/null
	vm_say "built $VM_DIR ($(du -sh "$VM_DIR" | cut -f1)) in $((SECONDS - t0)) s"
}

# vm_extract_vmlinux VMLINUZ OUT: the ELF kernel inside the bzImage
# VMLINUZ (its xz payload) into OUT, if it has a PVH entry point (a Xen
# ELF note of type 18, XEN_ELFNOTE_PHYS32_ENTRY; Debian's has, CONFIG_PVH).
# qemu -kernel boots such an ELF directly: under TCG the decompressor took
# about 10 s of each boot here; done once on the host it takes seconds.
vm_extract_vmlinux() {
	python3 - "$1" "$2" <<'PY'
import lzma, struct, sys
z = open(sys.argv[1], "rb").read()
off = z.find(b"\xfd7zXZ\x00")
if off < 0:
    sys.exit("no xz payload")
elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(z[off:])
if elf[:5] != b"\x7fELF\x02":
    sys.exit("the payload is no 64-bit ELF")
phoff, = struct.unpack_from("<Q", elf, 0x20)
phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
pvh = False
for i in range(phnum):
    ph = phoff + i * phentsize
    ptype, = struct.unpack_from("<I", elf, ph)
    if ptype != 4:  # PT_NOTE
        continue
    o, = struct.unpack_from("<Q", elf, ph + 8)
    end = o + struct.unpack_from("<Q", elf, ph + 0x20)[0]
    while o + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from("<III", elf, o)
        name = elf[o + 12:o + 12 + namesz]
        if name == b"Xen\x00" and ntype == 18:
            pvh = True
        o += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
if not pvh:
    sys.exit("no PVH entry note")
open(sys.argv[2], "wb").write(elf)
PY
}

# vm_mod_order NAME...: the paths (under /lib/modules/$VM_KVER) of the
# modules NAME and their dependencies, each after what it needs; a name
# built into the kernel is left out.
vm_mod_order() {
	local d=$VM_ROOT/lib/modules/$VM_KVER
	awk -v want="$*" '
	function norm(s) { sub(/.*\//, "", s); sub(/\.ko.*$/, "", s); gsub(/-/, "_", s); return s }
	FILENAME ~ /modules\.builtin$/ { builtin[norm($1)] = 1; next }
	{ p = $1; sub(/:$/, "", p); n = norm(p); path[n] = p; deps[n] = ""
	  for (i = 2; i <= NF; i++) deps[n] = deps[n] " " norm($i) }
	function visit(n,   a, k, i) {
		if (n in seen) return
		seen[n] = 1
		if (!(n in path)) { if (!(n in builtin)) missing = missing " " n; return }
		k = split(deps[n], a, " ")
		for (i = 1; i <= k; i++) visit(a[i])
		print path[n]
	}
	END {
		k = split(want, w, " ")
		for (i = 1; i <= k; i++) visit(norm(w[i]))
		if (missing != "") { print "no such module:" missing > "/dev/stderr"; exit 1 }
	}' "$d/modules.builtin" "$d/modules.dep"
}

# vm_initrd OUT: the initramfs, built afresh (it takes a fraction of a
# second): busybox from the tree, tests/vm/init as /init, the boot modules
# and the order to load them in.
vm_initrd() {
	local out=$1 d p
	d=$(mktemp -d "${TMPDIR:-/tmp}/arpownd-vm-initrd.XXXXXX") || vm_fail "mktemp"
	mkdir -p "$d/bin" "$d/dev" "$d/proc" "$d/sys" "$d/modules" "$d/lower" "$d/rw" "$d/newroot"
	cp "$VM_ROOT/bin/busybox" "$d/bin/busybox" || vm_fail "the tree has no /bin/busybox (busybox-static)"
	install -m 0755 "$VM_SRC/tests/vm/init" "$d/init" || vm_fail "install tests/vm/init"
	vm_mod_order $VM_BOOT_MODULES >"$d/paths" || vm_fail "resolving the boot modules in $VM_KVER"
	while read -r p; do
		cp "$VM_ROOT/lib/modules/$VM_KVER/$p" "$d/modules/" || vm_fail "cp $p"
		p=${p##*/}
		echo "${p%.ko}" >>"$d/modules/order"
	done <"$d/paths"
	rm "$d/paths"
	(cd "$d" && find . -mindepth 1 | cpio --quiet -o -H newc -R 0:0) >"$out" || vm_fail "cpio"
	rm -rf "$d"
}

# vm_test SCRIPT: an automake test (tests/vm/*.sh): SCRIPT, a path under
# the source tree, run by tests/vm/run; its output is the test's log, the
# guest's console kept beside it (tests/vm/NAME.console.log).  SKIP when
# the VM cannot be prepared here (a failure with ARPOWND_VM_REQUIRED=1).
# Inside the VM a skip is a failure: the point is to run what the
# development kernel cannot, so status 77 or a "SKIP" line fails.
vm_test() {
	local script=$1 name out console rc
	vm_prepare
	name=${script##*/}
	name=${name%.sh}
	console=${top_builddir:-.}/tests/vm/$name.console.log
	mkdir -p "${console%/*}"
	out=$(mktemp "${TMPDIR:-/tmp}/arpownd-vm-test.XXXXXX") || vm_fail "mktemp"
	echo "$script in $VM_KPKG ($VM_KPKG_VERSION) under qemu; tree $VM_HOW"
	bash "$VM_SRC/tests/vm/run" -l "$console" -- bash "$VM_SRC/$script" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 77 ] || grep -q '^SKIP' "$out"; then
		rm -f "$out"
		echo "FAIL: $script skipped in Debian 12's kernel (status $rc): there it must run"
		exit 1
	fi
	rm -f "$out"
	if [ "$rc" -ne 0 ]; then
		echo "----- the guest's console, last lines ($console) -----"
		tail -n 20 "$console" 2>/dev/null
	fi
	exit "$rc"
}
