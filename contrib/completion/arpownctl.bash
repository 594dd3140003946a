# arpownctl(8) completion for bash                        -*- shell-script -*-
#
# Installed as /usr/share/bash-completion/completions/arpownctl, which the
# bash-completion package loads the first time arpownctl is completed; or
# source it from ~/.bashrc.  It needs nothing from bash-completion itself.
#
# arpownctl is in /usr/bin: the group arpownd runs it to ask; root and
# the group arpownd-admin also change (reload, announce, publish,
# withdraw).  Completes the commands, the options (before or after the
# command, as arpownctl takes them: --force only with publish,
# -c/--config only with reload), directories for --state-dir, files for
# --config, and interface names (from /sys/class/net) where a command
# takes one: interfaces, counters, announce [dev], and publish's second
# argument.

_arpownctl_ifaces()
{
	local n
	for n in /sys/class/net/*; do
		[ -e "$n" ] || continue
		n=${n##*/}
		[[ $n == "$1"* ]] && COMPREPLY+=("$n")
	done
}

_arpownctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= prev2= w cmd= i word pre=
	local -a args=() opts
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	((COMP_CWORD > 1)) && prev2=${COMP_WORDS[COMP_CWORD - 2]}
	COMPREPLY=()

	# an option's argument: "--state-dir DIR", "--state-dir=DIR" (which
	# bash splits at the "=" when COMP_WORDBREAKS holds it), "-c FILE"
	if [[ $prev == = ]]; then
		prev=$prev2
		[[ $cur == = ]] && cur=
	elif [[ $cur == = && ($prev == --state-dir || $prev == --config) ]]; then
		cur=
	elif [[ $cur == --state-dir=* || $cur == --config=* ]]; then
		# one word (no "=" in COMP_WORDBREAKS): it is replaced whole
		prev=${cur%%=*}
		pre=$prev=
		cur=${cur#*=}
	fi
	case $prev in
	--state-dir | -c | --config)
		if [[ $prev == --state-dir ]]; then
			w=-d
		else
			w=-f
		fi
		[[ -z $pre ]] && compopt -o filenames 2>/dev/null
		while IFS= read -r word; do
			COMPREPLY+=("$pre$word")
		done < <(compgen "$w" -- "$cur")
		return 0
		;;
	esac

	# the words so far, options and their arguments taken out
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		case $word in
		--state-dir | -c | --config)
			# its argument follows, maybe after an "=" of its own
			((i++))
			[[ ${COMP_WORDS[i]} == = ]] && ((i++))
			;;
		-c?*) ;;
		-*) ;;
		=) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=$word
			else
				args+=("$word")
			fi
			;;
		esac
	done

	if [[ $cur == -* ]]; then
		opts=(--json --state-dir --version --help)
		[[ -z $cmd || $cmd == publish ]] && opts+=(--force)
		[[ -z $cmd || $cmd == reload ]] && opts+=(-c --config)
		for w in "${opts[@]}"; do
			[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
		done
		return 0
	fi

	if [[ -z $cmd ]]; then
		for w in status interfaces counters conflicts metrics reload announce \
			publish withdraw published; do
			[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
		done
		return 0
	fi

	case $cmd:${#args[@]} in
	interfaces:0 | counters:0)
		_arpownctl_ifaces "$cur"
		;;
	announce:0)
		# an address, an interface, or "dev IFACE" for one whose name
		# looks like an address
		_arpownctl_ifaces "$cur"
		[[ dev == "$cur"* ]] && COMPREPLY+=(dev)
		;;
	announce:1)
		[[ ${args[0]} == dev ]] && _arpownctl_ifaces "$cur"
		;;
	publish:1)
		# publish ADDR[/LEN] IFACE
		_arpownctl_ifaces "$cur"
		;;
	esac
	return 0
}
complete -F _arpownctl arpownctl
