#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench on memory-only nodes: memory bound there, threads on the nearest CPU node.
load helper

@test "mem on a memory-only node runs on its nearest CPU node" {
	run -0 rm-bench mem --node 2 --op copy --runs 2 --size 8M -o op,ran_on,mem_on
	assert_output --regexp '^op=copy ran_on=[0-3](,[0-3])*|^op=copy ran_on=0-3'
	assert_output --partial "mem_on=2"
}

@test "mem --mem-node 3 from node 1's CPUs" {
	run -0 rm-bench mem --node 1 --mem-node 3 --op copy --runs 2 --size 8M -o op,mem_on
	assert_output "op=copy mem_on=3"
}

@test "lat on a memory-only node" {
	run -0 rm-bench lat --node 3 --sizes 1M -o mem_on
	assert_output --partial "mem_on=3"
}

@test "lat --matrix: every CPU node to every memory node, memory-only nodes included" {
	run -0 rm-bench lat --matrix --sizes 1M --runs 1 -o cpu,mem_node,mem_on,status
	assert_equal "${#lines[@]}" 8
	local i=0 from to cpu
	for from in 0 1; do
		cpu=$(cut -d, -f1 </sys/devices/system/node/node$from/cpulist)
		cpu=${cpu%%-*}
		for to in 0 1 2 3; do
			assert_line --index $i "cpu=$cpu mem_node=$to mem_on=$to status=ok"
			i=$((i + 1))
		done
	done
}

@test "weights: proposed from a measured matrix, applied to the kernel's files, restored" {
	local wi=/sys/kernel/mm/mempolicy/weighted_interleave n before after
	before=$(for n in 0 1 2 3; do cat $wi/node$n; done)
	rm-bench mem --matrix --op triad --size 8M --runs 1 >"$BATS_TEST_TMPDIR/m.rec"
	run -0 rm-bench weights --input "$BATS_TEST_TMPDIR/m.rec" -o node,from,weight
	assert_equal "${#lines[@]}" 4
	run -0 rm-bench weights --input "$BATS_TEST_TMPDIR/m.rec" --apply -o node,weight
	for n in 0 1 2 3; do
		assert_line "node=$n weight=$(cat $wi/node$n)"
	done
	run -0 rm-bench weights --restore -o node,weight
	assert_equal "${#lines[@]}" 4
	after=$(for n in 0 1 2 3; do cat $wi/node$n; done)
	assert_equal "$after" "$before"
}

@test "rm-cpuset run --weighted-interleave warns when the weights do not fit its nodes" {
	# node 3 hangs off CPU node 1: its weight is relative to another CPU node than node 0's
	run -0 --separate-stderr rm-cpuset run --count 1 --numa-node 0 --add-mems 2,3 \
		--weighted-interleave 0,3 true
	[[ $stderr == *"weights of nodes '0,3' are relative to different CPU nodes"* ]] || fail "$stderr"
	# nodes 0 and 2 belong together; with the default weights (all 1) and the lab's HMAT giving
	# them different bandwidths, that is said
	run -0 --separate-stderr rm-cpuset run --count 1 --numa-node 0 --add-mems 2,3 \
		--weighted-interleave 0,2 true
	[[ $stderr != *"different CPU nodes"* ]] || fail "$stderr"
	if [ "$(cat /sys/devices/system/node/node0/access0/initiators/read_bandwidth 2>/dev/null)" != \
		"$(cat /sys/devices/system/node/node2/access0/initiators/read_bandwidth 2>/dev/null)" ] &&
		[ "$(cat /sys/kernel/mm/mempolicy/weighted_interleave/node0)" = \
			"$(cat /sys/kernel/mm/mempolicy/weighted_interleave/node2)" ]; then
		[[ $stderr == *"nodes '0,2' have equal weights but HMAT gives them"* ]] || fail "$stderr"
	fi
}
