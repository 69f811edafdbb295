#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo's speed against its peers measured in the same run: the summary against lscpu on this
# machine, and `rm-topo cpus` on a synthetic 8-package 1024-CPU topology against hwloc-info on
# the same description. Needs hyperfine and jq (Debian packages). Prints one record per figure.
# The machine is shared and noisy: each comparison is ROUNDS hyperfine runs with the two commands
# in alternating order, and the figure is the median of the rounds' median ratios.
#   usage: bench/rm-topo-speed.sh [RM_TOPO] [RUNS] [ROUNDS]
set -eu

rm_topo=${1:-./rm-topo}
runs=${2:-20}
rounds=${3:-7}
big="package:8 core:64 pu:2"
json=$(mktemp)
trap 'rm -f "$json"' EXIT

for tool in hyperfine jq lscpu hwloc-info; do
	command -v "$tool" >/dev/null || { echo "rm-topo-speed: needs $tool" >&2; exit 2; }
done
[ -x "$rm_topo" ] || { echo "rm-topo-speed: not executable: '$rm_topo'" >&2; exit 2; }
export LC_ALL=C

# compare NAME A-LABEL A-COMMAND B-LABEL B-COMMAND: one record with the medians and the ratio A/B
compare() {
	local name=$1 la=$2 a=$3 lb=$4 b=$5 r lines=""

	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then set -- "$a" "$b"; else set -- "$b" "$a"; fi
		hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$json" "$1" "$2" \
			>/dev/null 2>&1
		lines+=$(jq -r --arg a "$a" '.results | map({(.command): .median}) | add |
			"\(.[$a]) \(.[(keys - [$a])[0]])"' "$json")$'\n'
	done
	printf '%s' "$lines" | awk -v n="$name" -v la="$la" -v lb="$lb" -v runs="$runs" -v rounds="$rounds" '
		{ a[NR] = $1 * 1000; b[NR] = $2 * 1000; q[NR] = $1 / $2 }
		function median(v, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		}
		END {
			lo = hi = q[1]
			for (i = 2; i <= NR; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
			printf "bench=%s runs=%d rounds=%d %s_ms=%.3f %s_ms=%.3f ratio=%.3f ratio_min=%.3f ratio_max=%.3f\n",
				n, runs, rounds, la, median(a, NR), lb, median(b, NR), median(q, NR), lo, hi
		}'
}

compare summary rm_topo "$rm_topo" lscpu lscpu
compare cpus-1024 rm_topo "$rm_topo --topology '$big' cpus" hwloc_info "hwloc-info --input '$big'"
