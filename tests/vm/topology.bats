#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo on a real kernel: 2 sockets x 2 cores x 2 threads, nodes 0-1 with CPUs, 2-3 memory-only.
load helper

@test "every node's CPUs are the kernel's node cpulist, empty for memory-only nodes" {
	for n in 0 1 2 3; do
		run -0 rm-topo nodes --node "$n" -o node,cpus
		assert_output "node=$n cpus=$(sysfs_list node/node$n/cpulist | sed 's/^$/""/')"
	done
}

@test "the summary counts what the kernel has: 2 packages, 4 nodes, 8 CPUs, its cores" {
	# QEMU's 2 threads a core; 6.1 reads its TCG CPU's topology as 8 cores of 1 thread
	cores=$(cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list | sort -u | wc -l)
	run -0 rm-topo -o packages,nodes,cores,cpus,threads_per_core
	assert_line --index 0 "packages=2 nodes=4 cores=$cores cpus=8 threads_per_core=$((8 / cores))"
}

@test "distances are the kernel's, row by row" {
	for n in 0 1 2 3; do
		run -0 rm-topo nodes -o node,distances
		assert_line "node=$n distances=$(sysfs_list node/node$n/distance | tr ' ' ,)"
	done
}

@test "memory-only nodes: their memory tier and their nearest CPU node, as the kernel says" {
	run -0 rm-topo nodes -o node,memory_only,nearest
	assert_output "$(printf '%s\n' 'node=0 memory_only=no nearest=0' 'node=1 memory_only=no nearest=1' \
		'node=2 memory_only=yes nearest=0' 'node=3 memory_only=yes nearest=1')"
	run -0 rm-topo -o memory_only_nodes
	assert_line --index 0 "memory_only_nodes=2-3"
	for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
		for n in 0 1 2 3; do
			in_list "$n" "$(cat "$t/nodelist")" || continue
			run -0 rm-topo nodes --node "$n" -o node,tier
			assert_output "node=$n tier=${t##*memory_tier}"
		done
	done
}

@test "tiers: from 6.10 the HMAT's slower memory-only nodes are below DRAM, before it one tier" {
	run -0 rm-topo nodes -o tier
	assert_equal "${lines[0]}" "${lines[1]}"
	assert_equal "${lines[2]}" "${lines[3]}"
	case $(uname -r) in
	6.[0-9].*) assert_equal "${lines[2]}" "${lines[0]}" ;;
	*) [ "${lines[2]#tier=}" -gt "${lines[0]#tier=}" ] || fail "tiers: $output" ;;
	esac
}

@test "distances --matrix and the nodes' memory are numactl -H's" {
	command -v numactl >/dev/null || skip "numactl is not installed in the guest (the numactl package on the host)"
	run -0 rm-topo distances --matrix
	assert_output "$(numactl -H | awk '/^node distances:/ { on = 1; next }
		on && /^node / { for (i = 2; i <= NF; i++) id[i] = $i; n = NF; next }
		on && /^ *[0-9]+:/ { sub(":", "", $1); line = "node=" $1
			for (i = 2; i <= n; i++) line = line " node" id[i] "=" $i; print line }')"
	for n in 0 1 2 3; do
		run -0 rm-topo nodes --node "$n" -o memory --bytes -r
		memory=$output
		run -0 numactl -H
		assert_line "node $n size: $((memory >> 20)) MB"
	done
}

@test "HMAT: each node's figures and memory-side cache are lab.sh's -numa hmat-lb and hmat-cache" {
	local n want
	# lab.sh numa4: each node's "-numa node,initiator=" is the kernel's one initiator of the
	# node in both access classes (the HMAT's attached initiator; all of them CPU nodes): node n
	# for n = 0, 1, node 0 for node 2 and node 1 for node 3, with that initiator's figures:
	# 80 ns and 20G (GiB/s = 20480 MB/s) to its own node, 250 ns and 8G to its memory-only node;
	# a 16M direct-mapped write-back cache with 64-byte lines at level 1 of nodes 2 and 3.
	# No variable i here: bats' run sets one of its caller's (bats_version_less_than).
	for n in 0 1 2 3; do
		if [ "$n" -lt 2 ]; then
			want="$n 20480 20480 80 80 $n 20480 80 -"
		else
			want="$((n - 2)) 8192 8192 250 250 $((n - 2)) 8192 250 L1:16MiB:64B:direct:write-back"
		fi
		run -0 rm-topo nodes --node "$n" -r -o access0_initiators,access0_read_bandwidth,access0_write_bandwidth,access0_read_latency,access0_write_latency,access1_initiators,access1_read_bandwidth,access1_read_latency,memory_side_caches
		assert_output "$want"
	done
}
