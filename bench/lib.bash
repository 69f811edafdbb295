# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the speed scripts: checks, and the comparison of two commands on a shared, noisy
# machine. Each script sets `runs` and `rounds` before calling bench_ratio or bench_compare.
# shellcheck disable=SC2154 # runs and rounds are the caller's

# bench_needs SCRIPT TOOL...: exit 2 naming the first TOOL not installed
bench_needs() {
	local script=$1 tool
	shift
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$script: needs $tool" >&2; exit 2; }
	done
}

# bench_program SCRIPT PATH: PATH made absolute (the scripts change directory and build command
# lines), or exit 2 when it is not an executable
bench_program() {
	[ -x "$2" ] || { echo "$1: not executable: '$2'" >&2; exit 2; }
	case $2 in
	*/*) echo "$(cd "$(dirname "$2")" && pwd)/${2##*/}" ;;
	*) echo "$2" ;;
	esac
}

# bench_ratio A B [HYPERFINE-OPTION...]: `rounds` hyperfine runs of `runs` runs each, A and B in
# alternating order. Prints "A_MS B_MS RATIO RATIO_MIN RATIO_MAX": the median over the rounds of
# each command's median time, the median of the rounds' ratios A/B, and their range.
bench_ratio() {
	local a=$1 b=$2 r lines="" json
	shift 2
	json=$(mktemp)
	for r in $(seq 1 "$rounds"); do
		local first=$a second=$b
		[ $((r % 2)) -eq 1 ] || { first=$b second=$a; }
		hyperfine --style none --runs "$runs" --export-json "$json" "$@" "$first" "$second" \
			>/dev/null 2>&1
		lines+=$(jq -r --arg a "$a" '.results | map({(.command): .median}) | add |
			"\(.[$a]) \(.[(keys - [$a])[0]])"' "$json")$'\n'
	done
	rm -f "$json"
	printf '%s' "$lines" | awk '
		{ a[NR] = $1 * 1000; b[NR] = $2 * 1000; q[NR] = $1 / $2 }
		function median(v, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		}
		END {
			lo = hi = q[1]
			for (i = 2; i <= NR; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
			printf "%.3f %.3f %.3f %.3f %.3f\n", median(a, NR), median(b, NR), median(q, NR), lo, hi
		}'
}

# bench_compare NAME A-LABEL A-COMMAND B-LABEL B-COMMAND: bench_ratio of two commands run without
# a shell, printed as one record
bench_compare() {
	local a_ms b_ms ratio lo hi
	read -r a_ms b_ms ratio lo hi < <(bench_ratio "$3" "$5" -N --warmup 5)
	echo "bench=$1 runs=$runs rounds=$rounds $2_ms=$a_ms $4_ms=$b_ms ratio=$ratio" \
		"ratio_min=$lo ratio_max=$hi"
}

# bench_instructions NAME A-LABEL A-COMMAND B-LABEL B-COMMAND: the instructions each command
# runs, counted by valgrind's callgrind (which the load of the machine does not change), as one
# record; nothing when valgrind is not installed
bench_instructions() {
	command -v valgrind >/dev/null || return 0
	local a b
	a=$(bench_count "$3") b=$(bench_count "$5")
	echo "bench=$1 $2_instructions=$a $4_instructions=$b" \
		"ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
}

# bench_count COMMAND: the instructions COMMAND (words as the shell splits them) runs
bench_count() {
	eval "valgrind --tool=callgrind --callgrind-out-file=/dev/null $1" 2>&1 >/dev/null |
		awk '/Collected :/ { print $NF }'
}
