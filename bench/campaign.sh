#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input for every tool: each option or operand that takes a value, given each of a list of
# bad values (huge and negative numbers, empty strings, control characters, 100000-character
# strings, option-like values, /dev/null, a FIFO, a directory, symbolic links, unknown columns,
# oversized topologies). Every run is bounded (timeout 10) and checked: a documented exit status
# (0 to 4, not a signal or the timeout), nothing on stdout when it is 2, no sanitizer report,
# stderr lines each from the tool and free of raw control characters, and nothing changed (the
# rmtools cgroups, /var/lib/rmtools, the huge page counts, the link targets here). Commands that
# change the system run with --dry-run, so that a value wrongly accepted changes nothing either.
# The machine may be shared: a change is laid to a vector only when running it again changes the
# same again; one that is not is counted as changed_elsewhere, not as a failure. Values that are
# valid and start long work (a 4 GiB benchmark array) are left out: the campaign is about input
# that must be refused. Prints one record for the campaign, one per tool, and one per failure
# with its vector.
#   usage: bench/campaign.sh [BUILDDIR] [TOOL...]
# Exit status: 0 when every run passed, 1 when one failed, 2 on a usage error.
set -u

dir=${1:-.}
shift $(($# > 0))
[ -x "$dir/rm-topo" ] || { echo "campaign: no rm-topo in '$dir' (give the build directory)" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the bad values ----
mkdir "$tmp/run" "$tmp/cwd"
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
ln -s "$tmp/loop" "$tmp/loop"
long_a=$(printf 'a%.0s' {1..100000})
long_9=${long_a//a/9}
# shellcheck disable=SC2054 # a lone comma is one of the values
values=(
	18446744073709551616 18446744073709551615 9223372036854775808 4294967296
	99999999999999999999999999999 1e400 0x7fffffffffffffff
	-1 -0 -9223372036854775809 -1e9
	''
	$'1\n2' $'\e[31m' $'a\tb' $'x\ry' $'\x7f' $'\x01' $'--x\ny'
	"$long_a" "$long_9"
	--help -h -- - --version -o
	/dev/null "$tmp/fifo" "$tmp/dir" "$tmp/link" "$tmp/loop" /nonexistent/x
	nosuchcolumn +nosuch ,
	pu:0 pu:99999999999 'package:1024 core:1024 pu:1024' 'pu:0x400 pu:0x400'
)

# ---- the vectors: a tool's command line, words apart by |, @ where the value goes ----
T='package:2 core:4 pu:2'
templates=(
	"rm-topo|--topology|@"
	"rm-topo|--sysroot|@"
	"rm-topo|@"
	"rm-topo|--topology|$T|cpus|-o|@"
	"rm-topo|--topology|$T|calc|@"
	"rm-topo|--topology|$T|calc|-O|@"
	"rm-topo|--topology|$T|draw|--svg|@"
	"rm-cpuset|--topology|@|show"
	"rm-cpuset|@"
	"rm-cpuset|--topology|$T|alloc|--dry-run|--owner|w|--count|@"
	"rm-cpuset|--topology|$T|alloc|--dry-run|--count|1|--owner|@"
	"rm-cpuset|--topology|$T|alloc|--dry-run|--count|1|--owner|w|--from|@"
	"rm-cpuset|--topology|$T|alloc|--dry-run|--count|1|--owner|w|--l3-ways|@"
	"rm-cpuset|--topology|$T|reserve|--dry-run|@"
	"rm-cpuset|--topology|$T|reserve|--dry-run|--count|@"
	"rm-cpuset|--topology|$T|apply|--dry-run|@"
	"rm-cpuset|--topology|$T|list|-o|@"
	"rm-cpuset|--wait|@|show"
	"rm-cpuset|release|--dry-run|@"
	"rm-hugepages|@"
	"rm-hugepages|reserve|--dry-run|2M|@"
	"rm-hugepages|reserve|--dry-run|@|1"
	"rm-hugepages|reserve|--dry-run|--node|@|2M|1"
	"rm-hugepages|limit|--dry-run|w|2M|@"
	"rm-hugepages|overcommit|--dry-run|2M|@"
	"rm-hugepages|mount|--dry-run|@|--size|2M"
	"rm-hugepages|apply|--dry-run|@"
	"rm-hugepages|show|-o|@"
	"rm-storage|@"
	"rm-storage|limit|--dry-run|w|/dev/null|--read-iops|@"
	"rm-storage|limit|--dry-run|w|/dev/null|--weight|@"
	"rm-storage|limit|--dry-run|w|@|--weight|100"
	"rm-storage|list|-o|@"
	"rm-storage|apply|--dry-run|@"
	"rm-devices|@"
	"rm-devices|--topology|@|list"
	"rm-devices|alloc|--dry-run|--owner|w|--count|@"
	"rm-devices|alloc|--dry-run|--count|1|--owner|@"
	"rm-devices|grant|--dry-run|w|--pid|@"
	"rm-devices|list|--vendor|@"
	"rm-devices|list|--type|@"
	"rm-devices|list|-o|@"
	"rm-class|@"
	"rm-class|match|--count|@|gpu"
	"rm-class|match|--selector|@"
	"rm-class|show|@"
	"rm-class|list|-o|@"
	"rm-qos|@"
	"rm-qos|watch|--interval|1ms|--count|@"
	"rm-qos|watch|--count|1|--interval|@"
	"rm-qos|show|--interval|@"
	"rm-qos|show|--interval|1ms|@"
	"rm-qos|check|--interval|1ms|--slo|@"
	"rm-qos|blame|--window|@|w"
	"rm-bench|mem|--runs|@"
	"rm-bench|mem|--threads|@"
	"rm-bench|mem|--node|@"
	"rm-bench|mem|--pages|@"
	"rm-bench|lat|--pages|@"
	"rm-bench|c2c|--pairs|@"
	"rm-bench|jitter|--priority|@"
	"rm-bench|compare|@|@"
	"rm-bench|plot|@"
)

# What must not change: the rmtools cgroups, the state files, the huge page counts, the target
# of the links given as values.
snapshot() {
	find /sys/fs/cgroup -maxdepth 4 -path '*rmtools*' -type d 2>/dev/null | sort
	find /var/lib/rmtools -type f -exec md5sum {} + 2>/dev/null | sort
	grep -s . /sys/kernel/mm/hugepages/*/nr_hugepages /sys/kernel/mm/hugepages/*/nr_overcommit_hugepages \
		/sys/devices/system/node/node*/hugepages/*/nr_hugepages
	cat "$tmp/target"
	ls -A "$tmp" "$tmp/dir"
}

# A vector for the report: printable, long values abridged.
shown() {
	local v=${1//$long_a/<100000 x a>}
	v=${v//$long_9/<100000 x 9>}
	printf '%q' "$v"
}

declare -A runs fails
declare -A statuses
total=0 failed=0 elsewhere=0 start=$SECONDS
out=$tmp/run/out err=$tmp/run/err
# a value taken as an output file name (draw --svg) is written here, not where the campaign ran
cd "$tmp/cwd" || exit 2
before=$(snapshot)

# fail TOOL ARGV-TEXT WHY
fail() {
	failed=$((failed + 1))
	fails[$1]=$((${fails[$1]:-0} + 1))
	echo "failure=$(shown "$3") tool=$1 vector=$(shown "$2")"
}

for tpl in "${templates[@]}"; do
	IFS='|' read -ra words <<<"$tpl"
	tool=${words[0]}
	if [ $# -gt 0 ] && [[ " $* " != *" $tool "* ]]; then
		continue
	fi
	for v in "${values[@]}"; do
		argv=()
		for w in "${words[@]:1}"; do
			[ "$w" = @ ] && argv+=("$v") || argv+=("$w")
		done
		text="$tool ${argv[*]}"
		total=$((total + 1))
		runs[$tool]=$((${runs[$tool]:-0} + 1))
		timeout 10 "$dir/$tool" "${argv[@]}" </dev/null >"$out" 2>"$err"
		st=$?
		statuses[$tool.$st]=$((${statuses[$tool.$st]:-0} + 1))
		why=""
		if [ "$st" -eq 124 ]; then
			why="timed out"
		elif [ "$st" -gt 4 ]; then
			why="exit $st"
		elif grep -qE 'Sanitizer|runtime error:' "$err"; then
			why="sanitizer: $(head -c 200 "$err")"
		elif [ "$st" -eq 2 ] && [ -s "$out" ]; then
			why="exit 2 with output"
		elif [ "$st" -eq 2 ] && [ "$(wc -l <"$err")" -ne 1 ]; then
			why="exit 2 with $(wc -l <"$err") lines on stderr: $(head -c 300 "$err")"
		elif [ -s "$err" ] && [ "$(tail -c 1 "$err" | od -An -c | tr -d ' ')" != '\n' ]; then
			why="stderr does not end its line: $(tail -c 100 "$err")"
		elif grep -q '[[:cntrl:]]' "$err"; then
			why="raw control character on stderr: $(grep -m1 '[[:cntrl:]]' "$err" | head -c 300)"
		elif grep -qv "^$tool" "$err"; then
			why="stderr line not from $tool: $(grep -m1 -v "^$tool" "$err" | head -c 300)"
		fi
		[ -z "$why" ] || fail "$tool" "$text" "$why"
		now=$(snapshot)
		if [ "$now" != "$before" ]; then
			change=$(diff <(echo "$before") <(echo "$now") | grep '^[<>]' | head -3 | tr '\n' ' ')
			before=$(snapshot)
			timeout 10 "$dir/$tool" "${argv[@]}" </dev/null >/dev/null 2>&1
			now=$(snapshot)
			if [ "$now" != "$before" ]; then
				fail "$tool" "$text" "changed: $change"
			else
				elsewhere=$((elsewhere + 1))
			fi
			before=$now
		fi
	done
done

echo "bench=campaign vectors=$total failures=$failed changed_elsewhere=$elsewhere" \
	"templates=${#templates[@]} values=${#values[@]} seconds=$((SECONDS - start))"
for tool in $(printf '%s\n' "${!runs[@]}" | sort); do
	line="tool=$tool vectors=${runs[$tool]} failures=${fails[$tool]:-0}"
	for st in 0 1 2 3 4; do
		line+=" exit$st=${statuses[$tool.$st]:-0}"
	done
	echo "$line"
done
[ "$failed" -eq 0 ]
