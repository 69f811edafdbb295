#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-class export: DRA DeviceClasses that parse as YAML and whose CEL selects, on the fixture
# devices, what rm-class match selects (evaluated by tests/rm-class/cel.py); SR-IOV device plugin
# configuration that parses as JSON; clear refusals of what a format cannot state.
load ../test_helper
load helper

PY=/usr/bin/python3

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	mkdir -p "$FX"
	make_fixture_records
	# the devices: both fixture machines and the records written by hand
	cat "$FX/all.records" "$HAND" >"$FX/devices.records"
}

# Skip, visibly, without python3 and its yaml module (Debian: python3-yaml).
require_yaml() {
	[ -x "$PY" ] || skip "$PY is not installed"
	"$PY" -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
}

# The classes of the table: each with the devices it must select, checked on both sides.
table_classes() {
	classes t.conf <<-'EOF'
	[class t-gpu]
	selector = type == "gpu"
	[class t-not-gpu]
	selector = type != "gpu" and type != "nic"
	[class t-lt]
	selector = type < "gpu" and type != "accel"
	[class t-in]
	selector = type in ["fpga", "accel", "nvme"]
	[class t-glob]
	selector = driver ~ "mlx5*" or device ~ "0000:3b:01.[0-3]" or device ~ "*8?:00.0"
	[class t-glob-utf8]
	description = patterns with UTF-8, quotes and brackets
	selector = vendor_name ~ "K?nstliche*" or product_name ~ "*\"170\"*" or product_name ~ "λ*"
	    or product_name ~ "*[[]Instinct MI300?]"
	[class t-vendor]
	selector = vendor == 0x10de
	[class t-vendor-str]
	selector = vendor in ["15b3", "1002"]
	[class t-class-range]
	selector = class >= 0x030000 and class < 0x040000
	[class t-numa]
	selector = numa == 1 and iommu_group >= 0x46
	[class t-numa-ne]
	selector = numa != 0
	[class t-not-numa]
	selector = not numa == 0
	[class t-mem]
	selector = memory >= 16GiB
	[class t-mem-eq]
	selector = memory == 16GiB or memory in [15GiB, 24GiB]
	[class t-mem-bytes]
	selector = memory > 17179869184
	[class t-bar]
	selector = bar < 32GiB and not has(rdma) and type != "nic"
	[class t-has]
	selector = has(pf) or not has(numa)
	[class t-prec]
	selector = type == "accel" or type == "fpga" and numa == 1
	[class t-paren]
	selector = (type == "accel" or type == "fpga") and numa == 1
	[class t-deep]
	selector = not (not (type == "ib" and (numa == 0 or link_layer == "infiniband")))
	[class t-vfs]
	selector = total_vfs > 0x3f or vfs >= 8
	[class t-width]
	selector = link_width < 16 and link_width > -1
	[class t-quote]
	description = a "quoted" description: with a colon, # and UTF-8 (λ)
	selector = product_name == "Flex \"170\" (ATS-M)" or product_name == "\xce\xbb-Beschleuniger"
	[class t-ports]
	selector = ib_state ~ "*active*" and link_layer ~ "ethernet*"
	[class t-none]
	selector = memory > 1EiB
	EOF
}

# The classes of the table, in order. The devices each selects, "CLASS: DEVICES" with DEVICES as
# ids prints them, are tests/expected/rm-class/dra-table.
table_names() {
	sed -n 's/^\[class \(.*\)\]$/\1/p' "$RM_CONFIG_DIR/classes.d/t.conf"
}

# The DeviceClasses of CLASS... evaluated by cel.py, "CLASS: DEVICES" per class.
cel_sets() {
	local domain=$1
	shift
	"$SELECTOR_UNIT" fields >"$BATS_TEST_TMPDIR/fields"
	rm-class export dra "$@" >"$BATS_TEST_TMPDIR/classes.yaml"
	"$PY" "$RM_SRCDIR/tests/rm-class/cel.py" "$BATS_TEST_TMPDIR/classes.yaml" \
		"$FX/devices.records" "$BATS_TEST_TMPDIR/fields" "$domain" | sed 's/0000://g'
}

@test "export dra: the table's classes select the same devices in rm-class and in CEL" {
	require_yaml
	[ -x "$SELECTOR_UNIT" ] || skip "tests/unit/test-selector is not built (make check builds it)"
	table_classes
	local cls got='' want
	# rm-class's side
	for cls in $(table_names); do
		got+="$cls: $(rm-class match "$cls" <"$FX/devices.records" | ids)"$'\n'
	done
	assert_golden rm-class dra-table "${got%$'\n'}"
	# the CEL side, on a ResourceSlice made of the same records
	run -0 cel_sets rmtools.io $(table_names)
	assert_golden rm-class dra-table
	[ "$(table_names | wc -l)" -eq 25 ]
}

@test "export dra: YAML of resource.k8s.io/v1 DeviceClasses, one document per class" {
	require_yaml
	table_classes
	rm-class export dra t-gpu t-quote t-mem gpu >"$BATS_TEST_TMPDIR/out.yaml"
	run -0 "$PY" - "$BATS_TEST_TMPDIR/out.yaml" <<-'EOF'
	import sys, yaml
	docs = list(yaml.safe_load_all(open(sys.argv[1])))
	for d in docs:
	    assert d["apiVersion"] == "resource.k8s.io/v1" and d["kind"] == "DeviceClass"
	    assert list(d["spec"]) == ["selectors"] and len(d["spec"]["selectors"]) == 1
	    print(d["metadata"]["name"], d["metadata"]["annotations"].get("rmtools.io/description"),
	          d["metadata"]["annotations"]["rmtools.io/selector"], sep=" | ")
	print(docs[2]["spec"]["selectors"][0]["cel"]["expression"])
	EOF
	assert_output "$(cat <<-'EOF'
	t-gpu | None | type == "gpu"
	t-quote | a "quoted" description: with a colon, # and UTF-8 (λ) | product_name == "Flex \"170\" (ATS-M)" or product_name == "λ-Beschleuniger"
	t-mem | None | memory >= 16GiB
	gpu | GPUs of any vendor | type == "gpu"
	has(device.capacity["rmtools.io"].memory) && device.capacity["rmtools.io"].memory.compareTo(quantity("16Gi")) >= 0
	EOF
	)"
	# the CEL is ASCII: UTF-8 as \u escapes
	run -0 rm-class export dra t-quote
	assert_output --partial 'device.attributes["rmtools.io"].product_name == "\u03bb-Beschleuniger"'
	assert_line --index 0 "# rm-class export dra: class t-quote ($RM_CONFIG_DIR/classes.d/t.conf:47)"
}

@test "export dra: --domain names the attribute domain, --driver adds the driver" {
	require_yaml
	table_classes
	run -0 cel_sets gpu.example.com t-gpu t-mem --domain gpu.example.com
	assert_line --index 0 "$(grep '^t-gpu:' "$RM_SRCDIR/tests/expected/rm-class/dra-table")"
	# another domain's attributes: an empty map, nothing has the fields
	run -0 cel_sets rmtools.io t-gpu --domain gpu.example.com
	assert_output 't-gpu: '
	# the evaluator's devices come from the driver rmtools.test; the attributes are in the
	# driver's domain unless --domain says otherwise
	run -0 cel_sets rmtools.test t-vfs --driver rmtools.test
	assert_output 't-vfs: 3b:00.0'
	run -0 cel_sets rmtools.io t-vfs --driver rmtools.test --domain rmtools.io
	assert_output 't-vfs: 3b:00.0'
	run -0 cel_sets gpu.example.com t-vfs --driver gpu.example.com
	assert_output 't-vfs: '
	run -0 rm-class export dra gpu --driver gpu.example.com
	assert_line '        device.driver == "gpu.example.com" && (has(device.attributes["gpu.example.com"].type) && device.attributes["gpu.example.com"].type == "gpu")'
}

@test "export dra: classes select on rm-devices' ResourceSlices exactly the devices rm-class matches" {
	require_yaml
	table_classes
	local cls fx got='' want=''
	# classes on the standard attributes (device, numa) and the driver's own, sizes as capacities
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	classes k8s.conf <<-'EOF'
	[class k-node0]
	selector = numa == 0 and type in ["gpu", "ib"]
	[class k-addr]
	selector = device ~ "0000:3b:*" or device == "0000:c1:00.0"
	[class k-nvidia]
	selector = vendor == 0x10de and driver == "nvidia"
	[class k-big]
	selector = memory >= 32GiB
	[class k-vf]
	selector = sriov == "vf" and pf == "0000:3b:00.0"
	[class k-nonuma]
	selector = not has(numa)
	EOF
	for fx in gpu mixed; do
		rm-devices --sysroot "$FX/$fx" export resourceslice --driver gpu.example.com \
			--node-name n1 >>"$BATS_TEST_TMPDIR/slices.yaml"
		echo --- >>"$BATS_TEST_TMPDIR/slices.yaml"
	done
	# the same input for rm-class: the records of every device the slices hold
	rm-class export dra k-node0 k-addr k-nvidia k-big k-vf k-nonuma t-gpu t-mem \
		--driver gpu.example.com >"$BATS_TEST_TMPDIR/classes.yaml"
	for cls in k-node0 k-addr k-nvidia k-big k-vf k-nonuma t-gpu t-mem; do
		want+="$cls: $(rm-class match "$cls" <"$FX/all.records" |
			sed -n 's/^device=\([^ ]*\).*/\1/p' | sort | paste -sd' ')"$'\n'
	done
	run -0 "$PY" "$RM_SRCDIR/tests/rm-class/cel.py" "$BATS_TEST_TMPDIR/classes.yaml" --slices \
		"$BATS_TEST_TMPDIR/slices.yaml"
	assert_output "${want%$'\n'}"
	# every class selects something, and the CEL reads the standard names
	refute_output --regexp ': $'
	run -0 grep -c 'resource.kubernetes.io"\]\.\(numaNode\|pciBusID\)' "$BATS_TEST_TMPDIR/classes.yaml"
	# the slices' attributes are what the CEL reads: a class on a field they leave out fails
	printf '[class k-cpus]\nselector = has(cpus)\n' | classes k8s2.conf
	rm-class export dra k-cpus --driver gpu.example.com >"$BATS_TEST_TMPDIR/bad.yaml"
	run -1 "$PY" "$RM_SRCDIR/tests/rm-class/cel.py" "$BATS_TEST_TMPDIR/bad.yaml" --slices \
		"$BATS_TEST_TMPDIR/slices.yaml"
	assert_output --partial "reads gpu.example.com/cpus, which no device publishes"
	# and the classes pass the DeviceClass schema
	local schema="${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}/k8s/resource.k8s.io_v1_DeviceClass.json"
	[ -f "$schema" ] || skip "../shared/reference/schemas is absent"
	run -0 "$PY" "$RM_SRCDIR/tests/schema-check.py" "$schema" <"$BATS_TEST_TMPDIR/classes.yaml"
}

@test "export dra: what CEL cannot state is refused, and nothing is printed" {
	classes v.conf <<-'EOF'
	[class ver]
	selector = type == "gpu" and link_speed >= 16.0
	[class unknown]
	selector = firmware == "1.0"
	[class GPU_big]
	selector = type == "gpu"
	[class bytes]
	selector = product_name == "\xff"
	[class glob-bytes]
	selector = product_name ~ "*\xff"
	EOF
	usage_error "cannot export class 'ver' to dra: 'link_speed >= 16.0' has no CEL form: versions compare only with version attributes" \
		rm-class export dra gpu ver
	usage_error "cannot export class 'unknown' to dra: 'firmware == \"1.0\"' has no CEL form: 'firmware' is not a field of device records" \
		rm-class export dra unknown
	usage_error "cannot export class 'GPU_big' to dra: not a Kubernetes object name (lower-case letters, digits, '-' and '.')" \
		rm-class export dra GPU_big
	usage_error "cannot export class 'bytes' to dra: 'product_name == \"\\xff\"' has no CEL form: a string that is not UTF-8" \
		rm-class export dra bytes
	usage_error "cannot export class 'glob-bytes' to dra: 'product_name ~ \"*\\xff\"' has no CEL form: a pattern that is not UTF-8" \
		rm-class export dra glob-bytes
	# longer than the API's 10 KiB
	{
		printf '[class long]\nselector = type == "gpu"'
		for i in $(seq 1 100); do printf ' and\n  product_name != "model-%03d"' "$i"; done
		printf '\n'
	} | classes long.conf
	usage_error "cannot export class 'long' to dra: its CEL expression is longer than 10240 bytes" \
		rm-class export dra long
}

@test "export sriovdp: JSON resources, one per class, selectors from and-terms of an or" {
	[ -x "$PY" ] || skip "$PY is not installed"
	classes s.conf <<-'EOF'
	[class cx6-vf]
	selector = vendor == 0x15b3 and product in [0x101c, 0x101e] and driver == "mlx5_core"
	    and pf in ["0000:3b:00.0", "0000:3b:00.1"] and link_layer == "infiniband"
	    or device == "0000:5e:00.2" and has(rdma)
	[class e810.vf]
	selector = vendor == "8086" and product == 0x1889 and type == "nic"
	EOF
	rm-class export sriovdp cx6-vf e810.vf ib rdma-nic --domain rm.example.com \
		>"$BATS_TEST_TMPDIR/pcidp.json"
	# (key order as printed: vendors, devices, drivers, pciAddresses, rootDevices, linkTypes, isRdma)
	run -0 "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in d["resourceList"]:
    print(r["resourceName"], r["resourcePrefix"], r["deviceType"], json.dumps(r["selectors"]))' \
		"$BATS_TEST_TMPDIR/pcidp.json"
	assert_output "$(cat <<-'EOF'
	cx6_vf rm.example.com netDevice [{"vendors": ["15b3"], "devices": ["101c", "101e"], "drivers": ["mlx5_core"], "rootDevices": ["0000:3b:00.0", "0000:3b:00.1"], "linkTypes": ["infiniband"]}, {"pciAddresses": ["0000:5e:00.2"], "isRdma": true}]
	e810_vf rm.example.com netDevice [{"vendors": ["8086"], "devices": ["1889"], "linkTypes": ["ether"]}]
	ib rm.example.com netDevice [{"linkTypes": ["infiniband"]}]
	rdma_nic rm.example.com netDevice [{"linkTypes": ["ether", "infiniband"], "isRdma": true}]
	EOF
	)"
}

@test "export sriovdp: what the plugin cannot select is refused, naming the clause" {
	classes s.conf <<-'EOF'
	[class ne]
	selector = vendor != 0x15b3
	[class glob]
	selector = driver ~ "mlx5*"
	[class not]
	selector = not has(pf)
	[class nested]
	selector = vendor == 0x15b3 and (driver == "a" or driver == "b")
	[class numa]
	selector = type == "nic" and numa == 0
	[class twice]
	selector = type == "ib" and link_layer == "infiniband"
	[class layer]
	selector = link_layer == "roce"
	[class has]
	selector = has(driver)
	EOF
	usage_error "cannot export class 'gpu' to sriovdp: 'type == \"gpu\"' has no SR-IOV device plugin selector: it selects network devices (type nic or ib)" \
		rm-class export sriovdp ib gpu
	usage_error "cannot export class 'ne' to sriovdp: 'vendor != 0x15b3' has no SR-IOV device plugin selector: it selects by equality and 'in' lists" \
		rm-class export sriovdp ne
	usage_error "cannot export class 'glob' to sriovdp: 'driver ~ \"mlx5*\"' has no SR-IOV device plugin selector: it has no patterns" \
		rm-class export sriovdp glob
	usage_error "cannot export class 'not' to sriovdp: 'not has(pf)' has no SR-IOV device plugin selector: it takes an 'or' of 'and's of equalities" \
		rm-class export sriovdp not
	usage_error "cannot export class 'nested' to sriovdp: 'driver == \"a\" or driver == \"b\"' has no SR-IOV device plugin selector: it takes an 'or' of 'and's of equalities" \
		rm-class export sriovdp nested
	usage_error "cannot export class 'numa' to sriovdp: 'numa == 0' has no SR-IOV device plugin selector: it selects on vendor, product, driver, device, pf, type, link_layer and has(rdma)" \
		rm-class export sriovdp numa
	usage_error "cannot export class 'twice' to sriovdp: 'link_layer == \"infiniband\"' has no SR-IOV device plugin selector: 'type == \"ib\"' selects on linkTypes already" \
		rm-class export sriovdp twice
	usage_error "cannot export class 'layer' to sriovdp: 'link_layer == \"roce\"' has no SR-IOV device plugin selector: its link types are ethernet and infiniband" \
		rm-class export sriovdp layer
	usage_error "cannot export class 'has' to sriovdp: 'has(driver)' has no SR-IOV device plugin selector: it selects on vendor, product, driver, device, pf, type, link_layer and has(rdma)" \
		rm-class export sriovdp has
	usage_error "cannot export class 'sriov-vf' to sriovdp: 'sriov == \"vf\"' has no SR-IOV device plugin selector: it selects on vendor, product, driver, device, pf, type, link_layer and has(rdma)" \
		rm-class export sriovdp sriov-vf
}
