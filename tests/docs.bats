#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages and completions against the binary: the same options, fields and commands.
load test_helper

MAN1="$RM_SRCDIR/man/rm-topo.1"
MAN7="$RM_SRCDIR/man/rmtools.7"
BASH_COMPLETION="$RM_SRCDIR/completions/bash/rm-topo"
ZSH_COMPLETION="$RM_SRCDIR/completions/zsh/_rm-topo"

# ---- helpers ----

# The commands of rm-topo, one a line.
commands() {
	rm-topo --list-commands
}

# The option column of "rm-topo [CMD] --help", one option a line as a man page tag writes it:
# "-o, --output LIST", "--bytes", "-?, --help". argp indents options by 2 or 6 columns and wrapped
# descriptions by 29, so an indent of at most 8 marks an option.
help_specs() {
	# shellcheck disable=SC2086 # no command: the global --help
	rm-topo $1 --help | sed -n 's/^ \{1,8\}\(-[^ ].*\)$/\1/p' | sed -e 's/  .*//' -e 's/=/ /'
}

# The long options of "rm-topo [CMD] --help", one a line, sorted.
help_long() {
	help_specs "$1" | grep -o -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u
}

# Roff text made plain: no font escapes, "\-" as "-", quotes and backslashes as themselves.
unroff() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' \
		-e 's/\\e/\\/g' -e 's/\\&//g'
}

# The lines of section NAME of man page FILE, up to the next .SH.
man_section() {
	awk -v name="$2" '/^\.SH / { s = $0; sub(/^\.SH +/, "", s); gsub(/"/, "", s); on = (s == name); next }
		on' "$1"
}

# The .SS titles of section SECTION, plain, one a line.
man_titles() {
	man_section "$1" "$2" | sed -n 's/^\.SS //p' | tr -d '"' | unroff
}

# The lines of subsection TITLE (plain, as man_titles prints it) of section SECTION.
man_subsection() {
	man_section "$1" "$2" | awk -v title="$3" '
		/^\.SS / { t = $0; sub(/^\.SS +/, "", t); gsub(/"/, "", t); gsub(/\\-/, "-", t)
			on = (t == title); next }
		on'
}

# The page as plain text on one line, blanks squeezed (needs groff).
rendered() {
	groff -man -Tascii -P-cbou "$1" 2>/dev/null | tr -s ' \n' '  '
}

# The .TP tags among the roff lines on stdin, plain.
tags() {
	awk 'prev ~ /^\.TP/ { print } { prev = $0 }' | unroff
}

# The option tags among the roff lines on stdin ("-c, --cpus SET"), one a line.
option_tags() {
	tags | grep -E -- '^-' || true
}

# The completions bash offers for LINE, sorted, one a line. "|" marks the cursor (default: the
# end of LINE). What the completion asks of compopt is written to $BATS_TEST_TMPDIR/compopt.
bash_complete() {
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	run -0 bash --norc --noprofile -c '
		source /usr/share/bash-completion/bash_completion || exit 3
		source "$1" || exit 3
		tmp=$3
		compopt() { printf "%s\n" "$*" >>"$tmp/compopt"; }
		line=$2
		[[ $line == *"|"* ]] || line+="|"
		before=${line%%|*} after=${line#*|}
		# like readline: blanks separate words; "=" and ":" are words of their own
		split() {
			local s=$1
			while [[ -n $s ]]; do
				if [[ $s =~ ^[[:blank:]]+(.*)$ ]]; then
					s=${BASH_REMATCH[1]}
				elif [[ $s =~ ^([=:]+)(.*)$ ]] || [[ $s =~ ^([^=:[:blank:]]+)(.*)$ ]]; then
					W+=("${BASH_REMATCH[1]}")
					s=${BASH_REMATCH[2]}
				fi
			done
		}
		W=()
		split "$before"
		[[ $before == *[[:blank:]] ]] && W+=("")
		COMP_CWORD=$((${#W[@]} - 1))
		split "$after"
		COMP_WORDS=("${W[@]}")
		COMP_LINE=$before$after
		COMP_POINT=${#before}
		_rm_topo rm-topo "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		if ((${#COMPREPLY[@]})); then
			printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
		fi
	' _ "$BASH_COMPLETION" "$1" "$BATS_TEST_TMPDIR"
}

setup() {
	command -v rm-topo >/dev/null || skip "rm-topo is not built"
}

# ---- rm-topo(1) and --help: the same options ----

@test "docs: rm-topo.1 names every long option of rm-topo --help and of each command's" {
	local cmd opt missing=''
	for cmd in "" $(commands); do
		for opt in $(help_long "$cmd"); do
			# roff writes every '-' of an option as '\-'
			grep -qF -- "${opt//-/\\-}" "$MAN1" || missing+=" ${cmd:-(global)}:$opt"
		done
	done
	[ -n "$(help_long cpus)" ]
	assert_equal "$missing" ""
}

@test "docs: rm-topo.1 names no option that rm-topo lacks" {
	local all opt extra='' n=0
	all=$(for cmd in "" $(commands); do help_specs "$cmd"; done)
	# every --long in the page, and every -x in an option tag
	while IFS= read -r opt; do
		printf '%s\n' "$all" | grep -qE -- "(^| )${opt//\?/[?]}(,| |\$)" || extra+=" $opt"
		n=$((n + 1))
	done < <(grep -o -- '\\-\\-[a-z][a-z0-9]*\(\\-[a-z0-9]\+\)*' "$MAN1" | unroff | sort -u
		option_tags <"$MAN1" | grep -o -- '^-[^-]' | sort -u)
	[ "$n" -gt 20 ]
	assert_equal "$extra" ""
}

@test "docs: rm-topo.1 pairs short and long options and names their values as --help does" {
	local tagged cmd spec missing=''
	tagged=$(option_tags <"$MAN1")
	for cmd in "" $(commands); do
		while IFS= read -r spec; do
			printf '%s\n' "$tagged" | grep -qxF -- "$spec" || missing+=" ${cmd:-(global)}:'$spec'"
		done < <(help_specs "$cmd")
	done
	assert_equal "$missing" ""
}

@test "docs: each command's own options are under COMMANDS, in a part that names the command" {
	local global cmd title spec problems='' named
	global=$(help_specs "")
	for cmd in $(commands); do
		# options the global level does not have ("-c, --cpus SET", "-o, --output FILE")
		while IFS= read -r spec; do
			printf '%s\n' "$global" | grep -qxF -- "$spec" && continue
			named=
			while IFS= read -r title; do
				printf '%s\n' "$title" | tr -c 'a-z\n' ' ' | grep -qw -- "$cmd" || continue
				man_subsection "$MAN1" COMMANDS "$title" | option_tags | grep -qxF -- "$spec" &&
					named=1
			done < <(man_titles "$MAN1" COMMANDS)
			[ -n "$named" ] || problems+=" $cmd:'$spec'"
		done < <(help_specs "$cmd")
	done
	# and the other way: an option under a part is an option of every command the part names
	while IFS= read -r title; do
		for cmd in $(printf '%s\n' "$title" | tr -c 'a-z\n' ' '); do
			commands | grep -qx -- "$cmd" || continue
			while IFS= read -r spec; do
				help_specs "$cmd" | grep -qxF -- "$spec" || problems+=" '$title' names '$spec'"
			done < <(man_subsection "$MAN1" COMMANDS "$title" | option_tags)
		done
	done < <(man_titles "$MAN1" COMMANDS)
	assert_equal "$problems" ""
}

@test "docs: the shared options are under OPTIONS, and OPTIONS has no other" {
	local global tagged spec problems=''
	global=$(help_specs "")
	tagged=$(man_section "$MAN1" OPTIONS | option_tags)
	[ -n "$tagged" ]
	while IFS= read -r spec; do
		printf '%s\n' "$tagged" | grep -qxF -- "$spec" || problems+=" missing:'$spec'"
	done <<<"$global"
	while IFS= read -r spec; do
		printf '%s\n' "$global" | grep -qxF -- "$spec" || problems+=" extra:'$spec'"
	done <<<"$tagged"
	assert_equal "$problems" ""
}

@test "docs: commands without output modes say so in rm-topo.1, the others do not" {
	local cmd text problems='' without=0
	for cmd in $(commands); do
		text=$(man_subsection "$MAN1" COMMANDS "$cmd" | unroff | tr '\n' ' ')
		[ -n "$text" ] || { problems+=" $cmd:no-part"; continue; }
		if help_long "$cmd" | grep -qx -- --json; then
			[[ $text != *"no output-mode options"* ]] || problems+=" $cmd:says-none"
		else
			without=$((without + 1))
			[[ $text == *"no output-mode options"* ]] || problems+=" $cmd:says-nothing"
		fi
	done
	[ "$without" -gt 0 ]
	assert_equal "$problems" ""
}

# ---- rm-topo(1) OUTPUT and --list-columns: the same fields ----

@test "docs: OUTPUT lists every field of every command, in order, with its type and default" {
	local cmd kind title expected actual problems=''
	for cmd in $(commands); do
		help_long "$cmd" | grep -qx -- --list-columns || continue
		run -0 rm-topo "$cmd" --list-columns --raw
		[ -n "$output" ]
		expected=$(printf '%s\n' "$output" | awk '{
			printf "%s (%s%s)\n", $1, $2, $3 == "no" ? ", not shown by default" : "" }')
		kind=${output%% *}
		title=$(man_titles "$MAN1" OUTPUT | grep -E "^$kind records: " | grep -E "rm-topo $cmd(,|\$)")
		if [ -z "$title" ]; then
			problems+=" $cmd:no-'$kind records'-part"
			continue
		fi
		actual=$(man_subsection "$MAN1" OUTPUT "$title" | sed -n 's/^\.BR \([a-z0-9_]*\) " (\(.*\))"$/\1 (\2)/p')
		[ "$actual" = "$expected" ] || problems+=$'\n'"$cmd: page has"$'\n'"$actual"$'\n'"binary has"$'\n'"$expected"
	done
	assert_equal "$problems" ""
}

@test "docs: OUTPUT lists the fields of --list-columns records" {
	local keys documented
	run -0 rm-topo cpus --list-columns
	keys=$(printf '%s\n' "${lines[0]}" | grep -o '\(^\| \)[a-z_]*=' | tr -d ' =')
	documented=$(man_subsection "$MAN1" OUTPUT "column records: --list-columns" |
		sed -n 's/^\.BR \([a-z_]*\) ".*/\1/p')
	[ -n "$keys" ]
	assert_equal "$documented" "$keys"
}

@test "docs: the types in OUTPUT are the ones --list-columns uses" {
	local types documented t missing=''
	types=$(for cmd in $(commands); do
		rm-topo "$cmd" --list-columns --raw 2>/dev/null | cut -d' ' -f2
	done | sort -u)
	documented=$(man_section "$MAN1" OUTPUT | awk '/^\.SS/ { exit } 1' | tags)
	for t in $types; do
		printf '%s\n' "$documented" | grep -qx -- ".B $t" || missing+=" $t"
	done
	[ -n "$types" ]
	assert_equal "$missing" ""
}

# ---- rm-topo(1): examples and files ----

@test "docs: the rm-topo command lines of EXAMPLES and LOCATIONS run" {
	local cmdline failed='' n=0
	while IFS= read -r cmdline; do
		# a described machine with every location the examples name
		RM_TOPOLOGY="package:2 numa:2 l3:2 core:4 pu:2" bash -c "$cmdline" >/dev/null 2>&1 ||
			failed+=$'\n'"$cmdline"
		n=$((n + 1))
	done < <({ man_section "$MAN1" EXAMPLES; man_section "$MAN1" LOCATIONS; } | unroff |
		sed -n 's/^\$ \(rm-topo .*\)$/\1/p' | grep -v -e '|' -e '\\$' -e '--sysroot')
	[ "$n" -ge 8 ]
	assert_equal "$failed" ""
}

@test "docs: the calc examples print what rm-topo prints on the machine they show" {
	require_fixtures
	local root=$FIXTURES/x86_64-epyc_7451 cmd expected got n=0 failed=''
	[ -d "$root" ] || skip "no x86_64-epyc_7451 in $FIXTURES"
	# "$ command" lines of .EX blocks and the lines they show, joined with ';'; "..." ends a cut
	while IFS=$'\t' read -r cmd expected; do
		[[ $cmd == *"rm-topo calc"* || $cmd == *--raw* ]] || continue
		[[ $cmd == *RM_SYSROOT* || $cmd == *--sysroot* || $cmd == *--topology* || $cmd == *jq* ]] &&
			continue
		got=$(RM_SYSROOT=$root bash -c "$cmd" 2>&1 | paste -sd ';')
		if [[ $expected == *';...' ]]; then
			[[ $got == "${expected%...}"* ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		else
			[[ $got == "$expected" ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		fi
		n=$((n + 1))
	done < <(for page in "$MAN1" "$MAN7"; do
		unroff <"$page" | awk '
			function flush() { if (cmd != "" && out != "") print cmd "\t" out; cmd = ""; out = "" }
			/^\.EX/ { on = 1; next }
			/^\.EE/ { flush(); on = 0; next }
			on && /^\$ / { flush(); cmd = substr($0, 3); next }
			on && /^# / { flush(); next }
			on && cmd != "" { out = out == "" ? $0 : out ";" $0 }'
	done)
	[ "$n" -ge 10 ]
	assert_equal "$failed" ""
}

@test "docs: FILES names every file rm-topo snapshot copies" {
	local dir=$BATS_TEST_TMPDIR/snap globs names path g found unlisted='' n=0
	run -0 rm-topo snapshot "$dir"
	# the files of /proc, /sys/devices and /sys/kernel as globs; cgroup files (wherever their
	# file system is mounted) by name
	globs=$(man_section "$MAN1" FILES | sed -n 's/^\.I \(\/\(sys\|proc\)\/.*\)$/\1/p' | unroff)
	names=$(man_section "$MAN1" FILES | sed -n 's/^\.IR\{0,1\} \([^ ]*\).*/\1/p' | unroff)
	[ -n "$globs" ]
	while IFS= read -r path; do
		path=/${path#"$dir"/}
		found=
		case $path in
		/proc/* | /sys/devices/* | /sys/kernel/*)
			while IFS= read -r g; do
				# shellcheck disable=SC2053
				[[ $path == $g ]] && { found=1; break; }
			done <<<"$globs"
			;;
		*) printf '%s\n' "$names" | grep -qxF -- "${path##*/}" && found=1 ;;
		esac
		[ -n "$found" ] || unlisted+=" $path"
		n=$((n + 1))
	done < <(find "$dir" -type f)
	[ "$n" -gt 10 ]
	assert_equal "$unlisted" ""
}

# ---- bash completion ----

@test "bash completion: the commands, from --list-commands" {
	bash_complete 'rm-topo '
	assert_output "$(commands | LC_ALL=C sort)"
	bash_complete 'rm-topo c'
	assert_output "$(printf '%s\n' caches calc cores cpus)"
}

@test "bash completion: the options of a command" {
	bash_complete 'rm-topo cpus --o'
	assert_output "$(printf '%s\n' --offline --online --output)"
	bash_complete 'rm-topo calc -'
	assert_line -- -N
	assert_line -- --count
	refute_line -- --json
}

@test "bash completion: every long option of --help is offered after --" {
	local cmd
	for cmd in "" $(commands); do
		bash_complete "rm-topo ${cmd:+$cmd }--"
		assert_output "$(help_long "$cmd")"
	done
}

@test "bash completion: field names for -o, from --list-columns, as a comma list" {
	bash_complete 'rm-topo cpus -o co'
	assert_output "$(printf '%s\n' core core_id)"
	grep -qx -- '-o nospace' "$BATS_TEST_TMPDIR/compopt"
	bash_complete 'rm-topo cpus -o cpu,co'
	assert_output "$(printf '%s\n' cpu,core cpu,core_id)"
	bash_complete 'rm-topo cpus --output +d'
	assert_output +die
	bash_complete 'rm-topo cpus --output=cpu,d'
	assert_output cpu,die
	# names already in the list are not offered again
	bash_complete 'rm-topo nodes -o node,cpus,memory,free,distances,'
	assert_output node,cpus,memory,free,distances,packages
}

@test "bash completion: options before the command" {
	# the summary's fields without a command, the later command's when there is one
	bash_complete 'rm-topo -o co'
	assert_output cores
	bash_complete 'rm-topo -o co| cpus'
	assert_output "$(printf '%s\n' core core_id)"
	# an option's value is not the command
	bash_complete "rm-topo --sysroot $BATS_TEST_TMPDIR "
	assert_output "$(commands | LC_ALL=C sort)"
	bash_complete "rm-topo -J --sysroot $BATS_TEST_TMPDIR nodes --p"
	assert_output --package
	bash_complete 'rm-topo -t --'
	assert_output "$(help_long '')"
}

@test "bash completion: directories, files, location types; no ids" {
	mkdir "$BATS_TEST_TMPDIR/snapdir"
	touch "$BATS_TEST_TMPDIR/snapfile"
	bash_complete "rm-topo --sysroot $BATS_TEST_TMPDIR/snap"
	assert_output "$BATS_TEST_TMPDIR/snapdir"
	bash_complete "rm-topo snapshot $BATS_TEST_TMPDIR/snap"
	assert_output "$BATS_TEST_TMPDIR/snapdir"
	bash_complete "rm-topo --topology $BATS_TEST_TMPDIR/snapf"
	assert_output "$BATS_TEST_TMPDIR/snapfile"
	bash_complete 'rm-topo export '
	assert_output nfd
	bash_complete 'rm-topo calc no'
	assert_output node:
	bash_complete 'rm-topo calc --objects p'
	assert_output package
	bash_complete 'rm-topo cpus --node '
	assert_output ''
	bash_complete 'rm-topo calc node:'
	assert_output ''
}

# ---- zsh completion ----

@test "zsh completion: valid zsh, asks the binary" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run -0 zsh -n "$ZSH_COMPLETION"
	run -0 head -n 1 "$ZSH_COMPLETION"
	assert_output '#compdef rm-topo'
	grep -q -- '--list-commands' "$ZSH_COMPLETION"
	grep -q -- '--list-columns' "$ZSH_COMPLETION"
	grep -q '_call_program' "$ZSH_COMPLETION"
	grep -q '_arguments' "$ZSH_COMPLETION"
}

@test "zsh completion: commands, options, fields and locations, from the binary" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	zsh -fc 'zmodload zsh/zpty' 2>/dev/null || skip "zsh has no zpty module"
	# an interactive zsh on a pseudo-terminal; compadd prints what it is given. Each line is typed
	# at a fresh prompt and completed with a TAB, then a marker command shows where that
	# completion's output ends (typed as "MARK""-N" so that its echo does not match).
	cat >"$BATS_TEST_TMPDIR/capture.zsh" <<-'EOF'
	zmodload zsh/zpty || exit 3
	local out l n=0
	zpty z zsh -f -i
	zpty -w z "PS1='READY>'; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
	zpty -w z 'compadd() {
	  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
	  local -a __hits; local -A apre hpre hsuf asuf
	  builtin compadd -A __hits "$@"
	  zparseopts -E P:=apre p:=hpre S:=asuf s:=hsuf
	  local h; for h in $__hits; do print -r -- "<<$IPREFIX$apre[-P]$hpre[-p]$h$hsuf[-s]$asuf[-S]>>"; done
	}'
	zpty -w z "bindkey '^I' complete-word; zle -C complete-word .complete-word _main_complete"
	zpty -w z 'print "MARK""-0"'
	zpty -r z out '*MARK-0*READY>*'
	shift
	for l in "$@"; do
	  zpty -w -n z "$l"$'\t'$'\C-u'
	  zpty -w z "print \"MARK\"\"-$((++n))\""
	  zpty -r z out "*MARK-$n*READY>*"
	  print -r -- "== $l"
	  print -rl -- ${(u)${(M)${(s:>>:)${out//$'\r'/}}:#*<<*}##*<<}
	done
	zpty -d z
	EOF
	run -0 timeout 60 zsh -f "$BATS_TEST_TMPDIR/capture.zsh" "$RM_SRCDIR/completions/zsh" \
		'rm-topo ' 'rm-topo cpus --o' 'rm-topo cpus -o cpu,co' 'rm-topo -o ma' \
		'rm-topo calc --' 'rm-topo calc n' 'rm-topo export '
	local all=$output
	offered() {
		printf '%s\n' "$all" | awk -v l="== $1" '$0 == l { on = 1; next } /^== / { on = 0 } on' |
			LC_ALL=C sort
	}
	assert_equal "$(offered 'rm-topo ')" "$(commands | LC_ALL=C sort)"
	assert_equal "$(offered 'rm-topo cpus --o')" "$(printf '%s\n' --offline --online --output)"
	assert_equal "$(offered 'rm-topo cpus -o cpu,co')" "$(printf '%s\n' cpu,core cpu,core_id)"
	assert_equal "$(offered 'rm-topo -o ma')" machine
	assert_equal "$(offered 'rm-topo calc --')" "$(help_long calc)"
	assert_equal "$(offered 'rm-topo calc n')" node:
	assert_equal "$(offered 'rm-topo export ')" nfd
}

# ---- the pages render ----

@test "docs: man renders both pages without warnings" {
	command -v man >/dev/null || skip "man is not installed"
	local page
	for page in "$MAN1" "$MAN7"; do
		run -0 bash -c 'MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null' _ "$page"
		assert_output ''
	done
}

@test "docs: groff finds nothing to warn about in both pages" {
	command -v groff >/dev/null || skip "groff is not installed"
	local page
	for page in "$MAN1" "$MAN7"; do
		run -0 bash -c 'groff -man -ww -z "$1" 2>&1' _ "$page"
		assert_output ''
	done
}

# ---- rmtools(7) ----

@test "rmtools.7: exit statuses 0 to 3" {
	local text
	run -0 tags < <(man_section "$MAN7" "EXIT STATUS")
	assert_output "$(printf '.B %s\n' 0 1 2 3)"
	text=$(man_section "$MAN7" "EXIT STATUS" | unroff | tr '\n' ' ')
	[[ $text == *"Usage error or invalid input"* ]]
	[[ $text == *"Not enough resources"* ]]
}

@test "rmtools.7: the quoting rule: bare characters and escapes" {
	command -v groff >/dev/null || skip "groff is not installed"
	run -0 rendered "$MAN7"
	assert_output --partial 'only the characters A-Z, a-z, 0-9 and _ . , : / + @ % -; otherwise'
	assert_output --partial '\" for a double quote, \\ for a backslash and \xHH (two hex digits)'
	assert_output --partial 'An unknown value is - (not an empty string'
	assert_output --partial 'The empty string is "".'
}

@test "rmtools.7: the bare characters are the ones the record writer leaves bare" {
	local record=$RM_BUILDDIR/tests/unit/test-record c i listed documented='' bare=''
	command -v groff >/dev/null || skip "groff is not installed"
	[ -x "$record" ] || skip "tests/unit/test-record is not built (make check builds it)"
	listed=$(rendered "$MAN7" | sed -n 's/.*only the characters A-Z, a-z, 0-9 and \([^;]*\);.*/\1/p')
	listed="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789${listed// /}"
	[ ${#listed} -eq 71 ]
	for ((i = 32; i < 127; i++)); do
		# shellcheck disable=SC2059 # the format is the escape of byte I
		printf -v c "\\x$(printf %x "$i")"
		if "$record" bare "x${c}x"; then bare+=$c; fi
		[[ $listed == *"$c"* ]] && documented+=$c
	done
	assert_equal "$bare" "$documented"
}

@test "rmtools.7: the example values are written as the record writer writes them" {
	local record=$RM_BUILDDIR/tests/unit/test-record line key value n=0
	[ -x "$record" ] || skip "tests/unit/test-record is not built (make check builds it)"
	while IFS= read -r line; do
		key=${line%%=*}
		value=$(printf '%s\n' "$line" | "$record" get "$key")
		run -0 "$record" quote "$value"
		# not assert_output: it reads "-" as "from standard input"
		assert_equal "$output" "${line#*=}"
		n=$((n + 1))
	done < <(man_section "$MAN7" RECORDS | awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0 } on' |
		unroff | sed 's/  .*//')
	[ "$n" -ge 6 ]
}
