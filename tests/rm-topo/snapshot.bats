# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo on the snapshots kept in tests/snapshots, bad input, and rm-topo snapshot itself.
load ../test_helper

# rm-topo's records for the live machine and for a snapshot of it (a directory or an archive), for
# every listing; the fields that may change between two reads (free memory) are left out.
same_as_live() {
	local snap=$1 cmd live

	for cmd in cpus cores caches packages "nodes -o node,cpus,memory,distances,packages" \
		distances "calc --objects node all" \
		"summary -o machine,arch,model,packages,nodes,l3,cores,cpus,threads_per_core,online,offline,isolated,nohz_full,memory,hugepage_sizes,allowed"; do
		run -0 rm-topo $cmd
		live=$output
		# distances: one node has none; caches: some VMs' kernels list none
		[ -n "$live" ] || [ "$cmd" = distances ] ||
			{ [ "$cmd" = caches ] && [ ! -d /sys/devices/system/cpu/cpu0/cache ]; } ||
			fail "rm-topo $cmd printed nothing"
		run -0 rm-topo --sysroot "$snap" $cmd
		if [ "${cmd%% *}" = summary ]; then
			# its node records have every field, free memory too: the machine record only
			assert_equal "${lines[0]}" "$(printf '%s\n' "$live" | head -n 1)"
		else
			assert_equal "$output" "$live"
		fi
	done
}

# A copy of kept snapshot NAME in the test's directory, to damage.
copy_snapshot() {
	cp -R "$SNAPSHOTS/$1" "$BATS_TEST_TMPDIR/$1"
	echo "$BATS_TEST_TMPDIR/$1"
}

# Make FILE unreadable for anyone, root included: a directory where a file should be.
unreadable() {
	rm -f "$1"
	mkdir "$1"
}

# ---- the kept snapshots: exact records ----

@test "x86-2s-smt: summary and node records" {
	run -0 rm-topo --sysroot "$SNAPSHOTS/x86-2s-smt"
	assert_output 'machine=x86-2s-smt arch=- model="AMD EPYC 7451 24-Core Processor" packages=2 nodes=2 l3=2 cores=4 cpus=8 threads_per_core=2 online=0-7 offline="" isolated="" nohz_full=- memory=32GiB hugepage_sizes=2MiB,1GiB allowed=0-7 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-1,4-5 memory=16GiB free=8GiB distances=10,32 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=2-3,6-7 memory=16GiB free=12GiB distances=32,10 packages=1 memory_only=no tier=- nearest=1'
	# the same through RM_SYSROOT, and in bytes
	RM_SYSROOT=$SNAPSHOTS/x86-2s-smt run -0 rm-topo nodes --bytes -o node,memory,free
	assert_output "node=0 memory=17179869184 free=8589934592
node=1 memory=17179869184 free=12884901888"
}

@test "x86-2s-smt: cpus, cores, packages, caches and distances records" {
	local s=$SNAPSHOTS/x86-2s-smt

	run -0 rm-topo --sysroot "$s" cpus
	assert_output "cpu=0 core=0 package=0 node=0 l3=0 l2=0 l1=0 online=yes isolated=no allowed=yes
cpu=1 core=1 package=0 node=0 l3=0 l2=1 l1=1 online=yes isolated=no allowed=yes
cpu=2 core=2 package=1 node=1 l3=1 l2=2 l1=2 online=yes isolated=no allowed=yes
cpu=3 core=3 package=1 node=1 l3=1 l2=3 l1=3 online=yes isolated=no allowed=yes
cpu=4 core=0 package=0 node=0 l3=0 l2=0 l1=0 online=yes isolated=no allowed=yes
cpu=5 core=1 package=0 node=0 l3=0 l2=1 l1=1 online=yes isolated=no allowed=yes
cpu=6 core=2 package=1 node=1 l3=1 l2=2 l1=2 online=yes isolated=no allowed=yes
cpu=7 core=3 package=1 node=1 l3=1 l2=3 l1=3 online=yes isolated=no allowed=yes"
	run -0 rm-topo --sysroot "$s" cores
	assert_output "core=0 package=0 node=0 cpus=0,4 l3=0 core_id=0
core=1 package=0 node=0 cpus=1,5 l3=0 core_id=1
core=2 package=1 node=1 cpus=2,6 l3=1 core_id=0
core=3 package=1 node=1 cpus=3,7 l3=1 core_id=1"
	run -0 rm-topo --sysroot "$s" packages
	assert_output 'package=0 cpus=0-1,4-5 nodes=0 cores=2 threads=4 l3=1 model="AMD EPYC 7451 24-Core Processor" package_id=0
package=1 cpus=2-3,6-7 nodes=1 cores=2 threads=4 l3=1 model="AMD EPYC 7451 24-Core Processor" package_id=1'
	run -0 rm-topo --sysroot "$s" caches --package 1
	assert_output "cache=l1:2 level=1 type=data size=32KiB line=64B ways=8 cpus=2,6 id=2
cache=l1:3 level=1 type=data size=32KiB line=64B ways=8 cpus=3,7 id=3
cache=l1i:2 level=1 type=instruction size=64KiB line=64B ways=4 cpus=2,6 id=2
cache=l1i:3 level=1 type=instruction size=64KiB line=64B ways=4 cpus=3,7 id=3
cache=l2:2 level=2 type=unified size=512KiB line=64B ways=8 cpus=2,6 id=2
cache=l2:3 level=2 type=unified size=512KiB line=64B ways=8 cpus=3,7 id=3
cache=l3:1 level=3 type=unified size=8MiB line=64B ways=16 cpus=2-3,6-7 id=1"
	run -0 rm-topo --sysroot "$s" distances
	assert_output "distance=0:0 from=0 to=0 value=10
distance=0:1 from=0 to=1 value=32
distance=1:0 from=1 to=0 value=32
distance=1:1 from=1 to=1 value=10"
	run -0 rm-topo --sysroot "$s" calc -p package:1.core:0
	assert_output "2,6"
}

@test "x86-offline-isolated: offline CPU 3 with unknown core and package, isolated CPUs 1-2" {
	local s=$SNAPSHOTS/x86-offline-isolated

	run -0 rm-topo --sysroot "$s"
	assert_output 'machine=x86-offline-isolated arch=- model="AMD EPYC 7B12" packages=1 nodes=1 l3=1 cores=3 cpus=4 threads_per_core=1 online=0-2 offline=3 isolated=1-2 nohz_full=2 memory=8GiB hugepage_sizes=2MiB,1GiB allowed=0-2 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-2 memory=8GiB free=6GiB distances=10 packages=0 memory_only=no tier=- nearest=0'
	run -0 rm-topo --sysroot "$s" cpus
	assert_output "cpu=0 core=0 package=0 node=0 l3=0 l2=0 l1=- online=yes isolated=no allowed=yes
cpu=1 core=1 package=0 node=0 l3=0 l2=1 l1=- online=yes isolated=yes allowed=yes
cpu=2 core=2 package=0 node=0 l3=0 l2=2 l1=- online=yes isolated=yes allowed=yes
cpu=3 core=- package=- node=- l3=- l2=- l1=- online=no isolated=no allowed=no"
	run -0 rm-topo --sysroot "$s" cpus --offline -o cpu,online,core_id,package_id
	assert_output "cpu=3 online=no core_id=- package_id=-"
	run -0 rm-topo --sysroot "$s" cpus --online -r -o cpu
	assert_output "0
1
2"
	# possible 0-7 but present 0-3: CPUs 4-7 are not listed at all
	run -0 rm-topo --sysroot "$s" calc all
	assert_output "0-3"
}

@test "numa-memoryless-cpuless: memoryless node has memory=0B, CPU-less node cpus=\"\"" {
	local s=$SNAPSHOTS/numa-memoryless-cpuless

	run -0 rm-topo --sysroot "$s"
	assert_output 'machine=numa-memoryless-cpuless arch=- model="AMD EPYC 7B12" packages=1 nodes=3 l3=1 cores=4 cpus=4 threads_per_core=1 online=0-3 offline="" isolated="" nohz_full=- memory=12GiB hugepage_sizes=2MiB,1GiB allowed=0-3 memory_only_nodes=2 thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-1 memory=4GiB free=3GiB distances=10,12,20 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=2-3 memory=0B free=0B distances=12,10,20 packages=0 memory_only=no tier=- nearest=1
node=2 cpus="" memory=8GiB free=8GiB distances=20,20,10 packages="" memory_only=yes tier=- nearest=0'
	run -0 rm-topo --sysroot "$s" cpus -o cpu,node
	assert_output "cpu=0 node=0
cpu=1 node=0
cpu=2 node=1
cpu=3 node=1"
	run -0 rm-topo --sysroot "$s" nodes --node 2 -o node,cpus
	assert_output 'node=2 cpus=""'
	# a CPU filter leaves the CPU-less node out; the package has CPUs on nodes 0-1 only
	run -0 rm-topo --sysroot "$s" nodes --cpus 0-3 -o node
	assert_output "node=0
node=1"
	run -0 rm-topo --sysroot "$s" packages -o package,nodes
	assert_output "package=0 nodes=0-1"
	run -0 rm-topo --sysroot "$s" distances --node 2
	assert_output "distance=2:0 from=2 to=0 value=20
distance=2:1 from=2 to=1 value=20
distance=2:2 from=2 to=2 value=10"
}

@test "x86-2s-memory-tiers: memory-only nodes have no CPUs, a tier and a nearest CPU node" {
	local s=$SNAPSHOTS/x86-2s-memory-tiers

	run -0 rm-topo --sysroot "$s"
	assert_output 'machine=x86-2s-memory-tiers arch=- model="Intel(R) Xeon(R) Platinum 8480+" packages=2 nodes=4 l3=2 cores=4 cpus=8 threads_per_core=2 online=0-7 offline="" isolated="" nohz_full=- memory=128GiB hugepage_sizes=2MiB,1GiB allowed=0-7 memory_only_nodes=2-3 thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-3 memory=16GiB free=10GiB distances=10,21,17,28 packages=0 memory_only=no tier=4 nearest=0
node=1 cpus=4-7 memory=16GiB free=12GiB distances=21,10,28,17 packages=1 memory_only=no tier=4 nearest=1
node=2 cpus="" memory=64GiB free=64GiB distances=17,28,10,28 packages="" memory_only=yes tier=22 nearest=0
node=3 cpus="" memory=32GiB free=32GiB distances=28,17,28,10 packages="" memory_only=yes tier=22 nearest=1'
	run -0 rm-topo --sysroot "$s" nodes -J -o node,cpus,memory_only,tier,nearest
	python3 -c 'import json, sys; assert json.load(sys.stdin) == json.loads(sys.argv[1])' \
		'{"nodes": [{"node": 0, "cpus": "0-3", "memory_only": false, "tier": 4, "nearest": 0},
		{"node": 1, "cpus": "4-7", "memory_only": false, "tier": 4, "nearest": 1},
		{"node": 2, "cpus": "", "memory_only": true, "tier": 22, "nearest": 0},
		{"node": 3, "cpus": "", "memory_only": true, "tier": 22, "nearest": 1}]}' <<<"$output"
	run -0 rm-topo --sysroot "$s" nodes -r -o node,cpus,memory_only,tier,nearest
	# the empty set is an empty value, as lsblk -r writes one
	assert_output '0 0-3 no 4 0
1 4-7 no 4 1
2  yes 22 0
3  yes 22 1'
	run -0 rm-topo --sysroot "$s" nodes -t -o node,cpus,memory_only,tier,nearest
	assert_output 'NODE CPUS MEMORY_ONLY TIER NEAREST
   0 0-3  no             4       0
   1 4-7  no             4       1
   2      yes           22       0
   3      yes           22       1'
	# every CPU's node is a node with CPUs
	run -0 rm-topo --sysroot "$s" cpus -r -o cpu,node
	assert_output "0 0
1 0
2 0
3 0
4 1
5 1
6 1
7 1"
	run -0 rm-topo --sysroot "$s" cores -r -o core,node
	assert_output "0 0
1 0
2 1
3 1"
	run -0 rm-topo --sysroot "$s" packages -o package,nodes
	assert_output "package=0 nodes=0
package=1 nodes=1"
	# a memory-only node holds no CPU: as a location, a filter and an object of calc
	run -0 rm-topo --sysroot "$s" calc --physical node:2-3
	assert_output ""
	run -0 rm-topo --sysroot "$s" calc --physical --objects node 0-7
	assert_output "0-1"
	run -0 rm-topo --sysroot "$s" cpus --node 2,3
	assert_output ""
	run -0 rm-topo --sysroot "$s" nodes --cpus 0-7 -o node
	assert_output "node=0
node=1"
	run -0 rm-topo --sysroot "$s" export nfd
	assert_line "feature.node.kubernetes.io/rmtools-memory-only-numa-nodes=2"
	# without memory_tiering (a kernel before 6.1) the tier is unknown
	local c=$(copy_snapshot x86-2s-memory-tiers)
	rm -r "$c/sys/devices/virtual/memory_tiering"
	run -0 rm-topo --sysroot "$c" nodes -r -o node,memory_only,tier,nearest
	assert_output "0 no - 0
1 no - 1
2 yes - 0
3 yes - 1"
}

@test "x86-2s-memory-tiers: HMAT figures per access class, memory-side caches, CXL and DAX origin" {
	local s=$SNAPSHOTS/x86-2s-memory-tiers a0 a1
	a0=access0_initiators,access0_read_bandwidth,access0_write_bandwidth,access0_read_latency,access0_write_latency
	a1=access1_initiators,access1_read_bandwidth,access1_write_bandwidth,access1_read_latency,access1_write_latency

	run -0 rm-topo --sysroot "$s" nodes -o "node,$a0,memory_side_caches,origin"
	assert_output 'node=0 access0_initiators=0 access0_read_bandwidth=20480 access0_write_bandwidth=20480 access0_read_latency=80 access0_write_latency=80 memory_side_caches=- origin=-
node=1 access0_initiators=1 access0_read_bandwidth=20480 access0_write_bandwidth=20480 access0_read_latency=80 access0_write_latency=80 memory_side_caches=- origin=-
node=2 access0_initiators=0 access0_read_bandwidth=8192 access0_write_bandwidth=8192 access0_read_latency=250 access0_write_latency=250 memory_side_caches=L1:16MiB:64B:direct:write-back origin=region0/dax0.0
node=3 access0_initiators=1 access0_read_bandwidth=8192 access0_write_bandwidth=8192 access0_read_latency=250 access0_write_latency=250 memory_side_caches=- origin=dax1.0'
	run -0 rm-topo --sysroot "$s" nodes --node 3 -r -o "$a1"
	assert_output "1 8192 8192 250 250"
	# JSON: numbers, and cache sizes in bytes
	run -0 rm-topo --sysroot "$s" nodes -J --node 2 -o node,access1_read_latency,memory_side_caches
	python3 -c 'import json, sys; assert json.load(sys.stdin) == json.loads(sys.argv[1])' \
		'{"nodes": [{"node": 2, "access1_read_latency": 250,
		"memory_side_caches": "L1:16777216:64:direct:write-back"}]}' <<<"$output"
	# a described machine states no HMAT
	run -0 rm-topo --topology "numa:2 pu:1" nodes -o node,access0_read_latency,memory_side_caches,origin
	assert_output 'node=0 access0_read_latency=- memory_side_caches=- origin=-
node=1 access0_read_latency=- memory_side_caches=- origin=-'
}

@test "nodes and distances of a snapshot are read from its files without loading a topology" {
	local s=$SNAPSHOTS/x86-2s-memory-tiers want
	local all=node,cpus,memory,free,distances,packages,memory_only,tier,nearest,used

	run -0 rm-topo --sysroot "$s" nodes -o "$all"
	want=$output
	# hwloc without its Linux backend finds no CPUs in a snapshot: only a topology load fails
	HWLOC_COMPONENTS=-linux run -0 rm-topo --sysroot "$s" nodes -o "$all"
	assert_output "$want"
	HWLOC_COMPONENTS=-linux run -0 rm-topo --sysroot "$s" distances --matrix
	assert_line --index 2 "node=2 node0=17 node1=28 node2=10 node3=28"
	# filters by CPU and package need the topology
	HWLOC_COMPONENTS=-linux run -2 rm-topo --sysroot "$s" nodes --package 0
	# the same records where a file the shortcut needs is missing (hwloc decides then)
	copy_snapshot x86-2s-memory-tiers >/dev/null
	rm "$BATS_TEST_TMPDIR/x86-2s-memory-tiers/sys/devices/system/node/node1/meminfo"
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/x86-2s-memory-tiers" nodes -o node,cpus,packages,nearest
	assert_output 'node=0 cpus=0-3 packages=0 nearest=0
node=1 cpus=4-7 packages=1 nearest=1
node=2 cpus="" packages="" nearest=0
node=3 cpus="" packages="" nearest=1'
	run -2 rm-topo --sysroot "$s" nodes --node 7
	assert_output --partial "no such NUMA node: '7'"
}

@test "memory-only nodes in topology files: the lowest node of a cpuset owns its CPUs" {
	local s=$SNAPSHOTS/x86-2s-memory-tiers x=$BATS_TEST_TMPDIR/t.xml

	# hwloc puts nodes 2 and 3 beside nodes 0 and 1, with their cpusets; an XML file has no
	# cpulist, so the distances and the cpusets decide
	lstopo-no-graphics --input "$s" --of xml "$x" 2>/dev/null
	run -0 rm-topo --topology "$x" nodes -o node,cpus,memory_only,tier,nearest
	assert_output 'node=0 cpus=0-3 memory_only=no tier=- nearest=0
node=1 cpus=4-7 memory_only=no tier=- nearest=1
node=2 cpus="" memory_only=yes tier=- nearest=0
node=3 cpus="" memory_only=yes tier=- nearest=1'
	run -0 rm-topo --topology "$x" -o memory_only_nodes
	assert_line -n 0 "memory_only_nodes=2-3"
	# a synthetic machine with two nodes per package: the second is memory-only, without
	# distances its nearest node is the one it shares the package with
	run -0 rm-topo --topology "package:2 [numa(memory=16GiB)] [numa(memory=64GiB)] core:2 pu:2" \
		nodes -o node,cpus,memory,memory_only,nearest
	assert_output 'node=0 cpus=0-3 memory=16GiB memory_only=no nearest=0
node=1 cpus="" memory=64GiB memory_only=yes nearest=0
node=2 cpus=4-7 memory=16GiB memory_only=no nearest=2
node=3 cpus="" memory=64GiB memory_only=yes nearest=2'
	run -0 rm-topo --topology "package:2 [numa(memory=16GiB)] [numa(memory=64GiB)] core:2 pu:2" \
		cpus -r -o cpu,node -c 3-4
	assert_output "3 0
4 2"
}

@test "s390-lpar: no node/ directory, offline CPUs, packages from core_siblings" {
	local s=$SNAPSHOTS/s390-lpar

	run -0 rm-topo --sysroot "$s"
	assert_output 'machine=- arch=- model=- packages=7 nodes=1 l3=0 cores=17 cpus=20 threads_per_core=1 online=1-5,8-19 offline=0,6-7 isolated=- nohz_full=- memory=- hugepage_sizes=- allowed=1-5,8-19 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=1-5,8-19 memory=- free=- distances=- packages=0-6 memory_only=no tier=- nearest=0'
	run -0 rm-topo --sysroot "$s" cpus --offline
	assert_output "cpu=0 core=- package=- node=- l3=- l2=- l1=- online=no isolated=- allowed=no
cpu=6 core=- package=- node=- l3=- l2=- l1=- online=no isolated=- allowed=no
cpu=7 core=- package=- node=- l3=- l2=- l1=- online=no isolated=- allowed=no"
	run -0 rm-topo --sysroot "$s" packages -o package,cpus,cores,package_id
	assert_output "package=0 cpus=1-2 cores=2 package_id=-
package=1 cpus=3-5 cores=3 package_id=-
package=2 cpus=8-10 cores=3 package_id=-
package=3 cpus=11-14 cores=4 package_id=-
package=4 cpus=15 cores=1 package_id=-
package=5 cpus=16-18 cores=3 package_id=-
package=6 cpus=19 cores=1 package_id=-"
}

@test "cgroup-v2: CPUs outside this process's cgroup cpuset are allowed=no" {
	local s=$SNAPSHOTS/cgroup-v2

	run -0 rm-topo --sysroot "$s" -o cpus,online,allowed
	assert_line -n 0 "cpus=4 online=0-3 allowed=1-2"
	run -0 rm-topo --sysroot "$s" cpus -o cpu,online,allowed
	assert_output "cpu=0 online=yes allowed=no
cpu=1 online=yes allowed=yes
cpu=2 online=yes allowed=yes
cpu=3 online=yes allowed=no"
	# the disallowed CPUs stay in every listing
	run -0 rm-topo --sysroot "$s" cores -o core,cpus
	assert_equal "${#lines[@]}" 4
	# without the cgroup files, every CPU is allowed
	s=$(copy_snapshot cgroup-v2)
	rm "$s/proc/self/cgroup"
	run -0 rm-topo --sysroot "$s" -o allowed
	assert_line -n 0 "allowed=0-3"
}

@test "this-vm: the machine the snapshot was taken on (rm-topo snapshot)" {
	run -0 rm-topo --sysroot "$SNAPSHOTS/this-vm"
	assert_output 'machine=vm arch=- model="AMD EPYC" packages=1 nodes=1 l3=1 cores=2 cpus=2 threads_per_core=1 online=0-1 offline="" isolated="" nohz_full=- memory=4941544KiB hugepage_sizes=2MiB,1GiB allowed=0-1 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-1 memory=4941544KiB free=4341148KiB distances=10 packages=0 memory_only=no tier=- nearest=0'
	# L1i caches too: hwloc drops them unless asked
	run -0 rm-topo --sysroot "$SNAPSHOTS/this-vm" caches -o cache,size,cpus
	assert_output "cache=l1:0 size=32KiB cpus=0
cache=l1:1 size=32KiB cpus=1
cache=l1i:0 size=32KiB cpus=0
cache=l1i:1 size=32KiB cpus=1
cache=l2:0 size=1MiB cpus=0
cache=l2:1 size=1MiB cpus=1
cache=l3:0 size=32MiB cpus=0-1"
}

# ---- missing and unreadable files ----

@test "a missing or unreadable snapshot file gives '-' for its value and exit 0" {
	local s
	s=$(copy_snapshot x86-2s-smt)

	rm "$s/proc/sys/kernel/hostname" "$s/proc/cpuinfo" "$s/sys/devices/system/cpu/isolated"
	rm "$s/sys/devices/system/node/node0/meminfo"
	unreadable "$s/sys/devices/system/node/node1/distance"
	unreadable "$s/sys/devices/system/cpu/cpu0/cache/index3/size"
	rm -r "$s/sys/kernel/mm/hugepages"
	run -0 --separate-stderr rm-topo --sysroot "$s" -o machine,model,packages,cores,isolated,hugepage_sizes
	assert_output "machine=- model=- packages=2 cores=4 isolated=- hugepage_sizes=-
node=0 cpus=0-1,4-5 memory=- free=- distances=- packages=0 memory_only=no tier=- nearest=0
node=1 cpus=2-3,6-7 memory=16GiB free=12GiB distances=- packages=1 memory_only=no tier=- nearest=1"
	run -0 rm-topo --sysroot "$s" cpus -c 1 -o cpu,core,package,node,isolated
	assert_output "cpu=1 core=1 package=0 node=0 isolated=-"
	run -0 rm-topo --sysroot "$s" caches -c 0 -o cache,size,cpus
	assert_output "cache=l1:0 size=32KiB cpus=0,4
cache=l1i:0 size=64KiB cpus=0,4
cache=l2:0 size=512KiB cpus=0,4
cache=l3:0 size=- cpus=0-1,4-5"
	run -0 rm-topo --sysroot "$s" nodes -J
	assert_line --partial '"memory": null'
}

@test "a snapshot without a CPU's topology files: its core and package are '-'" {
	local s
	s=$(copy_snapshot x86-offline-isolated)

	# the offline CPU 3 has none already; take CPU 2's too, and CPU 1's core_id
	rm -r "$s/sys/devices/system/cpu/cpu2/topology"
	rm "$s/sys/devices/system/cpu/cpu1/topology/core_id"
	run -0 --separate-stderr rm-topo --sysroot "$s" cpus -o cpu,core,package,core_id,online
	assert_line -n 1 "cpu=1 core=1 package=0 core_id=- online=yes"
	assert_line -n 2 "cpu=2 core=- package=- core_id=- online=yes"
	assert_line -n 3 "cpu=3 core=- package=- core_id=- online=no"
}

# ---- bad input: one line on stderr, exit 2 ----

@test "--sysroot that is not a snapshot: exit 2, one line" {
	local d=$BATS_TEST_TMPDIR/empty cmd

	mkdir "$d"
	for cmd in summary cpus nodes "calc all" "snapshot $BATS_TEST_TMPDIR/out"; do
		run -2 --separate-stderr rm-topo --sysroot "$d" $cmd
		assert_output ""
		assert_equal "$stderr" "rm-topo: not a snapshot (no sys/devices/system/cpu): '$d'"
	done
	[ ! -e "$BATS_TEST_TMPDIR/out" ] || fail "snapshot wrote $BATS_TEST_TMPDIR/out"

	run -2 --separate-stderr rm-topo --sysroot "$BATS_TEST_TMPDIR/missing"
	assert_output ""
	assert_equal "$stderr" "rm-topo: no such directory: '$BATS_TEST_TMPDIR/missing'"

	RM_SYSROOT=$BATS_TEST_TMPDIR/missing run -2 --separate-stderr rm-topo cpus
	assert_equal "$stderr" "rm-topo: no such directory: '$BATS_TEST_TMPDIR/missing'"

	run -2 --separate-stderr rm-topo --sysroot "$SNAPSHOTS/README.md"
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$stderr" "rm-topo: no such directory: '$SNAPSHOTS/README.md'"
}

@test "--sysroot with an empty sys/devices/system/cpu: exit 2, not this machine's CPUs" {
	local d=$BATS_TEST_TMPDIR/snap

	# hwloc's Linux backend gives up there and would count the CPUs rm-topo runs on
	mkdir -p "$d/sys/devices/system/cpu/cpu0"
	echo 0-1 > "$d/sys/devices/system/cpu/online"
	run -2 --separate-stderr rm-topo --sysroot "$d" cpus
	assert_output ""
	assert_equal "$stderr" "rm-topo: not a snapshot (no sys/devices/system/cpu/cpuN/topology): '$d'"
}

@test "--topology with a corrupt XML file: exit 2, one line" {
	local x=$BATS_TEST_TMPDIR f

	printf 'garbage\n' > "$x/garbage.xml"
	: > "$x/empty.xml"
	lstopo-no-graphics --input "package:2 core:2 pu:2" "$x/good.xml" 2>/dev/null
	head -c 400 "$x/good.xml" > "$x/truncated.xml"
	sed 's/ cpuset="[^"]*"/ cpuset="zz"/' "$x/good.xml" > "$x/badcpuset.xml"
	run -0 rm-topo --topology "$x/good.xml" -o cpus
	assert_line -n 0 "cpus=8"
	for f in garbage empty truncated; do
		run -2 --separate-stderr rm-topo --topology "$x/$f.xml" cpus
		assert_output ""
		assert_equal "$stderr" "rm-topo: not a valid hwloc topology XML file: '$x/$f.xml'"
		# hwloc's own XML parser, where libxml2 is absent: the same one line
		HWLOC_LIBXML_IMPORT=0 run -2 --separate-stderr rm-topo --topology "$x/$f.xml" cpus
		assert_equal "${#stderr_lines[@]}" 1
		assert_output ""
	done
	run -2 --separate-stderr rm-topo --topology "$x/badcpuset.xml"
	assert_output ""
	assert_equal "$stderr" "rm-topo: not a valid hwloc topology XML file: '$x/badcpuset.xml'"
	run -2 --separate-stderr rm-topo --topology "$x/missing.xml"
	assert_equal "$stderr" "rm-topo: no such topology file: '$x/missing.xml'"
}

@test "--topology with an invalid synthetic description: exit 2, one line" {
	local d

	for d in "package:x" "foo:2" "core:2 package:2" "package:2 core:0 pu:1" "package:0"; do
		run -2 --separate-stderr rm-topo --topology "$d" cpus
		assert_output ""
		assert_equal "$stderr" "rm-topo: invalid synthetic topology: '$d'"
	done
	RM_TOPOLOGY="package:x" run -2 --separate-stderr rm-topo
	assert_equal "$stderr" "rm-topo: invalid synthetic topology: 'package:x'"
	# a snapshot directory is not a --topology
	run -2 --separate-stderr rm-topo --topology "$SNAPSHOTS/x86-2s-smt"
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$stderr" "rm-topo: --topology takes an XML file or a synthetic description, use --sysroot for a snapshot directory: '$SNAPSHOTS/x86-2s-smt'"
}

# ---- rm-topo snapshot ----

@test "snapshot DIR of this machine replays as the live machine" {
	local s=$BATS_TEST_TMPDIR/snap

	run -0 rm-topo snapshot "$s"
	assert_output "snapshot=$s files=$(find "$s" -type f -o -type l | wc -l)"
	[ -d "$s/sys/devices/system/cpu/cpu0/topology" ] || fail "no cpu0/topology in the snapshot"
	# links only where the kernel has them for PCI devices, and relative, inside the copy
	[ -z "$(find "$s" -type l ! -path "$s/sys/bus/pci/*" ! -path "$s/sys/devices/pci*")" ] ||
		fail "the snapshot has symlinks outside the PCI tree"
	[ -z "$(find "$s" -type l -lname '/*')" ] || fail "the snapshot has absolute symlinks"
	same_as_live "$s"
	# the host name and architecture uname(2) gives, recorded
	assert_equal "$(cat "$s/proc/sys/kernel/arch")" "$(uname -m)"
	assert_equal "$(cat "$s/proc/sys/kernel/hostname")" "$(uname -n)"
}

@test "snapshot FILE.tar.gz: one top folder named after the archive, replays as live" {
	local t=$BATS_TEST_TMPDIR/w

	mkdir "$t"

	run -0 rm-topo snapshot "$t/box.tar.gz"
	assert_output --regexp "^snapshot=$t/box.tar.gz files=[1-9][0-9]*$"
	assert_equal "$(tar -tzf "$t/box.tar.gz" | cut -d/ -f1 | sort -u)" "box"
	# the working folder next to the archive is gone
	assert_equal "$(ls -A "$t")" "box.tar.gz"
	mkdir "$t/x"
	tar -xzf "$t/box.tar.gz" -C "$t/x"
	assert_equal "$(find "$t/x/box" -type f -o -type l | wc -l)" "$(field files)"
	same_as_live "$t/x/box"
	# read as it is, unpacked by rm-topo itself
	same_as_live "$t/box.tar.gz"

	run -0 rm-topo --sysroot "$SNAPSHOTS/x86-2s-smt" snapshot "$t/two.tgz"
	mkdir "$t/y"
	tar -xzf "$t/two.tgz" -C "$t/y"
	diff -r "$SNAPSHOTS/x86-2s-smt" "$t/y/two"
}

@test "snapshot refuses a non-empty DIR, a file and an existing archive: exit 2, nothing written" {
	local t=$BATS_TEST_TMPDIR/w

	mkdir "$t"

	mkdir "$t/full"
	echo keep > "$t/full/keep"
	run -2 --separate-stderr rm-topo snapshot "$t/full"
	assert_output ""
	assert_equal "$stderr" "rm-topo: not a new or empty directory: '$t/full'"
	assert_equal "$(ls -A "$t/full")" "keep"

	echo data > "$t/file"
	run -2 --separate-stderr rm-topo snapshot "$t/file"
	assert_equal "$stderr" "rm-topo: not a new or empty directory: '$t/file'"
	assert_equal "$(cat "$t/file")" "data"

	echo archive > "$t/old.tar.gz"
	run -2 --separate-stderr rm-topo snapshot "$t/old.tar.gz"
	assert_output ""
	assert_equal "$stderr" "rm-topo: file exists: '$t/old.tar.gz'"
	assert_equal "$(cat "$t/old.tar.gz")" "archive"
	assert_equal "$(ls -A "$t" | sort | tr '\n' ' ')" "file full old.tar.gz "

	# an existing empty directory is taken
	mkdir "$t/empty"
	run -0 rm-topo snapshot "$t/empty"
	[ -f "$t/empty/sys/devices/system/cpu/online" ] || fail "nothing written into the empty DIR"
}

@test "snapshot refuses --topology and a missing DIR: exit 2, nothing written" {
	run -2 --separate-stderr rm-topo --topology "package:1 core:2 pu:1" snapshot "$BATS_TEST_TMPDIR/s"
	assert_output ""
	assert_equal "$stderr" "rm-topo: snapshot copies a live machine or a --sysroot, not --topology or RM_TOPOLOGY"
	[ ! -e "$BATS_TEST_TMPDIR/s" ] || fail "snapshot wrote $BATS_TEST_TMPDIR/s"
	RM_TOPOLOGY="package:1 core:2 pu:1" run -2 rm-topo snapshot "$BATS_TEST_TMPDIR/s"
	[ ! -e "$BATS_TEST_TMPDIR/s" ] || fail "snapshot wrote $BATS_TEST_TMPDIR/s"
	run -2 --separate-stderr rm-topo snapshot
	assert_output ""
	assert_equal "${stderr_lines[0]}" "rm-topo snapshot: missing DIR"
}

@test "snapshot of a --sysroot snapshot reproduces it, file for file" {
	local name out

	for name in x86-2s-smt x86-offline-isolated numa-memoryless-cpuless x86-2s-memory-tiers \
		cgroup-v2 s390-lpar this-vm; do
		out=$BATS_TEST_TMPDIR/$name
		run -0 rm-topo --sysroot "$SNAPSHOTS/$name" snapshot "$out"
		assert_output "snapshot=$out files=$(find "$SNAPSHOTS/$name" -type f -o -type l | wc -l)"
		diff -r "$SNAPSHOTS/$name" "$out"
	done
	# the copy of the cgroup-v2 snapshot keeps its restriction
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/cgroup-v2" -o allowed
	assert_line -n 0 "allowed=1-2"
}

@test "snapshot of a --sysroot given by a relative path or with glob characters in its name" {
	cd "$BATS_TEST_TMPDIR"
	cp -R "$SNAPSHOTS/x86-offline-isolated" "snap[1]"
	run -0 rm-topo --sysroot "snap[1]" snapshot rel
	assert_output "snapshot=rel files=$(find "snap[1]" -type f -o -type l | wc -l)"
	diff -r "snap[1]" rel
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/snap[1]" snapshot abs
	diff -r "snap[1]" abs
}

@test "snapshot: the summary line replayed from the directory and from each archive is the live one" {
	local t=$BATS_TEST_TMPDIR/w live ext

	mkdir -p "$t" "$t/tmp"
	export TMPDIR=$t/tmp
	run -0 rm-topo
	live=${lines[0]}
	[[ $live == "machine=$(uname -n) arch=$(uname -m) "* ]] || fail "live summary: '$live'"
	run -0 rm-topo snapshot "$t/dir"
	run -0 rm-topo --sysroot "$t/dir"
	assert_equal "${lines[0]}" "$live"
	for ext in tar.gz tgz tar tar.xz tar.zst tar.bz2; do
		run -0 rm-topo snapshot "$t/box.$ext"
		run -0 rm-topo --sysroot "$t/box.$ext"
		assert_equal "${lines[0]}" "$live"
		RM_SYSROOT=$t/box.$ext run -0 rm-topo summary
		assert_equal "${lines[0]}" "$live"
		# the same files as the directory (their values may have changed since)
		mkdir "$t/x"
		tar -xaf "$t/box.$ext" -C "$t/x"
		diff <(cd "$t/dir" && find . | sort) <(cd "$t/x/box" && find . | sort)
		rm -r "$t/x"
	done
	# each unpacked copy was removed when its command ended
	assert_equal "$(ls -A "$t/tmp")" ""
}

@test "snapshot FILE.tar.gz: every entry is root's, with its mode and the snapshot's time" {
	local t=$BATS_TEST_TMPDIR before after

	before=$(date +%s)
	run -0 rm-topo snapshot "$t/box.tar.gz"
	after=$(date +%s)
	# names and ids: root/root, 0/0, whoever took it
	run -0 tar tvzf "$t/box.tar.gz"
	[ "${#lines[@]}" -gt 10 ]
	assert_equal "$(printf '%s\n' "${lines[@]}" | awk '{ print $2 }' | sort -u)" "root/root"
	run -0 tar --numeric-owner -tvzf "$t/box.tar.gz"
	assert_equal "$(printf '%s\n' "${lines[@]}" | awk '{ print $2 }' | sort -u)" "0/0"
	# modes kept: folders 0755, files 0644, links
	assert_equal "$(tar tvzf "$t/box.tar.gz" | cut -c1 | sort -u | tr -d '\n')" "-dl" ||
		assert_equal "$(tar tvzf "$t/box.tar.gz" | cut -c1 | sort -u | tr -d '\n')" "-d"
	tar tvzf "$t/box.tar.gz" box/proc/cpuinfo | grep -q '^-rw-r--r-- ' || fail "cpuinfo's mode"
	tar tvzf "$t/box.tar.gz" box/sys/devices/system/cpu | grep -q '^drwxr-xr-x ' ||
		fail "the cpu folder's mode"
	# one time, the snapshot's
	mkdir "$t/x"
	tar -xzf "$t/box.tar.gz" -C "$t/x"
	run -0 find "$t/x/box" -printf '%T@\n'
	assert_equal "$(printf '%s\n' "${lines[@]}" | cut -d. -f1 | sort -u | wc -l)" 1
	[ "${lines[0]%.*}" -ge "$before" ] && [ "${lines[0]%.*}" -le "$after" ] ||
		fail "entry time ${lines[0]} not in $before..$after"
}

@test "snapshot refuses a symlink planted at the output path: exit 2, its target untouched" {
	local t=$BATS_TEST_TMPDIR/w

	mkdir -p "$t/empty"
	echo victim > "$t/victim"
	ln -s "$t/victim" "$t/box.tar.gz"
	run -2 --separate-stderr rm-topo snapshot "$t/box.tar.gz"
	assert_equal "$stderr" "rm-topo: file exists: '$t/box.tar.gz'"
	assert_equal "$(cat "$t/victim")" "victim"
	[ -L "$t/box.tar.gz" ] || fail "the link was replaced"
	# a dangling link: its target is not created
	ln -s "$t/made" "$t/new.tgz"
	run -2 rm-topo snapshot "$t/new.tgz"
	[ ! -e "$t/made" ] || fail "written through the dangling link"
	# a link to an empty directory is not a snapshot DIR
	ln -s "$t/empty" "$t/dir"
	run -2 --separate-stderr rm-topo snapshot "$t/dir"
	assert_equal "$stderr" "rm-topo: not a new or empty directory: '$t/dir'"
	assert_equal "$(ls -A "$t/empty")" ""
	# and no working folder is left behind
	assert_equal "$(ls -A "$t" | sort | tr '\n' ' ')" "box.tar.gz dir empty new.tgz victim "
}

# While PID runs, swap each folder matching the globs GLOB... for a symbolic link to OUTSIDE, as
# soon as it appears: renamed away, and the link made in its place at once.
swap_for_link() {
	python3 - "$@" <<'PY'
import glob, os, sys
pid, outside, globs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def running():
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False
while running():
    for g in globs:
        for d in glob.glob(g):
            if os.path.isdir(d) and not os.path.islink(d):
                try:
                    os.rename(d, d + ".moved")
                    os.symlink(outside, d)
                except OSError:
                    pass
PY
}

# rm-topo snapshot ARGS in the background, each of its file opens slowed down (strace), so that
# a folder can be swapped while it copies; sets PID.
slow_snapshot() {
	strace -qq -f -o /dev/null -e trace=openat -e inject=openat:delay_exit=400 \
		rm-topo snapshot "$@" >/dev/null 2>&1 &
	PID=$!
}

@test "snapshot: a folder swapped for a symlink while it copies never sends a file outside" {
	local t=$BATS_TEST_TMPDIR/w outside=$BATS_TEST_TMPDIR/outside

	mkdir -p "$t" "$outside"
	# DIR: its sys folder, made by rm-topo, replaced by a link
	mkdir "$t/d"
	slow_snapshot "$t/d"
	swap_for_link "$PID" "$outside" "$t/d/sys"
	wait "$PID" || true
	[ -d "$t/d/sys.moved" ] || fail "the folder was not swapped"
	# FILE.tar.gz: the same in its private working folder
	slow_snapshot "$t/a.tar.gz"
	swap_for_link "$PID" "$outside" "$t/.rm-topo-snapshot.*/sys" "$t/.rm-topo-snapshot.*/*/sys"
	wait "$PID" || true
	# nothing went through the link
	assert_equal "$(find "$outside" -mindepth 1)" ""
	# the working folder is gone, finished or failed (a link swapped in after the copy is
	# archived as a link)
	assert_equal "$(ls -A "$t" | grep -v -x -e d -e a.tar.gz)" ""
}

@test "snapshot: a symlink planted at the output path while it runs is never written through" {
	local t=$BATS_TEST_TMPDIR/w

	mkdir "$t"
	echo victim > "$t/victim"
	slow_snapshot "$t/late.tar.gz"
	# once the copy is under way (its working folder made), the output path is a link
	while kill -0 "$PID" 2>/dev/null; do
		if compgen -G "$t/.rm-topo-snapshot.*" >/dev/null; then
			ln -sfn "$t/victim" "$t/late.tar.gz" 2>/dev/null || true
		fi
	done
	wait "$PID" || true
	[ -L "$t/late.tar.gz" ] || fail "the link was not planted"
	[ "$(head -c 7 "$t/victim")" = victim ] || fail "the archive was written through the link"
}

@test "snapshot: names starting with '-' are names, not options" {
	cd "$BATS_TEST_TMPDIR"
	run -0 rm-topo snapshot ./--version.tar.gz
	assert_output --regexp "^snapshot=./--version.tar.gz files=[1-9][0-9]*$"
	assert_equal "$(tar -tzf ./--version.tar.gz | cut -d/ -f1 | sort -u)" "--version"
	run -0 rm-topo --sysroot ./--version.tar.gz -o cpus
	assert_line -n 0 "cpus=$(rm-topo -o cpus | head -n 1 | cut -d= -f2)"
	RM_SYSROOT=./--version.tar.gz run -0 rm-topo -o cpus
	run -0 rm-topo snapshot -- -x.tgz
	assert_equal "$(tar -tzf ./-x.tgz | cut -d/ -f1 | sort -u)" "-x"
	run -0 rm-topo snapshot -- --dir
	[ -f ./--dir/sys/devices/system/cpu/online ] || fail "nothing in --dir"
	run -0 rm-topo --sysroot ./--dir -o cpus
	# nothing else made: no file an option would have named
	assert_equal "$(ls -A | grep -v -e '^--version.tar.gz$' -e '^-x.tgz$' -e '^--dir$' \
		-e '^bats-' || true)" ""
}

# A tar archive FILE holding a small valid snapshot, then the entries python's tarfile makes from
# the arguments: "f NAME" a file, "d NAME" a folder, "l NAME TARGET" a symbolic link, "h NAME
# TARGET" a hard link.
evil_archive() {
	local file=$1
	shift
	python3 - "$file" "$SNAPSHOTS/x86-2s-smt" "$@" <<'PY'
import io, sys, tarfile
out, snap, args = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(out, "w:gz") as t:
    t.add(snap, arcname="snap")
    while args:
        kind, name = args[0], args[1]
        info = tarfile.TarInfo(name)
        if kind == "f":
            info.size = 5
            t.addfile(info, io.BytesIO(b"evil\n"))
            args = args[2:]
            continue
        if kind == "d":
            info.type = tarfile.DIRTYPE
            t.addfile(info)
            args = args[2:]
            continue
        info.type = tarfile.SYMTYPE if kind == "l" else tarfile.LNKTYPE
        info.linkname = args[2]
        t.addfile(info)
        args = args[3:]
PY
}

@test "--sysroot of a malicious archive: exit 2, nothing written outside its private folder" {
	local t=$BATS_TEST_TMPDIR/w out=$BATS_TEST_TMPDIR/outside a

	mkdir -p "$t/tmp/deep" "$out"
	export TMPDIR=$t/tmp/deep
	echo keep > "$out/passwd"
	evil_archive "$t/abs.tar.gz" f "$out/abs"
	evil_archive "$t/dotdot.tar.gz" f "snap/../../x" f "../y"
	evil_archive "$t/linkout.tar.gz" l "snap/out" "$out" f "snap/out/evil"
	evil_archive "$t/linkrel.tar.gz" l "snap/up" "../../../.." f "snap/up/evil"
	evil_archive "$t/linkover.tar.gz" l "snap/out" "$out/passwd" f "snap/out"
	evil_archive "$t/chain.tar.gz" l "snap/here" "." l "snap/up" "here/../.."
	evil_archive "$t/hard.tar.gz" h "snap/pw" "$out/passwd"
	for a in abs dotdot linkout linkrel linkover chain hard; do
		run -2 --separate-stderr rm-topo --sysroot "$t/$a.tar.gz" cpus
		assert_output ""
		[[ $stderr == "rm-topo: unsafe entry in the snapshot archive '$t/$a.tar.gz': "* ]] ||
			fail "$a: $stderr"
		assert_equal "${#stderr_lines[@]}" 1
		RM_SYSROOT=$t/$a.tar.gz run -2 rm-topo
	done
	assert_equal "$(ls -A "$out")" "passwd"
	assert_equal "$(cat "$out/passwd")" "keep"
	assert_equal "$(ls -A "$t" | sort | tr '\n' ' ')" \
		"abs.tar.gz chain.tar.gz dotdot.tar.gz hard.tar.gz linkout.tar.gz linkover.tar.gz linkrel.tar.gz tmp "
	assert_equal "$(ls -A "$t/tmp")" "deep"
	assert_equal "$(ls -A "$t/tmp/deep")" ""
	# the same archive without its bad entries reads
	evil_archive "$t/good.tar.gz" l "snap/in" "sys/devices"
	run -0 rm-topo --sysroot "$t/good.tar.gz" -o cpus
	assert_line -n 0 "cpus=8"
}

@test "--sysroot of a damaged or missing archive: exit 2, one line" {
	local t=$BATS_TEST_TMPDIR

	printf 'not a tar\n' > "$t/bad.tar.gz"
	run -2 --separate-stderr rm-topo --sysroot "$t/bad.tar.gz"
	assert_output ""
	[[ $stderr == "rm-topo: not a readable snapshot archive: '$t/bad.tar.gz'"* ]] || fail "$stderr"
	run -2 --separate-stderr rm-topo --sysroot "$t/missing.tar.gz"
	assert_equal "$stderr" "rm-topo: no such file: '$t/missing.tar.gz'"
	# an archive without a snapshot in it
	tar -czf "$t/empty.tar.gz" -C "$t" bad.tar.gz
	run -2 --separate-stderr rm-topo --sysroot "$t/empty.tar.gz"
	assert_equal "$stderr" "rm-topo: not a snapshot archive (no sys folder in it): '$t/empty.tar.gz'"
	# a directory named like an archive is a snapshot directory
	cp -R "$SNAPSHOTS/x86-2s-smt" "$t/dir.tar.gz"
	run -0 rm-topo --sysroot "$t/dir.tar.gz" -o cpus
	assert_line -n 0 "cpus=8"
}

# ---- the cgroup restriction on the live machine (root) ----

# Create a cpuset cgroup allowing only one CPU, $CG_CPU (the highest of the root cpuset's):
# cgroup v2 where its root offers the cpuset controller, else cgroup v1's cpuset hierarchy.
# Sets CG (its directory) and CG_PROCS (where a process is moved in); skips, saying why, where
# this machine has no cpuset controller to use.
make_cpuset_cgroup() {
	local mnt cpus mems

	mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -n "$mnt" ] && grep -qw cpuset "$mnt/cgroup.controllers" 2>/dev/null; then
		if ! grep -qw cpuset "$mnt/cgroup.subtree_control"; then
			echo +cpuset 2>/dev/null >"$mnt/cgroup.subtree_control" ||
				skip "cannot enable the cgroup v2 cpuset controller in $mnt"
			CG_ENABLED=$mnt
		fi
		cpus=$(cat "$mnt/cpuset.cpus.effective" 2>/dev/null) || skip "no $mnt/cpuset.cpus.effective"
		CG_PROCS=cgroup.procs
	else
		mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuset(,|$)/ { print $2; exit }' /proc/mounts)
		[ -n "$mnt" ] || skip "no cpuset cgroup controller mounted"
		cpus=$(cat "$mnt/cpuset.cpus")
		mems=$(cut -d, -f1 "$mnt/cpuset.mems" | cut -d- -f1)
		CG_PROCS=tasks
	fi
	case $cpus in
	*[,-]*) CG_CPU=${cpus##*[,-]} ;;
	*) skip "needs 2 CPUs in the root cpuset, has '$cpus'" ;;
	esac
	CG=$mnt/rmtools-test-topo-$$
	mkdir "$CG" || skip "cannot create a cgroup in $mnt"
	CG_PROCS=$CG/$CG_PROCS
	[ -z "$mems" ] || echo "$mems" >"$CG/cpuset.mems"
	echo "$CG_CPU" >"$CG/cpuset.cpus"
}

teardown() {
	if [ -n "${CG:-}" ] && [ -d "$CG" ]; then
		rmdir "$CG"
	fi
	if [ -n "${CG_ENABLED:-}" ]; then
		echo -cpuset > "$CG_ENABLED/cgroup.subtree_control"
	fi
}

# bats test_tags=root
@test "in a cgroup cpuset of one CPU, only that CPU is allowed; a snapshot taken there replays it" {
	require_root
	make_cpuset_cgroup
	run -0 sh -c 'echo $$ > "$1" && shift && exec "$@"' sh "$CG_PROCS" rm-topo -o allowed
	assert_line -n 0 "allowed=$CG_CPU"
	run -0 sh -c 'echo $$ > "$1" && shift && exec "$@"' sh "$CG_PROCS" rm-topo cpus -r -o cpu,allowed
	assert_line "$CG_CPU yes"
	assert_line "0 no"
	# every CPU is still listed
	assert_equal "${#lines[@]}" "$(rm-topo -o cpus | head -n 1 | cut -d= -f2)"
	run -0 sh -c 'echo $$ > "$1" && shift && exec "$@"' sh "$CG_PROCS" rm-topo snapshot "$BATS_TEST_TMPDIR/s"
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/s" -o allowed
	assert_line -n 0 "allowed=$CG_CPU"
	# outside the cgroup, every online CPU is allowed again
	run -0 rm-topo -o allowed,online
	assert_equal "$(field allowed)" "$(field online)"
}
