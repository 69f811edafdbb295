#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset export kubelet and slurm keep the kubelet and Slurm off every CPU rmtools gave out,
# validated against the upstream KubeletConfiguration schemas; the README's examples run.
load ../test_helper

T2="package:2 numa:2 core:4 pu:2" # 32 CPUs, nodes of 8: 0-7, 8-15, 16-23, 24-31
SCHEMAS="${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

cs() { rm-cpuset --topology "$T2" "$@"; }

# The value of KEY in LINE ("-" when absent).
key() { local v; v=$(tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"); echo "${v:--}"; }

# Validate standard input against the KubeletConfiguration schema of release 1.MINOR.
kubelet_valid() {
	[ -d "$SCHEMAS" ] || skip "../shared/reference/schemas is absent"
	"$RM_SRCDIR/tests/schema-check.py" \
		"$SCHEMAS/k8s/kubelet.config.k8s.io_v1beta1_KubeletConfiguration-1.$1.json"
}

@test "export kubelet: reservedSystemCPUs holds the reserved pool and every owner's CPUs, and says why" {
	run -0 cs reserve 0-1
	run -0 cs alloc --count 4 --owner db
	run -0 cs alloc --count 8 --owner batch --policy single-numa-node
	run -0 cs export kubelet --full-pcpus-only
	assert_golden rm-cpuset export-kubelet-reserved-owners
	kubelet_valid 36 <<<"$output"
	# owners without a reservation are still kept off
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/owners"
	run -0 cs alloc --count 2 --owner web
	run -0 cs export kubelet
	assert_line 'reservedSystemCPUs: "0-1"'
	assert_line '  strict-cpu-reservation: "true"'
	# a reservation alone, not strict: no policy option
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/plain"
	run -0 cs reserve 0-1
	run -0 cs export kubelet
	refute_output --partial cpuManagerPolicyOptions
	assert_line 'reservedSystemCPUs: "0-1"'
}

@test "export kubelet: --kubelet-version writes only that release's options, with their feature gates" {
	local v
	run -0 cs reserve 0-1
	for v in 30 31 32 33 34 35 36; do
		run -0 cs export kubelet --kubelet-version 1.$v --align-by-socket --policy restricted
		assert_line --index 0 --partial "for kubelet 1.$v:"
		assert_line '  CPUManagerPolicyAlphaOptions: true'
		kubelet_valid "$v" <<<"$output"
	done
	run -0 cs reserve 0-1 --strict
	# strict-cpu-reservation: unknown before 1.32, alpha in 1.32, beta 1.33-1.34, GA from 1.35
	run -2 --separate-stderr cs export kubelet --kubelet-version 1.31
	assert_equal "$stderr" "rm-cpuset: kubelet 1.31 does not know the CPU Manager policy option 'strict-cpu-reservation' (kubelet 1.32 and later do; it keeps the pods off a strict reservation)"
	run -0 cs export kubelet --kubelet-version 1.32
	assert_line '  CPUManagerPolicyAlphaOptions: true'
	kubelet_valid 32 <<<"$output"
	run -0 cs export kubelet --kubelet-version 1.34
	assert_line 'featureGates:'
	assert_line '  CPUManagerPolicyBetaOptions: true'
	refute_line --partial AlphaOptions
	run -0 cs export kubelet --kubelet-version 1.35
	refute_line featureGates:
	# full-pcpus-only: beta until 1.32, GA from 1.33
	run -0 cs export kubelet --kubelet-version 1.32 --full-pcpus-only
	assert_line '  CPUManagerPolicyBetaOptions: true'
	run -0 cs export kubelet --kubelet-version 1.36 --full-pcpus-only --prefer-align-cpus-by-uncorecache
	refute_line featureGates:
	# distribute-cpus-across-cores: unknown in 1.30
	usage_error "kubelet 1.30 does not know the CPU Manager policy option 'distribute-cpus-across-cores' (kubelet 1.31 and later do)" \
		cs export kubelet --kubelet-version 1.30 --distribute-cpus-across-cores
	# Topology Manager options and their gates: prefer-closest-numa-nodes beta until 1.31
	run -0 cs export kubelet --kubelet-version 1.32 --policy best-effort --prefer-closest-numa-nodes
	refute_line --partial TopologyManager
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/plain"
	run -0 cs reserve 0-1
	run -0 cs export kubelet --kubelet-version 1.31 --policy best-effort --prefer-closest-numa-nodes
	assert_line '  TopologyManagerPolicyBetaOptions: true'
	kubelet_valid 31 <<<"$output"
	run -0 cs export kubelet --kubelet-version 1.36 --policy best-effort --prefer-closest-numa-nodes
	assert_line 'topologyManagerPolicyOptions:'
	assert_line '  prefer-closest-numa-nodes: "true"'
	kubelet_valid 36 <<<"$output"
	usage_error "unknown kubelet version: '1.29' (1.30 to 1.36)" cs export kubelet --kubelet-version 1.29
	usage_error "unknown kubelet version: '2.0'" cs export kubelet --kubelet-version 2.0
	usage_error "unknown kubelet version: '1.3x'" cs export kubelet --kubelet-version 1.3x
	usage_error "--prefer-closest-numa-nodes needs a Topology Manager --policy" \
		cs export kubelet --prefer-closest-numa-nodes
	usage_error "--kubelet-version is for kubelet" cs export slurm --kubelet-version 1.36
}

@test "export kubelet: more than 8 NUMA nodes get max-allowable-numa-nodes, where the release has it" {
	local t16="package:2 numa:8 core:2 pu:1"
	run -0 rm-cpuset --topology "$t16" reserve 0
	run -0 rm-cpuset --topology "$t16" export kubelet --policy single-numa-node
	assert_line 'topologyManagerPolicyOptions:'
	assert_line '  max-allowable-numa-nodes: "16"'
	kubelet_valid 36 <<<"$output"
	run -0 rm-cpuset --topology "$t16" export kubelet --policy single-numa-node --kubelet-version 1.34
	assert_line '  TopologyManagerPolicyBetaOptions: true'
	kubelet_valid 34 <<<"$output"
	usage_error "kubelet 1.30 does not know the Topology Manager policy option 'max-allowable-numa-nodes' (kubelet 1.31 and later do; it lets the Topology Manager run on more than 8 NUMA nodes)" \
		rm-cpuset --topology "$t16" export kubelet --policy single-numa-node --kubelet-version 1.30
	# without a Topology Manager policy the kubelet does not count the nodes
	run -0 rm-cpuset --topology "$t16" export kubelet --kubelet-version 1.30
	refute_output --partial max-allowable
}

@test "export slurm: CpuSpecList holds the reserved pool and every owner's CPUs, slurmd kept off them" {
	run -0 cs reserve 0-1
	run -0 cs alloc --count 4 --owner db
	run -0 cs export slurm --node-name n --mem-spec-limit 1G --cgroup-conf
	assert_golden rm-cpuset export-slurm-cgroup-conf
	# an owner on part of a core
	run -0 cs alloc --count 1 --owner half
	usage_error "the CPUs reserved and allocated are not whole cores, and Slurm widens CpuSpecList to whole cores: '0-6' (the whole cores are '0-7': reserve them, or allocate with --full-pcpus-only)" \
		cs export slurm
	usage_error "--cgroup-conf is for slurm" cs export kubelet --cgroup-conf
}

@test "export slurm: Boards, SocketsPerBoard, CoresPerSocket, ThreadsPerCore as slurmd -C reads each fixture's topology" {
	local m xml ours theirs k n=0 allowed online
	command -v slurmd >/dev/null || skip "slurmd is absent (apt-get install slurmd)"
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent (apt-get install hwloc-nox)"
	require_fixtures
	for m in "$FIXTURES"/*/ "$SNAPSHOTS"/*/; do
		[ -d "$m/sys" ] || continue
		# slurmd counts the CPUs its cgroup allows; the node line is the whole node's
		read -r allowed online < <(rm-topo --sysroot "$m" -o allowed,online -r)
		[ "$allowed" = "$online" ] || continue
		xml="$BATS_TEST_TMPDIR/$n-$(basename "$m").xml"
		lstopo-no-graphics --input "$m" --of xml "$xml" 2>/dev/null
		# slurmd reads the topology from hwloc, which takes it from the XML file
		theirs=$(HWLOC_XMLFILE="$xml" HWLOC_THISSYSTEM=1 slurmd -C 2>&1 | grep -v '^hwloc:' | head -n 1)
		if [[ $theirs == *error* ]]; then
			# slurmd cannot describe it either: rm-cpuset refuses it
			run -2 rm-cpuset --sysroot "$m" export slurm
			n=$((n + 1))
			continue
		fi
		ours=$(rm-cpuset --sysroot "$m" export slurm 2>/dev/null | grep '^NodeName=')
		for k in CPUs Boards SocketsPerBoard CoresPerSocket ThreadsPerCore; do
			assert_equal "$m $k=$(key "$k" "$ours")" "$m $k=$(key "$k" "$theirs")"
		done
		n=$((n + 1))
	done
	[ "$n" -ge 20 ]
}

@test "README: the rm-cpuset plan, then its kubelet and Slurm lines run as printed; the kubelet and slurmd read them" {
	local readme="$RM_SRCDIR/README.md" section line kubelet slurm dir="$BATS_TEST_TMPDIR/etc"
	section=$(sed -n '/^## rm-cpuset$/,/^## /p' "$readme")
	kubelet=$(grep -E '^    rm-cpuset export kubelet ' <<<"$section" | sed 's/^    //; s/ *# .*//')
	slurm=$(grep -E '^    rm-cpuset export slurm ' <<<"$section" | sed 's/^    //; s/ *# .*//')
	[ -n "$kubelet" ] && [ -n "$slurm" ]
	mkdir -p "$dir/kubernetes/kubelet.conf.d" "$dir/slurm"
	# the plan's commands ("$ " lines) run in one shell with the export lines after them, the
	# drop-in written below $dir instead of /etc
	TMPDIR=$BATS_TEST_TMPDIR run -0 bash -c "$(sed -n 's/^    \$ //p' <<<"$section" | sed 's/ *# .*//')
		${kubelet//\/etc\//$dir/}
		$slurm --node-name \$(hostname -s) >'$dir/slurm/node.conf'"
	run -0 cat "$dir/kubernetes/kubelet.conf.d/50-rmtools-cpuset.conf"
	assert_line 'reservedSystemCPUs: "0-5"'
	assert_line "#   2-5: owner db's exclusive CPUs"
	kubelet_valid 36 <"$dir/kubernetes/kubelet.conf.d/50-rmtools-cpuset.conf"
	# slurmd -G parses slurm.conf and cgroup.conf (beside it) and fails on an unknown key
	command -v slurmd >/dev/null || skip "slurmd is absent (apt-get install slurmd)"
	{
		echo "ClusterName=rmtools-test"
		echo "SlurmctldHost=localhost"
		sed '/^# cgroup.conf/,$d' "$dir/slurm/node.conf"
		echo "PartitionName=all Nodes=ALL"
	} >"$dir/slurm/slurm.conf"
	sed -n '/^# cgroup.conf/,$p' "$dir/slurm/node.conf" >"$dir/slurm/cgroup.conf"
	run -0 grep -c '^Constrain' "$dir/slurm/cgroup.conf"
	assert_output 3
	run -0 grep -c '^NodeName=.* CpuSpecList=0-5 MemSpecLimit=1024$' "$dir/slurm/slurm.conf"
	run -0 slurmd -f "$dir/slurm/slurm.conf" -G
	# and the check has teeth: a misspelt key fails
	sed -i 's/CpuSpecList=/CpuSpecLis=/' "$dir/slurm/slurm.conf"
	run -1 slurmd -f "$dir/slurm/slurm.conf" -G
}

@test "export kubelet: the memory reserve as reservedMemory, Static, and the systemReserved memory that matches it" {
	tiers() { rm-cpuset --sysroot "$SNAPSHOTS/x86-2s-memory-tiers" "$@"; }
	run -0 tiers reserve 0
	# no memory reserve: no Memory Manager fields
	run -0 tiers export kubelet
	refute_output --partial memoryManagerPolicy
	refute_output --partial reservedMemory
	run -0 tiers reserve --memory 0:1G,1:1124M
	run -0 tiers export kubelet --kubelet-version 1.30
	assert_golden rm-cpuset export-kubelet-reserved-memory
	# the sum of reservedMemory equals systemReserved + 100Mi: 1024 + 1124 = 2048 + 100
	for v in 30 31 32 33 34 35 36; do
		tiers export kubelet --kubelet-version 1.$v >"$BATS_TEST_TMPDIR/k.yaml"
		run -0 kubelet_valid "$v" <"$BATS_TEST_TMPDIR/k.yaml"
	done
	# an owner's memory is its own, not the system's reserve
	run -0 tiers alloc --count 2 --owner db --memory 4G
	for v in 32 33 34 35 36; do
		tiers export kubelet --kubelet-version 1.$v >"$BATS_TEST_TMPDIR/k.yaml"
		run -0 kubelet_valid "$v" <"$BATS_TEST_TMPDIR/k.yaml"
		run -0 grep -A1 -e '^systemReserved:' -e '^memoryManagerPolicy' "$BATS_TEST_TMPDIR/k.yaml"
		assert_output $'memoryManagerPolicy: Static\nreservedMemory:\n--\nsystemReserved:\n  memory: 2Gi'
	done
	# a reserve the eviction threshold would eat whole is refused
	run -0 tiers reserve --memory 0:100M
	run -2 --separate-stderr tiers export kubelet
	assert_equal "$stderr" "rm-cpuset: the memory reserve (rm-cpuset reserve --memory) must be more than the kubelet's default hard eviction threshold for memory (100Mi)"
	assert_output ""
}
