#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's speed on a synthetic 8-package 1024-CPU topology, with its state in a temporary
# directory and no cgroups touched: one `alloc --dry-run` (topology load included) against
# `hwloc-calc --input` on the same description (the topology load alone) and the 20 ms budget;
# CYCLES sequential alloc+release cycles with real state writes; 64 concurrent allocators.
# Needs hyperfine and jq (Debian packages). Prints one record per figure, then a table.
# The machine is shared and noisy: the comparison is ROUNDS hyperfine runs with the two commands
# in alternating order, and the figure is the median of the rounds' median times and ratios.
#   usage: bench/rm-cpuset-speed.sh [RM_CPUSET] [RUNS] [ROUNDS] [CYCLES]
set -eu

rm_cpuset=${1:-./rm-cpuset}
runs=${2:-20}
rounds=${3:-7}
cycles=${4:-1000}
big="package:8 core:64 pu:2"
budget_ms=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-cpuset-speed hyperfine jq hwloc-calc
rm_cpuset=$(bench_program rm-cpuset-speed "$rm_cpuset")
export LC_ALL=C
# never the real state (/var/lib/rmtools) nor the machine's cgroups
unset RM_SYSROOT RM_TOPOLOGY RM_CGROUP_ROOT RM_CONFIG_DIR
export RM_STATE_DIR="$tmp/state"
cs="$rm_cpuset --no-cgroups --topology '$big'"

cpuset() {
	"$rm_cpuset" --no-cgroups --topology "$big" "$@"
}

# seconds since the epoch, to the nanosecond
now() {
	date +%s.%N
}

# One allocation in the state, so that the dry run reads and checks a real state file.
cpuset alloc --count 16 --owner seed >/dev/null

# The dry-run alloc against hwloc-calc
read -r alloc_ms peer_ms ratio ratio_min ratio_max < <(bench_ratio \
	"$cs alloc --dry-run --count 16 --owner x" "hwloc-calc --input '$big' all" -N --warmup 5)
budget=$(awk -v t="$alloc_ms" -v b="$budget_ms" 'BEGIN { print (t <= b ? "met" : "missed") }')
echo "bench=alloc-dry-run-1024 runs=$runs rounds=$rounds rm_cpuset_ms=$alloc_ms" \
	"hwloc_calc_ms=$peer_ms ratio=$ratio ratio_min=$ratio_min ratio_max=$ratio_max" \
	"budget_ms=$budget_ms budget=$budget"

# CYCLES sequential alloc + release, each writing the state (fsync and rename)
cpuset release --all >/dev/null
t0=$(now)
for i in $(seq 1 "$cycles"); do
	cpuset alloc --count 16 --owner "c$i" >/dev/null
	cpuset release "c$i" >/dev/null
done
t1=$(now)
read -r cycle_s cycle_ms < <(awk -v a="$t0" -v b="$t1" -v n="$cycles" \
	'BEGIN { printf "%.2f %.2f\n", b - a, (b - a) * 1000 / n }')
echo "bench=alloc-release-1024 cycles=$cycles total_s=$cycle_s per_cycle_ms=$cycle_ms"

# 64 allocators started together (they wait on a lock the script holds), timed from the
# release of the lock until the last one is done
cpuset release --all >/dev/null
gate="$tmp/gate"
exec 9>"$gate"
flock -x 9
pids=()
for i in $(seq 1 64); do
	flock -s "$gate" "$rm_cpuset" --no-cgroups --topology "$big" \
		alloc --count 1 --owner "p$i" >/dev/null 2>"$tmp/p$i.err" 9>&- &
	pids+=($!)
done
sleep 0.5 # let them all reach the lock
t0=$(now)
flock -u 9
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
t1=$(now)
exec 9>&-
distinct=$(cpuset list -o cpus -r | sort -u | wc -l)
owners=$(cpuset list -o owner -r | wc -l)
parallel_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }')
check=ok
[ "$failed" -eq 0 ] && [ "$distinct" -eq 64 ] && [ "$owners" -eq 64 ] || check=FAILED
echo "bench=parallel-alloc-1024 allocators=64 wall_ms=$parallel_ms failed=$failed" \
	"owners=$owners distinct_cpus=$distinct check=$check"

printf '\n%-52s %12s\n' "what (package:8 core:64 pu:2, 1024 CPUs)" "figure"
printf '%-52s %9.2f ms\n' "alloc --dry-run --count 16 (median)" "$alloc_ms"
printf '%-52s %9.2f ms\n' "hwloc-calc --input ... all (median, same run)" "$peer_ms"
printf '%-52s %12s\n' "ratio rm-cpuset / hwloc-calc (range)" \
	"$ratio ($ratio_min-$ratio_max)"
printf '%-52s %12s\n' "budget $budget_ms ms" "$budget"
printf '%-52s %10.2f s\n' "$cycles alloc+release cycles, state written" "$cycle_s"
printf '%-52s %9.2f ms\n' "  per cycle" "$cycle_ms"
printf '%-52s %9.1f ms\n' "64 concurrent allocs, until all done" "$parallel_ms"
printf '%-52s %12s\n' "  64 owners, 64 distinct CPUs" "$check"
[ "$check" = ok ]
