# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset alloc and reserve end to end: placements as the kubelet's static CPU manager makes them.
load ../test_helper

# Every expected CPU set below was worked out by hand from the rules of
# ../shared/reference/kubelet-cpu-allocation.md (cited as §N); the comment on each step says
# which rule decides it. "Free" means the shared pool minus the reserved CPUs (§5). Where the
# library driver (tests/unit/test-cpualloc) is asked too, it gets the same free set through
# --available/--reserved and must give the same answer as the tool.
#
# No root and no cgroups: --topology describes the machine, RM_STATE_DIR holds the state.

# "0,OFF,1,1+OFF,...": N cores whose threads are i and i+OFF
pairs() {
	local i out=
	for ((i = 0; i < $1; i++)); do out+="${out:+,}$i,$((i + $2))"; done
	echo "$out"
}

# 1 socket, 1 node, 4 cores; core k = {k, k+4} (the kubelet's topoSingleSocketHT).
SINGLE_HT="package:1 numa:1 core:4 pu:2(indexes=$(pairs 4 4))"
# 2 sockets = 2 nodes; socket 0 = 0,2,4,6,8,10, socket 1 the odd CPUs; CPU i and i+6 siblings:
# cores {0,6} {2,8} {4,10} | {1,7} {3,9} {5,11} (the kubelet's topoDualSocketHT).
DUAL_HT="package:2 numa:1 core:3 pu:2(indexes=0,6,2,8,4,10,1,7,3,9,5,11)"
# 2 sockets x 2 nodes x 4 cores x 2 threads; core i = {i, i+16}; node n = cores 4n..4n+3:
# node 0 = 0-3,16-19, node 1 = 4-7,20-23 (socket 0), node 2 = 8-11,24-27, node 3 = 12-15,28-31.
# More nodes than sockets: sockets are the outer level (§1).
MULTI="package:2 numa:2 core:4 pu:2(indexes=$(pairs 16 16))"
# 4 sockets = 4 nodes x 2 cores x 4 threads (4-way SMT); core c = {c, c+8, c+16, c+24};
# socket s = cores 2s, 2s+1. As many sockets as nodes: NUMA nodes are outer (§1).
QUAD="package:4 numa:1 core:2 pu:4(indexes=$(for c in 0 1 2 3 4 5 6 7; do
	echo "$c,$((c + 8)),$((c + 16)),$((c + 24))"; done | paste -sd,))"
# AMD-style (EPYC NPS=2): 2 sockets x 2 nodes x 2 L3 x 4 cores x 2 threads; core i = {i, i+32};
# L3 u = cores 4u..4u+3 (8 CPUs, CPUs-per-uncore 64/8 = 8); node n = L3 2n, 2n+1; sockets-first.
AMD="package:2 numa:2 l3:2 core:4 pu:2(indexes=$(pairs 32 32))"

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	STATE=$RM_STATE_DIR/cpuset.state
	TOPO=$DUAL_HT
}

cs() { rm-cpuset --topology "$TOPO" "$@"; }
ca() { "$RM_BUILDDIR/tests/unit/test-cpualloc" "$@"; }

# alloc_is EXPECTED OWNER COUNT [OPTION...]: allocate, succeed, and get exactly EXPECTED.
alloc_is() {
	local expect=$1 owner=$2 count=$3
	shift 3
	run -0 --separate-stderr cs alloc --owner "$owner" --count "$count" -r -o cpus "$@"
	[ "$output" = "$expect" ] ||
		fail "alloc --owner $owner --count $count $*: got '$output', expected '$expect'"
}

# dry_is EXPECTED COUNT [OPTION...]: the same with --dry-run, which must leave the state as it is.
dry_is() {
	local expect=$1 count=$2
	shift 2
	keep
	run -0 --separate-stderr cs alloc --owner dry --count "$count" -r -o cpus --dry-run "$@"
	[ "$output" = "$expect" ] ||
		fail "alloc --dry-run --count $count $*: got '$output', expected '$expect'"
	unchanged
}

# The CPUs of pool NAME (reserved, shared, exclusive, free) in `rm-cpuset show`.
pool() {
	cs show -r -o pool,cpus | awk -v p="$1" '$1 == p { print ($2 == "\"\"" ? "" : $2) }'
}

# lib_is EXPECTED COUNT [OPTION...]: the library driver, given the state's free and reserved
# CPUs, chooses EXPECTED too.
lib_is() {
	local expect=$1 count=$2 free res
	shift 2
	free=$(pool free)
	res=$(pool reserved)
	run -0 ca --topology "$TOPO" --available "$free${res:+,$res}" ${res:+--reserved "$res"} \
		"$@" allocate "$count"
	[ "$output" = "$expect" ] ||
		fail "test-cpualloc allocate $count $* on free '$free': got '$output', expected '$expect'"
}

# keep: remember the state file's bytes; unchanged: fail unless they are the same (or both absent).
keep() {
	rm -f "$BATS_TEST_TMPDIR/before"
	[ ! -e "$STATE" ] || cp "$STATE" "$BATS_TEST_TMPDIR/before"
}
unchanged() {
	if [ -e "$BATS_TEST_TMPDIR/before" ]; then
		cmp -s "$STATE" "$BATS_TEST_TMPDIR/before" || fail "the state file changed"
	else
		[ ! -e "$STATE" ] || fail "the state file was created"
	fi
}

# refused STATUS MESSAGE COMMAND...: exit STATUS, MESSAGE on stderr, nothing on stdout, state
# file unchanged.
refused() {
	local status=$1 msg=$2
	shift 2
	keep
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	[[ $stderr == *"$msg"* ]] || fail "stderr: '$stderr', expected: '$msg'"
	unchanged
}

# ---- topologies ----

@test "single-socket HT: the reserved CPU's sibling is filled first, then whole cores" {
	TOPO=$SINGLE_HT
	# §5: a count is reserved by takeByTopology over all CPUs: 1 CPU is no whole core (§3.5),
	# so §3.6 takes the first CPU in core order: 0
	run -0 cs reserve --count 1
	assert_output "pool=reserved cpus=0 count=1 nodes=0 strict=no owners=-"
	# free 1-7: §3.5 whole cores in core order (core 0 has 1 free thread and sorts first but is
	# not whole): core 1 = {1,5}; §3.6 then the fullest core first: core 0's free thread 4
	lib_is 1,4-5 3
	alloc_is 1,4-5 a 3
	run -0 cs show
	assert_line --index 0 "pool=reserved cpus=0 count=1 nodes=0 strict=no owners=-"
	assert_line --index 1 "pool=shared cpus=0,2-3,6-7 count=5 nodes=0 strict=- owners=-"
	# free 2-3,6-7: §3.5 cores 2 and 3 whole
	alloc_is 2-3,6-7 b 4
	# nothing free but the reserved CPU
	refused 3 "not enough free CPUs: requested 1, available 0" cs alloc --owner c --count 1
}

@test "dual-socket HT: packing across a sequence of allocations and releases" {
	# §1: 2 sockets >= 2 nodes: NUMA-first. §2: fullest first, lowest id on ties.
	# free 0-11: no whole node or socket fits 2 (§3.2-3); §3.5 first core in order: {0,6}
	lib_is 0,6 2
	alloc_is 0,6 a 2
	# node 0 (4 free) sorts before node 1 (6): §3.5 core {2,8}; §3.6 node 0's core {4,10}: 4
	lib_is 2,4,8 3
	alloc_is 2,4,8 b 3
	# §3.6 the fullest node first: node 0's last free CPU 10, not a whole core of node 1
	lib_is 10 1
	alloc_is 10 c 1
	run -0 cs release a
	assert_output "owner=a cpus=0,6 mems=0 cores=0 nodes=0 cgroup=-"
	# free 0,6 (node 0, 2 free) + node 1: node 0 still first: §3.5 cores {0,6} then {1,7}
	lib_is 0-1,6-7 4
	alloc_is 0-1,6-7 d 4
	# free 3,5,9,11 (node 1): §3.5 core {3,9}; §3.6 core {5,11}: 5
	lib_is 3,5,9 3
	alloc_is 3,5,9 e 3
	assert_equal "$(pool shared)" 11
	run -0 cs list -r -o owner,cpus
	assert_output "b 2,4,8
c 10
d 0-1,6-7
e 3,5,9"
}

@test "dual-socket, two NUMA nodes per socket: whole sockets, then nodes, then cores, then threads" {
	TOPO=$MULTI
	# §5 reserve 2: sockets-first; no whole socket (16) or node (8) fits: §3.5 core 0
	run -0 cs reserve --count 2 -r -o cpus
	assert_output 0,16
	# §3.2 sockets are outer here: socket 1 is completely free and 16 >= its 16 CPUs
	lib_is 8-15,24-31 16
	alloc_is 8-15,24-31 a 16
	# §3.3 then NUMA nodes: node 0 (6 free) sorts first but is not whole; node 1 is
	lib_is 4-7,20-23 8
	alloc_is 4-7,20-23 b 8
	# free 1-3,17-19: §3.5 core {1,17}; §3.6 cores 2 and 3 tie at 2 free: the lower, CPU 2
	lib_is 1-2,17 3
	alloc_is 1-2,17 c 3
	assert_equal "$(pool free)" 3,18-19
	run -0 cs show
	assert_line "node=1 cpus=4-7,20-23 free=\"\" nfree=0 exclusive=4-7,20-23 reserved=\"\" shared=\"\""
	assert_line "node=0 cpus=0-3,16-19 free=3,18-19 nfree=3 exclusive=1-2,17 reserved=0,16 shared=0,3,16,18-19"
}

@test "quad-socket four-way SMT: threads of one core, whole nodes, and full-pcpus-only" {
	TOPO=$QUAD
	# §5 reserve 4: §3.5 one whole 4-thread core; reserve 2: no whole core fits, §3.6 takes the
	# first two threads of core 0 in CPU order: 0 and 8
	run -0 cs reserve --count 4 --dry-run -r -o cpus
	assert_output 0,8,16,24
	run -0 cs reserve --count 2 -r -o cpus
	assert_output 0,8
	# node 0 has 6 free and sorts first, but §3.2 takes only complete nodes: node 1
	lib_is 2-3,10-11,18-19,26-27 8
	alloc_is 2-3,10-11,18-19,26-27 a 8
	# §3.5 the whole core {1,9,17,25}; §3.6 node 0's partly used core 0 (16, 24): 16
	lib_is 1,9,16-17,25 5
	alloc_is 1,9,16-17,25 b 5
	# full-pcpus-only: core 0 (only 24 left) is not whole; §3.5 the next whole core, core 4
	lib_is 4,12,20,28 4 --full-pcpus-only
	alloc_is 4,12,20,28 c 4 --full-pcpus-only
	# §5/§7 SMT alignment: 2 is not a multiple of 4 threads per core
	refused 2 "requested 2 CPUs, not a multiple of the 4 CPUs per core" \
		cs alloc --owner d --count 2 --full-pcpus-only
	alloc_is 5,13,21,29 d 4 --full-pcpus-only
}

@test "AMD-style L3s: prefer-align-cpus-by-uncorecache keeps a request inside one L3" {
	TOPO=$AMD
	run -0 cs reserve --count 2 -r -o cpus
	assert_output 0,32
	# L3 0 (cores 0-3) holds the reserved core: §3.5 cores 1, 2, 3
	alloc_is 1-3,33-35 a 6
	# §3.5 node 0's cores 4, 5 (L3 1)
	alloc_is 4-5,36-37 b 4
	# L3 1 has cores 6, 7 left. Packed (§3.5): cores 6, 7 then 8: across two L3s
	dry_is 6-8,38-40 6
	# §3.4: L3 1 comes first (fullest) but 3 cores are needed and it has 2: next L3 in order,
	# L3 2 (node 1): cores 8, 9, 10
	lib_is 8-10,40-42 6 --prefer-align-cpus-by-uncorecache
	alloc_is 8-10,40-42 c 6 --prefer-align-cpus-by-uncorecache
	# §3.4 odd request: 3 cores of the first L3 that has them (L3 1: 2 cores, L3 2: core 11
	# only, L3 3: cores 12-14), less the highest CPU (46): 5 CPUs
	lib_is 12-14,44-45 5 --prefer-align-cpus-by-uncorecache
	alloc_is 12-14,44-45 d 5 --prefer-align-cpus-by-uncorecache
}

@test "AMD-style L3s: a request of at least one L3 takes whole free L3s first" {
	TOPO=$AMD
	run -0 cs reserve 0,32
	# packed: §3.5 cores 1-6 in order, across L3 0 and L3 1
	dry_is 1-6,33-38 12
	# §3.4: at L3 0 (fullest, 6 free) the need 12 >= 8 CPUs per L3 grabs the free L3s in
	# order: L3 1 (need 4 left); then 2 cores of L3 0 itself: 1, 2
	lib_is 1-2,4-7,33-34,36-39 12 --prefer-align-cpus-by-uncorecache
	alloc_is 1-2,4-7,33-34,36-39 a 12 --prefer-align-cpus-by-uncorecache
}

@test "an XML topology made from the two-nodes-per-socket machine places alike" {
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent"
	lstopo-no-graphics --input "$MULTI" --of xml "$BATS_TEST_TMPDIR/multi.xml"
	TOPO=$BATS_TEST_TMPDIR/multi.xml
	# the same rules and answers as the synthetic description (see above)
	run -0 cs reserve --count 2 -r -o cpus
	assert_output 0,16
	alloc_is 8-15,24-31 a 16
	alloc_is 4-7,20-23 b 8
	lib_is 1-2,17 3
	alloc_is 1-2,17 c 3
}

@test "an XML topology of a sysfs snapshot: x86 numbering, siblings i and i+4" {
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent"
	lstopo-no-graphics --input "$SNAPSHOTS/x86-2s-smt" --of xml "$BATS_TEST_TMPDIR/snap.xml"
	TOPO=$BATS_TEST_TMPDIR/snap.xml
	# node 0 = 0-1,4-5, node 1 = 2-3,6-7; cores {0,4} {1,5} {2,6} {3,7}
	run -0 cs show
	assert_line "node=1 cpus=2-3,6-7 free=2-3,6-7 nfree=4 exclusive=\"\" reserved=\"\" shared=2-3,6-7"
	# §3.5 the first core of node 0
	alloc_is 0,4 a 2
	# a NUMA preference (§5): node 1's first core
	alloc_is 2,6 b 2 --numa-node 1
	# nodes tie at 2 free: node 0 first; §3.5 core {1,5}; §3.6 node 1's core 3: 3
	lib_is 1,3,5 3
	alloc_is 1,3,5 c 3
}

# ---- options ----

@test "distribute-cpus-across-numa: the most balanced set of nodes, shares packed per node" {
	TOPO=$MULTI
	run -0 cs reserve 0,16
	# packed (§3): node 1 whole (§3.3), then node 0's cores 1, 2 (§3.5)
	dry_is 1-2,4-7,17-18,20-23 12
	# §4: candidates n0 (6 free), n1, n2, n3 (8); k from ceil(12/8) = 2; share 6 each.
	# Left after: {0,1} 0,2,8,8 (sd 3.571), {1,2} 6,2,2,8 (2.598, first of the best).
	# 6 packed from node 1: cores 4-6; from node 2: cores 8-10
	lib_is 4-6,8-10,20-22,24-26 12 --distribute-cpus-across-numa
	dry_is 4-6,8-10,20-22,24-26 12 --distribute-cpus-across-numa
	# §4 with align-by-socket: sets within one socket win: {0,1} (3.571) or {2,3} (6,8,2,2:
	# 2.598): nodes 2 and 3, 6 each
	lib_is 8-10,12-14,24-26,28-30 12 --distribute-cpus-across-numa --align-by-socket
	alloc_is 8-10,12-14,24-26,28-30 a 12 --distribute-cpus-across-numa --align-by-socket
}

@test "distribute-cpus-across-numa: an uneven count hands the remainder out round-robin" {
	TOPO=$MULTI
	# §4 on 4 free nodes of 8: 13 -> k = 2, share 6, remainder 1; every pair scores the same
	# (3.269), so {0,1} and its first receiver, node 0: cores 0-2 + CPU 3, cores 4-6
	lib_is 0-6,16-18,20-22 13 --distribute-cpus-across-numa
	alloc_is 0-6,16-18,20-22 a 13 --distribute-cpus-across-numa
	run -0 cs release a
	# packed: node 0 whole (§3.3), then node 1's cores (§3.5) and a thread (§3.6)
	dry_is 0-6,16-22 14
	# 14: share 7 on nodes 0 and 1: cores 0-2 + 3, cores 4-6 + 7
	alloc_is 0-7,16-18,20-22 b 14 --distribute-cpus-across-numa
}

@test "distribute-cpus-across-numa with full-pcpus-only: shares and remainder in whole cores" {
	TOPO=$MULTI
	run -0 cs reserve 0,16
	# §4 g = 1: 10 -> k = 2, share 5: {1,2} leaves 6,3,3,8 (2.121, the best): 5 per node
	lib_is 4-6,8-10,20-21,24-25 10 --distribute-cpus-across-numa
	dry_is 4-6,8-10,20-21,24-25 10 --distribute-cpus-across-numa
	# g = 2 threads per core: share floor(10/2/2)*2 = 4, remainder 2. {1,2} with the 2 on
	# node 1 leaves 6,2,4,8 (2.236; {0,1} at best 3.0): cores 4, 5 + core 6, and cores 8, 9
	lib_is 4-6,8-9,20-22,24-25 10 --distribute-cpus-across-numa --full-pcpus-only
	alloc_is 4-6,8-9,20-22,24-25 a 10 --distribute-cpus-across-numa --full-pcpus-only
}

@test "distribute-cpus-across-cores: CPUs in socket order, no whole-core step" {
	# packed: core {0,6}, then CPU 2 (§3.5, §3.6)
	dry_is 0,2,6 3
	# spread order (§2): socket 0's free CPUs ascending: 0, 2, 4
	lib_is 0,2,4 3 --distribute-cpus-across-cores
	alloc_is 0,2,4 a 3 --distribute-cpus-across-cores
	# node 0 is fullest (6, 8, 10 left)
	alloc_is 6,8 b 2 --distribute-cpus-across-cores
	# packed would take node 1's whole core {1,7} (§3.5); spread: 10 then 1 (§3.6 only)
	dry_is 1,7 2
	alloc_is 1,10 c 2 --distribute-cpus-across-cores
}

@test "align-by-socket: a NUMA preference widens to the whole socket" {
	TOPO=$MULTI
	# §5 hint {1}: 8 from node 1 (all it has), the 2 left from the fullest socket: core 0
	lib_is 0,4-7,16,20-23 10 --hint 1
	dry_is 0,4-7,16,20-23 10 --numa-node 1
	# with align-by-socket the aligned CPUs are socket 0's: §3.3 node 0 whole, then core 4
	lib_is 0-4,16-20 10 --hint 1 --align-by-socket
	alloc_is 0-4,16-20 a 10 --numa-node 1 --align-by-socket
}

@test "full-pcpus-only: odd counts exit 2, too few physical CPUs exit 3, nothing changed" {
	TOPO=$SINGLE_HT
	run -0 cs reserve 0
	refused 2 "requested 3 CPUs, not a multiple of the 2 CPUs per core" \
		cs alloc --owner f --count 3 --full-pcpus-only
	# leave 4 (sibling of the reserved 0) and 6 free
	alloc_is 1-3,5,7 a 5 --from 1-3,5,7
	# §5: N must fit in the shared pool minus every core holding a reserved CPU: {6} (#113537)
	refused 3 "not enough free physical CPUs: requested 2, available 1 (2 CPUs per core)" \
		cs alloc --owner f --count 2 --full-pcpus-only
	# without the option the kubelet hands out the split cores
	dry_is 4,6 2
	run -0 cs release a
	# Note: the kubelet's check is a count, not a search for whole cores: with 3 and 6 free
	# (two half cores, none touching the reserved core) 2 CPUs pass the check and are given
	alloc_is 1-2,4-5,7 b 5 --from 1-2,4-5,7
	alloc_is 3,6 c 2 --full-pcpus-only
}

@test "refused option combinations exit 2 and change nothing" {
	alloc_is 0,6 a 2
	refused 2 "options full-pcpus-only and distribute-cpus-across-cores cannot be used together" \
		cs alloc --owner b --count 2 --full-pcpus-only --distribute-cpus-across-cores
	refused 2 "options distribute-cpus-across-numa and distribute-cpus-across-cores cannot" \
		cs alloc --owner b --count 2 --distribute-cpus-across-numa --distribute-cpus-across-cores
	refused 2 "options prefer-align-cpus-by-uncorecache and distribute-cpus-across-cores cannot" \
		cs alloc --owner b --count 2 --prefer-align-cpus-by-uncorecache \
		--distribute-cpus-across-cores
	refused 2 "options prefer-align-cpus-by-uncorecache and distribute-cpus-across-numa cannot" \
		cs alloc --owner b --count 2 --prefer-align-cpus-by-uncorecache \
		--distribute-cpus-across-numa
	refused 2 "align-by-socket cannot be used with the single-numa-node topology manager policy" \
		cs alloc --owner b --count 2 --align-by-socket --policy single-numa-node
	refused 2 "owner 'a' already has CPUs" cs alloc --owner a --count 2
	refused 2 "no such NUMA node: '2'" cs alloc --owner b --count 2 --numa-node 2
	refused 2 "--from:" cs alloc --owner b --count 2 --from 12
	# more sockets than NUMA nodes (a fresh state: this is another machine)
	TOPO="package:2 core:2 pu:2"
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state2
	STATE=$RM_STATE_DIR/cpuset.state
	refused 2 "align-by-socket needs at least as many NUMA nodes as sockets (2 sockets, 1 NUMA" \
		cs alloc --owner b --count 2 --align-by-socket
}

@test "not enough free CPUs: exit 3 with the free count, state unchanged" {
	run -0 cs reserve 0,6
	# free 1-5,7-11: §3.2 node 1 whole, §3.5 node 0's core {2,8}
	lib_is 1-3,5,7-9,11 8
	alloc_is 1-3,5,7-9,11 a 8
	run -0 cs show
	cp "$STATE" "$BATS_TEST_TMPDIR/state-a"
	before=$output
	# §7: requested=N, available=M, M the shared pool minus the reserved CPUs: 4 and 10
	refused 3 "not enough free CPUs: requested 3, available 2" cs alloc --owner b --count 3
	refused 3 "not enough free CPUs: requested 2, available 1 in --from" \
		cs alloc --owner b --count 2 --from 4,5
	refused 3 "requested 3, available 2" cs alloc --owner b --count 3 --dry-run
	cmp "$STATE" "$BATS_TEST_TMPDIR/state-a"
	run -0 cs show
	assert_output "$before"
}

@test "not enough free CPUs without a reservation: the shared pool keeps one CPU" {
	# rm-cpuset's own rule (the kubelet always has reserved CPUs): 11 of 12 at most
	alloc_is 0,6 a 2
	refused 3 "requested 10, available 9 (the shared pool keeps at least one CPU" \
		cs alloc --owner b --count 10
	# §3.2 node 1 whole, §3.5 core {2,8}, §3.6 CPU 4
	alloc_is 1-5,7-9,11 b 9
}

@test "--dry-run changes nothing and prints what the real alloc then gives" {
	alloc_is 0,6 a 2
	keep
	run -0 cs alloc --owner b --count 3 --dry-run
	assert_output "owner=b cpus=2,4,8 mems=0 cores=1-2 nodes=0 cgroup=-"
	dry=$output
	unchanged
	run -0 cs list -r -o owner
	assert_output a
	run -0 cs alloc --owner b --count 3
	assert_output "$dry"
	# release and reserve --dry-run do not write either
	keep
	run -0 cs release --dry-run b
	assert_output "$dry"
	run -0 cs reserve 11 --dry-run
	assert_output "pool=reserved cpus=11 count=1 nodes=1 strict=no owners=-"
	unchanged
	run -0 cs list -r -o owner
	assert_output "a
b"
}

# ---- reservations ----

@test "reserve --count N chooses as the kubelet does, and as the library does" {
	local t n want
	# §5: takeByTopology over all CPUs. DUAL_HT 1 -> 0 and 2 -> 0,6 are the reference's own;
	# 3: core {0,6} then node 0's next core's first CPU; MULTI 9: node 0 whole (§3.3) + CPU 4;
	# QUAD 2: no whole 4-thread core fits; AMD 2: core 0 = {0,32}
	while read -r t n want; do
		TOPO=${!t}
		run -0 cs reserve --count "$n" --dry-run -r -o cpus
		[ "$output" = "$want" ] || fail "$t reserve --count $n: got '$output', expected '$want'"
		run -0 ca --topology "$TOPO" reserve "$n"
		[ "$output" = "$want" ] || fail "$t test-cpualloc reserve $n: '$output', expected '$want'"
	done <<-EOF
		DUAL_HT 1 0
		DUAL_HT 2 0,6
		DUAL_HT 3 0,2,6
		SINGLE_HT 3 0-1,4
		MULTI 4 0-1,16-17
		MULTI 9 0-4,16-19
		QUAD 2 0,8
		QUAD 5 0-1,8,16,24
		AMD 2 0,32
	EOF
	[ ! -e "$STATE" ] || fail "reserve --dry-run wrote the state"
	TOPO=$DUAL_HT
	refused 3 "not enough free CPUs: requested 13, available 12" cs reserve --count 13
}

@test "reserved CPUs are never allocated; --strict keeps them out of the shared pool" {
	run -0 cs reserve --count 2
	assert_output "pool=reserved cpus=0,6 count=2 nodes=0 strict=no owners=-"
	assert_equal "$(pool shared)" 0-11
	assert_equal "$(pool free)" 1-5,7-11
	run -0 cs reserve --count 2 --strict
	assert_output "pool=reserved cpus=0,6 count=2 nodes=0 strict=yes owners=-"
	assert_equal "$(pool shared)" 1-5,7-11
	run -0 cs show
	assert_line "node=0 cpus=0,2,4,6,8,10 free=2,4,8,10 nfree=4 exclusive=\"\" reserved=0,6 shared=2,4,8,10"
	# node 0 (4 free) is fullest: §3.5 core {2,8}, not the reserved core
	alloc_is 2,8 a 2
	alloc_is 4,10 b 2
	assert_equal "$(pool shared)" 1,3,5,7,9,11
	# a reservation over allocated CPUs is refused
	refused 3 "are allocated to owners" cs reserve --count 4
}

# ---- where the CPUs come from ----

@test "--from SET: only those CPUs, packed by the same rules" {
	# free 1-11 within --from: node 0 (4 free: 2,4,8,10) first, §3.5 core {2,8}
	run -0 ca --topology "$TOPO" --available 1-11 allocate 2
	assert_output 2,8
	alloc_is 2,8 a 2 --from 1-11
	# §3.5 core {3,9}, §3.6 core {5,11}: 5
	alloc_is 3,5,9 b 3 --from 3,5,9,11
	# CPUs of --from that are taken are not free
	alloc_is 0,6 c 2 --from 0,2,6,8
}

@test "--numa-node and --policy: accepted hints, and refusals naming the free CPUs per node" {
	alloc_is 0,2,6,8 a 4
	# no policy: the fullest node first, §3.5 {4,10} then {1,7}
	dry_is 1,4,7,10 4
	# --numa-node 1 is a hint (§5): node 1's cores {1,7}, {3,9}
	dry_is 1,3,7,9 4 --numa-node 1
	# the Topology Manager's preferred hint is the one node that can hold 4: node 1
	for p in best-effort restricted single-numa-node; do
		lib_is 1,3,7,9 4 --policy "$p"
		dry_is 1,3,7,9 4 --policy "$p"
	done
	refused 3 "single-numa-node: the preferred NUMA node cannot hold 4 CPUs on one node (node 0: 2, node 1: 6)" \
		cs alloc --owner b --count 4 --policy single-numa-node --numa-node 0
	alloc_is 1,3,7,9 b 4 --policy single-numa-node
	# 2 free on each node: no single node holds 3
	refused 3 "topology manager policy single-numa-node: no single NUMA node has 3 free CPUs (node 0: 2, node 1: 2)" \
		cs alloc --owner c --count 3 --policy single-numa-node
	refused 3 "topology manager policy restricted: no preferred NUMA affinity, no set of 1 NUMA node has 3 free CPUs (node 0: 2, node 1: 2)" \
		cs alloc --owner c --count 3 --policy restricted
	# best-effort takes the non-preferred hint {0,1}: §3.5 {4,10}, §3.6 5
	lib_is 4-5,10 3 --policy best-effort
	alloc_is 4-5,10 c 3 --policy best-effort
}

@test "--near -: device records on stdin give the NUMA preference" {
	# plain: node 0's first core; near a device on node 1: node 1's
	dry_is 0,6 2
	keep
	run -0 --separate-stderr cs alloc --owner g --count 2 --near - --dry-run -r -o cpus \
		<<<'device=0000:3b:00.0 type=gpu numa=1'
	assert_output 1,7
	unchanged
	run -0 --separate-stderr cs alloc --owner g --count 4 --near - --policy single-numa-node \
		-r -o cpus <<<'device=0000:3b:00.0 type=gpu numa=1'
	assert_output 1,3,7,9
	# node 1 has 2 left: single-numa-node refuses a device on node 1 for 4 CPUs
	keep
	run -3 --separate-stderr cs alloc --owner h --count 4 --near - --policy single-numa-node \
		<<<'device=0000:3b:00.0 type=gpu numa=1'
	assert_output ""
	[[ $stderr == *"(node 0: 6, node 1: 2)"* ]] || fail "stderr: $stderr"
	unchanged
}

@test "--near PCI address: the device's numa_node under the sysroot" {
	local root=$BATS_TEST_TMPDIR/root dev
	# --topology would leave the sysroot (and so the device) unread: a full snapshot instead
	cp -r "$SNAPSHOTS/x86-2s-smt" "$root"
	for dev in 0000:3b:00.0:1 0000:af:00.0:-1; do
		mkdir -p "$root/sys/bus/pci/devices/${dev%:*}"
		echo "${dev##*:}" >"$root/sys/bus/pci/devices/${dev%:*}/numa_node"
	done
	# node 0 = 0-1,4-5, node 1 = 2-3,6-7; cores {0,4} {1,5} {2,6} {3,7}
	run -0 rm-cpuset --sysroot "$root" alloc --owner x --count 2 --dry-run -r -o cpus
	assert_output 0,4
	# a device without NUMA affinity gives no preference, with a warning
	run -0 --separate-stderr rm-cpuset --sysroot "$root" alloc --owner y --count 2 \
		--near 0000:af:00.0 --dry-run -r -o cpus
	assert_output 0,4
	[[ $stderr == *"device 0000:af:00.0 has no NUMA affinity"* ]] || fail "stderr: $stderr"
	# the device on node 1: node 1's first core
	run -0 rm-cpuset --sysroot "$root" alloc --owner x --count 2 --near 0000:3b:00.0 --dry-run \
		-r -o cpus
	assert_output 2,6
	# the short form, through RM_SYSROOT, for real
	RM_SYSROOT=$root run -0 rm-cpuset alloc --owner x --count 2 --near 3b:00.0 -r -o cpus
	assert_output 2,6
	# node 1 (2 left) is now the fullest: §3.5 its core {3,7}, unless the device says node 0
	run -0 rm-cpuset --sysroot "$root" alloc --owner y --count 2 --dry-run -r -o cpus
	assert_output 3,7
	echo 0 >"$root/sys/bus/pci/devices/0000:3b:00.0/numa_node"
	run -0 rm-cpuset --sysroot "$root" alloc --owner y --count 2 --near 0000:3b:00.0 -r -o cpus
	assert_output 0,4
	keep
	run -2 --separate-stderr rm-cpuset --sysroot "$root" alloc --owner z --count 2 \
		--near 0000:d8:00.0
	[[ $stderr == *"no such PCI device: '0000:d8:00.0'"* ]] || fail "stderr: $stderr"
	unchanged
}

@test "34, 128 and 256 NUMA nodes: the Topology Manager places CPUs, max-allowable-numa-nodes refuses" {
	# a GB200 tray's 34 nodes of 8 CPUs: node n = 8n..8n+7
	TOPO="package:2 numa:17 core:4 pu:2"
	alloc_is 0-7 a 8 --policy restricted
	# 12 CPUs need two nodes: nodes 1 and 2, node 1 whole first
	alloc_is 8-19 b 12 --policy restricted
	# single-numa-node with another resource's node: that node
	alloc_is 264-267 c 4 --policy single-numa-node --numa-node 33
	refused 3 "topology manager policy single-numa-node: no single NUMA node has 9 free CPUs (node 0: 0, node 1: 0, node 2: 4, node 3: 8," \
		cs alloc --owner d --count 9 --policy single-numa-node
	refused 2 "too many NUMA nodes for topology hints (34, max-allowable-numa-nodes is 16)" \
		cs alloc --owner d --count 9 --policy restricted --topology-manager-option max-allowable-numa-nodes=16
	refused 2 "--topology-manager-option: unknown topology manager option: 'bogus'" \
		cs alloc --owner d --count 1 --topology-manager-option bogus
	# 128 nodes of 16 CPUs, 256 nodes of 8: the lowest node holding the request
	rm -rf "$RM_STATE_DIR"
	TOPO="package:8 numa:16 core:8 pu:2"
	alloc_is 1000-1007 a 8 --policy restricted --from 1000-2047
	# node 62 keeps 992-999 free: 16 CPUs fit node 63 alone
	alloc_is 1008-1023 b 16 --policy best-effort --from 990-2047
	rm -rf "$RM_STATE_DIR"
	TOPO="package:16 numa:16 core:4 pu:2"
	alloc_is 1000-1007 a 8 --policy single-numa-node --from 1000-2047
	alloc_is 2040-2047 b 8 --policy single-numa-node --topology-manager-option prefer-closest-numa-nodes --numa-node 255
}
