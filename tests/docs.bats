#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages and completions against the binaries: the same options, fields and commands.
load test_helper

# The tools whose man page, --help and completions are checked against each other.
TOOLS=(rm-topo rm-cpuset rm-hugepages rm-devices rm-bench rm-class rm-storage rm-qos)
MAN7="$RM_SRCDIR/man/rmtools.7"
MAN1="$RM_SRCDIR/man/rm-topo.1" # for the tests of rm-topo's page alone

# ---- helpers ----

# The man page, bash completion and zsh completion of tool $1.
man1() {
	printf '%s\n' "$RM_SRCDIR/man/$1.1"
}
bash_completion_of() {
	printf '%s\n' "$RM_SRCDIR/completions/bash/$1"
}
zsh_completion_of() {
	printf '%s\n' "$RM_SRCDIR/completions/zsh/_$1"
}

# The commands of tool $1, one a line.
commands() {
	"$1" --list-commands
}

# Whether the lines of LIST include LINE exactly, without a process: has_line LIST LINE
has_line() {
	[[ $'\n'"$1"$'\n' == *$'\n'"$2"$'\n'* ]]
}

# The option column of "TOOL [CMD] --help", one option a line as a man page tag writes it:
# "-o, --output LIST", "--bytes", "-?, --help". argp indents options by 2 or 6 columns and wrapped
# descriptions by 29, so an indent of at most 8 marks an option. help_specs TOOL [CMD]
help_specs() {
	# shellcheck disable=SC2086 # no command: the global --help
	"$1" $2 --help | sed -n 's/^ \{1,8\}\(-[^ ].*\)$/\1/p' | sed -e 's/  .*//' -e 's/\([^[]\)=/\1 /'
}

# A page without its example lines that run another of the tools ("# rm\-cpuset alloc ..."),
# whose options are that tool's: other_tools_lines TOOL <PAGE
other_tools_lines() {
	awk -v own="${1//-/\\\\-}" '/^[#$] rm\\-[a-z]+/ && index($2, own) != 1 { next } { print }'
}

# The long options of "TOOL [CMD] --help", one a line, sorted. help_long TOOL [CMD]
help_long() {
	help_specs "$1" "$2" | grep -o -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u
}

# The fields of "TOOL CMD --list-columns --raw" (its output in $output).
list_columns() {
	run -0 "$1" "$2" --list-columns --raw
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

# The completions bash offers for LINE, sorted, one a line; LINE starts with the tool's name.
# "|" marks the cursor (default: the end of LINE). What the completion asks of compopt is written
# to $BATS_TEST_TMPDIR/compopt.
bash_complete() {
	local tool=${1%% *}
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
		"_${4//-/_}" "$4" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		if ((${#COMPREPLY[@]})); then
			printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
		fi
	' _ "$(bash_completion_of "$tool")" "$1" "$BATS_TEST_TMPDIR" "$tool"
}

setup() {
	local tool
	for tool in "${TOOLS[@]}"; do
		command -v "$tool" >/dev/null || skip "$tool is not built"
	done
}

# ---- man pages and --help: the same options ----

@test "docs: each tool's page names every long option of its --help and of each command's" {
	local tool page cmd opt missing=''
	for tool in "${TOOLS[@]}"; do
		page=$(<"$(man1 "$tool")")
		for cmd in "" $(commands "$tool"); do
			for opt in $(help_long "$tool" "$cmd"); do
				# roff writes every '-' of an option as '\-'
				[[ $page == *"${opt//-/\\-}"* ]] ||
					missing+=" $tool ${cmd:-(global)}:$opt"
			done
		done
	done
	[ -n "$(help_long rm-topo cpus)" ]
	[ -n "$(help_long rm-cpuset alloc)" ]
	assert_equal "$missing" ""
}

@test "docs: each tool's page names no option that the tool lacks" {
	local tool page all opt extra='' n
	for tool in "${TOOLS[@]}"; do
		page=$(man1 "$tool")
		all=$(for cmd in "" $(commands "$tool"); do help_specs "$tool" "$cmd"; done)
		n=0
		# every --long in the page, and every -x in an option tag
		while IFS= read -r opt; do
			printf '%s\n' "$all" | grep -qE -- "(^| )${opt//\?/[?]}(,| |\\[|\$)" || extra+=" $tool:$opt"
			n=$((n + 1))
		done < <(other_tools_lines "$tool" <"$page" |
			grep -o -- '\\-\\-[a-z][a-z0-9]*\(\\-[a-z0-9]\+\)*' | unroff | sort -u
			option_tags <"$page" | grep -o -- '^-[^-]' | sort -u)
		[ "$n" -gt 20 ]
	done
	assert_equal "$extra" ""
}

@test "docs: each tool's page pairs short and long options and names their values as --help does" {
	local tool tagged cmd spec missing=''
	for tool in "${TOOLS[@]}"; do
		tagged=$(option_tags <"$(man1 "$tool")")
		for cmd in "" $(commands "$tool"); do
			while IFS= read -r spec; do
				has_line "$tagged" "$spec" || missing+=" $tool ${cmd:-(global)}:'$spec'"
			done < <(help_specs "$tool" "$cmd")
		done
	done
	assert_equal "$missing" ""
}

@test "docs: each command's own options are under COMMANDS, in a part that names the command" {
	local tool page global cmd title spec problems='' named
	local -A specs tagged words # each command's --help options; each COMMANDS part's option tags and words
	for tool in "${TOOLS[@]}"; do
		page=$(man1 "$tool")
		global=$(help_specs "$tool" "")
		specs=() tagged=() words=()
		for cmd in $(commands "$tool"); do
			specs[$cmd]=$(help_specs "$tool" "$cmd")
		done
		while IFS= read -r title; do
			tagged[$title]=$(man_subsection "$page" COMMANDS "$title" | option_tags)
			# command names are lower case and may hold '-' (accept-topology) and digits (c2c)
			words[$title]=" $(printf '%s' "$title" | tr -c 'a-z0-9-' ' ') "
		done < <(man_titles "$page" COMMANDS)
		for cmd in "${!specs[@]}"; do
			# options the global level does not have ("-c, --cpus SET", "-o, --output FILE")
			while IFS= read -r spec; do
				[ -n "$spec" ] && ! has_line "$global" "$spec" || continue
				named=
				for title in "${!tagged[@]}"; do
					[[ ${words[$title]} == *" $cmd "* ]] && has_line "${tagged[$title]}" "$spec" &&
						named=1
				done
				[ -n "$named" ] || problems+=" $tool $cmd:'$spec'"
			done <<<"${specs[$cmd]}"
		done
		# and the other way: an option under a part is an option of every command the part names
		for title in "${!tagged[@]}"; do
			for cmd in ${words[$title]}; do
				[ -n "${specs[$cmd]+set}" ] || continue
				while IFS= read -r spec; do
					[ -z "$spec" ] || has_line "${specs[$cmd]}" "$spec" ||
						problems+=" $tool '$title' names '$spec'"
				done <<<"${tagged[$title]}"
			done
		done
	done
	assert_equal "$problems" ""
}

@test "docs: the shared options are under OPTIONS, and OPTIONS has no other" {
	local tool global tagged spec problems=''
	for tool in "${TOOLS[@]}"; do
		global=$(help_specs "$tool" "")
		tagged=$(man_section "$(man1 "$tool")" OPTIONS | option_tags)
		[ -n "$tagged" ]
		while IFS= read -r spec; do
			printf '%s\n' "$tagged" | grep -qxF -- "$spec" || problems+=" $tool missing:'$spec'"
		done <<<"$global"
		while IFS= read -r spec; do
			printf '%s\n' "$global" | grep -qxF -- "$spec" || problems+=" $tool extra:'$spec'"
		done <<<"$tagged"
	done
	assert_equal "$problems" ""
}

@test "docs: -h is --help and --version names the tool, for each tool and each command" {
	local tool cmd version
	version=$(cat "$RM_SRCDIR/VERSION")
	for tool in "${TOOLS[@]}"; do
		for cmd in "" $(commands "$tool"); do
			# shellcheck disable=SC2086 # no command: the tool's own options
			run -0 --separate-stderr "$tool" $cmd -h
			assert_equal "$stderr" ""
			# shellcheck disable=SC2086
			assert_equal "$output" "$("$tool" $cmd --help)"
			assert_line --regexp '^  -h, -\?, --help '
			# shellcheck disable=SC2086
			run -0 --separate-stderr "$tool" $cmd --version
			assert_output "$tool (rmtools) $version"
			# shellcheck disable=SC2086
			run -0 "$tool" $cmd -V
			assert_output "$tool (rmtools) $version"
		done
	done
	# grouped with other short options, as getopt allows
	run -0 rm-topo cpus -th
	assert_line --index 0 --partial 'Usage: rm-topo cpus '
}

@test "docs: commands without output modes say so in the page, the others do not" {
	local tool cmd text problems='' without
	for tool in "${TOOLS[@]}"; do
		without=0
		for cmd in $(commands "$tool"); do
			text=$(man_subsection "$(man1 "$tool")" COMMANDS "$cmd" | unroff | tr '\n' ' ')
			[ -n "$text" ] || { problems+=" $tool $cmd:no-part"; continue; }
			if help_long "$tool" "$cmd" | grep -qx -- --json; then
				[[ $text != *"no output-mode options"* ]] || problems+=" $tool $cmd:says-none"
			else
				without=$((without + 1))
				[[ $text == *"no output-mode options"* ]] || problems+=" $tool $cmd:says-nothing"
			fi
		done
		# every command of rm-bench prints records
		[ "$without" -gt 0 ] || [ "$tool" = rm-bench ]
	done
	assert_equal "$problems" ""
}

# ---- OUTPUT and --list-columns: the same fields ----

@test "docs: OUTPUT lists every field of every command, in order, with its type and default" {
	local tool page cmd kind title expected actual problems=''
	for tool in "${TOOLS[@]}"; do
		page=$(man1 "$tool")
		for cmd in $(commands "$tool"); do
			help_long "$tool" "$cmd" | grep -qx -- --list-columns || continue
			list_columns "$tool" "$cmd"
			[ -n "$output" ]
			expected=$(printf '%s\n' "$output" | awk '{
				printf "%s (%s%s)\n", $1, $2, $3 == "no" ? ", not shown by default" : "" }')
			kind=${output%% *}
			title=$(man_titles "$page" OUTPUT | grep -E "^$kind records: " |
				grep -E "$tool $cmd(,|\$)")
			if [ -z "$title" ]; then
				problems+=" $tool $cmd:no-'$kind records'-part"
				continue
			fi
			actual=$(man_subsection "$page" OUTPUT "$title" |
				sed -n 's/^\.BR \([a-z0-9_]*\) " (\(.*\))"$/\1 (\2)/p')
			[ "$actual" = "$expected" ] ||
				problems+=$'\n'"$tool $cmd: page has"$'\n'"$actual"$'\n'"binary has"$'\n'"$expected"
		done
	done
	assert_equal "$problems" ""
}

@test "docs: OUTPUT lists the fields of --list-columns records" {
	local tool cmd keys documented
	for tool in "${TOOLS[@]}"; do
		# the first command that lists columns
		for cmd in $(commands "$tool"); do
			help_long "$tool" "$cmd" | grep -qx -- --list-columns && break
		done
		run -0 "$tool" "$cmd" --list-columns
		keys=$(printf '%s\n' "${lines[0]}" | grep -o '\(^\| \)[a-z_]*=' | tr -d ' =')
		documented=$(man_subsection "$(man1 "$tool")" OUTPUT "column records: --list-columns" |
			sed -n 's/^\.BR \([a-z_]*\) ".*/\1/p')
		[ -n "$keys" ]
		assert_equal "$documented" "$keys"
	done
}

@test "docs: the types in OUTPUT are the ones --list-columns uses" {
	local tool types documented t missing=''
	for tool in "${TOOLS[@]}"; do
		types=$(for cmd in $(commands "$tool"); do
			help_long "$tool" "$cmd" | grep -qx -- --list-columns || continue
			list_columns "$tool" "$cmd" >/dev/null
			printf '%s\n' "$output" | cut -d' ' -f2
		done | sort -u)
		documented=$(man_section "$(man1 "$tool")" OUTPUT | awk '/^\.SS/ { exit } 1' | tags)
		for t in $types; do
			printf '%s\n' "$documented" | grep -qx -- ".B $t" || missing+=" $tool:$t"
		done
		[ -n "$types" ]
	done
	assert_equal "$missing" ""
}

@test "docs: every listing of rm-cpuset answers --list-columns without operands" {
	local cmd failing=''
	for cmd in $(commands rm-cpuset); do
		help_long rm-cpuset "$cmd" | grep -qx -- --list-columns || continue
		rm-cpuset "$cmd" --list-columns --raw >/dev/null 2>&1 || failing+=" $cmd"
	done
	assert_equal "$failing" ""
}

@test "docs: rm-cpuset OUTPUT lists the fields of show's node records, in order" {
	local keys documented
	run -0 rm-cpuset --topology "package:2 numa:2 core:4 pu:2" show
	keys=$(printf '%s\n' "$output" | grep '^node=' | head -n 1 | grep -o '\(^\| \)[a-z_]*=' |
		tr -d ' =')
	documented=$(man_subsection "$(man1 rm-cpuset)" OUTPUT "node records: rm-cpuset show" |
		sed -n 's/^\.BR \([a-z_]*\) ".*/\1/p')
	[ -n "$keys" ]
	assert_equal "$documented" "$keys"
	# with -o, which applies to the pools only, they keep all their fields
	run -0 rm-cpuset --topology "package:2 numa:2 core:4 pu:2" show -o pool
	assert_line "node=0 cpus=0-7 free=0-7 nfree=8 exclusive=\"\" reserved=\"\" shared=0-7"
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
		/proc/* | /sys/devices/* | /sys/kernel/* | /sys/class/*)
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

# ---- rm-cpuset(1): examples ----

# The "$ command" lines of the .EX blocks of section EXAMPLES of PAGE, each with the lines it
# shows: "command<TAB>line;line;...", one command a line, in page order, a new block marked by an
# empty line. Folded lines (" \" and an indented continuation) are joined.
example_pairs() {
	man_section "$1" EXAMPLES | unroff | awk '
		function flush() { if (cmd != "") print cmd "\t" out; cmd = ""; out = "" }
		/^\.EX/ { on = 1; print ""; next }
		/^\.EE/ { flush(); on = 0; next }
		!on { next }
		fold != "" { sub(/^ +/, ""); $0 = fold $0; fold = "" }
		/ \\$/ { fold = substr($0, 1, length($0) - 1); next }
		/^\$ / { flush(); cmd = substr($0, 3); next }
		/^# / { flush(); next }
		cmd != "" { out = out == "" ? $0 : out ";" $0 }'
}

@test "docs: the rm-cpuset example session prints what rm-cpuset prints" {
	local cmd expected got n=0 failed='' block='' in_session=
	# the block that starts by exporting RM_TOPOLOGY: run in order against one state
	export TMPDIR=$BATS_TEST_TMPDIR
	while IFS=$'\t' read -r cmd expected; do
		if [ -z "$cmd" ]; then
			[ -n "$in_session" ] && break
			block=new
			continue
		fi
		if [ "$block" = new ] && [[ $cmd == "export RM_TOPOLOGY="* ]]; then
			in_session=1
		fi
		block=
		[ -n "$in_session" ] || continue
		if [[ $cmd == export\ * ]]; then
			eval "$cmd"
			continue
		fi
		got=$(bash -c "$cmd" 2>/dev/null | paste -sd ';')
		[[ $got == "$expected" ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		n=$((n + 1))
	done < <(example_pairs "$(man1 rm-cpuset)")
	[ -n "$in_session" ]
	[[ $RM_STATE_DIR == "$BATS_TEST_TMPDIR"/* ]]
	[ "$n" -ge 8 ]
	assert_equal "$failed" ""
}

@test "docs: the other rm-cpuset command lines of EXAMPLES are valid" {
	local cmdline failed='' n=0
	export RM_TOPOLOGY="package:2 numa:2 core:4 pu:2"
	# every "$ rm-cpuset" and "# rm-cpuset" line outside the session, each against a state of its
	# own with 4 CPUs reserved; run and apply need this machine: their options parse, then they
	# refuse the described topology
	while IFS= read -r cmdline; do
		export RM_STATE_DIR=$BATS_TEST_TMPDIR/state$n
		rm-cpuset reserve --count 4 --strict >/dev/null
		run bash -c "$cmdline"
		case $cmdline in
		*"rm-cpuset run "*) [[ $output == *"run needs this machine's topology"* ]] ;;
		*"rm-cpuset apply"*) [[ $output == *"no cgroups are kept for this topology"* ]] ;;
		*) [ "$status" -eq 0 ] ;;
		esac || failed+=$'\n'"$cmdline: $status: $output"
		n=$((n + 1))
	done < <(man_section "$(man1 rm-cpuset)" EXAMPLES | unroff | awk '
		/^\.EX/ { on = 1; first = 1; next }
		/^\.EE/ { on = 0; next }
		!on { next }
		first && /^\$ export RM_TOPOLOGY=/ { session = 1 }
		first && !/^\$ export RM_TOPOLOGY=/ { session = 0 }
		{ first = 0 }
		!session && /^[$#] rm-cpuset / { print substr($0, 3) }')
	[ "$n" -ge 8 ]
	assert_equal "$failed" ""
}

# ---- bash completion ----

@test "bash completion: the commands, from --list-commands" {
	local tool
	for tool in "${TOOLS[@]}"; do
		bash_complete "$tool "
		assert_output "$(commands "$tool" | LC_ALL=C sort)"
	done
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
	local tool cmd
	for tool in "${TOOLS[@]}"; do
		for cmd in "" $(commands "$tool"); do
			bash_complete "$tool ${cmd:+$cmd }--"
			assert_output "$(help_long "$tool" "$cmd")"
		done
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
	local given=node,cpus,memory,free,distances,memory_only,tier,nearest
	bash_complete "rm-topo nodes -o $given,"
	assert_output "$(for f in access{0,1}_{initiators,read_bandwidth,read_latency,write_bandwidth,write_latency} \
		memory_side_caches origin packages used; do echo "$given,$f"; done)"
}

@test "bash completion: options before the command" {
	# the summary's fields without a command, the later command's when there is one
	bash_complete 'rm-topo -o co'
	assert_output cores
	bash_complete 'rm-topo -o co| cpus'
	assert_output "$(printf '%s\n' core core_id)"
	# an option's value is not the command
	bash_complete "rm-topo --sysroot $BATS_TEST_TMPDIR "
	assert_output "$(commands rm-topo | LC_ALL=C sort)"
	bash_complete "rm-topo -J --sysroot $BATS_TEST_TMPDIR nodes --p"
	assert_output --package
	bash_complete 'rm-topo -t --'
	assert_output "$(help_long rm-topo '')"
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
	assert_output "$(printf '%s\n' nfd nrt)"
	bash_complete 'rm-topo calc no'
	assert_output node:
	bash_complete 'rm-topo calc --objects p'
	assert_output package
	bash_complete 'rm-topo cpus --node '
	assert_output ''
	bash_complete 'rm-topo calc node:'
	assert_output ''
}

# State with two owners for the owner completions: RM_STATE_DIR and RM_TOPOLOGY stay exported.
cpuset_owners() {
	export RM_TOPOLOGY="package:2 numa:2 core:4 pu:2" RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	rm-cpuset reserve --count 2 >/dev/null
	rm-cpuset alloc --count 4 --owner db >/dev/null
	rm-cpuset alloc --count 2 --owner batch.1 >/dev/null
}

@test "bash completion: rm-cpuset commands, options, fields and values" {
	bash_complete 'rm-cpuset a'
	assert_output "$(printf '%s\n' accept-topology alloc apply attach)"
	bash_complete 'rm-cpuset alloc --d'
	assert_output "$(printf '%s\n' --distribute-cpus-across-cores --distribute-cpus-across-numa \
		--dry-run)"
	bash_complete 'rm-cpuset --no-'
	assert_output --no-cgroups
	bash_complete 'rm-cpuset list -o c'
	assert_output "$(printf '%s\n' cgroup cores count cpus created)"
	bash_complete 'rm-cpuset -o o'
	assert_output owners
	bash_complete 'rm-cpuset apply --output=cgroup,a'
	assert_output cgroup,action
	bash_complete 'rm-cpuset export '
	assert_output "$(printf '%s\n' kubelet slurm systemd)"
	mkdir "$BATS_TEST_TMPDIR/slurmdir"
	bash_complete "rm-cpuset export slurm -o $BATS_TEST_TMPDIR/slurm"
	assert_output "$BATS_TEST_TMPDIR/slurmdir"
	bash_complete 'rm-cpuset alloc --policy '
	assert_output "$(printf '%s\n' best-effort none restricted single-numa-node)"
	bash_complete 'rm-cpuset export --policy=s'
	assert_output single-numa-node
	bash_complete 'rm-cpuset run -c 2 --policy r'
	assert_output restricted
	mkdir "$BATS_TEST_TMPDIR/rootdir"
	bash_complete "rm-cpuset export systemd --root $BATS_TEST_TMPDIR/roo"
	assert_output "$BATS_TEST_TMPDIR/rootdir"
	# counts and sets are not completed
	bash_complete 'rm-cpuset alloc --count '
	assert_output ''
	bash_complete 'rm-cpuset reserve '
	assert_output ''
}

@test "bash completion: rm-cpuset --near offers - and the PCI devices" {
	mkdir -p "$BATS_TEST_TMPDIR/root/sys/bus/pci/devices/0000:3b:00.0" \
		"$BATS_TEST_TMPDIR/root/sys/bus/pci/devices/0000:af:00.1"
	RM_SYSROOT=$BATS_TEST_TMPDIR/root bash_complete 'rm-cpuset alloc --near '
	assert_output "$(printf '%s\n' - 0000:3b:00.0 0000:af:00.1)"
	bash_complete "rm-cpuset --sysroot $BATS_TEST_TMPDIR/root alloc --near 0000:a"
	# bash-completion leaves out what is left of the last ':' of the word, as readline wants
	assert_output af:00.1
}

@test "bash completion: rm-cpuset --add-mems offers the memory-only NUMA nodes" {
	RM_SYSROOT=$SNAPSHOTS/x86-2s-memory-tiers bash_complete 'rm-cpuset alloc --add-mems '
	assert_output "$(printf '%s\n' 2 3)"
	bash_complete "rm-cpuset --sysroot $SNAPSHOTS/x86-2s-memory-tiers run -c 2 --add-mems 3"
	assert_output 3
	bash_complete "rm-cpuset --sysroot $SNAPSHOTS/x86-2s-smt alloc --add-mems "
	assert_output ''
}

@test "bash completion: rm-cpuset --governor offers the machine's cpufreq governors, --min-freq max" {
	d=$BATS_TEST_TMPDIR/root/sys/devices/system/cpu
	mkdir -p "$d/cpu0/cpufreq" "$d/cpu1/cpufreq"
	echo 'performance powersave' >"$d/cpu0/cpufreq/scaling_available_governors"
	echo 'performance powersave' >"$d/cpu1/cpufreq/scaling_available_governors"
	RM_SYSROOT=$BATS_TEST_TMPDIR/root bash_complete 'rm-cpuset alloc --governor '
	assert_output "$(printf '%s\n' performance powersave)"
	bash_complete "rm-cpuset --sysroot $BATS_TEST_TMPDIR/root run -c 2 --governor=p"
	assert_output "$(printf '%s\n' performance powersave)"
	bash_complete 'rm-cpuset alloc --min-freq '
	assert_output max
	bash_complete 'rm-cpuset alloc --latency '
	assert_output ''
}

@test "bash completion: rm-cpuset owners come from the state" {
	cpuset_owners
	bash_complete 'rm-cpuset release '
	assert_output "$(printf '%s\n' batch.1 db)"
	bash_complete 'rm-cpuset release d'
	assert_output db
	# an owner given already is not offered again
	bash_complete 'rm-cpuset release db '
	assert_output batch.1
	bash_complete 'rm-cpuset list '
	assert_output "$(printf '%s\n' batch.1 db)"
	bash_complete 'rm-cpuset -t list b'
	assert_output batch.1
	bash_complete 'rm-cpuset run --owner '
	assert_output "$(printf '%s\n' batch.1 db)"
	bash_complete 'rm-cpuset run --owner=d'
	assert_output db
	# alloc names a new owner
	bash_complete 'rm-cpuset alloc --owner '
	assert_output ''
	# another state: none
	RM_STATE_DIR=$BATS_TEST_TMPDIR/other bash_complete 'rm-cpuset release '
	assert_output ''
	# --topology on the line is passed on, for a state made for that machine
	unset RM_TOPOLOGY
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/planned
	rm-cpuset --topology pu:8 alloc --count 2 --owner solo >/dev/null
	bash_complete 'rm-cpuset --topology pu:8 release '
	assert_output solo
	bash_complete 'rm-cpuset list --topology=pu:8 '
	assert_output solo
}

@test "bash completion: rm-cpuset run completes the command to run" {
	bash_complete 'rm-cpuset run --count 2 -- ech'
	assert_line echo
	bash_complete 'rm-cpuset run --shared ech'
	assert_line echo
	bash_complete 'rm-cpuset run --count 2 --policy best-effort ech'
	assert_line echo
	# the command's own completion takes over: here rm-cpuset's
	bash_complete 'rm-cpuset run --count 2 -- rm-cpuset '
	assert_output "$(commands rm-cpuset | LC_ALL=C sort)"
	bash_complete 'rm-cpuset run --shared -- rm-cpuset export --root'
	assert_output --root
	# options of run before the command
	bash_complete 'rm-cpuset run --sh'
	assert_output --shared
	bash_complete 'rm-cpuset run -c 2 --o'
	assert_output --owner
}

@test "bash completion: rm-hugepages sizes, fields, users, groups, formats" {
	mkdir -p "$BATS_TEST_TMPDIR/hp/sys/kernel/mm/hugepages/hugepages-64kB" \
		"$BATS_TEST_TMPDIR/hp/sys/kernel/mm/hugepages/hugepages-16777216kB"
	export RM_SYSROOT=$BATS_TEST_TMPDIR/hp
	bash_complete 'rm-hugepages reserve '
	assert_output "$(printf '%s\n' 16G 64K)"
	bash_complete 'rm-hugepages release 6'
	assert_output 64K
	# counts are not completed; nor are the sizes once given
	bash_complete 'rm-hugepages reserve 64K '
	assert_output ''
	bash_complete 'rm-hugepages limit web '
	assert_output "$(printf '%s\n' 16G 64K)"
	bash_complete 'rm-hugepages limit web 64K '
	assert_output max
	bash_complete 'rm-hugepages plan 1'
	assert_output '16G:'
	bash_complete 'rm-hugepages mount --size '
	assert_output "$(printf '%s\n' 16G 64K)"
	unset RM_SYSROOT
	bash_complete "rm-hugepages --sysroot $BATS_TEST_TMPDIR/hp plan --default 1"
	assert_output 16G
	bash_complete 'rm-hugepages show -o pe'
	assert_output persistent
	bash_complete 'rm-hugepages mount -o max'
	assert_output max_size
	bash_complete 'rm-hugepages limit -o rsvd'
	assert_output "$(printf '%s\n' rsvd_limit rsvd_usage)"
	bash_complete 'rm-hugepages mount --gid roo'
	assert_output root
	bash_complete 'rm-hugepages mount --uid roo'
	assert_output root
	bash_complete 'rm-hugepages export '
	assert_output kubelet
	bash_complete 'rm-hugepages reserve --no'
	assert_output "$(printf '%s\n' --no-compact --node --noheadings)"
	mkdir "$BATS_TEST_TMPDIR/mntdir"
	bash_complete "rm-hugepages mount $BATS_TEST_TMPDIR/mnt"
	assert_output "$BATS_TEST_TMPDIR/mntdir"
}

@test "bash completion: rm-bench kernels, page sizes, stores, metrics, fields and result files" {
	bash_complete 'rm-bench c'
	assert_output "$(printf '%s\n' c2c compare)"
	bash_complete 'rm-bench mem --op copy,t'
	assert_output copy,triad
	grep -qx -- '-o nospace' "$BATS_TEST_TMPDIR/compopt"
	bash_complete 'rm-bench lat --pages 4K,'
	assert_output "$(printf '%s\n' 4K,1G 4K,2M)"
	bash_complete 'rm-bench mem --stores '
	assert_output "$(printf '%s\n' normal nt)"
	bash_complete 'rm-bench compare --metric p'
	assert_output "$(printf '%s\n' p99 p999)"
	bash_complete 'rm-bench compare --ignore=cpu'
	assert_output "$(printf '%s\n' cpu cpus)"
	bash_complete 'rm-bench compare --al'
	assert_output "$(printf '%s\n' --allow-missing --alpha)"
	bash_complete 'rm-bench jitter -o dma'
	assert_output dma_latency_us
	bash_complete 'rm-bench -o gov'
	assert_output governor
	touch "$BATS_TEST_TMPDIR/base.json"
	bash_complete "rm-bench compare $BATS_TEST_TMPDIR/base."
	assert_output "$BATS_TEST_TMPDIR/base.json"
	bash_complete 'rm-bench plot --kind m'
	assert_output matrix
	touch "$BATS_TEST_TMPDIR/pic.svg"
	bash_complete "rm-bench plot --output $BATS_TEST_TMPDIR/pic"
	assert_output "$BATS_TEST_TMPDIR/pic.svg"
	bash_complete "rm-bench plot --kind latency $BATS_TEST_TMPDIR/base."
	assert_output "$BATS_TEST_TMPDIR/base.json"
	# counts, sizes, times and CPU sets are not completed
	bash_complete 'rm-bench mem --size '
	assert_output ''
	bash_complete 'rm-bench jitter --cpus '
	assert_output ''
	# an optional value goes in the same word: the next word is not it
	bash_complete 'rm-bench mem --neighbour --sto'
	assert_output --stores
	bash_complete 'rm-bench mem --neighbour=0 --sto'
	assert_output --stores
}

# ---- zsh completion ----

@test "zsh completion: valid zsh, asks the binary" {
	local tool file
	command -v zsh >/dev/null || skip "zsh is not installed"
	for tool in "${TOOLS[@]}"; do
		file=$(zsh_completion_of "$tool")
		run -0 zsh -n "$file"
		run -0 head -n 1 "$file"
		assert_output "#compdef $tool"
		grep -q -- '--list-commands' "$file"
		grep -q -- '--list-columns' "$file"
		grep -q '_call_program' "$file"
		grep -q '_arguments' "$file"
	done
}

# What zsh offers for each LINE, typed at an interactive zsh with the completions of
# completions/zsh: "== LINE" and then one offered word a line. zsh_capture LINE...
zsh_capture() {
	command -v zsh >/dev/null || skip "zsh is not installed"
	zsh -fc 'zmodload zsh/zpty' 2>/dev/null || skip "zsh has no zpty module"
	# an interactive zsh on a pseudo-terminal; compadd prints what it is given. Each line is typed
	# at a fresh prompt and completed with a TAB, then a marker command shows where that
	# completion's output ends (typed as "MARK""-N" so that its echo does not match).
	cat >"$BATS_TEST_TMPDIR/capture.zsh" <<-'EOF'
	zmodload zsh/zpty || exit 3
	local out l n=0
	zpty z zsh -f -i
	zpty -w z "PS1='READY>'; fpath=(${(q)${(s.:.)1}} \$fpath); autoload -U compinit; compinit -u -D"
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
	run -0 timeout 60 zsh -f "$BATS_TEST_TMPDIR/capture.zsh" \
		"${ZSH_FPATH:-$RM_SRCDIR/completions/zsh}" "$@"
}

# The words offered for LINE in the output of zsh_capture ALL: offered ALL LINE
offered() {
	printf '%s\n' "$1" | awk -v l="== $2" '$0 == l { on = 1; next } /^== / { on = 0 } on' |
		LC_ALL=C sort
}

@test "zsh completion: commands, options, fields and locations, from the binary" {
	zsh_capture 'rm-topo ' 'rm-topo cpus --o' 'rm-topo cpus -o cpu,co' 'rm-topo -o ma' \
		'rm-topo calc --' 'rm-topo calc n' 'rm-topo export '
	local all=$output
	assert_equal "$(offered "$all" 'rm-topo ')" "$(commands rm-topo | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-topo cpus --o')" "$(printf '%s\n' --offline --online --output)"
	assert_equal "$(offered "$all" 'rm-topo cpus -o cpu,co')" "$(printf '%s\n' cpu,core cpu,core_id)"
	assert_equal "$(offered "$all" 'rm-topo -o ma')" machine
	assert_equal "$(offered "$all" 'rm-topo calc --')" "$(help_long rm-topo calc)"
	assert_equal "$(offered "$all" 'rm-topo calc n')" node:
	assert_equal "$(offered "$all" 'rm-topo export ')" "$(printf '%s\n' nfd nrt)"
}

# make install of a copy of the sources configured with --prefix=$1 (and the rest of the
# arguments), its data files only, under DESTDIR $BATS_TEST_TMPDIR/dest$1
install_data() {
	local prefix=$1 src=$BATS_TEST_TMPDIR/src
	shift
	[ -d "$src" ] || make -s -C "$RM_BUILDDIR" distdir distdir="$src" >/dev/null
	(cd "$src" && ./configure -q --cache-file="$BATS_TEST_TMPDIR/config.cache" \
		--prefix="$prefix" "$@" >/dev/null && make -s install-data DESTDIR="$BATS_TEST_TMPDIR/dest$prefix" >/dev/null)
}

@test "zsh completion: make install puts them where zsh -f finds them, with prefix /usr and /usr/local" {
	local prefix dest tool all fp
	command -v zsh >/dev/null || skip "zsh is not installed"
	for prefix in /usr /usr/local; do
		install_data "$prefix"
		dest=$BATS_TEST_TMPDIR/dest$prefix
		# zsh's own fpath as it would be after "make install" (every directory of it under DESTDIR),
		# then its functions less the directories other installs of rmtools may have filled
		fp=$(zsh -fc 'local -a a; a=($1$^fpath ${fpath:#*/(site-functions|vendor-*)}); print -r -- ${(j.:.)a}' \
			_ "$dest")
		run -0 zsh -fc 'fpath=(${(s.:.)1}); autoload -U compinit && compinit -u -D || exit 3
			shift; local -a f; for t; do f=(${^fpath}/_$t(N)); print -r -- "$t ${_comps[$t]-} $f[1]"; done' \
			_ "$fp" "${TOOLS[@]}"
		for tool in "${TOOLS[@]}"; do
			assert_line --regexp "^$tool _$tool $dest$prefix/share/zsh/[a-z-]+/_$tool\$"
		done
		# the same directories at an interactive zsh (those of them that exist: a terminal line
		# is short)
		ZSH_FPATH=$(zsh -fc 'local -a a; a=($1$^fpath(N/)); print -r -- ${(j.:.)a}' _ "$dest") \
			zsh_capture "${TOOLS[@]/%/ }"
		all=$output
		for tool in "${TOOLS[@]}"; do
			assert_equal "$(offered "$all" "$tool ")" "$(commands "$tool" | LC_ALL=C sort)"
		done
	done
	# the directory zsh searches for each prefix; --with-zshcompletiondir still decides
	[ -f "$BATS_TEST_TMPDIR/dest/usr/usr/share/zsh/vendor-completions/_rm-topo" ]
	[ -f "$BATS_TEST_TMPDIR/dest/usr/local/usr/local/share/zsh/site-functions/_rm-topo" ]
	install_data /opt/rmtools --with-zshcompletiondir=/opt/zsh
	[ -f "$BATS_TEST_TMPDIR/dest/opt/rmtools/opt/zsh/_rm-topo" ]
}

@test "zsh completion: rm-cpuset commands, options, fields, owners and the command to run" {
	cpuset_owners
	mkdir -p "$BATS_TEST_TMPDIR/root/sys/bus/pci/devices/0000:3b:00.0"
	RM_SYSROOT=$BATS_TEST_TMPDIR/root zsh_capture 'rm-cpuset ' 'rm-cpuset alloc --po' \
		'rm-cpuset alloc --policy ' 'rm-cpuset list -o ow' 'rm-cpuset release ' \
		'rm-cpuset release db ' 'rm-cpuset run --owner ' 'rm-cpuset alloc --owner ' \
		'rm-cpuset export ' 'rm-cpuset run --count 2 -- ech' 'rm-cpuset alloc --near '
	local all=$output
	RM_SYSROOT=$SNAPSHOTS/x86-2s-memory-tiers zsh_capture 'rm-cpuset alloc --add-mems '
	assert_equal "$(offered "$output" 'rm-cpuset alloc --add-mems ')" "$(printf '%s\n' 2 3)"
	assert_equal "$(offered "$all" 'rm-cpuset ')" "$(commands rm-cpuset | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-cpuset alloc --po')" --policy
	assert_equal "$(offered "$all" 'rm-cpuset alloc --policy ')" \
		"$(printf '%s\n' best-effort none restricted single-numa-node)"
	assert_equal "$(offered "$all" 'rm-cpuset list -o ow')" owner
	assert_equal "$(offered "$all" 'rm-cpuset release ')" "$(printf '%s\n' batch.1 db)"
	assert_equal "$(offered "$all" 'rm-cpuset release db ')" batch.1
	assert_equal "$(offered "$all" 'rm-cpuset run --owner ')" "$(printf '%s\n' batch.1 db)"
	assert_equal "$(offered "$all" 'rm-cpuset alloc --owner ')" ''
	assert_equal "$(offered "$all" 'rm-cpuset export ')" "$(printf '%s\n' kubelet slurm systemd)"
	offered "$all" 'rm-cpuset run --count 2 -- ech' | grep -qx echo
	assert_equal "$(offered "$all" 'rm-cpuset alloc --near ')" "$(printf '%s\n' - 0000:3b:00.0)"
	d=$BATS_TEST_TMPDIR/root/sys/devices/system/cpu/cpu0/cpufreq
	mkdir -p "$d" && echo 'performance schedutil' >"$d/scaling_available_governors"
	RM_SYSROOT=$BATS_TEST_TMPDIR/root zsh_capture 'rm-cpuset alloc --governor ' \
		'rm-cpuset run -c 1 --min-freq '
	assert_equal "$(offered "$output" 'rm-cpuset alloc --governor ')" \
		"$(printf '%s\n' performance schedutil)"
	assert_equal "$(offered "$output" 'rm-cpuset run -c 1 --min-freq ')" max
}

@test "zsh completion: rm-hugepages sizes, fields and formats" {
	mkdir -p "$BATS_TEST_TMPDIR/hp/sys/kernel/mm/hugepages/hugepages-64kB"
	RM_SYSROOT=$BATS_TEST_TMPDIR/hp zsh_capture 'rm-hugepages ' 'rm-hugepages reserve ' \
		'rm-hugepages mount --size ' 'rm-hugepages show -o pe' 'rm-hugepages export ' \
		'rm-hugepages release --sp'
	local all=$output
	assert_equal "$(offered "$all" 'rm-hugepages ')" "$(commands rm-hugepages | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-hugepages reserve ')" 64K
	assert_equal "$(offered "$all" 'rm-hugepages mount --size ')" 64K
	assert_equal "$(offered "$all" 'rm-hugepages show -o pe')" persistent
	assert_equal "$(offered "$all" 'rm-hugepages export ')" kubelet
	assert_equal "$(offered "$all" 'rm-hugepages release --sp')" --spread
}

# ---- rm-devices ----

@test "docs: every listing of rm-devices answers --list-columns without operands" {
	local cmd failing=''
	for cmd in $(commands rm-devices); do
		help_long rm-devices "$cmd" | grep -qx -- --list-columns || continue
		rm-devices "$cmd" --list-columns --raw >/dev/null 2>&1 || failing+=" $cmd"
	done
	assert_equal "$failing" ""
}

# A GPU server tree and an allocation, for the rm-devices completions: RM_SYSROOT and
# RM_STATE_DIR stay exported.
devices_tree() {
	load rm-devices/fixtures
	fx_gpu_server "$BATS_TEST_TMPDIR/gpu"
	export RM_SYSROOT=$BATS_TEST_TMPDIR/gpu RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	rm-devices alloc --type gpu --count 2 --owner train >/dev/null
	rm-devices alloc --type ib --count 1 --owner net.1 >/dev/null
}

@test "bash completion: rm-devices types, devices, owners, formats and fields" {
	devices_tree
	bash_complete 'rm-devices l'
	assert_output "$(printf '%s\n' list list-allocations)"
	bash_complete 'rm-devices list --type '
	assert_output "$(rm-devices --list-types | LC_ALL=C sort)"
	bash_complete 'rm-devices list --type gpu,n'
	assert_output "$(printf '%s\n' gpu,nic gpu,nvme)"
	bash_complete 'rm-devices alloc --type '
	assert_output "$(printf '%s\n' accel fpga gpu ib nic nvme vfio)"
	bash_complete 'rm-devices alloc --policy s'
	assert_output single-numa-node
	bash_complete 'rm-devices alloc --owner '
	assert_output ''
	bash_complete 'rm-devices show 0000:1'
	# bash-completion leaves out what is left of the last ':' of the word, as readline wants
	assert_output "$(rm-devices list --all -o device -r | grep '^0000:1' | cut -d: -f2- | LC_ALL=C sort)"
	bash_complete 'rm-devices show 0000:1a:00.0 '
	assert_output ''
	bash_complete 'rm-devices release '
	assert_output "$(printf '%s\n' net.1 train)"
	bash_complete 'rm-devices release train '
	assert_output net.1
	bash_complete 'rm-devices health t'
	assert_output train
	bash_complete 'rm-devices grant '
	assert_output "$(printf '%s\n' net.1 train)"
	bash_complete 'rm-devices grant train '
	assert_output ''
	bash_complete 'rm-devices export '
	assert_output "$(printf '%s\n' cdi gres nfd resourceslice scontrol)"
	bash_complete 'rm-devices topo -o li'
	assert_output links
	bash_complete 'rm-devices list -o device,nu'
	assert_output device,numa
	bash_complete 'rm-devices -o product_'
	assert_output product_name
	bash_complete 'rm-devices list-allocations -o cr'
	assert_output created
	mkdir "$BATS_TEST_TMPDIR/outdir"
	bash_complete "rm-devices export cdi -o $BATS_TEST_TMPDIR/out"
	assert_output "$BATS_TEST_TMPDIR/outdir"
	bash_complete 'rm-devices alloc --count '
	assert_output ''
	# another state: no owners
	RM_STATE_DIR=$BATS_TEST_TMPDIR/other bash_complete 'rm-devices release '
	assert_output ''
}

@test "zsh completion: rm-devices types, devices, owners and formats" {
	devices_tree
	zsh_capture 'rm-devices ' 'rm-devices alloc --type ' 'rm-devices list --ty' \
		'rm-devices release ' 'rm-devices grant ' 'rm-devices show 0000:9' \
		'rm-devices export ' 'rm-devices topo -o li'
	local all=$output
	assert_equal "$(offered "$all" 'rm-devices ')" "$(commands rm-devices | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-devices alloc --type ')" \
		"$(printf '%s\n' accel fpga gpu ib nic nvme vfio)"
	assert_equal "$(offered "$all" 'rm-devices list --ty')" --type
	assert_equal "$(offered "$all" 'rm-devices release ')" "$(printf '%s\n' net.1 train)"
	assert_equal "$(offered "$all" 'rm-devices grant ')" "$(printf '%s\n' net.1 train)"
	assert_equal "$(offered "$all" 'rm-devices show 0000:9')" \
		"$(rm-devices list --all -o device -r | grep '^0000:9' | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-devices export ')" "$(printf '%s\n' cdi gres nfd resourceslice scontrol)"
	assert_equal "$(offered "$all" 'rm-devices topo -o li')" links
}

@test "zsh completion: rm-bench commands, kernels, page sizes, metrics and fields" {
	zsh_capture 'rm-bench ' 'rm-bench mem --op ' 'rm-bench lat --pages ' 'rm-bench mem -o be' \
		'rm-bench compare --metric p' 'rm-bench jitter --d' 'rm-bench mem --neighbour --sto' \
		'rm-bench compare --al'
	local all=$output
	assert_equal "$(offered "$all" 'rm-bench ')" "$(commands rm-bench | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-bench mem --op ')" "$(printf '%s\n' add copy scale triad)"
	assert_equal "$(offered "$all" 'rm-bench lat --pages ')" "$(printf '%s\n' 1G 2M 4K)"
	assert_equal "$(offered "$all" 'rm-bench mem -o be')" "$(printf '%s\n' bench best)"
	assert_equal "$(offered "$all" 'rm-bench compare --metric p')" "$(printf '%s\n' p99 p999)"
	assert_equal "$(offered "$all" 'rm-bench compare --al')" "$(printf '%s\n' --allow-missing --alpha)"
	assert_equal "$(offered "$all" 'rm-bench jitter --d')" "$(printf '%s\n' --dma-latency --duration)"
	# --neighbour[=SET]: the next word is not its value
	assert_equal "$(offered "$all" 'rm-bench mem --neighbour --sto')" --stores
}

# ---- the pages render ----

# ---- rm-class ----

@test "docs: every listing of rm-class answers --list-columns without operands" {
	local cmd failing='' n=0
	for cmd in $(commands rm-class); do
		help_long rm-class "$cmd" | grep -qx -- --list-columns || continue
		rm-class "$cmd" --list-columns --raw >/dev/null 2>&1 || failing+=" $cmd"
		n=$((n + 1))
	done
	[ "$n" -eq 2 ]
	assert_equal "$failing" ""
}

@test "docs: rm-class.conf(5) types every field of device records as rm-class does" {
	local unit=$RM_BUILDDIR/tests/unit/test-selector page=$RM_SRCDIR/man/rm-class.conf.5 f
	local missing='' tags
	[ -x "$unit" ] || skip "tests/unit/test-selector is not built (make check builds it)"
	tags=$(man_subsection "$page" SELECTORS "Fields of device records" | tags)
	while read -r f _; do
		printf '%s\n' "$tags" | grep -q -- "\(^\| \)$f\(\$\| \|,\)" || missing+=" $f"
	done < <("$unit" fields)
	assert_equal "$missing" ""
}

@test "bash completion: rm-class commands, class names, formats and fields" {
	export RM_CONFIG_DIR=$BATS_TEST_TMPDIR/etc
	mkdir -p "$RM_CONFIG_DIR/classes.d"
	printf '[class gpu-16g]\nselector = memory >= 16GiB\n' >"$RM_CONFIG_DIR/classes.d/site.conf"
	bash_complete 'rm-class e'
	assert_output "$(printf '%s\n' explain export)"
	# class names come from rm-class list
	bash_complete 'rm-class match '
	assert_output "$(rm-class list -o class --raw | LC_ALL=C sort)"
	bash_complete 'rm-class match gpu-'
	assert_output gpu-16g
	bash_complete 'rm-class show gpu ib '
	refute_line gpu
	assert_line gpu-16g
	# one class for match, none after --selector
	bash_complete 'rm-class match gpu '
	assert_output ''
	bash_complete 'rm-class match --selector x '
	assert_output ''
	bash_complete 'rm-class match --c'
	assert_output --count
	bash_complete 'rm-class export '
	assert_output "$(printf '%s\n' dra sriovdp)"
	bash_complete 'rm-class export dra n'
	assert_output "$(printf '%s\n' nic nvidia-gpu)"
	bash_complete 'rm-class list -o c'
	assert_output "$(printf '%s\n' class count)"
	bash_complete 'rm-class explain -o cl'
	assert_output clause
	# explain: a class, then a PCI device
	mkdir -p "$BATS_TEST_TMPDIR/root/sys/bus/pci/devices/0000:3b:00.0"
	bash_complete "rm-class explain --sysroot $BATS_TEST_TMPDIR/root gpu "
	assert_output 0000:3b:00.0
	touch "$BATS_TEST_TMPDIR/a.conf"
	bash_complete "rm-class check $BATS_TEST_TMPDIR/a."
	assert_output "$BATS_TEST_TMPDIR/a.conf"
}

@test "zsh completion: rm-class commands, class names and formats" {
	export RM_CONFIG_DIR=$BATS_TEST_TMPDIR/etc
	mkdir -p "$RM_CONFIG_DIR/classes.d"
	printf '[class gpu-16g]\nselector = memory >= 16GiB\n' >"$RM_CONFIG_DIR/classes.d/site.conf"
	zsh_capture 'rm-class ' 'rm-class match gpu-' 'rm-class show gpu ' 'rm-class export ' \
		'rm-class list -o de' 'rm-class match --co'
	local all=$output
	assert_equal "$(offered "$all" 'rm-class ')" "$(commands rm-class | LC_ALL=C sort)"
	assert_equal "$(offered "$all" 'rm-class match gpu-')" gpu-16g
	offered "$all" 'rm-class show gpu ' | grep -qx gpu-16g
	! offered "$all" 'rm-class show gpu ' | grep -qx gpu
	assert_equal "$(offered "$all" 'rm-class export ')" "$(printf '%s\n' dra sriovdp)"
	assert_equal "$(offered "$all" 'rm-class list -o de')" description
	assert_equal "$(offered "$all" 'rm-class match --co')" --count
}

@test "docs: man renders every page without warnings" {
	command -v man >/dev/null || skip "man is not installed"
	local page
	for page in "$RM_SRCDIR"/man/*.[1-8]; do
		run -0 bash -c 'MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null' _ "$page"
		assert_output ''
		# as man-db renders for a UTF-8 terminal
		run -0 bash -c 'LC_ALL=C.UTF-8 MANROFFSEQ="" MANWIDTH=80 \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$1" 2>&1 >/dev/null' _ "$page"
		assert_output ''
	done
}

@test "docs: groff finds nothing to warn about in any page" {
	command -v groff >/dev/null || skip "groff is not installed"
	local page
	for page in "$RM_SRCDIR"/man/*.[1-8]; do
		run -0 bash -c 'groff -man -ww -z "$1" 2>&1' _ "$page"
		assert_output ''
	done
}

@test "docs: every tool's page is in rmtools(7) and the README" {
	local tool
	for tool in "${TOOLS[@]}"; do
		man_section "$MAN7" TOOLS | grep -qF -- ".BR ${tool//-/\\-} (1)"
		grep -qF -- "## $tool" "$RM_SRCDIR/README.md"
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

# ---- the README's set-up: quickstart's packages, the skips left ----

# The packages of plain ./quickstart (line 1) and those ./quickstart check adds (line 2).
quickstart_packages() {
	run -0 "$RM_SRCDIR/quickstart" --list-packages
	[ "${#lines[@]}" -eq 2 ]
}

@test "quickstart: plain ./quickstart installs what building needs; check adds what the tests need" {
	local build test prog pkg missing=''
	quickstart_packages
	build=" ${lines[0]} " test=" ${lines[1]} "
	for pkg in libhwloc-dev libsmartcols-dev build-essential; do
		[[ $build == *" $pkg "* ]] || missing+=" build:$pkg"
	done
	for pkg in clang bats zsh slurmd groff-base man-db jq qemu-system-x86 python3-fusepy; do
		[[ $build != *" $pkg "* ]] || missing+=" not-build:$pkg"
		[[ $test == *" $pkg "* ]] || missing+=" test:$pkg"
	done
	# every program a test looks for comes from a listed package (Debian's names)
	declare -A from=([cc]=build-essential [clang]=clang [groff]=groff-base [man]=man-db
		[hwloc-calc]=hwloc-nox [hwloc-info]=hwloc-nox [hwloc-ps]=hwloc-nox [lstopo]=hwloc-nox
		[lstopo-no-graphics]=hwloc-nox [numactl]=numactl [numastat]=numactl [lspci]=pciutils
		[rsvg-convert]=librsvg2-bin
		[losetup]=mount [lsblk]=util-linux [mke2fs]=e2fsprogs [mkfs.ext4]=e2fsprogs
		[qemu-system-x86_64]=qemu-system-x86 [script]=bsdutils [setpriv]=util-linux
		[slurmd]=slurmd [strace]=strace [zsh]=zsh [rm-devices]=''
		[irqbalance]='' # irqbalance runs in the lab's guests: lab.sh fetches it, unpacked
		[promtool]='' # tests/promtool.sh fetches Debian's prometheus, unpacked
		[python3]='') # the python3-* packages listed depend on it
	while read -r prog; do
		[[ -v from[$prog] ]] || missing+=" unknown:$prog"
		pkg=${from[$prog]-}
		[ -z "$pkg" ] || [[ $build$test == *" $pkg "* ]] || missing+=" $prog:$pkg"
	done < <(grep -rhoE 'command -v [a-z0-9_.-]+' "$RM_SRCDIR/tests" | awk '{ print $3 }' | sort -u)
	# and every package a skip message names
	while read -r pkg; do
		[[ $build$test == *" $pkg "* ]] || missing+=" named:$pkg"
	done < <(grep -rhoE 'apt-get install [a-z0-9.+ -]+' "$RM_SRCDIR/tests" --include='*.bats' \
		--include='*.bash' | sed 's/^apt-get install //' | tr ' ' '\n' | grep . | sort -u)
	assert_equal "$missing" ""
	# the README's package lists are quickstart's
	run -0 bash -c "sed -n '/^## Building by hand/,/^ *autoreconf/p' \"\$1\" | tr '\n\`;,()' '      '" _ \
		"$RM_SRCDIR/README.md"
	for pkg in ${build} ${test}; do
		[[ " $output " == *" $pkg "* ]] || missing+=" README:$pkg"
	done
	assert_equal "$missing" ""
}

@test "README: every skip that no package of ./quickstart check prevents is in 'Tests skipped on some machines'" {
	local section reason seg best n=0 missing=''
	section=$(sed -n '/^### Tests skipped on some machines/,/^## /p' "$RM_SRCDIR/README.md")
	[ -n "$section" ]
	while IFS= read -r reason; do
		# packages (the test above) and unit programs make check builds
		[[ $reason =~ is\ not\ installed|is\ absent|no\ C\ compiler|no\ setpriv|cannot\ build\ a\ libFuzzer|has\ no\ libFuzzer\ runtime|has\ no\ zpty|is\ not\ built ]] &&
			continue
		# the longest literal part of the message, its variables and punctuation left out
		best=''
		while IFS= read -r seg; do
			seg=$(printf '%s' "$seg" | sed 's/^ *//; s/ *$//')
			[ "${#seg}" -gt "${#best}" ] && best=$seg
		done < <(printf '%s\n' "$reason" | sed -E 's/\$\{?[A-Za-z0-9_]+\}?(\/[A-Za-z0-9_.]+)*/\n/g' |
			tr "'(),;:" '\n\n\n\n\n\n')
		n=$((n + 1))
		[[ $section == *"$best"* ]] || missing+=" '$reason'"
	done < <(grep -rhoE 'skip[ ]"[^"]*"' "$RM_SRCDIR/tests" --include='*.bats' --include='*.bash' |
		sed -e 's/^skip[ ]"//' -e 's/"$//' | sort -u)
	[ "$n" -gt 20 ]
	assert_equal "$missing" ""
}

@test "README: multi-node examples say they are plans on a one-node machine, and the plans run" {
	local tool line n=0
	for tool in rm-topo rm-cpuset rm-hugepages; do
		sed -n "/^## $tool\$/,/^## /p" "$RM_SRCDIR/README.md" | tr '\n' ' ' |
			grep -q 'one-node machine.*\(--topology\|RM_TOPOLOGY\)' || fail "$tool: no one-node note"
	done
	# the lines that plan with --topology run here, whatever this machine has
	while IFS= read -r line; do
		run -0 bash -c "$line"
		n=$((n + 1))
	done < <(grep -E '^    rm-[a-z]+ .*--topology' "$RM_SRCDIR/README.md" | sed 's/ *# .*//')
	[ "$n" -ge 3 ]
	grep -qE '^    rm-hugepages plan --topology' "$RM_SRCDIR/README.md"
}

@test "make check runs every bats file of the suite (the lab's run in its guests)" {
	local f missing=''
	while read -r f; do
		grep -qE "[[:space:]]${f//./\\.}([[:space:]]|$)" "$RM_SRCDIR/tests/Makemodule.am" ||
			missing+=" $f"
	done < <(cd "$RM_SRCDIR" && find tests -name '*.bats' -not -path 'tests/vm/*' | sort)
	assert_equal "$missing" ""
}

@test "README and rmtools(7): the cloud-init example is the user-data the lab provisions its node from" {
	local yaml=$RM_SRCDIR/tests/vm/system/node.yaml line
	# the README prints it indented by four spaces, whole and in one piece
	run -0 python3 -c '
import sys
readme, yaml = open(sys.argv[1]).read(), open(sys.argv[2]).read()
block = "".join(("    " + l if l.strip() else "") + "\n" for l in yaml.rstrip("\n").split("\n"))
sys.exit(0 if block in readme else 1)' "$RM_SRCDIR/README.md" "$yaml"
	# rmtools(7) renders every line of it
	MANWIDTH=200 man -l "$RM_SRCDIR/man/rmtools.7" 2>/dev/null >"$BATS_TEST_TMPDIR/rmtools.txt"
	while IFS= read -r line; do
		[ -z "$line" ] || grep -qF -- "$line" "$BATS_TEST_TMPDIR/rmtools.txt" ||
			fail "rmtools(7) lacks: $line"
	done <"$yaml"
	# and it is valid YAML that names the package and the three files
	run -0 python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["packages"] == ["rmtools"]
assert [f["path"] for f in d["write_files"]] == ["/etc/rmtools/hugepages.conf", "/etc/rmtools/cpuset.conf", "/etc/rmtools/storage.conf"]' "$yaml"
}

# readme_prints SCRIPT: README.md holds SCRIPT (tests/vm/system/), less its header comment, as
# one indented block, and the lab's helper runs it with bash -e
readme_prints() {
	run -0 python3 -c '
import sys
readme, script = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lines = script.splitlines(True)
while lines and lines[0].startswith("#"):
    lines.pop(0)  # the header comment
body = "".join(lines)
block = "".join(("    " + l if l.strip() else "") + "\n" for l in body.rstrip("\n").split("\n"))
sys.exit(0 if block in readme else 1)' "$RM_SRCDIR/README.md" "$RM_SRCDIR/tests/vm/system/$1"
	run -0 grep -F "bash -e /lab/system/$1" "$RM_SRCDIR/tests/vm/system/helper.bash"
}

@test "README: the Slurm section prints tests/vm/system/slurm-node.sh, which the lab runs, whole and in one piece" {
	readme_prints slurm-node.sh
}

@test "README: the container section prints tests/vm/system/podman-node.sh, which the lab runs, whole and in one piece" {
	readme_prints podman-node.sh
}

@test "README: the Kubernetes section's files are what the tools write on the lab's machine (tests/k8s-node.bash)" {
	load rm-devices/fixtures
	load k8s-node
	k8s_node "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/k8s.md"
	# the four files, train's GPU left out of the slice
	run -0 grep -c '^`rm-.* -o /' "$BATS_TEST_TMPDIR/k8s.md"
	assert_output 4
	run -0 grep -F '# left out: 0000:21:00.0, allocated to owner train' "$BATS_TEST_TMPDIR/k8s.md"
	run -0 python3 -c '
import sys
sys.exit(0 if open(sys.argv[2]).read() in open(sys.argv[1]).read() else 1)' \
		"$RM_SRCDIR/README.md" "$BATS_TEST_TMPDIR/k8s.md"
}
