#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The CPU allocator (libcommon/cpualloc.c) against the kubelet's own test tables.
load test_helper

# Case names in comments are those of kubernetes pkg/kubelet/cm/cpumanager: cpu_assignment_test.go
# (TestTakeByTopology*, TestCPUAccumulator*), policy_static_test.go (TestStaticPolicy*),
# topology_hints_test.go and policy_options_test.go. Fixtures are hwloc synthetic topologies
# whose PU numbers reproduce the kubelet's fixtures (same sockets, NUMA nodes and sibling sets).

ca() { "$RM_BUILDDIR/tests/unit/test-cpualloc" "$@"; }

# "0,OFF,1,1+OFF,...": N cores whose threads are i and i+OFF
pairs() {
	local i out=
	for ((i = 0; i < $1; i++)); do out+="${out:+,}$i,$(($i + $2))"; done
	echo "$out"
}

# topoSingleSocketHT: 4 cores, CPU i and i+4 siblings
SINGLE_HT="package:1 numa:1 core:4 pu:2(indexes=$(pairs 4 4))"
# topoDualSocketHT: socket 0 = 0,2,4,6,8,10, socket 1 = the odd CPUs; CPU i and i+6 siblings
DUAL_HT="package:2 numa:1 core:3 pu:2(indexes=0,6,2,8,4,10,1,7,3,9,5,11)"
# the same with one L3 for the whole machine, as in the fixture (every UncoreCacheID 0)
DUAL_HT_ONE_L3="l3:1 $DUAL_HT"
# topoDualSocketNoHT
DUAL_NOHT="package:2 numa:1 core:4 pu:1"
# topoDualSocketMultiNumaPerSocketHT (dual Xeon Gold 6230): node n = 10n..10n+9 and +40
MULTI_NUMA="package:2 numa:2 core:10 pu:2(indexes=$(pairs 40 40))"
# fakeTopoMultiSocketDualSocketPerNumaHT: the same CPUs, two sockets per NUMA node
SOCKETS_PER_NUMA="group:2 numa:1 package:2 core:10 pu:2(indexes=$(pairs 40 40))"
# topoDualSocketMultiNumaPerSocketHTLarge (dual EPYC 7742, NPS=4): CPU i and i+128 siblings
LARGE="package:2 numa:4 core:16 pu:2(indexes=$(pairs 128 128))"
# topoQuadSocketFourWayHT (Knights Landing SNC4): 4-way SMT, core sets as in the fixture
QUAD="package:4 numa:1 core:18 pu:4(indexes=\
0,169,109,229,50,170,110,230,1,25,13,38,2,26,14,39,9,33,21,46,10,34,22,47,\
57,177,117,237,58,178,118,238,71,191,131,251,72,192,132,252,79,199,139,259,80,200,140,260,\
87,207,147,267,88,208,148,268,95,215,155,275,96,216,156,276,103,223,163,283,104,224,164,284,\
3,27,15,40,4,28,16,41,11,35,23,48,12,36,24,49,51,171,111,231,52,172,112,232,\
59,179,119,239,60,180,120,240,65,185,125,245,66,186,126,246,73,193,133,253,74,194,134,254,\
81,201,141,261,82,202,142,262,89,209,149,269,90,210,150,270,97,217,157,277,98,218,158,278,\
5,29,17,42,6,30,18,43,53,173,113,233,54,174,114,234,61,181,121,241,62,182,122,242,\
67,187,127,247,68,188,128,248,75,195,135,255,76,196,136,256,83,203,143,263,84,204,144,264,\
91,211,151,271,92,212,152,272,99,219,159,279,100,220,160,280,105,225,165,285,106,226,166,286,\
7,31,19,44,8,32,20,45,37,168,108,228,107,227,167,287,55,175,115,235,56,176,116,236,\
63,183,123,243,64,184,124,244,69,189,129,249,70,190,130,250,77,197,137,257,78,198,138,258,\
85,205,145,265,86,206,146,266,93,213,153,273,94,214,154,274,101,221,161,281,102,222,162,282)"
# topoUncore*: 16 CPUs, 4 per L3
UNCORE_SINGLE_NOSMT="package:1 numa:1 l3:4 core:4 pu:1"
UNCORE_DUAL_NOSMT="package:2 numa:1 l3:2 core:4 pu:1"
UNCORE_SINGLE_MULTINUMA="package:1 numa:2 l3:2 core:4 pu:1"
UNCORE_SINGLE_SMT="package:1 numa:1 l3:2 core:4 pu:2(indexes=$(pairs 8 8))"
# AMD-style fixtures of TestStaticPolicyAddWithUncoreAlignment, rebuilt from their comments:
# topoDualSocketSingleNumaPerSocketSMTUncore: 2 x 96 cores, 8 cores (16 CPUs) per L3, i+192
AMD_DUAL_SMT="package:2 numa:1 l3:12 core:8 pu:2(indexes=$(pairs 192 192))"
# topoSingleSocketSingleNumaPerSocketSMTSmallUncore: 64 cores, 4 per L3 (8 CPUs), i+64
AMD_SMALL_SMT="package:1 numa:1 l3:16 core:4 pu:2(indexes=$(pairs 64 64))"
# topoSingleSocketSingleNumaPerSocketNoSMTSmallUncore: 64 CPUs, 4 per L3
AMD_SMALL_NOSMT="package:1 numa:1 l3:16 core:4 pu:1"
# topoDualSocketMultiNumaPerSocketUncore: NPS=2, 8 CPUs per L3, 48 per NUMA node
AMD_NPS2="package:2 numa:2 l3:6 core:8 pu:1"
# returnMachineInfo() of topology_hints_test.go: node 0 = {0,6} {1,7} {2,8}, node 1 = the rest
HINTS="package:2 numa:1 core:3 pu:2(indexes=0,6,1,7,2,8,3,9,4,10,5,11)"

# ---- the topology model ----

@test "model: socket, node, core (lowest sibling) and uncore of each CPU, and the ratios" {
	run -0 ca --topology "$DUAL_HT" info
	assert_line --index 0 "cpus=12 cores=6 sockets=2 nodes=2 uncore=2 threads_per_core=2 cpus_per_socket=6 cpus_per_uncore=6"
	assert_line "cpu=8 socket=0 node=0 core=2 uncore=0"
	assert_line "cpu=11 socket=1 node=1 core=5 uncore=1"
	run -0 ca --topology "$QUAD" info
	assert_line --index 0 "cpus=288 cores=72 sockets=4 nodes=4 uncore=4 threads_per_core=4 cpus_per_socket=72 cpus_per_uncore=72"
	assert_line "cpu=229 socket=0 node=0 core=0 uncore=0"
	assert_line "cpu=287 socket=3 node=3 core=107 uncore=3"
}

@test "model: the uncore cache is the L3, a shared cache without L3, else the package" {
	run -0 ca --topology "$UNCORE_SINGLE_NOSMT" info
	assert_line "cpu=7 socket=0 node=0 core=7 uncore=1"
	assert_line --index 0 --partial "uncore=4 "
	run -0 ca --topology "package:1 l2:2 core:2 pu:1" info
	assert_line "cpu=3 socket=0 node=0 core=3 uncore=1"
	# a per-core L2 is no uncore cache
	run -0 ca --topology "package:2 l2:2 core:1 pu:2" info
	assert_line "cpu=3 socket=0 node=0 core=2 uncore=0"
	assert_line "cpu=4 socket=1 node=0 core=4 uncore=1"
	run -0 ca --topology "$DUAL_HT_ONE_L3" info
	assert_line --index 0 --partial "uncore=1 "
}

@test "model: an hwloc XML topology gives the same answers as its synthetic description" {
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent"
	lstopo-no-graphics --input "$DUAL_HT" --of xml "$BATS_TEST_TMPDIR/dual.xml"
	run -0 ca --topology "$BATS_TEST_TMPDIR/dual.xml" take 8
	assert_output 0-2,4,6-8,10
	run -0 ca --topology "$BATS_TEST_TMPDIR/dual.xml" reserve 2
	assert_output 0,6
	run -2 ca --topology "package:2 bogus:3" take 1
	assert_output "test-cpualloc: invalid topology: 'package:2 bogus:3'"
}

# ---- packed allocation (TestTakeByTopologyNUMAPacked, commonTakeByTopologyTestCases) ----

@test "packed: single socket HT, zero, one, two and all CPUs" {
	run -0 ca --topology "$SINGLE_HT" take 0 # take zero cpus from single socket with HT
	assert_output ""
	run -0 ca --topology "$SINGLE_HT" take 1 # take one cpu from single socket with HT
	assert_output 0
	run -0 ca --topology "$SINGLE_HT" take 2 # take two cpus from single socket with HT
	assert_output 0,4
	run -0 ca --topology "$SINGLE_HT" take 8 # take all cpus from single socket with HT
	assert_output 0-7
}

@test "packed: partially used cores are filled first" {
	# take one cpu from single socket with HT, some cpus are taken
	run -0 ca --topology "$SINGLE_HT" --available 1,3,5-7 take 1
	assert_output 6
	# take two cpus from single socket with HT, only one core totally free
	run -0 ca --topology "$SINGLE_HT" --available 0-3,6 take 2
	assert_output 2,6
	# take one cpu from dual socket with HT - core from Socket 0
	run -0 ca --topology "$DUAL_HT" --available 1-5,7-11 take 1
	assert_output 2
}

@test "packed: CPU order, fullest container first, lowest id on ties" {
	# TestCPUAccumulatorFreeCPUs "dual socket HT, 12 cpus free": 0,6,2,8,4,10,1,7,3,9,5,11
	local order=(0 6 2 8 4 10 1 7 3 9 5 11) n got want
	for n in $(seq 1 12); do
		got=$(ca --topology "$DUAL_HT" take "$n")
		want=$(ca --topology "$DUAL_HT" --available "$(IFS=,; echo "${order[*]:0:$n}")" take "$n")
		[ "$got" = "$want" ] || fail "take $n: $got, expected the first $n of the order: $want"
	done
	# "dual socket HT, 11 cpus free": 6,2,8,...; "10 cpus free": 2,8,...
	run -0 ca --topology "$DUAL_HT" --available 1-11 take 1
	assert_output 6
	# "single socket HT, 5 cpus free": 4,5,6,3,7
	run -0 ca --topology "$SINGLE_HT" --available 3-7 take 1
	assert_output 4
}

@test "packed: a whole socket, then whole cores before single threads" {
	# take a socket of cpus from dual socket with HT
	run -0 ca --topology "$DUAL_HT" take 6
	assert_output 0,2,4,6,8,10
	# allocate 4 full cores with 3 coming from the first NUMA node (filling it up) and 1 coming
	# from the second NUMA node
	run -0 ca --topology "$DUAL_HT" take 8
	assert_output 0-2,4,6-8,10
}

@test "packed: whole sockets and NUMA nodes on a machine with two nodes per socket" {
	# take a socket of cpus from dual socket with multi-numa-per-socket with HT
	run -0 ca --topology "$MULTI_NUMA" take 40
	assert_output 0-19,40-59
	# take a NUMA node of cpus from dual socket with multi-numa-per-socket with HT
	run -0 ca --topology "$MULTI_NUMA" take 20
	assert_output 0-9,40-49
	# ... with 1 NUMA node already taken
	run -0 ca --topology "$MULTI_NUMA" --available 10-39,50-79 take 20
	assert_output 10-19,50-59
	# take a socket and a NUMA node of cpus from dual socket with multi-numa-per-socket with HT
	run -0 ca --topology "$MULTI_NUMA" take 60
	assert_output 0-29,40-69
	# ... a core taken
	run -0 ca --topology "$MULTI_NUMA" --available 1-39,41-79 take 60
	assert_output 10-39,50-79
	# allocate 32 full cores with 30 coming from the first 3 NUMA nodes (filling them up) and 2
	# coming from the fourth NUMA node
	run -0 ca --topology "$MULTI_NUMA" take 64
	assert_output 0-31,40-71
}

@test "packed: NUMA-first when sockets are at least as many as NUMA nodes" {
	# TestCPUAccumulatorFreeSockets "dual numa, multi socket per per socket, HT, 1 sockets free":
	# only socket 1 is free, so a socket's worth comes from it
	run -0 ca --topology "$SOCKETS_PER_NUMA" --available 1-19,21-38,41-60,61-78 take 20
	assert_output 10-19,50-59
	# "... 2 sockets free" (sockets 0 and 1, which make NUMA node 0: taken whole)
	run -0 ca --topology "$SOCKETS_PER_NUMA" --available 0-59,61-78 take 40
	assert_output 0-19,40-59
}

@test "packed: not enough CPUs reports the request and the free count" {
	# take more cpus than are available from single socket with HT
	run -3 ca --topology "$SINGLE_HT" --available 0,2,4,6 take 5
	assert_output "test-cpualloc: not enough free CPUs: requested 5, available 4"
}

@test "packed: the quad-socket four-way SMT fixture" {
	# GuPodMultipleCores, topoQuadSocketFourWayHT, ExpectAllocAllFullCoresFromThreeSockets
	run -0 ca --topology "$QUAD" --available 1,25,13,38,2,9,11,35,23,48,12,51,53,173,113,233,54,61 take 12
	assert_output 1,11,13,23,25,35,38,48,53,113,173,233
	# GuPodMultipleCores, topoQuadSocketFourWayHT, ExpectAllocCPUs (only partial cores)
	run -0 ca --topology "$QUAD" --available 10,11,53,67,52 take 5
	assert_output 10-11,52-53,67
}

# ---- distribute-cpus-across-cores (TestTakeByTopologyWithSpreadPhysicalCPUsPreferredOption) ----

@test "spread: CPUs by socket, ignoring cores" {
	run -0 ca --topology "$SINGLE_HT" --distribute-cpus-across-cores take 3
	assert_output 0-2
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-cores take 2
	assert_output 0,2
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-cores take 3
	assert_output 0,2,4
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-cores take 6
	assert_output 0,2,4,6,8,10
	# take cpus from dual socket with HT, 8 cpus: 0,2,4,6,8,10,1,3
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-cores take 8
	assert_output 0-4,6,8,10
	run -0 ca --topology "$DUAL_NOHT" --distribute-cpus-across-cores take 2
	assert_output 0-1
}

@test "spread: multi-NUMA and quad-socket fixtures" {
	# take a socket of cpus from dual socket with multi numa per socket and HT, 12 cpus
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-cores take 8
	assert_output 0-7
	# take a socket of cpus from quad socket four way with HT, 12 cpus
	run -0 ca --topology "$QUAD" --distribute-cpus-across-cores take 12
	assert_output 0-2,9-10,13-14,21-22,25-26,33
}

# ---- prefer-align-cpus-by-uncorecache ----

@test "uncore: whole caches first, then the rest inside one cache" {
	# take cpus from two full UncoreCaches and partial from a single UncoreCache
	run -0 ca --topology "$UNCORE_SINGLE_NOSMT" --prefer-align-cpus-by-uncorecache --available 1-15 take 10
	assert_output 1-2,4-11
	# take first available UncoreCache from first socket
	run -0 ca --topology "$UNCORE_DUAL_NOSMT" --prefer-align-cpus-by-uncorecache take 4
	assert_output 0-3
	# take all available UncoreCache from first socket
	run -0 ca --topology "$UNCORE_DUAL_NOSMT" --prefer-align-cpus-by-uncorecache --available 2-15 take 6
	assert_output 2-7
	# take first available UncoreCache from second socket
	run -0 ca --topology "$UNCORE_DUAL_NOSMT" --prefer-align-cpus-by-uncorecache --available 8-15 take 4
	assert_output 8-11
	# take first available UncoreCache from available NUMA
	run -0 ca --topology "$UNCORE_SINGLE_MULTINUMA" --prefer-align-cpus-by-uncorecache --available 3-8,12 take 2
	assert_output 4-5
	# the first cache, taken whole, is visited again for the rest: nothing left there, the rest
	# comes from the next cache
	run -0 ca --topology "$UNCORE_SINGLE_NOSMT" --prefer-align-cpus-by-uncorecache take 6
	assert_output 0-5
}

@test "uncore: SMT, and an odd request drops the highest CPU of the last core" {
	# take cpus from best available UncoreCache group of multi uncore cache single socket - SMT
	run -0 ca --topology "$UNCORE_SINGLE_SMT" --prefer-align-cpus-by-uncorecache --available 2-7,10-15 take 6
	assert_output 4-6,12-14
	# take cpus from multiple UncoreCache of single socket - SMT enabled
	run -0 ca --topology "$UNCORE_SINGLE_SMT" --prefer-align-cpus-by-uncorecache --available 1-7,9-15 take 10
	assert_output 1,4-7,9,12-15
	# take one cpu from dual socket with HT - core from Socket 0 (one L3 for the machine):
	# the lowest core with a free CPU is core 1, {1,7}, less its highest CPU
	run -0 ca --topology "$DUAL_HT_ONE_L3" --prefer-align-cpus-by-uncorecache --available 1-5,7-11 take 1
	assert_output 1
	# with an L3 per socket, as on real machines, the emptier socket's cache comes first
	run -0 ca --topology "l3:1 $DUAL_HT" --available 1-5,7-11 take 1
	assert_output 2
	run -0 ca --topology "package:2 l3:1 numa:1 core:3 pu:2(indexes=0,6,2,8,4,10,1,7,3,9,5,11)" --prefer-align-cpus-by-uncorecache --available 1-5,7-11 take 1
	assert_output 2
}

@test "uncore: AMD-style machines, many L3 caches per package (static policy)" {
	local resv=0,1,96,97,192,193,288,289
	# GuPodSingleContainerSaturating, DualSocketHTUncore, ExpectAllocOneUncore, FullUncoreAvail
	run -0 ca --topology "$AMD_DUAL_SMT" --full-pcpus-only --prefer-align-cpus-by-uncorecache \
		--reserved $resv --available 8-95,104-191,200-287,296-383 allocate 16
	assert_output 8-15,200-207
	# GuPodSingleContainer, SingleSocketSMTSmallUncore, ExpectAllocOneUncore
	run -0 ca --topology "$AMD_SMALL_SMT" --full-pcpus-only --prefer-align-cpus-by-uncorecache \
		--reserved 0,1,64,65 allocate 8
	assert_output 4-7,68-71
	# GuPodSingleContainer, SingleSocketSMTSmallUncore, ExpectAllocTwoUncore (uncores 0 and 2)
	run -0 ca --topology "$AMD_SMALL_SMT" --full-pcpus-only --prefer-align-cpus-by-uncorecache \
		--reserved 0,1,64,65 --available 0-3,8-67,72-127 allocate 12
	assert_output 2-3,8-11,66-67,72-75
	# GuPodSingleContainer, SingleSocketNoSMTSmallUncore, FragmentedUncore, ExpectAllocThreeUncore
	run -0 ca --topology "$AMD_SMALL_NOSMT" --full-pcpus-only --prefer-align-cpus-by-uncorecache \
		--reserved 0-3 --available 0-7,16-19,24-63 allocate 12
	assert_output 4-7,16-19,24-27
	# GuPodLargeSingleContainer, DualSocketNoSMTUncore, FullNUMAsAvail, ExpectAllocFullNUMA
	run -0 ca --topology "$AMD_NPS2" --full-pcpus-only --prefer-align-cpus-by-uncorecache \
		--reserved 0-3 allocate 48
	assert_output 48-95
}

# ---- distribute-cpus-across-numa (TestTakeByTopologyNUMADistributed) ----

@test "distributed: even shares across NUMA nodes" {
	# allocate 4 full cores with 2 distributed across each NUMA node
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-numa take 8
	assert_output 0-3,6-9
	# allocate 32 full cores with 8 distributed across each NUMA node
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa take 64
	assert_output 0-7,10-17,20-27,30-37,40-47,50-57,60-67,70-77
	# allocate 24 full cores with 8 distributed across the first 3 NUMA nodes
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa take 48
	assert_output 0-7,10-17,20-27,40-47,50-57,60-67
	# allocate 8 full cores with 2 distributed across each NUMA node
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa \
		--available 0-2,10-12,20-22,30-32,40-41,50-51,60-61,70-71 take 16
	assert_output 0-1,10-11,20-21,30-31,40-41,50-51,60-61,70-71
}

@test "distributed: the most balanced set of nodes wins" {
	# ... across the first 3 NUMA nodes (taking all but 2 from the first NUMA node)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa \
		--available 1-29,32-39,41-69,72-79 take 48
	assert_output 1-8,10-17,20-27,41-48,50-57,60-67
	# ... across the last 3 NUMA nodes (even though all 8 could be allocated from the first)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa \
		--available 2-29,31-39,42-69,71-79 take 48
	assert_output 10-17,20-27,31-38,50-57,60-67,71-78
}

@test "distributed: the remainder, one CPU or one core at a time" {
	# allocate 13 full cores distributed across the first 2 NUMA nodes
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa take 26
	assert_output 0-6,10-16,40-45,50-55
	# allocate 13 full cores distributed across the first 2 NUMA nodes (cpuGroupSize 2)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only take 26
	assert_output 0-6,10-15,40-46,50-55
	# allocate 31 full cores with 15 CPUs distributed across each NUMA node and 1 CPU spilling
	# over to each of NUMA 0, 1
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa take 62
	assert_output 0-7,10-17,20-27,30-37,40-47,50-57,60-66,70-76
	# ... 14 CPUs ... and 2 CPUs spilling over to each of NUMA 0, 1, 2 (cpuGroupSize 2)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only take 62
	assert_output 0-7,10-17,20-27,30-36,40-47,50-57,60-67,70-76
}

@test "distributed: the remainder goes where it keeps the balance" {
	# ... 1 CPU spilling over to each of NUMA 2, 3 (to keep balance)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa \
		--available 0-8,10-18,20-39,40-48,50-58,60-79 take 62
	assert_output 0-7,10-17,20-27,30-37,40-46,50-56,60-67,70-77
	# ... 2 CPUs spilling over to each of NUMA 0, 2, 3 (to keep balance with cpuGroupSize 2)
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only \
		--available 0-8,10-18,20-39,40-48,50-58,60-79 take 62
	assert_output 0-7,10-16,20-27,30-37,40-47,50-56,60-67,70-77
	# ensure bestRemainder chosen with NUMA nodes that have enough CPUs to satisfy the request
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa \
		--available 0-3,10-13,20-23,30-36,40-43,50-53,60-63,70-76 take 34
	assert_output 0-3,10-13,20-23,30-34,40-43,50-53,60-63,70-74
}

@test "distributed: the failure once seen on a live dual EPYC machine" {
	# ensure previous failure encountered on live machine has been fixed (1/1)
	run -0 ca --topology "$LARGE" --distribute-cpus-across-numa \
		--available 0,128,30,31,158,159,43-47,171-175,62,63,190,191,75-79,203-207,94,96,222,223,101-111,229-239,126,127,254,255 take 28
	assert_output 43-47,75-79,96,101-105,171-174,203-206,229-232
}

@test "distributed: align-by-socket keeps the nodes in one socket when it can" {
	# the free layouts of the ForResize cases "Scale-up: 4 to 24 CPUs with alignBySocket ..." and
	# "Scale-down: 22 to 12 CPUs with alignBySocket ..." (their expected sets, without retained
	# CPUs): NUMA nodes 0 and 1 of socket 0 beat the better balanced cross-socket pair
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only \
		--align-by-socket --available 0-14,20-29,40-54,60-69 take 24
	assert_output 0-6,10-14,40-46,50-54
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only \
		--available 0-14,20-29,40-54,60-69 take 24
	assert_output 0-5,20-25,40-45,60-65
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only \
		--align-by-socket --available 0-3,10-12,20-23,40-43,50-52,60-63 take 12
	assert_output 0-2,10-12,40-42,50-52
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --full-pcpus-only \
		--available 0-3,10-12,20-23,40-43,50-52,60-63 take 12
	assert_output 0-2,20-22,40-42,60-62
}

@test "distributed: the common packed cases give the same answers" {
	# commonTakeByTopologyExtendedTestCases run the packed table through the distributed path
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa take 40
	assert_output 0-19,40-59
	run -0 ca --topology "$MULTI_NUMA" --distribute-cpus-across-numa --available 1-39,41-79 take 60
	assert_output 10-39,50-79
	run -0 ca --topology "$SINGLE_HT" --distribute-cpus-across-numa --available 0-3,6 take 2
	assert_output 2,6
	run -3 ca --topology "$SINGLE_HT" --distribute-cpus-across-numa --available 0,2,4,6 take 5
	assert_output "test-cpualloc: not enough free CPUs: requested 5, available 4"
}

# ---- the static policy (TestStaticPolicyAdd) ----

@test "allocate: the reserved CPUs are left out" {
	# GuPodSingleCore, SingleSocketHT, ExpectAllocOneCPU (sibling of the reserved CPU 0)
	run -0 ca --topology "$SINGLE_HT" --reserve-count 1 allocate 1
	assert_output 4
	# GuPodMultipleCores, SingleSocketHT, ExpectAllocOneCore
	run -0 ca --topology "$SINGLE_HT" --reserve-count 1 --available 0-1,4-5 allocate 2
	assert_output 1,5
	# GuPodMultipleCores, DualSocketHT, ExpectAllocOneSocket
	run -0 ca --topology "$DUAL_HT" --reserve-count 1 --available 0-1,3-11 allocate 6
	assert_output 1,3,5,7,9,11
	# GuPodMultipleCores, DualSocketHT, ExpectAllocThreeCores
	run -0 ca --topology "$DUAL_HT" --reserve-count 1 --available 0,2-4,6-11 allocate 6
	assert_output 2-4,8-10
	# GuPodMultipleCores, DualSocketHT, ExpectAllocOneSocketOneCore
	run -0 ca --topology "$DUAL_HT" --reserve-count 1 --available 0-1,3-11 allocate 8
	assert_output 1,3-5,7,9-11
}

@test "allocate: dual socket without HT" {
	# GuPodMultipleCores, DualSocketNoHT, ExpectAllocOneSocket
	run -0 ca --topology "$DUAL_NOHT" --reserve-count 1 --available 0-1,3-7 allocate 4
	assert_output 4-7
	# GuPodMultipleCores, DualSocketNoHT, ExpectAllocFourCores
	run -0 ca --topology "$DUAL_NOHT" --reserve-count 1 --available 0-1,3,6-7 allocate 4
	assert_output 1,3,6-7
}

@test "allocate: options-insensitive cases give the same answer with full-pcpus-only" {
	run -0 ca --topology "$SINGLE_HT" --reserve-count 1 --available 0-1,4-5 --full-pcpus-only allocate 2
	assert_output 1,5
	run -0 ca --topology "$DUAL_HT" --reserve-count 1 --available 0,2-4,6-11 --full-pcpus-only allocate 6
	assert_output 2-4,8-10
	run -0 ca --topology "$DUAL_NOHT" --reserve-count 1 --available 0-1,3,6-7 --full-pcpus-only allocate 4
	assert_output 1,3,6-7
}

@test "allocate: quad-socket fixture, whole socket and whole cores" {
	local sock1
	sock1=$(ca --topology "$QUAD" --available 3-4,11-12,15-16,23-24,27-28,35-36,40-41,48-49,51-52,59-60,65-66,73-74,81-82,89-90,97-98,111-112,119-120,125-126,133-134,141-142,149-150,157-158,171-172,179-180,185-186,193-194,201-202,209-210,217-218,231-232,239-240,245-246,253-254,261-262,269-270,277-278 take 72)
	# GuPodMultipleCores, topoQuadSocketFourWayHT, ExpectAllocSock0
	run -0 ca --topology "$QUAD" --available 0-2,8-10,12-287 allocate 72
	assert_output 0-2,9-10,13-14,21-22,25-26,33-34,38-39,46-47,50,57-58,71-72,79-80,87-88,95-96,103-104,109-110,117-118,131-132,139-140,147-148,155-156,163-164,169-170,177-178,191-192,199-200,207-208,215-216,223-224,229-230,237-238,251-252,259-260,267-268,275-276,283-284
	# GuPodMultipleCores, topoQuadSocketFourWayHT, ExpectAllocAllSock1+FullCore
	run -0 ca --topology "$QUAD" --available "$sock1,10,34,22,47,53,173,61,181,108,228,115,235" allocate 76
	assert_output "$(ca --topology "$QUAD" --available "$sock1,10,22,34,47" take 76)"
	assert_output 3-4,10-12,15-16,22-24,27-28,34-36,40-41,47-49,51-52,59-60,65-66,73-74,81-82,89-90,97-98,111-112,119-120,125-126,133-134,141-142,149-150,157-158,171-172,179-180,185-186,193-194,201-202,209-210,217-218,231-232,239-240,245-246,253-254,261-262,269-270,277-278
}

@test "allocate: not enough CPUs counts the free CPUs minus the reserved ones" {
	# GuPodSingleCore, SingleSocketHT, ExpectError
	run -3 ca --topology "$SINGLE_HT" --reserve-count 1 allocate 8
	assert_output "test-cpualloc: not enough free CPUs: requested 8, available 7"
	# GuPodMultipleCores, DualSocketHT, NoAllocExpectError
	run -3 ca --topology "$DUAL_HT" --reserve-count 1 --available 0,4-11 allocate 10
	assert_output "test-cpualloc: not enough free CPUs: requested 10, available 8"
	# GuPodMultipleCores, SingleSocketHT, NoAllocExpectError
	run -3 ca --topology "$SINGLE_HT" --reserve-count 1 --available 0,7 allocate 2
	assert_output "test-cpualloc: not enough free CPUs: requested 2, available 1"
	# GuPodMultipleCores, topoQuadSocketFourWayHT, NoAlloc
	run -3 ca --topology "$QUAD" --available 10,11,53,37,55,67,52 allocate 76
	assert_output "test-cpualloc: not enough free CPUs: requested 76, available 7"
}

@test "full-pcpus-only: a count that is not a multiple of the threads per core is refused" {
	# GuPodSingleCore, SingleSocketHT, ExpectAllocOneCPU (SMTAlignmentError)
	run -2 ca --topology "$SINGLE_HT" --full-pcpus-only --reserve-count 1 allocate 1
	assert_output "test-cpualloc: requested 1 CPUs, not a multiple of the 2 CPUs per core"
	# GuPodMultipleCores, topoQuadSocketFourWayHT, ExpectAllocOneCPUs (SMT level 4)
	run -2 ca --topology "$QUAD" --full-pcpus-only --reserve-count 8 allocate 15
	assert_output "test-cpualloc: requested 15 CPUs, not a multiple of the 4 CPUs per core"
	run -2 ca --topology "$DUAL_HT" --full-pcpus-only take 3
	assert_output --partial "not a multiple of the 2 CPUs per core"
	run -0 ca --topology "$DUAL_HT" --full-pcpus-only take 4
	assert_output 0,2,6,8
}

@test "full-pcpus-only: the siblings of reserved CPUs are no free physical CPUs" {
	# GuPodManyCores, topoDualSocketHT, ExpectDoNotAllocPartialCPU (kubernetes #113537)
	run -3 ca --topology "$DUAL_HT" --full-pcpus-only --reserved 1,6 --available 0,2-5,7-11 allocate 10
	assert_output "test-cpualloc: not enough free physical CPUs: requested 10, available 8 (2 CPUs per core)"
	# GuPodManyCores, topoDualSocketHT, AutoReserve, ExpectAllocAllCPUs
	run -0 ca --topology "$DUAL_HT" --full-pcpus-only --reserve-count 2 --available 1-5,7-11 allocate 10
	assert_output 1-5,7-11
	# GuPodManyCores, topoDualSocketHT, ExpectAllocAllCPUs
	run -0 ca --topology "$DUAL_HT" --full-pcpus-only --reserved 0,6 --available 1-5,7-11 allocate 10
	assert_output 1-5,7-11
}

@test "full-pcpus-only: the lone sibling of a reserved CPU is still free to two paths, as in the kubelet" {
	# the kubelet checks the count against the free physical CPUs only; the CPUs it then takes
	# from are the shared pool less the reserved CPUs, siblings included. NUMA distribution
	# counts a node's groups as its free CPUs over the threads per core: node 1 has cores {4,12}
	# and {5,13} free and the lone siblings 6 and 7, "3 groups"
	run -0 ca --topology "package:2 numa:1 core:4 pu:2(indexes=$(pairs 8 8))" --full-pcpus-only \
		--distribute-cpus-across-numa --reserved 3,14-15 --available 2-7,10-15 allocate 6
	assert_output 4-7,12-13
	# a hint is served first with min(count, aligned) CPUs: node 0 has only the lone siblings
	# 0,12,18 and 2,14,20 free (6 and 8 are reserved), best-effort prefers it; without a hint,
	# a whole core of node 1
	local quad="package:2 numa:1 core:3 pu:4(indexes=0,6,12,18,1,7,13,19,2,8,14,20,3,9,15,21,4,10,16,22,5,11,17,23)"
	run -0 ca --topology "$quad" --full-pcpus-only --reserved 6,8 \
		--available 0,2-4,6,8-10,12,14-16,18,20-22 --policy best-effort allocate 4
	assert_output 0,2,12,18
	run -0 ca --topology "$quad" --full-pcpus-only --reserved 6,8 \
		--available 0,2-4,6,8-10,12,14-16,18,20-22 allocate 4
	assert_output 3,9,15,21
}

@test "allocate: a NUMA hint is served first, from the whole socket with align-by-socket" {
	# Align by socket: true, cpu's within same socket of numa in hint are part of allocation
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --reserve-count 1 --available 2,11,21,22 --hint 0,2 allocate 2
	assert_output 2,11
	# Align by socket: false, cpu's are taken strictly from NUMA nodes in hint
	run -0 ca --topology "$MULTI_NUMA" --reserve-count 1 --available 2,11,21,22 --hint 0,2 allocate 2
	assert_output 2,21
	# the rest comes from outside the hint
	run -0 ca --topology "$DUAL_HT" --hint 1 allocate 8
	assert_output 0-1,3,5-7,9,11
	run -2 ca --topology "$DUAL_HT" --hint 2 allocate 1
	assert_output "test-cpualloc: no NUMA node 2 with CPUs"
}

# ---- reserved CPUs ----

@test "reserve: the lowest-numbered whole cores" {
	# policy_static.go: 2 CPUs on the dual-socket HT fixture are {0,6}; 1 is {0}
	run -0 ca --topology "$DUAL_HT" reserve 2
	assert_output 0,6
	run -0 ca --topology "$DUAL_HT" reserve 1
	assert_output 0
	# NewStaticPolicy: "8 CPUs available and HT enabled, if numReservedCPUs=2, then reserved={0,4}"
	run -0 ca --topology "$SINGLE_HT" reserve 2
	assert_output 0,4
	# an odd count is fine even with full-pcpus-only (GuPodSingleCore, SingleSocketHT, ...)
	run -0 ca --topology "$SINGLE_HT" --full-pcpus-only reserve 1
	assert_output 0
	run -3 ca --topology "$DUAL_HT" reserve 13
	assert_output "test-cpualloc: not enough free CPUs: requested 13, available 12"
}

# ---- Topology Manager hints (topology_hints_test.go returnTestCases, policy*.go) ----

@test "hint: the narrowest preferred NUMA node set, lowest on ties" {
	local p
	for p in best-effort restricted single-numa-node; do
		# Request 2 CPUs, 4 available on NUMA 0, 6 available on NUMA 1
		run -0 ca --topology "$HINTS" --available 2-11 --policy $p hint 2
		assert_output "0 preferred"
		# Request 5 CPUs, 4 available on NUMA 0, 6 available on NUMA 1
		run -0 ca --topology "$HINTS" --available 2-11 --policy $p hint 5
		assert_output "1 preferred"
	done
}

@test "hint: two nodes are preferred when no single node could hold the request" {
	# Request 7 CPUs, 4 available on NUMA 0, 6 available on NUMA 1
	run -0 ca --topology "$HINTS" --available 2-11 --policy best-effort hint 7
	assert_output "0-1 preferred"
	run -0 ca --topology "$HINTS" --available 2-11 --policy restricted hint 7
	assert_output "0-1 preferred"
	run -3 ca --topology "$HINTS" --available 2-11 --policy single-numa-node hint 7
	assert_output "test-cpualloc: topology manager policy single-numa-node: no single NUMA node has 7 free CPUs (node 0: 4, node 1: 6)"
}

@test "hint: without a preferred hint, best-effort admits and restricted refuses" {
	# Request 2 CPUs, 1 available on NUMA 0, 1 available on NUMA 1 (only {0,1}, not preferred)
	run -0 ca --topology "$HINTS" --available 0,3 --policy best-effort hint 2
	assert_output "0-1 not-preferred"
	run -3 ca --topology "$HINTS" --available 0,3 --policy restricted hint 2
	assert_output "test-cpualloc: topology manager policy restricted: no preferred NUMA affinity, no set of 1 NUMA node has 2 free CPUs (node 0: 1, node 1: 1)"
	# Request 11 CPUs, 4 available on NUMA 0, 6 available on NUMA 1 (no hint at all)
	run -0 ca --topology "$HINTS" --available 2-11 --policy best-effort hint 11
	assert_output "0-1 not-preferred"
	run -3 ca --topology "$HINTS" --available 2-11 --policy single-numa-node hint 11
	assert_output --partial "single-numa-node: no single NUMA node has 11 free CPUs"
	# best-effort keeps the narrowest non-preferred set (HintMerger, bestNonPreferredAffinityCount)
	run -0 ca --topology "$MULTI_NUMA" --available 0-1,10-11,20-21,30-31 --policy best-effort hint 6
	assert_output "0-2 not-preferred"
}

@test "hint: policy none, and single-numa-node on a one-node machine, give no affinity" {
	run -0 ca --topology "$HINTS" --available 2-11 --policy none hint 2
	assert_output none
	run -0 ca --topology "$SINGLE_HT" --policy single-numa-node hint 4
	assert_output none
	run -0 ca --topology "$SINGLE_HT" --policy best-effort hint 4
	assert_output "0 preferred"
}

@test "hint: align-by-socket also prefers sets spanning the fewest sockets" {
	# AlignBySocket:true Preferred hints contains socket aligned hints ({0} and {0,1})
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --available 2,3,11 --policy restricted hint 2
	assert_output "0 preferred"
	# isHintSocketAligned: {0,1} is one socket, as few as one node would need
	run -3 ca --topology "$MULTI_NUMA" --available 2,11 --policy restricted hint 2
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --available 2,11 --policy restricted hint 2
	assert_output "0-1 preferred"
	# AlignBySocket:true Preferred hints are spread across socket since 2 sockets are required
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --available 0-28,40-57 --policy restricted hint 41
	assert_output "0-2 preferred"
}

@test "hint: allocate follows the hint of the policy" {
	# the 5 CPUs fit on node 1 only: the hint keeps them there
	run -0 ca --topology "$HINTS" --available 2-11 --policy best-effort allocate 5
	assert_output 3-5,9-10
	# without it, the packed rules fill node 0 first (cores {2,8} {3,9}, then thread 6)
	run -0 ca --topology "$HINTS" --available 2-11 allocate 5
	assert_output 2-3,6,8-9
	run -3 ca --topology "$HINTS" --available 2-11 --policy single-numa-node allocate 7
	assert_output --partial "single-numa-node"
}

# ---- refused option combinations (policy_options.go, TestValidateStaticPolicyOptions) ----

@test "options: pairs the kubelet refuses" {
	run -2 ca --topology "$DUAL_HT" --full-pcpus-only --distribute-cpus-across-cores check
	assert_output "test-cpualloc: options full-pcpus-only and distribute-cpus-across-cores cannot be used together"
	run -2 ca --topology "$DUAL_HT" --distribute-cpus-across-numa --distribute-cpus-across-cores check
	assert_output "test-cpualloc: options distribute-cpus-across-numa and distribute-cpus-across-cores cannot be used together"
	run -2 ca --topology "$DUAL_HT" --prefer-align-cpus-by-uncorecache --distribute-cpus-across-numa check
	assert_output "test-cpualloc: options prefer-align-cpus-by-uncorecache and distribute-cpus-across-numa cannot be used together"
	run -2 ca --topology "$DUAL_HT" --prefer-align-cpus-by-uncorecache --distribute-cpus-across-cores take 2
	assert_output --partial "cannot be used together"
	run -0 ca --topology "$DUAL_HT" --distribute-cpus-across-numa --option prefer-align-cpus-by-uncorecache=false check
	assert_output ok
	run -0 ca --topology "$DUAL_HT" --full-pcpus-only --distribute-cpus-across-numa check
	assert_output ok
}

@test "options: align-by-socket with single-numa-node, or with more sockets than NUMA nodes" {
	# Align by socket enabled with topology manager single numa node
	run -2 ca --topology "$MULTI_NUMA" --align-by-socket --policy single-numa-node check
	assert_output "test-cpualloc: option align-by-socket cannot be used with the single-numa-node topology manager policy"
	# Align by socket enabled with num_sockets > num_numa
	run -2 ca --topology "$SOCKETS_PER_NUMA" --align-by-socket check
	assert_output "test-cpualloc: option align-by-socket needs at least as many NUMA nodes as sockets (4 sockets, 2 NUMA nodes)"
	# Align by socket enabled: with topology manager None policy / best-effort policy
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --policy none check
	assert_output ok
	run -0 ca --topology "$MULTI_NUMA" --align-by-socket --policy best-effort check
	assert_output ok
	# Align by socket not enabled
	run -0 ca --topology "$MULTI_NUMA" --full-pcpus-only --policy single-numa-node check
	assert_output ok
}

@test "options: names and boolean values as the kubelet parses them" {
	run -0 ca --topology "$DUAL_HT" --option full-pcpus-only=True take 4
	assert_output 0,2,6,8
	run -0 ca --topology "$DUAL_HT" --option full-pcpus-only=0 take 3
	assert_output 0,2,6
	run -2 ca --topology "$DUAL_HT" --option full-pcpus-only=yes check
	assert_output "test-cpualloc: bad value for CPU manager option full-pcpus-only: 'yes'"
	run -2 ca --topology "$DUAL_HT" --option strict-pcpus check
	assert_output "test-cpualloc: unknown CPU manager option: 'strict-pcpus'"
}

# ---- properties on random machines (test-cpualloc props SEED N) ----

# Each case is a random machine of up to 4096 CPUs (1-8 packages; 1-4 NUMA nodes per package, or
# packages per node; 1-4 L3 caches per node, or one L3 over two nodes, or none; 1-32 cores per
# L3; SMT 1, 2 or 4; Linux-style or shuffled CPU numbers; some CPUs offline), a reservation, and
# options and a Topology Manager policy the kubelet accepts, then a random sequence of
# allocations and releases. The properties checked after each step are stated in
# tests/unit/test-cpualloc.c. The seeds are fixed, so every run checks the same cases; a failure
# prints the case and the commands that replay it.
props() {
	local p
	run -0 ca props "$1" "$2"
	assert_output --regexp "^props seed=$1 cases=$2 failed=0 "
	# each property was asserted on some allocation of these cases
	for p in full_cores whole_outer whole_inner whole_l3 whole_cores uncore_fit distributed \
		hint_aligned single_node offline_cases opts_refused refused releases; do
		[[ $output =~ \ $p=[1-9] ]] || fail "property never checked: $p"
	done
}

@test "properties: random machines, seed 1" {
	props 1 150
}

@test "properties: random machines, seed 7001" {
	props 7001 150
}

@test "properties: random machines, seed 424242" {
	props 424242 150
}

@test "properties: a case replays alone and the same each time, offline CPUs as given" {
	run -0 ca props 1003 1
	local first=$output
	run -0 ca props 1003 1
	assert_output "$first"
	assert_output --partial "cases=1 failed=0"
	# the replay command line takes CPUs offline as the case did
	run -0 ca --topology "package:1 core:2 pu:2" --offline 1 info
	assert_line --index 0 "cpus=3 cores=2 sockets=1 nodes=1 uncore=1 threads_per_core=1 cpus_per_socket=3 cpus_per_uncore=3"
	run -0 ca --topology "package:1 core:2 pu:2" --offline 0-1 take 2
	assert_output 2-3
	run -2 ca --topology "package:1 core:2 pu:2" --offline 0-3 info
	assert_output "test-cpualloc: invalid topology: 'package:1 core:2 pu:2'"
	run -2 ca props 1
	run -2 ca props x 1
}

# ---- one Topology Manager (libcommon/topomgr.c) for CPUs, devices, memory ----

@test "topomgr: the kubelet's merge cases, the search against the exhaustive merge, 34 to 256 nodes" {
	run -0 "$RM_BUILDDIR/tests/unit/test-topomgr"
	assert_output --regexp '^[0-9]+ checks, 0 failed$'
}

@test "topomgr: the kubelet's own Topology Manager merge tests (policy_*_test.go), ported" {
	run -0 "$RM_BUILDDIR/tests/unit/test-tm-kubelet"
	assert_output --regexp '^[0-9]+ checks, 0 failed$'
}

@test "memmgr: the kubelet's own Memory Manager tests (policy_static_test.go), ported" {
	run -0 "$RM_BUILDDIR/tests/unit/test-memmgr-kubelet"
	assert_output --regexp '^[0-9]+ checks, 0 failed$'
}

@test "hint: 34, 128 and 256 NUMA nodes take the search, with the kubelet's placement" {
	# a GB200 tray's 34 nodes: 20 CPUs need three nodes of 8
	run -0 ca --topology "package:2 numa:17 core:4 pu:2" --available 200-271 --policy restricted hint 20
	assert_output "25-27 preferred"
	# the CPUs' node set holding another provider's node
	run -0 ca --topology "package:2 numa:17 core:4 pu:2" --available 200-271 --provider 33 --policy best-effort hint 4
	assert_output "33 preferred"
	run -0 ca --topology "package:8 numa:16 core:8 pu:2" --available 1000-1100 --policy restricted hint 8
	assert_output "62 preferred"
	run -0 ca --topology "package:16 numa:16 core:4 pu:2" --available 1000-1100,2040-2047 --policy single-numa-node hint 8
	assert_output "125 preferred"
	run -3 ca --topology "package:16 numa:16 core:4 pu:2" --available 1000-1003,2040-2043 --policy single-numa-node hint 8
	assert_output --partial "topology manager policy single-numa-node: no single NUMA node has 8 free CPUs (node 0: 0, "
	run -2 ca --topology "package:16 numa:16 core:4 pu:2" --option max-allowable-numa-nodes=128 --policy restricted hint 8
	assert_output "test-cpualloc: too many NUMA nodes for topology hints (256, max-allowable-numa-nodes is 128)"
}
