#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo export nrt: a NodeResourceTopology valid against the upstream CRD schema, zones per NUMA
# node with costs from the distances and cpu/memory/huge page resources less rmtools' CPUs.
load ../test_helper
load ../rm-devices/fixtures

T2="package:2 numa:2 core:4 pu:2" # 32 CPUs, 4 nodes of 8: 0-7, 8-15, 16-23, 24-31
SCHEMAS="${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}"
SR8="$SNAPSHOTS/x86-2s-smt"
CPULESS="$SNAPSHOTS/numa-memoryless-cpuless"
TIERS="$SNAPSHOTS/x86-2s-memory-tiers"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

# Validate standard input as a NodeResourceTopology (schema, apiVersion, kind, no unknown field).
nrt_valid() {
	[ -d "$SCHEMAS" ] || skip "../shared/reference/schemas is absent"
	"$RM_SRCDIR/tests/schema-check.py" --nrt "$SCHEMAS/nrt/noderesourcetopology-v1alpha2.json"
}

# "ZONE RESOURCE CAPACITY ALLOCATABLE AVAILABLE" lines of the object on standard input.
resources() {
	python3 -c '
import sys, yaml
for z in yaml.safe_load(sys.stdin)["zones"]:
    for r in z.get("resources", []):
        print(z["name"], r["name"], r["capacity"], r["allocatable"], r["available"])'
}

# "FROM TO VALUE" lines of the costs of the object on standard input, node numbers as in distances.
costs() {
	python3 -c '
import sys, yaml
for z in yaml.safe_load(sys.stdin)["zones"]:
    for c in z.get("costs", []):
        print(z["name"][5:], c["name"][5:], c["value"])'
}

@test "export nrt: exact object for a two-node snapshot (golden file)" {
	run -0 rm-topo --sysroot "$SR8" export nrt --node-name worker-1 \
		--topology-manager-policy single-numa-node --topology-manager-scope pod
	assert_golden rm-topo nrt-x86-2s-smt
	nrt_valid <<<"$output"
}

@test "export nrt: YAML and JSON validate on this machine, the snapshots and synthetic machines" {
	local input
	for input in live "--sysroot=$SR8" "--sysroot=$CPULESS" "--sysroot=$TIERS" \
		"--sysroot=$SNAPSHOTS/this-vm" "--topology=$T2" "--topology=package:1 numa:1 core:2 pu:1"; do
		if [ "$input" = live ]; then
			rm-topo export nrt --node-name n1 | nrt_valid
			rm-topo export nrt --node-name n1 --json | nrt_valid
		else
			rm-topo "$input" export nrt --node-name n1 | nrt_valid
			rm-topo "$input" export nrt --node-name n1 -J | nrt_valid
		fi
	done
	# YAML and JSON state the same object
	run -0 bash -c "rm-topo --sysroot '$TIERS' export nrt --node-name n1 |
		python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))'"
	local yaml=$output
	run -0 bash -c "rm-topo --sysroot '$TIERS' export nrt --node-name n1 --json |
		python3 -c 'import sys, json; print(json.dumps(json.load(sys.stdin), sort_keys=True))'"
	assert_equal "$output" "$yaml"
}

@test "export nrt: validates on every multi-node machine of the shared fixtures" {
	require_fixtures
	local dir n=0
	for dir in "$FIXTURES"/*/; do
		[ -d "$dir/sys/devices/system/node/node1" ] || continue
		rm-topo --sysroot "$dir" export nrt --node-name n1 | nrt_valid ||
			fail "not a valid NodeResourceTopology: $dir"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "export nrt: a zone per node; a CPU-less node has memory and no cpu" {
	out=$(rm-topo --sysroot "$CPULESS" export nrt --node-name n1)
	run -0 resources <<<"$out"
	assert_output - <<'OUT'
node-0 cpu 2 2 2
node-0 memory 4Gi 4Gi 4Gi
node-1 cpu 2 2 2
node-1 memory 0 0 0
node-2 memory 8Gi 8Gi 8Gi
OUT
	out=$(rm-topo --sysroot "$TIERS" export nrt --node-name n1)
	run -0 resources <<<"$out"
	assert_line "node-2 memory 64Gi 64Gi 64Gi"
	assert_line "node-3 memory 32Gi 32Gi 32Gi"
	refute_line --partial "node-2 cpu"
	refute_line --partial "node-3 cpu"
}

@test "export nrt: costs are rm-topo distances on the same input" {
	local input want out
	for input in "--sysroot=$SR8" "--sysroot=$CPULESS" "--sysroot=$TIERS" "--topology=$T2"; do
		want=$(rm-topo "$input" distances -r -o from,to,value)
		out=$(rm-topo "$input" export nrt --node-name n1)
	run -0 costs <<<"$out"
		assert_output "$want"
	done
}

@test "export nrt: reserved CPUs leave allocatable, owners' CPUs leave available" {
	run -0 rm-cpuset --topology "$T2" reserve 0-1
	run -0 rm-cpuset --topology "$T2" alloc --count 4 --from 2-5 --owner db
	run -0 rm-cpuset --topology "$T2" alloc --count 8 --from 8-15 --owner batch
	out=$(rm-topo --topology "$T2" export nrt --node-name n1)
	run -0 resources <<<"$out"
	assert_line "node-0 cpu 8 6 2"
	assert_line "node-1 cpu 8 8 0"
	assert_line "node-2 cpu 8 8 8"
	run -0 rm-topo --topology "$T2" export nrt --node-name n1 --json
	nrt_valid <<<"$output"
}

@test "export nrt: huge pages per node from nr_hugepages, all available without reservations" {
	local sr="$BATS_TEST_TMPDIR/sr" d
	cp -r "$SR8" "$sr"
	for d in node0:2048:4:1 node0:1048576:2:2 node1:2048:0:0; do
		IFS=: read -r node kb nr free <<<"$d"
		mkdir -p "$sr/sys/devices/system/node/$node/hugepages/hugepages-${kb}kB"
		echo "$nr" >"$sr/sys/devices/system/node/$node/hugepages/hugepages-${kb}kB/nr_hugepages"
		echo "$free" >"$sr/sys/devices/system/node/$node/hugepages/hugepages-${kb}kB/free_hugepages"
		echo 0 >"$sr/sys/devices/system/node/$node/hugepages/hugepages-${kb}kB/surplus_hugepages"
	done
	mkdir -p "$sr/sys/devices/system/node/node1/hugepages/hugepages-1048576kB"
	for f in nr_hugepages free_hugepages surplus_hugepages; do
		echo 0 >"$sr/sys/devices/system/node/node1/hugepages/hugepages-1048576kB/$f"
	done
	out=$(rm-topo --sysroot "$sr" export nrt --node-name n1)
	run -0 resources <<<"$out"
	assert_line "node-0 hugepages-2Mi 8Mi 8Mi 8Mi"
	assert_line "node-0 hugepages-1Gi 2Gi 2Gi 2Gi"
	assert_line "node-1 hugepages-2Mi 0 0 0"
	rm-topo --sysroot "$sr" export nrt --node-name n1 | nrt_valid
}

@test "export nrt: the host name by default, attributes, --output" {
	run -0 rm-topo --topology "$T2" export nrt
	assert_line "  name: $(hostname | tr A-Z a-z)"
	assert_line --index 7 "  value: none"
	assert_line --index 9 "  value: container"
	run -0 rm-topo --topology "$T2" export nrt --node-name n1 --output "$BATS_TEST_TMPDIR/nrt.yaml"
	nrt_valid <"$BATS_TEST_TMPDIR/nrt.yaml"
}

@test "export nrt: bad options exit 2" {
	usage_error "invalid node name: 'Bad_Name'" rm-topo --topology "$T2" export nrt --node-name Bad_Name
	usage_error "unknown policy: 'frob'" rm-topo --topology "$T2" export nrt --topology-manager-policy frob
	usage_error "unknown scope: 'node'" rm-topo --topology "$T2" export nrt --topology-manager-scope node
	usage_error "are for nrt" rm-topo --topology "$T2" export nfd --json
	usage_error "unknown export format: 'nrx'" rm-topo --topology "$T2" export nrx
}

@test "export nrt: the README's examples run and validate (kubectl apply read as the schema)" {
	local line n=0
	while IFS= read -r line; do
		line=${line//kubectl apply -f -/cat}
		[[ $line == *'$(hostname)'* ]] && line=${line//'"$(hostname)"'/n1}
		run -0 bash -c "$line"
		nrt_valid <<<"$output"
		n=$((n + 1))
	done < <(grep -E '^    rm-topo .*export nrt' "$RM_SRCDIR/README.md")
	[ "$n" -ge 2 ]
}

@test "export nrt: a write error exits 1; a corrupt state exits 1 and writes no file" {
	run -1 --separate-stderr bash -c "rm-topo --topology '$T2' export nrt --node-name n1 >/dev/full"
	assert_equal "$stderr" "rm-topo: write error: No space left on device"
	mkdir -p "$RM_STATE_DIR" "$BATS_TEST_TMPDIR/out"
	echo "rmtools_state=cpuset version=1 records=1 checksum=00000000" >"$RM_STATE_DIR/cpuset.state"
	echo "owner=x cpus=0" >>"$RM_STATE_DIR/cpuset.state"
	run -1 --separate-stderr rm-topo --topology "$T2" export nrt --node-name n1 \
		--output "$BATS_TEST_TMPDIR/out/nrt.yaml"
	assert_output ""
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/out")" ""
}

@test "export nrt: memory and huge pages less the system reserve (allocatable) and owners (available)" {
	local sr="$BATS_TEST_TMPDIR/sr" n s c d
	cp -r "$TIERS" "$sr"
	for n in 0:2048kB:512 1:2048kB:256; do
		IFS=: read -r n s c <<<"$n"
		d=$sr/sys/devices/system/node/node$n/hugepages/hugepages-$s
		mkdir -p "$d"
		echo "$c" >"$d/nr_hugepages"
		echo "$c" >"$d/free_hugepages"
		echo 0 >"$d/surplus_hugepages"
	done
	run -0 rm-cpuset --sysroot "$sr" reserve --memory 0:4G,1:1G
	run -0 rm-cpuset --sysroot "$sr" alloc --count 2 --owner db --memory 8G --hugepages 2M:100 \
		--numa-node 0 --policy single-numa-node -o memory_nodes,hugepages
	assert_output "memory_nodes=0:8GiB hugepages=2MiB:0:100"
	out=$(rm-topo --sysroot "$sr" export nrt --node-name n1)
	run -0 resources <<<"$out"
	assert_line "node-0 memory 16Gi 12Gi 4Gi"
	assert_line "node-0 hugepages-2Mi 1Gi 1Gi 824Mi"
	assert_line "node-1 memory 16Gi 15Gi 15Gi"
	assert_line "node-1 hugepages-2Mi 512Mi 512Mi 512Mi"
	nrt_valid <<<"$out"
	# released: available again
	run -0 rm-cpuset --sysroot "$sr" release db
	run -0 resources < <(rm-topo --sysroot "$sr" export nrt --node-name n1)
	assert_line "node-0 memory 16Gi 12Gi 12Gi"
	assert_line "node-0 hugepages-2Mi 1Gi 1Gi 1Gi"
}

@test "export nrt: devices per NUMA node as DOMAIN/TYPE, owners' devices not available" {
	local gpu="$BATS_TEST_TMPDIR/gpu" mixed="$BATS_TEST_TMPDIR/mixed" type numa want
	fx_gpu_server "$gpu"
	fx_mixed "$mixed"
	run -0 rm-devices --sysroot "$gpu" alloc --type gpu --count 2 --numa-node 1 --owner train -o numa -r
	out=$(rm-topo --sysroot "$gpu" export nrt --node-name n1 --vendor-domain example.com)
	nrt_valid <<<"$out"
	# the peer: rm-devices' own list of the same tree, counted per type and node
	res=$(resources <<<"$out")
	rm-devices --sysroot "$gpu" list -r -o type,numa | grep -v ' -$' | sort | uniq -c >"$BATS_TEST_TMPDIR/peer"
	[ -s "$BATS_TEST_TMPDIR/peer" ]
	while read -r want type numa; do
		free=$want
		[ "$type $numa" != "gpu 1" ] || free=$((want - 2))
		run -0 grep -Fx "node-$numa example.com/$type $want $want $free" <<<"$res"
	done <"$BATS_TEST_TMPDIR/peer"
	run -0 grep -c ' example.com/' <<<"$res"
	assert_output "$(wc -l <"$BATS_TEST_TMPDIR/peer")"
	# the default domain; a device without a NUMA node is in no zone, named in a comment
	out=$(rm-topo --sysroot "$mixed" export nrt --node-name n1)
	nrt_valid <<<"$out"
	run -0 grep '^# devices without a NUMA node' <<<"$out"
	assert_output --partial "rmtools.io/accel 0000:d8:00.0"
	run -1 grep -F 'rmtools.io/accel' < <(resources <<<"$out")
	run -2 rm-topo --topology "$T2" export nrt --vendor-domain Bad_Domain
	run -2 rm-topo --topology "$T2" export nfd --vendor-domain example.com
}
