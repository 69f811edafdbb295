#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory-only NUMA nodes (CXL, HBM): measured from their nearest CPU node. The choice is checked
# on sysfs trees; the measurement runs where this machine has such a node (a QEMU guest with
# memory-only nodes, see rm-bench(1), MEMORY-ONLY NODES) and skips visibly elsewhere.
load ../test_helper
load bench_helper

near() { "$RM_BUILDDIR/tests/unit/test-numanode" "$@"; }

# node_tree ROOT: 8 CPUs, CPU nodes 0 (0-3) and 1 (4-7), memory-only nodes 2 (near 0), 3 (near
# 1) and 4 (as near to 0 as to 1); node 5 has memory and no distance row
node_tree() {
	local n=$1/sys/devices/system/node i
	mkdir -p "$n"/node{0,1,2,3,4,5}
	echo 0-5 >"$n/online"
	echo 0-3 >"$n/node0/cpulist"
	echo 4-7 >"$n/node1/cpulist"
	for i in 2 3 4 5; do : >"$n/node$i/cpulist"; done
	echo "10 21 14 24 17 30" >"$n/node0/distance"
	echo "21 10 24 14 17 30" >"$n/node1/distance"
	echo "14 24 10 26 26 30" >"$n/node2/distance"
	echo "24 14 26 10 26 30" >"$n/node3/distance"
	echo "17 17 26 26 10 30" >"$n/node4/distance"
}

@test "memory-only node: the nearest CPU node by distance, ties to the lowest id" {
	local root=$BATS_TEST_TMPDIR/root
	node_tree "$root"
	run -0 near "$root" 2
	assert_output "node=0 cpus=0-3"
	run -0 near "$root" 3
	assert_output "node=1 cpus=4-7"
	run -0 near "$root" 4
	assert_output "node=0 cpus=0-3"
	# a node with CPUs is its own; only usable CPUs count (node 0's not allowed: node 1)
	run -0 near "$root" 1
	assert_output "node=1 cpus=4-7"
	run -0 near "$root" 4 4-5
	assert_output "node=1 cpus=4-5"
	run -0 near "$root" 2 6
	assert_output "node=1 cpus=6"
	# no distance row: the lowest node with CPUs; no usable CPU anywhere, or no such node: -1
	run -0 near "$root" 5
	assert_output "node=0 cpus=0-3"
	run -0 near "$root" 2 8-9
	assert_output 'node=-1 cpus=""'
	run -0 near "$root" 7
	assert_output 'node=-1 cpus=""'
	rm "$root/sys/devices/system/node/node2/distance"
	echo "14 24" >"$root/sys/devices/system/node/node3/distance"
	run -0 near "$root" 2 4-7
	assert_output "node=1 cpus=4-7"
	run -0 near "$root" 3
	assert_output "node=0 cpus=0-3"
}

@test "memory-only node: the snapshot numa-memoryless-cpuless (node 2 as near to 0 as to 1)" {
	run -0 near "$SNAPSHOTS/numa-memoryless-cpuless" 2
	assert_output "node=0 cpus=0-1"
	# node 1 has CPUs and no memory: its own CPUs
	run -0 near "$SNAPSHOTS/numa-memoryless-cpuless" 1
	assert_output "node=1 cpus=2-3"
	run -0 near "$SNAPSHOTS/numa-memoryless-cpuless" 2 1-3
	assert_output "node=0 cpus=1"
}

# within A B: the CPU list A is inside the CPU list B
within() {
	"$PY" - "$1" "$2" <<-'PYEOF'
	import sys
	def cpus(s):
	    out = set()
	    for part in filter(None, s.split(",")):
	        lo, _, hi = part.partition("-")
	        out.update(range(int(lo), int(hi or lo) + 1))
	    return out
	sys.exit(0 if cpus(sys.argv[1]) <= cpus(sys.argv[2]) else 1)
	PYEOF
}

# The memory-only nodes of this machine: with memory, an empty cpulist.
memonly_nodes() {
	local d
	for d in /sys/devices/system/node/node[0-9]*; do
		[ -r "$d/cpulist" ] && [ -z "$(tr -d '\n' <"$d/cpulist")" ] || continue
		grep -qE 'MemTotal: +[1-9]' "$d/meminfo" 2>/dev/null && echo "${d##*node}"
	done
}

require_memonly() {
	NODES=$(memonly_nodes)
	[ -n "$NODES" ] || skip "this machine has no memory-only NUMA node (run in a guest with one)"
}

@test "memory-only node (this machine): mem and lat --node N bind to N and run on its nearest CPU node" {
	require_memonly
	local n cpus
	for n in $NODES; do
		run -0 near "" "$n" "$(cat /proc/self/status | sed -n 's/^Cpus_allowed_list:\t//p')"
		cpus=${output#* cpus=}
		[ "$cpus" != '""' ] || fail "no CPU near node $n"
		run -0 rm-bench mem --node "$n" --size 16M --runs 2 --op triad -o mem_nodes,ran_on,mem_on,status
		assert_output --regexp "^mem_nodes=$n ran_on=[0-9,-]+ mem_on=$n status=ok\$"
		within "$(field ran_on)" "$cpus" || fail "mem ran on $(field ran_on), not within $cpus"
		run -0 rm-bench mem --mem-node "$n" --size 16M --runs 2 --op triad -o mem_nodes,mem_on
		assert_output "mem_nodes=$n mem_on=$n"
		run -0 rm-bench lat --node "$n" --sizes 1M --runs 2 -o mem_node,ran_on,mem_on,status
		assert_output --regexp "^mem_node=$n ran_on=[0-9]+ mem_on=$n status=ok\$"
		[ "$(field ran_on)" = "${cpus%%[,-]*}" ] || fail "lat ran on $(field ran_on), not on ${cpus%%[,-]*}"
		usage_error "has no CPUs" rm-bench lat --node "$n" --mem-node 0
	done
	# the matrix: memory-only nodes are memory targets, never CPU nodes
	run -0 rm-bench mem --matrix --size 16M --runs 2 -o nodes,mem_nodes
	for n in $NODES; do
		assert_line --regexp "^nodes=[0-9,-]+ mem_nodes=$n\$"
		refute_line --regexp "^nodes=$n "
	done
}
