#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices export: the CDI spec against a JSON schema written from the spec, gres.conf Cores=
# against rm-topo's logical cores, NFD labels against NFD's rules; files written atomically.
load ../test_helper
load fixtures

setup_file() {
	fx_trees
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

SCHEMA="$RM_SRCDIR/tests/rm-devices/cdi.schema.json"
# Debian's python3, which sees python3-jsonschema (a python3 earlier in PATH may not)
PY=${RM_PYTHON:-/usr/bin/python3}

# Validate the JSON document on stdin against the CDI schema; the errors are the output.
cdi_valid() {
	"$PY" -c 'import jsonschema' 2>/dev/null ||
		skip "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
	"$PY" -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
errors = list(jsonschema.Draft7Validator(schema).iter_errors(json.load(sys.stdin)))
for e in errors:
    print("/".join(map(str, e.absolute_path)) + ": " + e.message)
sys.exit(1 if errors else 0)' "$SCHEMA"
}

@test "export cdi: a spec that passes the CDI schema, at the lowest version its fields need" {
	gpu export cdi >"$BATS_TEST_TMPDIR/gpu.json"
	run -0 cdi_valid <"$BATS_TEST_TMPDIR/gpu.json"
	run -0 jq -r '.cdiVersion, .kind, (.devices | length)' "$BATS_TEST_TMPDIR/gpu.json"
	assert_output "$(printf '%s\n' 0.3.0 rmtools.io/gpu 8)"
	# the schema does reject what 0.3.0 lacks: a digit-led name, annotations, an empty edit
	run -1 cdi_valid < <(jq '.devices[0].name = "0"' "$BATS_TEST_TMPDIR/gpu.json")
	assert_output --partial "devices/0/name"
	run -1 cdi_valid < <(jq '.annotations = {"a": "b"}' "$BATS_TEST_TMPDIR/gpu.json")
	run -1 cdi_valid < <(jq '.devices[1].containerEdits = {}' "$BATS_TEST_TMPDIR/gpu.json")
	run -1 cdi_valid < <(jq '.devices[1].extra = 1' "$BATS_TEST_TMPDIR/gpu.json")
	# the mixed machine's GPUs (an AMD one, one on vfio-pci) and its FPGA
	run -0 cdi_valid < <(mixed export cdi)
	run -0 cdi_valid < <(mixed export cdi --type fpga --vendor-domain example.com)
	run -0 cdi_valid < <(mixed export cdi --type vfio)
}

@test "export cdi: one device per GPU with its nodes, its PCI address and NUMA node" {
	local idx addr numa nodes
	gpu export cdi >"$BATS_TEST_TMPDIR/gpu.json"
	run -0 jq -c '.containerEdits' "$BATS_TEST_TMPDIR/gpu.json"
	assert_output '{"deviceNodes":[{"path":"/dev/nvidiactl"},{"path":"/dev/nvidia-uvm"},{"path":"/dev/nvidia-uvm-tools"}]}'
	idx=0
	while read -r addr numa nodes; do
		run -0 jq -c ".devices[$idx] | [.name, (.containerEdits.deviceNodes | map(.path) | join(\",\")), .containerEdits.env]" \
			"$BATS_TEST_TMPDIR/gpu.json"
		assert_output "[\"gpu$idx\",\"$nodes\",[\"RM_DEVICE_GPU${idx}_PCI=$addr\",\"RM_DEVICE_GPU${idx}_NUMA=$numa\"]]"
		idx=$((idx + 1))
	done < <(gpu list --type gpu -o device,numa,dev_nodes -r)
	[ "$idx" -eq 8 ]
	# the H100 on vfio-pci is no GPU of the host but a vfio device of its own kind: the AMD GPU,
	# alone in its spec, has its /dev/kfd in the spec's edits; /dev/vfio/vfio likewise
	run -0 bash -c "rm-devices --sysroot '$MIXED' export cdi | jq -c '[.kind, .containerEdits, .devices[].containerEdits.deviceNodes]'"
	assert_output '["rmtools.io/gpu",{"deviceNodes":[{"path":"/dev/kfd"}]},[{"path":"/dev/dri/card1"},{"path":"/dev/dri/renderD128"}]]'
	run -0 bash -c "rm-devices --sysroot '$MIXED' export cdi --type vfio | jq -c '[.kind, .containerEdits, .devices[].name, .devices[].containerEdits.deviceNodes]'"
	assert_output '["rmtools.io/vfio",{"deviceNodes":[{"path":"/dev/vfio/vfio"}]},"vfio0",[{"path":"/dev/vfio/77"}]]'
	run -0 bash -c "rm-devices --sysroot '$MIXED' export cdi --type accel | jq -c '.devices[0].containerEdits.env'"
	assert_output '["RM_DEVICE_ACCEL0_PCI=0000:d8:00.0","RM_DEVICE_ACCEL0_NUMA=-"]'
	run -3 bash -c "rm-devices --sysroot '$MIXED' export cdi --type ib --vendor-domain example.com 2>&1"
	assert_output "rm-devices: no ib devices to export"
}

# Validate standard input against the upstream CDI 1.1.0 schema (../shared/reference/schemas).
cdi_valid_upstream() {
	local dir="${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}/cdi"
	[ -d "$dir" ] || skip "../shared/reference/schemas is absent"
	"$RM_SRCDIR/tests/schema-check.py" "$dir/schema.json"
}

@test "export cdi: NICs move their interfaces with netDevices (CDI 1.1.0); every spec passes CDI 1.1.0's schema" {
	local t
	# 1.1.0 is above the default --cdi-version (Debian 12's podman): exit 2, nothing written
	run -2 mixed export cdi --type nic
	assert_output "rm-devices: the spec needs cdiVersion 1.1.0 (netDevices of network devices), above 0.5.0: give --cdi-version 1.1.0 if the runtime loads it"
	run -0 mixed export cdi --type nic --cdi-version 1.1.0
	cdi_valid_upstream <<<"$output"
	run -0 jq -r '.cdiVersion' <<<"$output"
	assert_output 1.1.0
	run -0 bash -c "rm-devices --sysroot '$MIXED' export cdi --type nic --cdi-version 1.1.0 | jq -c '.devices[] | select(.name == \"nic9\") | .containerEdits.netDevices'"
	assert_output '[{"hostInterfaceName":"enp94s0np0","name":"enp94s0np0"}]'
	for t in gpu accel fpga; do
		run -0 mixed export cdi --type "$t"
		cdi_valid_upstream <<<"$output"
	done
	run -0 gpu export cdi
	cdi_valid_upstream <<<"$output"
	# with an owner's device and its resctrl group (intelRdt)
	run -0 gpu alloc --type gpu --count 2 --owner train
	"$RM_BUILDDIR/tests/unit/test-state" raw cpuset <<<$'topology=0badcafe cpus=0-7\nowner=train cpus=0-3 mems=0 l3_ways=4 l3_exclusive=yes l3_masks=0:f00 mem_bandwidth=- mb=-'
	run -0 bash -c "rm-devices --sysroot '$GPU' export cdi --cdi-version 0.7.0 | jq -e '.devices[-1].containerEdits.intelRdt.closID == \"rmtools.train\"'"
	gpu export cdi --cdi-version 0.7.0 | cdi_valid_upstream
	# the check has teeth: a path that is no string fails
	run -1 cdi_valid_upstream < <(gpu export cdi --cdi-version 0.7.0 | jq '.devices[0].containerEdits.deviceNodes[0].path = 1')
}

@test "export cdi: an owner is a device of the spec with its devices and its resctrl group (CDI 0.7.0 intelRdt)" {
	local spec
	run -0 gpu alloc --type gpu --count 2 --owner train
	run -0 gpu alloc --type gpu --count 1 --owner infer
	# rm-cpuset gave train L3 ways: its owner record has a resctrl group
	"$RM_BUILDDIR/tests/unit/test-state" raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-7
	owner=train cpus=0-3 mems=0 l3_ways=4 l3_exclusive=yes l3_masks=0:f00 mem_bandwidth=- mb=-
	owner=infer cpus=4-5 mems=0
	EOF
	# intelRdt needs 0.7.0, above the default --cdi-version
	run -2 gpu export cdi
	assert_output --partial "needs cdiVersion 0.7.0 (intelRdt: an owner's resctrl group), above 0.5.0"
	spec=$(gpu export cdi --cdi-version 0.7.0)
	run -0 cdi_valid <<<"$spec"
	run -0 jq -r '.cdiVersion, (.devices | length), (.devices[8:] | map(.name) | join(","))' <<<"$spec"
	assert_output "$(printf '%s\n' 0.7.0 10 infer,train)"
	# train's device: both its GPUs' nodes and variables, and its group to join
	run -0 jq -c '.devices[] | select(.name == "train") | .containerEdits.intelRdt' <<<"$spec"
	assert_output '{"closID":"rmtools.train"}'
	run -0 gpu list-allocations -o device -r train
	assert_equal "${#lines[@]}" 2
	local want=""
	for a in "${lines[@]}"; do
		want+=$(jq -r --arg a "$a" '.devices[:8][] | select(.containerEdits.env[0] == "RM_DEVICE_\(.name | ascii_upcase)_PCI=\($a)") | .containerEdits.deviceNodes[].path, .containerEdits.env[]' <<<"$spec")$'\n'
	done
	run -0 jq -r '.devices[] | select(.name == "train") | .containerEdits.deviceNodes[].path, .containerEdits.env[]' <<<"$spec"
	assert_equal "$(sort <<<"$output")" "$(sort <<<"${want%$'\n'}")"
	# an owner holding CPUs: a createRuntime hook puts the container on them (rm-cpuset attach);
	# a device of no owner has no hook
	run -0 jq -c '.devices[] | select(.name == "train") | .containerEdits.hooks[] | .path |= sub(".*/"; "")' <<<"$spec"
	assert_output '{"hookName":"createRuntime","path":"rm-cpuset","args":["rm-cpuset","attach","--oci-state","train"],"timeout":10}'
	run -0 jq -r '.devices[] | select(.containerEdits.hooks) | .name' <<<"$spec"
	assert_output $'infer\ntrain'
	# infer has no group: no intelRdt
	run -0 jq -c '.devices[] | select(.name == "infer") | .containerEdits | has("intelRdt"), (.env | length)' <<<"$spec"
	assert_output "$(printf '%s\n' false 2)"
	# without any group the spec needs no 0.7.0; owners without CPUs get no hook
	"$RM_BUILDDIR/tests/unit/test-state" raw cpuset </dev/null
	run -0 bash -c "rm-devices --sysroot '$GPU' export cdi | jq -r '.cdiVersion, ([.devices[] | select(.containerEdits.hooks)] | length)'"
	assert_output $'0.3.0\n0'
	# an owner named like a device of the spec would clash: left out, with a warning
	run -0 gpu release infer
	run -0 gpu alloc --type gpu --count 1 --owner gpu7
	run -0 --separate-stderr gpu export cdi --cdi-version 0.7.0
	assert_equal "$stderr" "rm-devices: owner 'gpu7' is named like a device of the spec; not in the spec"
	run -0 jq -r '.devices[8:] | map(.name) | join(",")' <<<"$output"
	assert_output train
	# a corrupt rm-cpuset state fails the export: the spec would lack train's group
	echo junk >>"$RM_STATE_DIR/cpuset.state"
	run -1 gpu export cdi
	assert_output --partial "corrupt state file '$RM_STATE_DIR/cpuset.state'"
}

@test "export cdi: the cdiVersion is the lowest the features need; the default limit loads in Debian 12's and 13's podman (unit)" {
	run -0 "$RM_BUILDDIR/tests/unit/test-cdi"
	assert_output ''
	run -2 gpu export cdi --cdi-version 0.9.0
	assert_output --partial "unknown CDI version: '0.9.0'"
	run -2 gpu export gres --cdi-version 0.5.0
	assert_output --partial "--cdi-version is for cdi"
}

@test "export cdi: --vendor-domain names the kind; --output writes the file atomically" {
	local out=$BATS_TEST_TMPDIR/cdi/rmtools-gpu.json
	mkdir "$BATS_TEST_TMPDIR/cdi"
	run -0 gpu export cdi --vendor-domain gpu.example.com --output "$out"
	assert_output ''
	run -0 jq -r .kind "$out"
	assert_output gpu.example.com/gpu
	run -0 stat -c %a "$out"
	assert_output 644
	# replaced whole: a reader holding the old file keeps it; no temporary file is left
	exec 8<"$out"
	# a spec above --cdi-version: exit 2, the file as it was
	run -2 gpu export cdi --output "$out" --type ib
	run -0 jq -r .kind "$out"
	assert_output gpu.example.com/gpu
	run -0 gpu export cdi --output "$out" --type ib --cdi-version 1.1.0
	run -0 jq -r .kind /dev/fd/8
	assert_output gpu.example.com/gpu
	exec 8<&-
	run -0 jq -r .kind "$out"
	assert_output rmtools.io/ib
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/cdi")" rmtools-gpu.json
	# nothing to export: exit 3, the file kept
	run -3 gpu export cdi --type fpga --output "$out"
	run -0 jq -r .kind "$out"
	assert_output rmtools.io/ib
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/cdi")" rmtools-gpu.json
}

@test "export gres: one line per GPU in address order, Cores= as rm-topo's logical cores" {
	local line addr cpus file cores want n=0
	run -0 gpu export gres
	assert_line --index 2 AutoDetect=off
	assert_line --index 3 'Name=gpu Type=a100_sxm4_40gb File=/dev/nvidia0 Cores=0-1'
	# the driver's minors, in PCI order: nvidia3 before nvidia2
	assert_line --index 5 'Name=gpu Type=a100_sxm4_40gb File=/dev/nvidia3 Cores=0-1'
	assert_line --index 10 'Name=gpu Type=a100_sxm4_40gb File=/dev/nvidia7 Cores=2-3'
	# each GPU's Cores= are the cores (rm-topo cores: core=N ... cpus=LIST) with a CPU in its
	# local CPUs: not the Linux CPU numbers 0-1,4-5
	while read -r addr cpus file; do
		want=$(rm-topo --sysroot "$GPU" cores -o core,cpus -r | while read -r core list; do
			comm -12 <(seq_list "$list") <(seq_list "$cpus") | grep -q . && echo "$core"
		done | paste -sd, | sed 's/^0,1$/0-1/; s/^2,3$/2-3/')
		line=$(gpu export gres | grep " File=$file ")
		cores=${line##*Cores=}
		assert_equal "$cores" "$want"
		n=$((n + 1))
	done < <(gpu list --type gpu -o device,cpus,dev_nodes -r)
	[ "$n" -eq 8 ]
	run -0 gpu export gres --type ib
	assert_line --index 3 'Name=ib Type=connectx-6 File=/dev/infiniband/uverbs0 Cores=0-1'
	# a device without a NUMA node gets no Cores=
	run -0 mixed export gres --type accel
	assert_line --index 3 'Name=accel Type=gaudi2_ai_training_accelerator File=/dev/accel/accel0'
}

# A kernel list (0-1,4-5) as one number a line, sorted as text for comm.
seq_list() {
	local part IFS=,
	for part in $1; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done | sort
}

@test "export nfd: counts per type and NUMA node, labels and values as NFD takes them" {
	local line name short value n=0
	run -0 gpu export nfd
	assert_golden rm-devices export-nfd-gpu-server
	# NFD's rules: a DNS-subdomain prefix, "/", a name of at most 63 characters, alphanumeric
	# at both ends, [-_.] inside; the value empty or the same characters, at most 63
	for tree in "$GPU" "$MIXED"; do
		while IFS= read -r line; do
			[[ $line == "#"* ]] && continue
			name=${line%%=*} value=${line#*=}
			[[ $name =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$ ]] ||
				fail "bad label name: $name"
			short=${name##*/}
			[ "${#short}" -le 63 ] || fail "label name too long: $name"
			[[ -z $value || ( ${#value} -le 63 && $value =~ ^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$ ) ]] ||
				fail "bad label value: $line"
			[[ ${name%%/*} != *kubernetes.io || ${name%%/*} == feature.node.kubernetes.io ]] ||
				fail "denied namespace: $name"
			n=$((n + 1))
		done < <(rm-devices --sysroot "$tree" export nfd)
	done
	[ "$n" -ge 20 ]
	# the mixed machine: a device without NUMA node; --type
	run -0 mixed export nfd --type accel,fpga
	assert_golden rm-devices export-nfd-mixed-accel-fpga
	run -0 mixed export nfd --type nic
	assert_line feature.node.kubernetes.io/rmtools-nic.count=10
}

@test "export gres: an owner's GPUs are left out, and named in a comment" {
	local n
	n=$(gpu export gres | grep -c '^Name=gpu ')
	run -0 gpu alloc --type gpu --count 2 --owner gres-train -o device -r
	local taken=("${lines[@]}")
	run -0 gpu export gres
	assert_equal "$(grep -c '^Name=gpu ' <<<"$output")" $((n - 2))
	assert_equal "$(grep '^# left out' <<<"$output")" \
		"$(printf '# left out: %s, allocated to owner gres-train\n' "${taken[@]}")"
	for a in "${taken[@]}"; do
		file=$(gpu list --type gpu -o device,dev_nodes -r | awk -v a="$a" '$1 == a { split($2, f, ","); print f[1] }')
		refute_line --partial "File=$file "
	done
}

@test "export nfd and gres: --output replaces the file atomically" {
	local dir=$BATS_TEST_TMPDIR/features.d
	mkdir "$dir"
	echo old >"$dir/rmtools-devices"
	run -0 gpu export nfd -o "$dir/rmtools-devices"
	assert_output ''
	assert_equal "$(sed -n 2p "$dir/rmtools-devices")" feature.node.kubernetes.io/rmtools-gpu.count=8
	run -0 gpu export gres --output "$dir/gres.conf"
	assert_equal "$(grep -c '^Name=gpu ' "$dir/gres.conf")" 8
	assert_equal "$(ls -A "$dir" | xargs)" "gres.conf rmtools-devices"
	run -1 --separate-stderr gpu export nfd -o "$BATS_TEST_TMPDIR/missing/dir/file"
	[[ $stderr == "rm-devices: cannot create a file next to '$BATS_TEST_TMPDIR/missing/dir/file'"* ]]
}

@test "export: bad input exits 2" {
	usage_error "unknown export format: 'yaml'" gpu export yaml
	usage_error "missing FORMAT (cdi, gres, nfd, resourceslice, scontrol)" gpu export
	usage_error "invalid vendor domain: 'Example.com'" gpu export cdi --vendor-domain Example.com
	usage_error "invalid vendor domain: 'a/b'" gpu export cdi --vendor-domain a/b
	usage_error "--vendor-domain is for cdi" gpu export gres --vendor-domain example.com
	usage_error "cdi takes one --type" gpu export cdi --type gpu,ib
	usage_error "unknown device type: 'tpu'" gpu export nfd --type tpu
	usage_error "a CDI spec file must end in .json" gpu export cdi -o "$BATS_TEST_TMPDIR/spec.yaml"
	usage_error "output options do not apply to 'export'" gpu -J export nfd
	usage_error "unexpected argument: 'gres'" gpu export nfd gres
	[ ! -e "$BATS_TEST_TMPDIR/spec.yaml" ]
}
