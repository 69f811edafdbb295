# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset on a machine with memory-only NUMA nodes (CXL memory, HBM): an allocation's mems are
# the nodes of its CPUs, memory-only nodes only through --add-mems.
load ../test_helper

# tests/snapshots/x86-2s-memory-tiers: node0 = CPUs 0-3, node1 = CPUs 4-7, nodes 2 and 3
# memory-only, node2 nearest node0 and node3 nearest node1.
TIERS=$SNAPSHOTS/x86-2s-memory-tiers

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	STATE=$RM_STATE_DIR/cpuset.state
}

cs() { rm-cpuset --sysroot "$TIERS" "$@"; }

# The state file's bytes, or "none".
state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# Refused with exit status 2, MESSAGE as the one line on stderr, and the state file unchanged.
refused() {
	local msg=$1 before
	shift
	before=$(state_sum)
	run -2 --separate-stderr "$@"
	assert_equal "$output" ""
	assert_equal "$stderr" "$msg"
	assert_equal "$(state_sum)" "$before"
}

@test "memory-only nodes: an allocation's mems are the nodes of its CPUs" {
	run -0 cs alloc --count 4 --owner db --policy single-numa-node
	assert_output "owner=db cpus=0-3 mems=0 cores=0-1 nodes=0 cgroup=-"
	run -0 cs alloc --count 2 --owner web --numa-node 1
	assert_output "owner=web cpus=4-5 mems=1 cores=2 nodes=1 cgroup=-"
	run -0 sed -n '3,4p' "$STATE"
	assert_line --index 0 --regexp '^owner=db cpus=0-3 mems=0 count=4 isolate=no pid=- start=- created=[0-9]+ placement="--policy single-numa-node"$'
	assert_line --index 1 --regexp '^owner=web cpus=4-5 mems=1 count=2 isolate=no pid=- start=- created=[0-9]+ placement="--numa-node 1"$'
	# the state's topology record and the pools name the CPU nodes only
	run -0 sed -n 2p "$STATE"
	assert_output --regexp '^topology=[0-9a-f]+ cpus=0-7 nodes=0-1 online=0-7$'
	run -0 cs show
	assert_line --index 2 'pool=exclusive cpus=0-5 count=6 nodes=0-1 strict=- owners=2'
	assert_line --index 4 'node=0 cpus=0-3 free="" nfree=0 exclusive=0-3 reserved="" shared=""'
	assert_line --index 5 'node=1 cpus=4-7 free=6-7 nfree=2 exclusive=4-5 reserved="" shared=6-7'
	assert_line --index 6 'node=2 cpus="" free="" nfree=0 exclusive="" reserved="" shared=""'
	assert_line --index 7 'node=3 cpus="" free="" nfree=0 exclusive="" reserved="" shared=""'
	# the same on the machine described in hwloc's XML, which has no cpulist
	lstopo-no-graphics --input "$TIERS" --of xml "$BATS_TEST_TMPDIR/t.xml" 2>/dev/null
	RM_STATE_DIR=$BATS_TEST_TMPDIR/xml run -0 rm-cpuset --topology "$BATS_TEST_TMPDIR/t.xml" \
		alloc --count 4 --owner db --policy single-numa-node --numa-node 1
	assert_output "owner=db cpus=4-7 mems=1 cores=2-3 nodes=1 cgroup=-"
}

@test "memory-only nodes: --add-mems binds memory to them too, kept in the state" {
	run -0 cs alloc --count 2 --owner web --numa-node 1 --add-mems 3 -o +add_mems
	assert_output "owner=web cpus=4-5 mems=1,3 cores=2 nodes=1 cgroup=- add_mems=3"
	run -0 sed -n 3p "$STATE"
	assert_output --regexp '^owner=web cpus=4-5 mems=1,3 count=2 isolate=no pid=- start=- created=[0-9]+ add_mems=3 placement="--numa-node 1"$'
	run -0 cs alloc --count 2 --owner db --add-mems 2-3 --policy single-numa-node --dry-run
	assert_output "owner=db cpus=0-1 mems=0,2-3 cores=0 nodes=0 cgroup=-"
	run -0 cs list -o owner,mems,add_mems
	assert_output "owner=web mems=1,3 add_mems=3"
	run -0 cs list -J -o owner,add_mems
	run -0 jq -c . <<<"$output"
	assert_output '{"allocations":[{"owner":"web","add_mems":"3"}]}'
	# accept-topology recomputes the mems and keeps the added nodes
	run -0 cs accept-topology
	assert_output ""
	run -0 cs list -o owner,mems,add_mems
	assert_output "owner=web mems=1,3 add_mems=3"
	# a node with CPUs and memory may be added too
	run -0 cs alloc --count 1 --owner both --numa-node 0 --add-mems 1 --dry-run
	assert_output "owner=both cpus=0 mems=0-1 cores=0 nodes=0 cgroup=-"
}

@test "memory-only nodes: --numa-node of one, --add-mems of a node without memory: exit 2" {
	run -0 cs alloc --count 2 --owner web
	refused "rm-cpuset: --numa-node: NUMA node 2 has no CPUs (memory only); the nearest node with CPUs is 0: --numa-node 0 --add-mems 2" \
		cs alloc --count 2 --owner db --numa-node 2
	refused "rm-cpuset: --numa-node: NUMA node 3 has no CPUs (memory only); the nearest node with CPUs is 1: --numa-node 1 --add-mems 3" \
		cs alloc --count 2 --owner db --numa-node 0,3 --policy best-effort
	refused "rm-cpuset: --add-mems: no such NUMA node: '4-5'" \
		cs alloc --count 2 --owner db --add-mems 3-5
	refused "rm-cpuset: --numa-node: no such NUMA node: '7'" \
		cs alloc --count 2 --owner db --numa-node 7
	usage_error "rm-cpuset alloc: invalid --add-mems: invalid character 'x'" \
		cs alloc --count 2 --owner db --add-mems x
	# node 1 of this snapshot has CPUs and no memory
	RM_STATE_DIR=$BATS_TEST_TMPDIR/other refused \
		"rm-cpuset: --add-mems: NUMA node without memory: '1'" \
		rm-cpuset --sysroot "$SNAPSHOTS/numa-memoryless-cpuless" alloc --count 1 --owner db \
		--add-mems 1-2
	[ ! -e "$BATS_TEST_TMPDIR/other/cpuset.state" ]
	# run (on this machine) takes --add-mems for a new allocation only
	refused "rm-cpuset: --add-mems is for a new allocation (--count N); 'web' keeps the memory nodes it has" \
		rm-cpuset run --owner web --add-mems 2 -- true
	usage_error "rm-cpuset run: --shared takes no --add-mems" \
		rm-cpuset run --shared --add-mems 2 -- true
}

@test "memory-only nodes: a device on one counts as on its nearest node with CPUs" {
	run -0 cs alloc --count 2 --owner cxl --near - --policy single-numa-node --dry-run \
		<<<'device=0000:c0:00.0 type=accel numa=3'
	assert_output "owner=cxl cpus=4-5 mems=1 cores=2 nodes=1 cgroup=-"
}

@test "memory-only nodes: a CPU node without memory takes the CPU nodes' memory, not the CPU-less node's" {
	# numa-memoryless-cpuless: node0 = CPUs 0-1 with memory, node1 = CPUs 2-3 without,
	# node2 memory only
	run -0 rm-cpuset --sysroot "$SNAPSHOTS/numa-memoryless-cpuless" alloc --count 2 --owner a \
		--numa-node 1
	assert_output "owner=a cpus=2-3 mems=0 cores=2-3 nodes=1 cgroup=-"
}
