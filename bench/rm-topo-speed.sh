#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo's speed against its peers measured in the same run: the summary against lscpu on this
# machine, and `rm-topo cpus` on a synthetic 8-package 1024-CPU topology against hwloc-info on
# the same description. Needs hyperfine and jq (Debian packages). Prints one record per figure.
#   usage: bench/rm-topo-speed.sh [RM_TOPO] [RUNS]
set -eu

rm_topo=${1:-./rm-topo}
runs=${2:-40}
big="package:8 core:64 pu:2"
json=$(mktemp)
trap 'rm -f "$json"' EXIT

for tool in hyperfine jq lscpu hwloc-info; do
	command -v "$tool" >/dev/null || { echo "rm-topo-speed: needs $tool" >&2; exit 2; }
done
[ -x "$rm_topo" ] || { echo "rm-topo-speed: not executable: '$rm_topo'" >&2; exit 2; }

# median of A, median of B, and their ratio, from hyperfine's JSON (in ms)
ratio() {
	jq -r '.results | "\(.[0].median * 1000) \(.[1].median * 1000) \(.[0].median / .[1].median)"' "$json" |
		awk '{ printf "%s_ms=%.3f %s_ms=%.3f ratio=%.3f\n", A, $1, B, $2, $3 }' A="$1" B="$2"
}

export LC_ALL=C
hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$json" \
	"$rm_topo" "lscpu" >/dev/null
echo "bench=summary runs=$runs $(ratio rm_topo lscpu)"

hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$json" \
	"$rm_topo --topology '$big' cpus" "hwloc-info --input '$big'" >/dev/null
echo "bench=cpus-1024 runs=$runs $(ratio rm_topo hwloc_info)"
