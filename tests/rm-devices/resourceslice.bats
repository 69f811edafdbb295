#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices export resourceslice: Kubernetes DRA ResourceSlices against the upstream schema and
# the rules Kubernetes checks in code (tests/schema-check.py), pools split at 128 devices, the
# standard attributes, owners' devices left out.
load ../test_helper
load fixtures

setup_file() {
	fx_trees
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

SLICE_SCHEMA="${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}/k8s/resource.k8s.io_v1_ResourceSlice.json"

# Skip the test without the upstream ResourceSlice schema (../shared/reference/schemas). Called
# in the test itself, never under `run`, where a skip would read as success.
require_slice_schema() {
	[ -f "$SLICE_SCHEMA" ] || skip "../shared/reference/schemas is absent"
	"$PY" -c 'import jsonschema, yaml' 2>/dev/null ||
		skip "python3-jsonschema or python3-yaml is not installed"
}

# Validate standard input against the schema and the rules Kubernetes checks in code.
slice_valid() {
	"$PY" "$RM_SRCDIR/tests/schema-check.py" "$SLICE_SCHEMA"
}

# A YAML stream on stdin as JSON lines, one document a line.
json_docs() {
	"$PY" -c 'import json, sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    print(json.dumps(d))'
}

@test "export resourceslice: every fixture's slices pass the schema and Kubernetes' own rules" {
	require_slice_schema
	run -0 slice_valid < <(gpu export resourceslice --driver gpu.example.com --node-name node1)
	run -0 slice_valid < <(mixed export resourceslice --driver dra.example.com --node-name n-2.example.com --type gpu,nic)
	# an empty pool is one slice without devices
	run -0 slice_valid < <(mixed export resourceslice --driver dra.example.com --node-name n1 --type nvme)
	run -0 bash -c "rm-devices --sysroot '$MIXED' export resourceslice --driver d.example.com --node-name n1 --type nvme | grep -c '^  devices: \[\]$'"
	assert_output 1
	# the checker does reject what Kubernetes rejects
	gpu export resourceslice --driver gpu.example.com --node-name node1 | json_docs >"$BATS_TEST_TMPDIR/s.json"
	run -1 slice_valid < <(jq -c '.spec.allNodes = true' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "exactly one of nodeName"
	run -1 slice_valid < <(jq -c '.spec.devices[0].name = "GPU_0"' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "not a DNS label"
	run -1 slice_valid < <(jq -c '.spec.devices[0].attributes += ([range(40)] | map({key: "a\(.)", value: {int: .}}) | from_entries)' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "at most 32"
	run -1 slice_valid < <(jq -c '.spec.devices[0].attributes.type = {string: "gpu", int: 1}' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "needs one"
	run -1 slice_valid < <(jq -c '.spec.devices += .spec.devices' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "twice in pool"
	run -1 slice_valid < <(jq -c '.spec.pool.resourceSliceCount = 2' "$BATS_TEST_TMPDIR/s.json")
	assert_output --partial "resourceSliceCount says 2"
	run -1 slice_valid < <(jq -c '.spec.devices[0].capacity.memory.value = "40GiB"' "$BATS_TEST_TMPDIR/s.json")
}

@test "export resourceslice: the mixed machine's slice as the golden file" {
	run -0 mixed export resourceslice --driver dra.example.com --node-name node1
	assert_golden rm-devices resourceslice-mixed
}

@test "export resourceslice: standard attributes, the NUMA node, the model and memory per device" {
	local addr root numa name
	gpu export resourceslice --driver gpu.example.com --node-name node1 | json_docs >"$BATS_TEST_TMPDIR/s.json"
	run -0 jq -r '[.metadata.name, .spec.driver, .spec.nodeName, .spec.pool.name, .spec.pool.generation, .spec.pool.resourceSliceCount, (.spec.devices | length)] | @tsv' "$BATS_TEST_TMPDIR/s.json"
	assert_output "$(printf 'node1-gpu.example.com-0\tgpu.example.com\tnode1\tnode1\t1\t1\t%s' "$(gpu list -r -o device | wc -l)")"
	# each device: named from its address, the standard attributes as rm-devices list says
	while read -r addr root numa name; do
		run -0 jq -c --arg a "$addr" '.spec.devices[] | select(.attributes["resource.kubernetes.io/pciBusID"].string == $a) | [.name, .attributes["resource.kubernetes.io/pcieRoot"].string, .attributes["resource.kubernetes.io/numaNode"].int, .attributes.numaNode.int, .attributes.name.string]' "$BATS_TEST_TMPDIR/s.json"
		assert_output "[\"gpu-$(tr ':.' '--' <<<"$addr")\",\"pci$root\",$numa,$numa,\"$name\"]"
	done < <(gpu list -r -o device,root,numa,name --type gpu)
	run -0 jq -r 'first(.spec.devices[] | select(.attributes.type.string == "gpu")) | [.name, .attributes.type.string, .attributes.vendor.string, .attributes.product.string, .attributes.class.string, .attributes.driver.string, .attributes.model.string] | @tsv' "$BATS_TEST_TMPDIR/s.json"
	assert_output "$(printf 'gpu-0000-1a-00-0\tgpu\t10de\t20b0\t030200\tnvidia\ta100_sxm4_40gb')"
	# no NUMA node: no numaNode attribute at all (the Gaudi); memory as a quantity (the MI210)
	mixed export resourceslice --driver d.example.com --node-name n1 | json_docs >"$BATS_TEST_TMPDIR/m.json"
	run -0 jq -c '.spec.devices[] | select(.attributes.type.string == "accel") | [.attributes | has("numaNode", "resource.kubernetes.io/numaNode", "numa")]' "$BATS_TEST_TMPDIR/m.json"
	assert_output '[false,false,false]'
	run -0 jq -r '.spec.devices[] | select(.attributes.vendor.string == "1002") | .capacity.memory.value' "$BATS_TEST_TMPDIR/m.json"
	assert_output 64Gi
}

@test "export resourceslice: more than 128 devices split into slices of one pool" {
	require_slice_schema
	local root=$BATS_TEST_TMPDIR/many i
	fx_cpus "$root"
	for ((i = 0; i < 300; i++)); do
		fx_dev "$root" pci0000:40 "$(printf '0000:%02x:%02x.%x' $((0x40 + i / 256)) $((i / 8 % 32)) $((i % 8)))" 0x020000 0x8086 0x159b numa=1 driver=ice
	done
	rm-devices --sysroot "$root" export resourceslice --driver nic.example.com --node-name big >"$BATS_TEST_TMPDIR/big.yaml"
	run -0 slice_valid <"$BATS_TEST_TMPDIR/big.yaml"
	run -0 jq -r '[.metadata.name, .spec.pool.name, .spec.pool.resourceSliceCount, (.spec.devices | length), .spec.devices[0].name] | @tsv' < <(json_docs <"$BATS_TEST_TMPDIR/big.yaml")
	assert_output "$(printf '%s\n' "big-nic.example.com-0	big	3	128	nic-0000-40-00-0" \
		"big-nic.example.com-1	big	3	128	nic-0000-40-10-0" \
		"big-nic.example.com-2	big	3	44	nic-0000-41-00-0")"
}

@test "export resourceslice: an owner's devices are left out, and named in a comment" {
	require_slice_schema
	run -0 gpu alloc --type gpu --count 2 --owner rs-train -o device -r
	local taken=("${lines[@]}")
	gpu export resourceslice --driver gpu.example.com --node-name node1 >"$BATS_TEST_TMPDIR/s.yaml"
	run -0 slice_valid <"$BATS_TEST_TMPDIR/s.yaml"
	run -0 grep '^# left out' "$BATS_TEST_TMPDIR/s.yaml"
	assert_output "$(printf '# left out: %s, allocated to owner rs-train\n' "${taken[@]}")"
	run -1 grep -F -e "\"${taken[0]}\"" -e "\"${taken[1]}\"" "$BATS_TEST_TMPDIR/s.yaml"
	run -0 jq '.spec.devices | length' < <(json_docs <"$BATS_TEST_TMPDIR/s.yaml")
	assert_output $(($(gpu list -r -o device | wc -l) - 2))
}

@test "export resourceslice: --driver and --node-name are checked, --output written atomically" {
	usage_error "resourceslice needs --driver NAME" gpu export resourceslice --node-name n1
	usage_error "invalid driver name: 'GPU.example.com'" gpu export resourceslice --driver GPU.example.com
	usage_error "invalid driver name: 'gpu..example.com'" gpu export resourceslice --driver gpu..example.com
	usage_error "invalid driver name: '$(printf 'a%.0s' {1..64})'" gpu export resourceslice --driver "$(printf 'a%.0s' {1..64})"
	usage_error "invalid node name: 'Node_1'" gpu export resourceslice --driver d.example.com --node-name Node_1
	usage_error "--driver is for resourceslice" gpu export cdi --driver d.example.com
	usage_error "--node-name is for resourceslice" gpu export nfd --node-name n1
	gpu export resourceslice --driver d.example.com --node-name n1 --output "$BATS_TEST_TMPDIR/out.yaml"
	run -0 diff "$BATS_TEST_TMPDIR/out.yaml" <(gpu export resourceslice --driver d.example.com --node-name n1)
	run -0 ls -A "$BATS_TEST_TMPDIR"
	refute_output --partial ".out.yaml"
	# the node defaults to the host name, lower case
	run -0 bash -c "rm-devices --sysroot '$GPU' export resourceslice --driver d.example.com | grep '^  nodeName: '"
	assert_output "  nodeName: $(hostname | tr '[:upper:]' '[:lower:]')"
}
