# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's Memory Manager: alloc --memory and --hugepages reserve memory and huge pages per
# NUMA node, reserve --memory keeps some for the system, a second owner cannot overcommit a node.
load ../test_helper
load ../cgroup_helper

# tests/snapshots/x86-2s-memory-tiers: node0 = CPUs 0-3 and node1 = CPUs 4-7 with 16 GiB each,
# node2 (64 GiB, nearest node0) and node3 (32 GiB, nearest node1) memory-only.
TIERS=$SNAPSHOTS/x86-2s-memory-tiers
# tests/snapshots/x86-2s-smt: two nodes of 16 GiB, CPUs 0-3 and 4-7.
SMT=$SNAPSHOTS/x86-2s-smt

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	STATE=$RM_STATE_DIR/cpuset.state
	# the tiers machine with huge pages per node: 2 MiB pages 512 on node0, 256 on node1,
	# 1 GiB pages 4 on node1
	HP=$BATS_TEST_TMPDIR/hp
	cp -r "$TIERS" "$HP"
	local n s c d
	for n in 0:2048kB:512 1:2048kB:256 1:1048576kB:4 0:1048576kB:0; do
		IFS=: read -r n s c <<<"$n"
		d=$HP/sys/devices/system/node/node$n/hugepages/hugepages-$s
		mkdir -p "$d"
		echo "$c" >"$d/nr_hugepages"
		echo "$c" >"$d/free_hugepages"
		echo 0 >"$d/surplus_hugepages"
	done
}

teardown() {
	fakes_cleanup
	[ -z "$REAL" ] || rm-cpuset release --all >/dev/null 2>&1 || true
}

cs() { rm-cpuset --sysroot "$TIERS" "$@"; }
hp() { rm-cpuset --sysroot "$HP" "$@"; }
MEMCOLS=owner,cpus,mems,memory,memory_nodes,hugepages

state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# Refused with exit status STATUS and MESSAGE as the one line on stderr, the state unchanged.
refused() {
	local status=$1 msg=$2 before
	shift 2
	before=$(state_sum)
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	assert_equal "$stderr" "$msg"
	assert_equal "$(state_sum)" "$before"
}

@test "memory manager: memory that fits on one node is reserved there, kept in the state" {
	run -0 cs alloc --count 2 --owner db --memory 12G --policy single-numa-node -o $MEMCOLS
	assert_output "owner=db cpus=0-1 mems=0 memory=12GiB memory_nodes=0:12GiB hugepages=-"
	run -0 sed -n 3p "$STATE"
	assert_output --regexp '^owner=db cpus=0-1 mems=0 count=2 .* memory=12884901888 memory_nodes=0:12884901888 hugepages=-$'
	# node 0 has 4 GiB left: the next owner asking 8 GiB goes to node 1
	run -0 cs alloc --count 2 --owner web --memory 8G --policy single-numa-node -o $MEMCOLS
	assert_output "owner=web cpus=4-5 mems=1 memory=8GiB memory_nodes=1:8GiB hugepages=-"
	run -0 cs list -o owner,memory,memory_nodes
	assert_output $'owner=db memory=12GiB memory_nodes=0:12GiB\nowner=web memory=8GiB memory_nodes=1:8GiB'
	# an owner without memory shows none
	run -0 cs alloc --count 1 --owner plain -o owner,memory,memory_nodes
	assert_output "owner=plain memory=0B memory_nodes=-"
	# --list-columns names the new columns
	run -0 cs list --list-columns
	assert_line --regexp '^column=memory type=size '
	assert_line --regexp '^column=memory_nodes type=string '
	assert_line --regexp '^column=hugepages type=string '
}

@test "memory manager: no single node holds it: a group of nodes" {
	run -0 rm-cpuset --sysroot "$SMT" alloc --count 2 --owner big --memory 24G \
		--policy best-effort -o $MEMCOLS
	# the hint is both nodes: the CPUs are taken from both too
	assert_output "owner=big cpus=0,4 mems=0-1 memory=24GiB memory_nodes=0:16GiB,1:8GiB hugepages=-"
	# restricted: the memory's preferred hint is both nodes, the CPUs' is one node; the masks
	# differ, so no merged hint is preferred and the kubelet refuses
	run -0 rm-cpuset --sysroot "$SMT" release big
	refused 3 "rm-cpuset: topology manager policy restricted: no set of NUMA nodes is preferred by every resource for 2 CPUs and the memory (free CPUs: node 0: 4, node 1: 4; free memory: node 0: 16GiB, node 1: 16GiB)" \
		rm-cpuset --sysroot "$SMT" alloc --count 2 --owner big --memory 24G --policy restricted
	# on the tiers machine node 0 alone is the hint; the Memory Manager extends it to the
	# narrowest, lowest set that holds the rest: node 1 (the kubelet has no distances there)
	RM_STATE_DIR=$BATS_TEST_TMPDIR/tiers run -0 cs alloc --count 2 --owner tiered \
		--memory 20G --numa-node 0 --policy best-effort -o $MEMCOLS
	assert_output "owner=tiered cpus=0-1 mems=0-1 memory=20GiB memory_nodes=0:16GiB,1:4GiB hugepages=-"
	# with prefer-closest-numa-nodes, the closest of those sets: the nearest memory-only node
	RM_STATE_DIR=$BATS_TEST_TMPDIR/tiers2 run -0 cs alloc --count 2 --owner tiered \
		--memory 20G --numa-node 0 --policy best-effort \
		--topology-manager-option prefer-closest-numa-nodes -o $MEMCOLS
	assert_output "owner=tiered cpus=0-1 mems=0,2 memory=20GiB memory_nodes=0:16GiB,2:4GiB hugepages=-"
}

@test "memory manager: single-numa-node refuses with exit 3, naming each node's free memory" {
	run -0 cs alloc --count 2 --owner db --memory 12G --policy single-numa-node
	refused 3 "rm-cpuset: topology manager policy single-numa-node: no single NUMA node can hold 2 CPUs and the memory (free CPUs: node 0: 2, node 1: 4, node 2: 0, node 3: 0; free memory: node 0: 4GiB, node 1: 16GiB, node 2: 64GiB, node 3: 32GiB)" \
		cs alloc --count 2 --owner big --memory 17G --policy single-numa-node
}

@test "memory manager: a second owner that would overcommit a node is refused; release gives it back" {
	run -0 rm-cpuset --sysroot "$SMT" alloc --count 2 --owner a --memory 30G
	run -0 rm-cpuset --sysroot "$SMT" list -o owner,memory_nodes
	assert_output "owner=a memory_nodes=0:16GiB,1:14GiB"
	refused 3 "rm-cpuset: not enough free memory on the chosen NUMA nodes: requested 4GiB (free node 0: 0B, node 1: 2GiB)" \
		rm-cpuset --sysroot "$SMT" alloc --count 2 --owner b --memory 4G
	# restricted: nodes 0 and 1 are a's group, so no set holds 4 GiB: the Memory Manager
	# has no hint, the CPUs' is admitted, and the memory cannot be taken
	refused 3 "rm-cpuset: not enough free memory on the chosen NUMA nodes: requested 4GiB (free node 0: 0B, node 1: 2GiB)" \
		rm-cpuset --sysroot "$SMT" alloc --count 2 --owner b --memory 4G --policy restricted
	run -0 rm-cpuset --sysroot "$SMT" release a
	run -0 rm-cpuset --sysroot "$SMT" alloc --count 2 --owner b --memory 4G -o owner,memory_nodes
	assert_output "owner=b memory_nodes=0:4GiB"
}

@test "memory manager: huge pages are accounted per page size and node" {
	run -0 hp alloc --count 2 --owner a --hugepages 2M:300 --policy single-numa-node -o $MEMCOLS
	assert_output "owner=a cpus=0-1 mems=0 memory=0B memory_nodes=- hugepages=2MiB:0:300"
	# node 0 has 212 2 MiB pages left, node 1 256: 250 fit on node 1 only
	run -0 hp alloc --count 2 --owner b --hugepages 2M:250 --policy single-numa-node -o $MEMCOLS
	assert_output "owner=b cpus=4-5 mems=1 memory=0B memory_nodes=- hugepages=2MiB:1:250"
	run -0 sed -n 4p "$STATE"
	assert_output --regexp ' hugepages=2097152:1:250$'
	# 1 GiB pages are counted apart: node 1 has 4
	run -0 hp alloc --count 1 --owner c --hugepages 1G:4 --memory 1G --policy single-numa-node -o $MEMCOLS
	assert_output "owner=c cpus=6 mems=1 memory=1GiB memory_nodes=1:1GiB hugepages=1GiB:1:4"
	refused 3 "rm-cpuset: not enough free 1GiB huge pages on the chosen NUMA nodes: requested 1 (free node 0: 0, node 1: 0, node 2: 0, node 3: 0)" \
		hp alloc --count 1 --owner d --hugepages 1G:1
	refused 3 "rm-cpuset: not enough free 2MiB huge pages on the chosen NUMA nodes: requested 300 (free node 0: 212, node 1: 6, node 2: 0, node 3: 0)" \
		hp alloc --count 1 --owner d --hugepages 2M:300
	# released, the pages are free again
	run -0 hp release a
	run -0 hp alloc --count 1 --owner d --hugepages 2M:300 -o owner,hugepages
	assert_output "owner=d hugepages=2MiB:0:300"
}

@test "memory manager: reserve --memory keeps memory for the system" {
	run -0 cs reserve --memory 0:4G,1:2G
	run -0 sed -n 3p "$STATE"
	assert_output "reserved=\"\" strict=no memory=0:4294967296,1:2147483648"
	# node 0 has 12 GiB for owners, node 1 14 GiB
	run -0 cs alloc --count 2 --owner a --memory 13G --policy single-numa-node -o owner,memory_nodes
	assert_output "owner=a memory_nodes=1:13GiB"
	# setting the CPUs keeps the memory reserve; --memory alone keeps the CPUs
	run -0 cs reserve 7
	run -0 sed -n 3p "$STATE"
	assert_output "reserved=7 strict=no memory=0:4294967296,1:2147483648"
	run -0 cs reserve --memory 0:1G
	run -0 sed -n 3p "$STATE"
	assert_output "reserved=7 strict=no memory=0:1073741824"
	# a reserve that, with the owners' memory, is more than the node has
	refused 3 "rm-cpuset: --memory: NUMA node 1 has 16GiB, and the reserve with the owners' memory would be more" \
		cs reserve --memory 1:4G
	run -0 cs reserve --memory ""
	run -0 sed -n 3p "$STATE"
	assert_output "reserved=7 strict=no"
}

@test "memory manager: bad input is refused with exit 2 before anything changes" {
	run -0 cs alloc --count 1 --owner a
	refused 2 "rm-cpuset alloc: invalid --memory: '0' (a size such as 8G, more than 0)" \
		cs alloc --count 1 --owner b --memory 0
	refused 2 "rm-cpuset: --hugepages: unknown page size: '3M' (this machine offers 2MiB, 1GiB)" \
		cs alloc --count 1 --owner b --hugepages 3M:1
	refused 2 "rm-cpuset: invalid --hugepages: '2M:x' (N: a whole number of pages, at least 1)" \
		cs alloc --count 1 --owner b --hugepages 2M:x
	refused 2 "rm-cpuset: invalid --hugepages: '2M' (SIZE:N, such as 2M:512)" \
		cs alloc --count 1 --owner b --hugepages 2M
	refused 2 "rm-cpuset: --memory: no such NUMA node: '9'" cs reserve --memory 9:1G
	refused 2 "rm-cpuset: invalid --memory: '0=1G' (NODE:SIZE,..., such as 0:1G,1:1G)" \
		cs reserve --memory 0=1G
}

@test "memory manager: cgroup v2 (fake): cpuset.mems, memory.max and memory.min; --hugepages without hugetlb refused" {
	start_fake "$BATS_TEST_TMPDIR/cg" --cpus 0-7 --mems 0-3
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	P=$RM_CGROUP_ROOT/rmtools.slice
	run -0 cs alloc --count 2 --owner db --memory 20G --numa-node 0 --policy best-effort \
		--topology-manager-option prefer-closest-numa-nodes -o owner,mems,memory_nodes,cgroup
	assert_output "owner=db mems=0,2 memory_nodes=0:16GiB,2:4GiB cgroup=$P/db"
	run -0 cat "$P/db/cpuset.mems" "$P/db/memory.max" "$P/db/memory.min"
	assert_output $'0,2\n21474836480\n21474836480'
	run -0 cat "$RM_CGROUP_ROOT/cgroup.subtree_control" "$P/cgroup.subtree_control"
	assert_output $'cpuset memory\ncpuset memory'
	# the fake has no hugetlb controller: refused before anything changes
	refused 2 "rm-cpuset: --hugepages: no hugetlb cgroup controller is mounted (v1 hugetlb or the unified hierarchy's hugetlb): '$RM_CGROUP_ROOT'" \
		hp alloc --count 2 --owner web --memory 1G --hugepages 2M:1
	[ ! -e "$P/web" ]
	# release removes the owner's cgroup with its limits
	run -0 cs release db
	[ ! -e "$P/db" ]
}

@test "memory manager: for real on cgroup v2: memory.max and memory.min of the owner's cgroup" {
	require_root
	local cg=/sys/fs/cgroup owner=mm-$$-$BATS_TEST_NUMBER
	grep -qw memory "$cg/cgroup.controllers" 2>/dev/null && grep -qw cpuset "$cg/cgroup.controllers" ||
		skip "no cgroup v2 with the cpuset and memory controllers at /sys/fs/cgroup"
	[ ! -e "$cg/rmtools.slice" ] || skip "$cg/rmtools.slice exists already; not touching it"
	REAL=1
	run -0 rm-cpuset alloc --count 1 --owner "$owner" --memory 64M -o owner,memory,memory_nodes,cgroup
	assert_output --regexp "^owner=$owner memory=64MiB memory_nodes=[0-9]+:64MiB cgroup=$cg/rmtools.slice/$owner\$"
	run -0 cat "$cg/rmtools.slice/$owner/memory.max" "$cg/rmtools.slice/$owner/memory.min"
	assert_output $'67108864\n67108864'
	run -0 rm-cpuset release --all
	[ ! -e "$cg/rmtools.slice/$owner" ]
}

@test "memory manager: a memory.min write the kernel refuses: limits and allocation undone" {
	start_fake "$BATS_TEST_TMPDIR/cg" --cpus 0-7 --mems 0-3 --fail-write memory.min
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	P=$RM_CGROUP_ROOT/rmtools.slice
	run -0 cs alloc --count 2 --owner web
	local before control
	before=$(state_sum)
	control=$(cat "$RM_CGROUP_ROOT/cgroup.subtree_control" "$P/cgroup.subtree_control")
	run -1 --separate-stderr cs alloc --count 2 --owner db --memory 1G
	[[ $stderr == *"memory.min"*"(the allocation was undone)" ]] || fail "stderr: $stderr"
	[ "$(state_sum)" = "$before" ]
	[ ! -e "$P/db" ]
	# the memory controller enabled for it is disabled again; the first owner stays as it was
	run -0 cat "$RM_CGROUP_ROOT/cgroup.subtree_control" "$P/cgroup.subtree_control"
	assert_output "$control"
	run -0 cs list -r -o owner
	assert_output web
}

# A described machine: 4 nodes of 1 GiB, 4 CPUs each.
FOUR="package:1 numa:4(memory=1GiB) core:2 pu:2"

@test "memory manager: a described machine (--topology) plans on its own nodes' memory" {
	local T="package:2 numa:1(memory=4GiB) core:4 pu:2"
	# no node of 4 GiB holds 5 GiB
	refused 3 "rm-cpuset: topology manager policy single-numa-node: no single NUMA node can hold 2 CPUs and the memory (free CPUs: node 0: 8, node 1: 8; free memory: node 0: 4GiB, node 1: 4GiB)" \
		rm-cpuset --topology "$T" alloc --count 2 --owner a --memory 5GiB --policy single-numa-node
	# owners of 3 GiB: one per node, then no set holds a third
	run -0 rm-cpuset --topology "$T" alloc --count 1 --owner x --memory 3GiB -o owner,mems,memory_nodes
	assert_output "owner=x mems=0 memory_nodes=0:3GiB"
	run -0 rm-cpuset --topology "$T" alloc --count 1 --owner y --memory 3GiB -o owner,mems,memory_nodes
	assert_output "owner=y mems=1 memory_nodes=1:3GiB"
	refused 3 "rm-cpuset: not enough free memory on the chosen NUMA nodes: requested 3GiB (free node 0: 1GiB, node 1: 1GiB)" \
		rm-cpuset --topology "$T" alloc --count 1 --owner z --memory 3GiB
	# the described nodes, not this machine's, are the ones a reserve names
	run -0 rm-cpuset --topology "$T" reserve --memory 0:1G,1:512M
	assert_output --partial "pool=reserved"
	refused 2 "rm-cpuset: --memory: no such NUMA node: '2'" \
		rm-cpuset --topology "$T" reserve --memory 2:1G
	# no huge pages are described: none to ask for
	run -2 rm-cpuset --topology "$T" alloc --count 1 --owner h --hugepages 2M:1
}

@test "memory manager: preferred sizes come from allocatable memory (capacity less the system reserve)" {
	# 512 MiB of each 1 GiB node reserved: 1 GiB needs two nodes, as 5 CPUs do; both
	# providers prefer nodes 0,1 and restricted admits it there (the kubelet's answer)
	run -0 rm-cpuset --topology "$FOUR" reserve --memory 0:512M,1:512M,2:512M,3:512M
	run -0 rm-cpuset --topology "$FOUR" alloc --count 5 --owner a --memory 1G \
		--policy restricted -o owner,cpus,mems,memory_nodes
	assert_output "owner=a cpus=0-4 mems=0-1 memory_nodes=0:512MiB,1:512MiB"
}

@test "memory manager: a node in an owner's NUMA group is no single-node hint and joins no other group" {
	# a's 1.5 GiB spans nodes 0 and 1: they are one group
	run -0 rm-cpuset --topology "$FOUR" alloc --count 1 --owner a --memory 1536M \
		-o owner,mems,memory_nodes
	assert_output "owner=a mems=0-1 memory_nodes=0:1GiB,1:512MiB"
	# near node 1, restricted: the memory's only hint there is {0,1}, not preferred
	refused 3 "rm-cpuset: topology manager policy restricted: no set of NUMA nodes is preferred by every resource for 1 CPUs and the memory (free CPUs: node 0: 3, node 1: 4, node 2: 4, node 3: 4; free memory: node 0: 0B, node 1: 512MiB, node 2: 1GiB, node 3: 1GiB)" \
		rm-cpuset --topology "$FOUR" alloc --count 1 --owner b --memory 256M --numa-node 1 \
		--policy restricted
	# best-effort: node 0 is the narrowest, lowest hint, and the Memory Manager extends it
	# to the group, never to node 1 alone
	run -0 rm-cpuset --topology "$FOUR" alloc --count 1 --owner b --memory 256M --numa-node 1 \
		--policy best-effort -o owner,mems,memory_nodes
	assert_output "owner=b mems=0-1 memory_nodes=1:256MiB"
	# elsewhere, a single node as before
	run -0 rm-cpuset --topology "$FOUR" alloc --count 1 --owner c --memory 256M \
		--policy restricted -o owner,mems,memory_nodes
	assert_output "owner=c mems=2 memory_nodes=2:256MiB"
	# node 2 holds single-node memory now: no group of several takes it
	refused 3 "rm-cpuset: not enough free memory on the chosen NUMA nodes: requested 1536MiB (free node 0: 0B, node 1: 256MiB, node 2: 768MiB, node 3: 1GiB)" \
		rm-cpuset --topology "$FOUR" alloc --count 1 --owner d --memory 1536M
}

@test "memory manager: alloc --explain shows each provider's hints, the merged hint and the extension" {
	run -0 cs alloc --count 2 --owner t --memory 20G --numa-node 0 --policy best-effort \
		--explain --dry-run -o owner,mems
	# every provider lists its hints: the CPUs', the memory's (node 2 and node 3 alone are
	# the preferred ones) and node 0's
	assert_line "hint=cpu nodes=0 preferred=yes"
	assert_line "hint=cpu nodes=0-1 preferred=no"
	assert_line "hint=memory nodes=2 preferred=yes"
	assert_line "hint=memory nodes=0-1 preferred=no"
	assert_line "hint=numa-node nodes=0 preferred=yes"
	refute_line "hint=memory nodes=0 preferred=yes"
	# no preferred merge (the memory's preferred sets hold no CPU): node 0, extended to 0-1
	assert_line --index $((${#lines[@]} - 3)) "merged=best-effort nodes=0 preferred=no admit=yes merge=every-set"
	assert_line --index $((${#lines[@]} - 2)) "extended=memory nodes=0-1"
	assert_line --index $((${#lines[@]} - 1)) "owner=t mems=0-1"
	# the hints are each set once per provider
	run -0 bash -c "rm-cpuset --sysroot '$TIERS' alloc --count 2 --owner t --memory 20G --policy best-effort --explain --dry-run | grep -c '^hint=memory '"
	assert_output 13
}
