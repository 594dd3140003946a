#!/bin/bash
# check_deps.sh — the package list (tests/packages.txt) is the only thing a
# fresh machine gets, so check that it really covers what is needed:
#  1. every library configure.ac checks for names its Debian package, and
#     that package is in the list;
#  2. the .pc file of every pkg-config module configure uses belongs to a
#     listed package or to a direct dependency of one;
#  3. every command a test requires (need_cmd) comes from a listed package
#     or from an essential one;
#  4. debian/control's Build-Depends name every library configure checks
#     for, and the list holds each of them.
# Run by .ci/run after the packages are installed; exits 1 naming what is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."
list=$(sed 's/#.*//' tests/packages.txt | tr -s ' \t' '\n' | grep . | sort -u)
bad=0
in_list() { grep -qxF "$1" <<<"$list"; }
missing() { echo "check_deps: $*" >&2; bad=1; }

# 1. Each check macro carries "apt-get install PKG" within its call.
awk '/PKG_CHECK_MODULES|AC_CHECK_LIB|AC_CHECK_HEADER/ { want = NR }
	want && /apt-get install/ { want = 0 }
	want && NR > want + 3 { print FILENAME ":" want ": a library check without an apt-get install hint"; want = 0; bad = 1 }
	END { exit bad }' configure.ac >&2 || bad=1
for p in $(grep -o 'apt-get install [a-z0-9.+-]*' configure.ac | awk '{ print $3 }' | sort -u); do
	in_list "$p" || missing "configure.ac names $p, which tests/packages.txt lacks"
done

# 2. The pkg-config modules, traced to their packages.
owner() { { dpkg -S "$1" 2>/dev/null || true; } | head -n 1 | cut -d: -f1; }
deps_of_list() {
	local p
	for p in $list; do
		dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "$p" 2>/dev/null || true
	done | tr ',|' '\n\n' | sed 's/([^)]*)//; s/:any//; s/ //g' | grep . | sort -u
}
ldeps=$(deps_of_list)
for m in $(sed -n 's/.*PKG_CHECK_MODULES(\[[A-Z]*\], *\[\([a-z0-9-]*\).*/\1/p' configure.ac); do
	pc=$(pkg-config --variable=pcfiledir "$m" 2>/dev/null)/$m.pc
	if [ ! -f "$pc" ]; then
		missing "pkg-config module $m is not installed: the list does not bring it"
		continue
	fi
	p=$(owner "$pc")
	p=${p%%:*}
	in_list "$p" || grep -qxF "$p" <<<"$ldeps" ||
		missing "$m comes from $p, which is neither listed nor a dependency of a listed package"
done

# 3. Commands the tests require.
for c in $(grep -rhoE 'need_cmd [A-Za-z0-9 _.-]+' tests | tr ' ' '\n' | grep -v '^need_cmd$' | sort -u); do
	# the system's PATH: what a fresh machine has, not a pyenv shim or the like
	path=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$c" 2>/dev/null) ||
		{ missing "command $c (need_cmd) is not installed"; continue; }
	path=$(readlink -f "$path")
	p=$(owner "$path")
	# merged /usr: dpkg may know it under /bin or /sbin
	[ -n "$p" ] || p=$(owner "${path#/usr}")
	[ -n "$p" ] || p=$(owner "/sbin/${path##*/}")
	if [ -z "$p" ]; then
		missing "command $c ($path) belongs to no package"
		continue
	fi
	in_list "$p" && continue
	# python3 resolves to python3.11-minimal's python3.11, but the name
	# python3 is python3-minimal's, which the listed python3 pre-depends on
	p2=$(owner "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$c")")
	[ -n "$p2" ] && { in_list "$p2" || grep -qxF "$p2" <<<"$ldeps"; } && continue
	ess=$(dpkg-query -W -f='${Essential} ${Priority}' "$p" 2>/dev/null || true)
	case $ess in yes*|*required) continue ;; esac
	missing "command $c comes from $p, which tests/packages.txt lacks"
done
# 4. The Debian package's Build-Depends: each library configure names is
#    there (a clean chroot has nothing else), and each one is in the list or
#    a dependency of a listed package (so the README's dpkg-buildpackage
#    works after the quick start).  debhelper-compat is debhelper's.
if [ -f debian/control ]; then
	bdeps=$(awk 'tolower($0) ~ /^build-depends(-arch|-indep)?:/ { f = 1; sub(/^[^:]*:/, ""); print; next }
		f && /^[ \t]/ { print; next } { f = 0 }' debian/control |
		tr ',' '\n' | sed 's/[(<[].*//; s/|.*//; s/ //g; s/\t//g' | grep . | sort -u)
	for p in $(grep -o 'apt-get install [a-z0-9.+-]*' configure.ac | awk '{ print $3 }' | sort -u); do
		grep -qxF "$p" <<<"$bdeps" || missing "configure.ac names $p, which debian/control's Build-Depends lacks"
	done
	for p in $bdeps; do
		[ "$p" = debhelper-compat ] && p=debhelper
		in_list "$p" || grep -qxF "$p" <<<"$ldeps" ||
			missing "debian/control build-depends on $p, which tests/packages.txt lacks"
	done
fi
[ "$bad" -eq 0 ] && echo "check_deps: tests/packages.txt covers configure, the tests and debian/control"
exit "$bad"
