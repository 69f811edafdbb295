#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Topology Manager (libcommon/topomgr.c) at scale, on synthetic topologies:
#   - the hint and the allocation of 8 and 40 CPUs on 128 and 256 NUMA nodes under each policy,
#     timed inside tests/unit/test-topomgr after the topology is loaded (budget 50 ms each);
#   - `rm-topo cpus` on 8,192 CPUs against `hwloc-calc --input` loading the same description;
#   - `rm-cpuset alloc --dry-run` on 34, 128 and 256 NUMA nodes against hwloc-calc loading each;
#   - `rm-cpuset alloc --dry-run --policy restricted` on 8,192 CPUs against the same hwloc-calc,
#     and its allocation after the load (timed inside test-topomgr).
# Needs hyperfine and jq (Debian packages), and `make check` (it builds test-topomgr). State goes
# to a temporary directory; no cgroup is touched.
#   usage: bench/rm-topomgr-speed.sh [BUILDDIR] [RUNS] [ROUNDS] [REPEATS]
set -eu

build=${1:-.}
runs=${2:-10}
rounds=${3:-5}
repeats=${4:-5}
budget_ms=50
huge="package:8 numa:16 core:32 pu:2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-topomgr-speed hyperfine jq hwloc-calc
rm_topo=$(bench_program rm-topomgr-speed "$build/rm-topo")
rm_cpuset=$(bench_program rm-topomgr-speed "$build/rm-cpuset")
tm=$(bench_program rm-topomgr-speed "$build/tests/unit/test-topomgr")
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY RM_CGROUP_ROOT RM_CONFIG_DIR
export RM_STATE_DIR="$tmp/state"

# the median of REPEATS runs of one timed field of test-topomgr time
inside() {
	local field=$1 i
	shift
	for i in $(seq 1 "$repeats"); do
		"$tm" time "$@" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$field=//p"
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for spec in "package:8 numa:16 core:8 pu:2" "package:16 numa:16 core:8 pu:2"; do
	nodes=$(echo "$spec" | awk '{ n = 1; for (i = 1; i <= NF; i++)
		if ($i ~ /^(package|numa):/) { split($i, a, ":"); n *= a[2] } print n }')
	for policy in best-effort restricted single-numa-node; do
		for count in 8 40; do
			# the placement, or "refused" (exit status 3) for the policy
			line=$("$tm" time "$spec" "$count" "$policy" 2>/dev/null |
				sed 's/ cpus=[^ ]*//')
			hint=$(inside hint_ms "$spec" "$count" "$policy")
			alloc=$(inside alloc_ms "$spec" "$count" "$policy")
			verdict=$(awk -v h="$hint" -v a="$alloc" -v b="$budget_ms" \
				'BEGIN { print (h <= b && a <= b ? "met" : "missed") }')
			echo "bench=hint-alloc nodes=$nodes policy=$policy count=$count" \
				"${line%% load_ms=*} hint_ms=$hint alloc_ms=$alloc budget_ms=$budget_ms" \
				"budget=$verdict"
		done
	done
done

# rm-cpuset alloc (topology load, state read and checked, plan) against hwloc-calc loading the
# same topology, at 34, 128 and 256 NUMA nodes, with one allocation in the state
for spec in "package:2 numa:17 core:8 pu:2" "package:2 numa:64 core:2 pu:2" \
	"package:4 numa:64 core:2 pu:2"; do
	nodes=$(echo "$spec" | awk '{ n = 1; for (i = 1; i <= NF; i++)
		if ($i ~ /^(package|numa):/) { split($i, a, ":"); n *= a[2] } print n }')
	rm -rf "$RM_STATE_DIR"
	"$rm_cpuset" --no-cgroups --topology "$spec" alloc --count 4 --owner seed >/dev/null
	bench_compare "cpuset-alloc-nodes-$nodes" rm_cpuset \
		"$rm_cpuset --no-cgroups --topology '$spec' alloc --dry-run --count 16 --owner x" \
		hwloc_calc "hwloc-calc --input '$spec' all"
done
rm -rf "$RM_STATE_DIR"

# rm-topo cpus on 8,192 CPUs against hwloc-calc loading the same topology
bench_compare topo-cpus-8192 rm_topo "$rm_topo --topology '$huge' cpus" \
	hwloc_calc "hwloc-calc --input '$huge' all"

# rm-cpuset alloc on 8,192 CPUs, and its allocation after the load
"$rm_cpuset" --no-cgroups --topology "$huge" alloc --count 16 --owner seed >/dev/null
bench_compare cpuset-alloc-8192 rm_cpuset \
	"$rm_cpuset --no-cgroups --topology '$huge' alloc --dry-run --policy restricted --count 16 --owner x" \
	hwloc_calc "hwloc-calc --input '$huge' all"
echo "bench=alloc-after-load-8192 hint_ms=$(inside hint_ms "$huge" 16 restricted)" \
	"alloc_ms=$(inside alloc_ms "$huge" 16 restricted) budget_ms=$budget_ms"
