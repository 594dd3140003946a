#!/bin/bash
# Shell completion for arpownctl (contrib/completion): bash's, sourced and
# called as bash calls it (COMP_WORDS, COMP_CWORD; COMPREPLY checked):
# commands, options before and after the command (--force only with
# publish, -c/--config only with reload), directories for --state-dir
# (also written --state-dir=DIR, split at the "=" or not), files for
# --config, interface names from /sys/class/net where a command takes
# one.  zsh's: it parses (zsh -n), and an interactive zsh on a
# pseudo-terminal (zsh/zpty) completes the same cases with it.  Without
# zsh the zsh part is skipped; tests/packages.txt lists it.  No root.
. "$(dirname "$0")/../lib.sh"
trap cleanup EXIT
SRC=${top_srcdir:-.}
BASHCOMP=$SRC/contrib/completion/arpownctl.bash
ZSHCOMP=$SRC/contrib/completion/_arpownctl

bash -n "$BASHCOMP" || fail "bash -n $BASHCOMP"
# bash-completion sources it; a "#!" line would be a lie (lintian:
# bash-completion-with-hashbang)
head -n 1 "$BASHCOMP" | grep -q '^#!' && fail "$BASHCOMP starts with #!"
# shellcheck source=/dev/null
. "$BASHCOMP"
complete -p arpownctl 2>/dev/null | grep -q -- '-F _arpownctl arpownctl$' ||
	fail "sourcing it does not register _arpownctl for arpownctl: $(complete -p arpownctl 2>&1)"
pass "bash: it parses and registers complete -F _arpownctl arpownctl"

# comp WORD... : complete the last word as bash would; sets GOT to the
# sorted candidates, one line
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_arpownctl arpownctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	GOT=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
	GOT=${GOT% }
}
# expect "WANT" WORD...
expect() {
	local want=$1
	shift
	comp "$@"
	[ "$GOT" = "$want" ] || fail "bash: completing '$*': expected '$want', got '$GOT'"
}
IFACES=$(ls /sys/class/net | LC_ALL=C sort | tr '\n' ' ')
IFACES=${IFACES% }
[ -n "$IFACES" ] || fail "no interfaces in /sys/class/net"
L_IFACES=$(ls /sys/class/net | grep '^l' | LC_ALL=C sort | tr '\n' ' ')
L_IFACES=${L_IFACES% }
ALLCMDS="announce conflicts counters interfaces metrics publish published reload status withdraw"

expect "$ALLCMDS" arpownctl ""
expect "publish published" arpownctl pub
expect "status" arpownctl --json st
expect "counters" arpownctl --state-dir /run/x cou
expect "$ALLCMDS" arpownctl --json --state-dir /run/x ""
pass "bash: the commands, after options and an option's argument too"

expect "--config --force --help --json --state-dir --version -c" arpownctl -
expect "--json" arpownctl status --j
expect "--help --json --state-dir --version" arpownctl status --
expect "--force" arpownctl publish 10.0.0.50/32 eth0 --f
expect "" arpownctl counters --f
expect "--config --help --json --state-dir --version -c" arpownctl reload -
pass "bash: the options, before and after the command; --force with publish, -c/--config with reload only"

expect "$IFACES" arpownctl interfaces ""
expect "$L_IFACES" arpownctl counters l
expect "$L_IFACES" arpownctl --json counters l
expect "$L_IFACES" arpownctl --state-dir /run/x counters --json l
expect "$(printf '%s\n' $IFACES dev | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" arpownctl announce ""
expect "$IFACES" arpownctl announce dev ""
expect "" arpownctl publish ""
expect "$IFACES" arpownctl publish 10.0.0.50 ""
expect "$L_IFACES" arpownctl publish --force 10.0.0.64/26 l
expect "" arpownctl publish 10.0.0.50 eth0 ""
expect "" arpownctl interfaces eth0 ""
expect "" arpownctl status ""
expect "" arpownctl withdraw ""
pass "bash: interface names from /sys/class/net for interfaces, counters, announce [dev] and publish's second argument, nothing where none is taken"

mkdir "$TMPDIR_T/cwd" "$TMPDIR_T/cwd/dirA" "$TMPDIR_T/cwd/dirB"
: >"$TMPDIR_T/cwd/dirfile"
: >"$TMPDIR_T/cwd/conf.ini"
cd "$TMPDIR_T/cwd" || fail "cd"
expect "dirA dirB" arpownctl --state-dir dir
expect "dirA dirB" arpownctl status --state-dir dir
expect "dirA dirB" arpownctl --state-dir = dir
expect "dirA dirB" arpownctl --state-dir =
expect "--state-dir=dirA --state-dir=dirB" arpownctl --state-dir=dir
expect "dirA dirB dirfile" arpownctl reload -c dir
expect "conf.ini" arpownctl reload --config = con
expect "$L_IFACES" arpownctl --state-dir = dirA counters l
cd - >/dev/null || fail "cd -"
pass "bash: directories for --state-dir (DIR, =DIR split or not), files for -c/--config"

# ---- zsh
if ! command -v zsh >/dev/null; then
	echo "# zsh is not installed: its completion not checked"
	exit 0
fi
zsh -n "$ZSHCOMP" || fail "zsh -n $ZSHCOMP"
head -n 1 "$ZSHCOMP" | grep -qx '#compdef arpownctl' || fail "$ZSHCOMP: the first line is not #compdef arpownctl"
pass "zsh: it parses, #compdef arpownctl"

mkdir "$TMPDIR_T/fpath" "$TMPDIR_T/z"
cp "$ZSHCOMP" "$TMPDIR_T/fpath/"
# zcomplete FPATHDIR WORKDIR LINE...: each LINE completed in an
# interactive zsh on a pseudo-terminal by a widget that records every
# match compadd adds; prints "LINE<TAB>match match ..."
cat >"$TMPDIR_T/zcomplete.zsh" <<'ZSH'
zmodload zsh/zpty || exit 3
fdir=$1 w=$2; shift 2
zpty -b z zsh -f -i || exit 3
zpty -w z "PS1='' PROMPT_EOL_MARK=''; fpath=($fdir \$fpath); autoload -U compinit; compinit -u -D; unsetopt beep"
zpty -w z "_t_dump() { compadd() { builtin compadd -O _t_m \"\$@\"; print -rl -- \"M:\${^_t_m[@]}\" >>| $w/out; builtin compadd \"\$@\" }; _main_complete; unfunction compadd; print END >>| $w/out }; zle -C _t_dump complete-word _t_dump; bindkey '^T' _t_dump; : >| $w/ready"
# read what the terminal shows, or the shell blocks on a full pty
drain() { local junk; while zpty -r -t z junk 2>/dev/null; do :; done }
wait_for() {
  local i
  for i in {1..200}; do
    drain
    [[ -e $1 ]] && { [[ -z ${2:-} ]] || grep -q "$2" $1 } && return 0
    sleep 0.05
  done
  return 1
}
wait_for $w/ready || { print -u2 "zsh did not start"; exit 1; }
for l in "$@"; do
  : >| $w/out
  zpty -w -n z "$l"$'\x14'
  wait_for $w/out '^END$' || { print -u2 "no completion for '$l'"; exit 1; }
  zpty -w -n z $'\x15'
  print -r -- "$l"$'\t'"$(sed -n 's/^M://p' $w/out | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//')"
done
zpty -d z
ZSH
cd "$TMPDIR_T/cwd" || fail "cd"
rc=0
zsh -f "$TMPDIR_T/zcomplete.zsh" "$TMPDIR_T/fpath" "$TMPDIR_T/z" \
	'arpownctl ' 'arpownctl pub' 'arpownctl --json st' 'arpownctl status --j' \
	'arpownctl interfaces ' 'arpownctl counters l' 'arpownctl announce dev ' \
	'arpownctl publish 10.0.0.50 ' 'arpownctl publish 10.0.0.50 eth0 ' \
	'arpownctl --state-dir dir' >"$TMPDIR_T/zsh.out" 2>"$TMPDIR_T/zsh.err" || rc=$?
cd - >/dev/null || fail "cd -"
if [ "$rc" = 3 ]; then
	echo "# zsh cannot run a pseudo-terminal here (zsh/zpty): only its syntax checked"
	exit 0
fi
[ "$rc" = 0 ] || fail "zsh: $(cat "$TMPDIR_T/zsh.err")"
zexpect() {
	local got
	got=$(awk -F '\t' -v l="$1" '$1 == l { print $2 }' "$TMPDIR_T/zsh.out")
	[ "$got" = "$2" ] || fail "zsh: completing '$1': expected '$2', got '$got'"
}
zexpect 'arpownctl ' "$ALLCMDS"
zexpect 'arpownctl pub' "publish published"
zexpect 'arpownctl --json st' "status"
zexpect 'arpownctl status --j' "--json"
zexpect 'arpownctl interfaces ' "$IFACES"
zexpect 'arpownctl counters l' "$L_IFACES"
zexpect 'arpownctl announce dev ' "$IFACES"
zexpect 'arpownctl publish 10.0.0.50 ' "$IFACES"
zexpect 'arpownctl publish 10.0.0.50 eth0 ' ""
zexpect 'arpownctl --state-dir dir' "dirA dirB"
pass "zsh: an interactive zsh completes commands, options after the command, interfaces and directories with it"
