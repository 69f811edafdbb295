#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The selector language: a table of selectors with the devices they match on the rm-devices
# fixtures and on records written by hand (operators, types, missing fields, precedence, quotes,
# UTF-8), canonical forms, and the unit checks of libcommon/selector-*.c.
load ../test_helper
load helper

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	mkdir -p "$FX"
	make_fixture_records
}

# Check each "SELECTOR => DEVICES" line of stdin (DEVICES: bus:dev.fn, as ids prints them; "-"
# for none) against the records of FILE, with rm-class match --selector. Lines starting with '#'
# are comments. Fails with every case that differs; at least MIN cases must be given.
check_table() {
	local file=$1 min=$2 line sel want got failed='' n=0
	while IFS= read -r line; do
		[[ -z $line || $line == \#* ]] && continue
		sel=${line% => *}
		want=${line##* => }
		[ "$want" = - ] && want=''
		got=$(rm-class match --selector "$sel" <"$file" | ids) ||
			failed+=$'\n'"$sel: exit status $?"
		[ "$got" = "$want" ] || failed+=$'\n'"$sel: expected '$want', matched '$got'"
		n=$((n + 1))
	done
	[ "$n" -ge "$min" ] || fail "only $n cases"
	assert_equal "$failed" ""
}

@test "selectors: each operator and type on the rm-devices fixtures" {
	check_table "$FX/all.records" 40 <<'EOF'
# strings: ==, !=, <, in; globs
type == "gpu" => 1a:00.0 1b:00.0 3d:00.0 3e:00.0 9a:00.0 9b:00.0 ba:00.0 bb:00.0 c1:00.0
type == "GPU" => -
type != "gpu" and type != "nic" => 01:00.0 1c:00.0 3f:00.0 9c:00.0 bc:00.0 af:00.0 d8:00.0 e3:00.0
type < "gpu" and type != "accel" => af:00.0
type in ["fpga", "accel", "nvme"] => 01:00.0 af:00.0 d8:00.0
driver ~ "mlx5*" => 1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0
driver ~ "*-pci" => e3:00.0
device ~ "0000:3b:01.[0-3]" => 3b:01.0 3b:01.1 3b:01.2 3b:01.3
device ~ "0000:3b:0?.[!1-7]" => 3b:00.0 3b:01.0
netdevs ~ "ib?" => 1c:00.0 3f:00.0 9c:00.0 bc:00.0
# hex ids: 0x literals against the fields' hex digits, strings against their text
vendor == 0x10de => 1a:00.0 1b:00.0 3d:00.0 3e:00.0 9a:00.0 9b:00.0 ba:00.0 bb:00.0 e3:00.0
vendor == 0x10DE and product != 0x20b0 => e3:00.0
vendor == "15b3" => 1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0
vendor in [0x10ee, 0x1da3] => af:00.0 d8:00.0
vendor > 0x1a00 and vendor < 0x8000 => d8:00.0
class >= 0x030000 and class < 0x040000 => 1a:00.0 1b:00.0 3d:00.0 3e:00.0 9a:00.0 9b:00.0 ba:00.0 bb:00.0 c1:00.0 e3:00.0
class == 0x020700 => 1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0
subvendor == 0x1002 => c1:00.0
# integers
numa == 1 => 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 af:00.0 c1:00.0 e3:00.0
numa in [0, 1] and type == "ib" => 1c:00.0 3f:00.0 9c:00.0 bc:00.0
iommu_group >= 70 => c1:00.0 d8:00.0 e3:00.0
iommu_group > 70 and iommu_group <= 77 => d8:00.0 e3:00.0
# a hex id against an integer field: the field stays decimal (60 is not 0x60)
iommu_group >= 0x46 => c1:00.0 d8:00.0 e3:00.0
numa == 0x1 and iommu_group < 0x3d => 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 af:00.0
vfs >= 8 => 3b:00.0
total_vfs > 0x3f => 3b:00.0
link_width < 16 => 01:00.0
# sizes: both sides in bytes, whatever the unit
memory >= 16GiB => c1:00.0
memory == 65536MiB => c1:00.0
memory > 64GiB => -
memory >= 68719476736 => c1:00.0
bar >= 32G => 1a:00.0 1b:00.0 3d:00.0 3e:00.0 9a:00.0 9b:00.0 ba:00.0 bb:00.0 c1:00.0
bar in [32GiB, 16MiB] and numa == 1 => 9c:00.0 bc:00.0 af:00.0 c1:00.0 e3:00.0
# versions: the leading numbers of a string, component-wise
link_speed >= 16.0 => 01:00.0 1a:00.0 1b:00.0 1c:00.0 3d:00.0 3e:00.0 3f:00.0 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 3b:00.0
link_speed > 16.0 => -
link_speed == 16.0.0 => 01:00.0 1a:00.0 1b:00.0 1c:00.0 3d:00.0 3e:00.0 3f:00.0 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 3b:00.0
# missing and unknown fields: comparisons are false, "not" is true, has() tells
numa != 0 => 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 af:00.0 c1:00.0 e3:00.0
not numa == 0 => 9a:00.0 9b:00.0 9c:00.0 ba:00.0 bb:00.0 bc:00.0 af:00.0 c1:00.0 d8:00.0 e3:00.0
not has(numa) => d8:00.0
has(rdma) => 1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0
has(pf) and pf == "0000:3b:00.0" and sriov == "vf" => 3b:01.0 3b:01.1 3b:01.2 3b:01.3 3b:01.4 3b:01.5 3b:01.6 3b:01.7
has(no_such_field) => -
no_such_field != "x" => -
not no_such_field == "x" and type == "fpga" => af:00.0
# precedence: not, then and, then or; parentheses
type == "accel" or type == "fpga" and numa == 1 => af:00.0 d8:00.0
(type == "accel" or type == "fpga") and numa == 1 => af:00.0
not type == "gpu" and numa == 1 => 9c:00.0 bc:00.0 af:00.0 e3:00.0
not (type == "gpu" and numa == 1) and vendor == 0x10de => 1a:00.0 1b:00.0 3d:00.0 3e:00.0 e3:00.0
type == "ib" and ib_state == "active" and link_layer == "infiniband" or type == "nic" and has(rdma) => 1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0
EOF
}

@test "selectors: coercion, quotes and UTF-8 on records written by hand" {
	check_table "$HAND" 25 <<'EOF'
# sizes in other units and in bytes; an unknown size
memory >= 16GiB => 81:00.0 82:00.0 83:00.0
memory >= 16GiB and memory < 100GiB => 81:00.0 83:00.0
memory >= 17179869184 => 81:00.0 82:00.0 83:00.0
memory == 16GiB => 83:00.0
memory in [15GiB, 24GiB] => 81:00.0 86:00.0
not has(memory) => 84:00.0 85:00.0
# an unknown NUMA node
numa != 0 => 83:00.0 84:00.0
not numa == 0 => 81:00.0 83:00.0 84:00.0
# versions compare by numbers, not as text: 1.10 > 1.9; 95.02.18 >= 95.2
firmware > 1.9 => 81:00.0 82:00.0
firmware >= 95.2 => 81:00.0
firmware < 2.0 => 82:00.0
# an integer reads integers and sizes, not versions
firmware < 2 => -
firmware > "1.9" => 81:00.0
link_speed >= 16.0 and link_speed < 32.0 => 81:00.0
# hex ids
vendor == 0x10de => 81:00.0 86:00.0
vendor == 0x10de or vendor == 0x1002 => 81:00.0 82:00.0 86:00.0
vendor > 0x1e00 => 83:00.0 84:00.0
class < 0x030001 => 81:00.0 85:00.0
# quotes, escapes and UTF-8
product_name == "Flex \"170\" (ATS-M)" => 83:00.0
product_name ~ "*\"170\"*" => 83:00.0
product_name ~ "*[[]*" => 81:00.0 82:00.0 86:00.0
vendor_name == "Künstliche Intelligenz GmbH" => 84:00.0
vendor_name == "K\xc3\xbcnstliche Intelligenz GmbH" => 84:00.0
vendor_name ~ "K?nstliche*" => 84:00.0
product_name ~ "?-Beschleuniger" => 84:00.0
product_name ~ "λ*" => 84:00.0
vendor_name ~ "*Inc. \\[AMD*" => 82:00.0
# multi-port fields: == is the whole value, globs look inside
ib_state == "active" => -
ib_state ~ "*active*" => 85:00.0
link_layer ~ "ethernet*" and has(rdma) => 85:00.0
EOF
}

@test "selectors: records are printed unchanged, other kinds left out" {
	run -0 --separate-stderr rm-class match --selector 'type == "gpu" or has(cpus)' <"$HAND"
	# the node record's cpus is not a device's: no device record has the field
	assert_equal "$stderr" "rm-class: warning: no device record on standard input has the field 'cpus' (rm-devices list -o +cpus)"
	# the lines as written, not rewritten by the record writer: "memory=16G" stays
	assert_equal "$output" "$(grep -E '^device=0000:8[1236]' "$HAND")"
	assert_line --partial 'memory=16G class='
	refute_line --partial 'node=0'
}

@test "selectors: the canonical form of show and list parses to itself and matches the same" {
	local sel canon again got1 got2 n=0
	while IFS= read -r sel; do
		canon=$("$SELECTOR_UNIT" parse "$sel")
		again=$("$SELECTOR_UNIT" parse "$canon")
		assert_equal "$again" "$canon"
		got1=$(rm-class match --selector "$sel" <"$FX/all.records")
		got2=$(rm-class match --selector "$canon" <"$FX/all.records")
		assert_equal "$got2" "$got1"
		n=$((n + 1))
	done <<'EOF'
type=="gpu"and(numa==0 or numa==1)
not not not has(rdma)
(((type == "ib")))
vendor == 0X10DE and memory >= 1024M
driver ~ "mlx5\\*" or device ~ "0000:3b:01.[!0-3]"
a == 1 and (b == 2 and (c == 3 or d == 4)) or not (e == 5 or f == 6)
link_speed >= 016.00
EOF
	[ "$n" -eq 7 ]
	run -0 "$SELECTOR_UNIT" parse 'type=="gpu"and(numa==0 or numa==1)'
	assert_output 'type == "gpu" and (numa == 0 or numa == 1)'
	run -0 "$SELECTOR_UNIT" parse $'vendor == 0X10DE\n  and memory >= 1024M'
	assert_output 'vendor == 0x10de and memory >= 1GiB'
	run -0 "$SELECTOR_UNIT" parse 'not not not has(rdma)'
	assert_output 'not not not has(rdma)'
	run -0 "$SELECTOR_UNIT" parse 'x == "tab\there \"q\" \xff caf'$'\xc3\xa9''"'
	assert_output 'x == "tab\there \"q\" \xff caf'$'\xc3\xa9''"'
}

@test "selectors: the unit checks of libcommon/selector-*.c pass" {
	[ -x "$SELECTOR_UNIT" ] || skip "tests/unit/test-selector is not built (make check builds it)"
	run -0 "$SELECTOR_UNIT" selftest
	assert_output --regexp '^[0-9]+ checks, 0 failed$'
	[ "${output%% *}" -ge 100 ]
}

@test "selectors: the fields typed for device records are those of rm-devices, in order" {
	run -0 "$SELECTOR_UNIT" fields
	local typed=$output
	assert_line 'memory size'
	assert_line 'vendor hex'
	assert_line 'numa integer'
	command -v rm-devices >/dev/null || skip "rm-devices is not built"
	run -0 rm-devices list --list-columns --raw
	assert_equal "$(printf '%s\n' "$typed" | cut -d' ' -f1)" "$(printf '%s\n' "$output" | cut -d' ' -f1)"
	# and the records rm-class finds have those fields, in that order
	assert_equal "$(head -n 1 "$FX/all.records" | grep -o '\(^\| \)[a-z_]*=' | tr -d ' =')" \
		"$(printf '%s\n' "$typed" | cut -d' ' -f1)"
}

@test "selectors: a type the field does not hold is refused where it is written" {
	local cases=(
		'vendor == 4318|line 1, column 11: expected a hex id such as 0x10de for '"'"'vendor'"'"', found '"'"'4318'"'"''
		'memory >= 16|'
		'numa == "0"|line 1, column 9: expected an integer for '"'"'numa'"'"', found '"'"'"0"'"'"''
		'unknown_field == "0"|'
	)
	local c sel want
	for c in "${cases[@]}"; do
		sel=${c%%|*} want=${c#*|}
		if [ -z "$want" ]; then
			run -0 "$SELECTOR_UNIT" parse "$sel"
		else
			run -2 "$SELECTOR_UNIT" parse "$sel"
			assert_output "$want"
		fi
	done
}
