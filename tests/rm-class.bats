#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-class's commands: list, show, match, explain and check, on built-in classes and class files,
# with device records on standard input or found under --sysroot (the rm-devices fixtures).
load test_helper
load rm-class/helper

BUILTINS="gpu nvidia-gpu amd-gpu nic rdma-nic ib fpga accel sriov-vf"

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	mkdir -p "$FX"
	make_fixture_records
}

# ---- list and show ----

@test "rm-class: with no command lists the built-in classes" {
	run -0 rm-class
	assert_line --index 0 'class=gpu source=builtin count=1 policy=none exclusive=yes description="GPUs of any vendor"'
	assert_equal "${#lines[@]}" 9
	run -0 rm-class list -o class --raw
	assert_equal "$(printf '%s\n' "$output" | paste -sd' ')" "$BUILTINS"
}

@test "list: JSON, table, -o, --list-columns and class operands" {
	run -0 rm-class list -J
	run -0 jq -c '.classes[1] | [.class, .source, .count, .policy, .exclusive]' <<<"$output"
	assert_output '["nvidia-gpu","builtin",1,"none",true]'
	run -0 rm-class list -t -o class,count
	assert_line --index 0 --regexp '^CLASS +COUNT$'
	assert_line --index 1 --regexp '^gpu +1$'
	run -0 rm-class list --list-columns --raw
	assert_line --index 0 'class string yes the\x20class\x20name'
	assert_line --index 6 'selector string no the\x20selector,\x20in\x20canonical\x20form'
	run -0 rm-class list -o class,selector ib rdma-nic
	assert_output "$(printf '%s\n' 'class=ib selector="type == \"ib\""' \
		'class=rdma-nic selector="type in [\"nic\", \"ib\"] and has(rdma)"')"
	run -0 rm-class list -o +selector nvidia-gpu
	assert_output --partial ' selector="type == \"gpu\" and vendor == 0x10de"'
}

@test "list: class files add classes, replace built-ins of their name and say where they are" {
	classes 20-site.conf <<-'EOF'
	# the site's GPUs
	[class gpu]
	description = every GPU but those handed to VMs
	selector = type == "gpu" and driver != "vfio-pci"

	[class gpu-16g]
	description = GPUs with at least 16 GiB
	selector = type == "gpu" and
	    memory >= 16GiB
	count = 2
	policy = single-numa-node
	exclusive = no
	EOF
	classes 10-first.conf <<<$'[class first]\nselector = has(rdma)'
	# not read: other names, hidden files
	classes notes.txt <<<'[class nope]'
	classes .hidden.conf <<<'[class nope2]'
	run -0 rm-class list -o class,source,count,policy,exclusive
	assert_golden rm-class list-class-files
	# the file's gpu is the one that matches
	run -0 rm-class match gpu <"$FX/mixed.records"
	assert_equal "$(ids <<<"$output")" c1:00.0
}

@test "show: each class as a class file writes it, the selector in canonical form" {
	classes site.conf <<-'EOF'
	[class gpu-16g]
	description   =   GPUs with at least
	    16 GiB of memory
	selector=type=="gpu"and(vendor==0X10DE or vendor == 0x1002)
	    and memory>=16384M
	policy = single-numa-node
	EOF
	run -0 rm-class show gpu-16g ib
	assert_golden rm-class show-gpu-16g-ib
	# what show prints is a class file that defines the same classes
	rm-class show >"$BATS_TEST_TMPDIR/all.conf"
	run -0 rm-class check "$BATS_TEST_TMPDIR/all.conf"
	assert_output "file=$BATS_TEST_TMPDIR/all.conf classes=10"
	export RM_CONFIG_DIR=$BATS_TEST_TMPDIR/again
	mkdir -p "$RM_CONFIG_DIR/classes.d"
	cp "$BATS_TEST_TMPDIR/all.conf" "$RM_CONFIG_DIR/classes.d/"
	run -0 rm-class show
	assert_equal "$(grep -v '^#' <<<"$output")" "$(grep -v '^#' "$BATS_TEST_TMPDIR/all.conf")"
}

# ---- match ----

@test "match: the device records of a class, unchanged, in input order" {
	run -0 rm-class match ib <"$FX/all.records"
	assert_equal "$(ids <<<"$output")" "1c:00.0 3f:00.0 9c:00.0 bc:00.0"
	assert_equal "$output" "$(grep 'type=ib ' "$FX/all.records")"
	run -0 rm-class match rdma-nic <"$FX/all.records"
	assert_equal "$(ids <<<"$output")" "1c:00.0 3f:00.0 9c:00.0 bc:00.0 5e:00.0"
	run -0 rm-class match sriov-vf <"$FX/all.records"
	assert_equal "$(ids <<<"$output")" "3b:01.0 3b:01.1 3b:01.2 3b:01.3 3b:01.4 3b:01.5 3b:01.6 3b:01.7"
	run -0 rm-class match amd-gpu <"$FX/all.records"
	assert_equal "$(ids <<<"$output")" "c1:00.0"
	# none: no output, success
	run -0 rm-class match amd-gpu <"$FX/gpu.records"
	assert_output ''
}

@test "match: each output is the next one's input, narrowing" {
	run -0 bash -c 'rm-class match gpu <"$1" | rm-class match --selector "numa == 1" |
		rm-class match nvidia-gpu' _ "$FX/all.records"
	assert_equal "$(ids <<<"$output")" "9a:00.0 9b:00.0 ba:00.0 bb:00.0"
	run -0 bash -c 'rm-class match gpu <"$1" | rm-class match --invert-match nvidia-gpu' _ \
		"$FX/all.records"
	assert_equal "$(ids <<<"$output")" "c1:00.0"
}

@test "match: --count: exit 3 and nothing printed when fewer devices match" {
	run -0 rm-class match ib --count 4 <"$FX/all.records"
	assert_equal "${#lines[@]}" 4
	run -3 --separate-stderr rm-class match ib --count 5 <"$FX/all.records"
	assert_output ''
	assert_equal "$stderr" "rm-class: not enough devices in class 'ib': requested 5, matched 4"
	run -3 --separate-stderr rm-class match -c 2 --selector 'memory >= 16GiB' <"$FX/all.records"
	assert_equal "$stderr" "rm-class: not enough devices match the selector: requested 2, matched 1"
	run -3 --separate-stderr rm-class match -v -c 30 gpu <"$FX/all.records"
	assert_equal "$stderr" "rm-class: not enough devices outside class 'gpu': requested 30, matched 18"
}

@test "match: with no records piped in, the devices of the machine or of --sysroot" {
	run -0 rm-class match ib --sysroot "$FX/gpu"
	assert_equal "$(ids <<<"$output")" "1c:00.0 3f:00.0 9c:00.0 bc:00.0"
	# discovered devices are printed with every field, as rm-devices knows them
	assert_equal "$output" "$(grep 'type=ib ' "$FX/gpu.records")"
	# --sysroot on the command line wins over a pipe
	run -0 bash -c 'echo "device=0000:00:00.0 type=ib" | rm-class match ib --sysroot "$1" | wc -l' _ \
		"$FX/gpu"
	assert_output 4
	# RM_SYSROOT with /dev/null or a closed standard input: found; with a pipe: the pipe
	RM_SYSROOT=$FX/mixed run -0 rm-class match fpga </dev/null
	assert_equal "$(ids <<<"$output")" "af:00.0"
	run -0 env RM_SYSROOT="$FX/mixed" bash -c 'rm-class match fpga <&-'
	assert_equal "$(ids <<<"$output")" "af:00.0"
	run -0 env RM_SYSROOT="$FX/mixed" bash -c 'echo "device=0000:00:00.0 type=fpga" | rm-class match fpga'
	assert_output "device=0000:00:00.0 type=fpga"
	# a terminal
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	# (this machine's devices: whatever they are, standard input is not read)
	run -0 script -qec 'rm-class match fpga; echo "status=$?"' /dev/null </dev/null
	assert_output --partial 'status=0'
	refute_output --partial 'standard input'
	RM_SYSROOT=$FX/mixed run -0 script -qec "rm-class match fpga" /dev/null </dev/null
	assert_output --partial "device=0000:af:00.0 type=fpga"
}

@test "match: rm-devices list with every field pipes in as discovery finds" {
	command -v rm-devices >/dev/null || skip "rm-devices is not built"
	local all
	all=$(rm-devices list --list-columns --raw | cut -d' ' -f1 | paste -sd,)
	run -0 bash -c 'rm-devices --sysroot "$1" list -o "$2" | rm-class match nvidia-gpu' _ \
		"$FX/gpu" "$all"
	assert_equal "$output" "$(rm-class match nvidia-gpu --sysroot "$FX/gpu")"
	assert_equal "${#lines[@]}" 8
	# rm-devices' default fields have no memory: a class on it matches nothing then, and says why
	run -0 --separate-stderr bash -c \
		'rm-devices --sysroot "$1" list | rm-class match --selector "memory >= 16GiB"' _ "$FX/mixed"
	assert_output ''
	assert_equal "$stderr" "rm-class: warning: no device record on standard input has the field 'memory' (rm-devices list -o +memory)"
	run -0 bash -c 'rm-devices --sysroot "$1" list -o +memory | rm-class match --selector "memory >= 16GiB"' _ \
		"$FX/mixed"
	assert_equal "$(ids <<<"$output")" "c1:00.0"
}

@test "match: rm_class_match, the function rm-devices alloc --class calls, agrees with match" {
	[ -x "$SELECTOR_UNIT" ] || skip "tests/unit/test-selector is not built (make check builds it)"
	local cls
	for cls in $BUILTINS; do
		run -0 "$SELECTOR_UNIT" class "$cls" <"$FX/all.records"
		assert_equal "$output" "$(rm-class match "$cls" <"$FX/all.records" | cut -d' ' -f1 | cut -d= -f2)"
	done
	classes site.conf <<<$'[class big]\nselector = memory >= 32GiB'
	run -0 "$SELECTOR_UNIT" class big <"$HAND"
	assert_output "$(printf '%s\n' 0000:82:00.0)"
	run -2 "$SELECTOR_UNIT" class nope </dev/null
	assert_output "no such class: 'nope' (see rm-class list)"
	classes bad.conf <<<$'[class x]\nselector = ('
	run -2 "$SELECTOR_UNIT" class big </dev/null
	assert_output "$RM_CONFIG_DIR/classes.d/bad.conf:2:13: expected a field name, 'has', 'not' or '(', found the end"
}

# ---- explain ----

@test "explain: each clause, its value and whether it decides; exit 1 outside the class" {
	classes site.conf <<<$'[class gpu-16g]\nselector = type == "gpu" and (vendor == 0x10de or vendor == 0x1002) and memory >= 16GiB'
	run -0 rm-class explain gpu-16g 0000:c1:00.0 <"$FX/all.records"
	assert_output "$(cat <<-'EOF'
	clause="type == \"gpu\"" result=yes field=type value=gpu decides=yes
	clause="vendor == 0x10de" result=no field=vendor value=1002 decides=no
	clause="vendor == 0x1002" result=yes field=vendor value=1002 decides=yes
	clause="memory >= 16GiB" result=yes field=memory value=64GiB decides=yes
	EOF
	)"
	# not in the class: the failed clause decides; a missing value is unknown
	run -1 rm-class explain gpu-16g 1a:00.0 <"$FX/all.records"
	assert_line --index 0 'clause="type == \"gpu\"" result=yes field=type value=gpu decides=no'
	assert_line --index 3 'clause="memory >= 16GiB" result=no field=memory value=- decides=yes'
	# by name, as found under --sysroot; a selector of one's own
	run -0 rm-class explain --selector 'numa == 1 or not has(rdma)' ib2 --sysroot "$FX/gpu"
	assert_output "$(printf '%s\n' 'clause="numa == 1" result=yes field=numa value=1 decides=yes' \
		'clause="has(rdma)" result=yes field=rdma value=mlx5_2 decides=no')"
	run -1 rm-class explain --selector 'numa == 1 or not has(rdma)' ib0 --sysroot "$FX/gpu" \
		-o clause,result,decides
	assert_output "$(printf '%s\n' 'clause="numa == 1" result=no decides=yes' \
		'clause="has(rdma)" result=yes decides=yes')"
}

@test "explain: JSON, table and --list-columns" {
	run -1 rm-class explain -J nvidia-gpu c1:00.0 <"$FX/mixed.records"
	run -0 jq -c '[.clauses[] | [.clause, .result, .value, .decides]]' <<<"$output"
	assert_output '[["type == \"gpu\"",true,"gpu",false],["vendor == 0x10de",false,"1002",true]]'
	run -1 rm-class explain -t -o clause,result gpu 3b:00.0 <"$FX/mixed.records"
	assert_line --index 0 --regexp '^CLAUSE +RESULT$'
	run -0 rm-class explain --list-columns --raw
	assert_output "$(cat <<-'EOF'
	clause string yes a\x20comparison\x20of\x20the\x20selector,\x20in\x20canonical\x20form
	result boolean yes whether\x20the\x20device\x20passes\x20it
	field string yes the\x20field\x20it\x20reads
	value string yes the\x20device's\x20value\x20of\x20the\x20field
	decides boolean yes whether\x20the\x20outcome\x20rests\x20on\x20it
	EOF
	)"
}

# ---- check ----

@test "check: one file record per file read, nothing for the built-ins; directories" {
	run -0 rm-class check
	assert_output ''
	classes a.conf <<<$'[class a]\nselector = has(rdma)\n[class b]\nselector = has(pf)'
	classes b.conf <<<$'# nothing yet'
	run -0 rm-class check
	assert_output "$(printf '%s\n' "file=$RM_CONFIG_DIR/classes.d/a.conf classes=2" \
		"file=$RM_CONFIG_DIR/classes.d/b.conf classes=0")"
	run -0 rm-class check "$RM_CONFIG_DIR/classes.d/b.conf" "$RM_CONFIG_DIR/classes.d"
	assert_line --index 0 "file=$RM_CONFIG_DIR/classes.d/b.conf classes=0"
	assert_equal "${#lines[@]}" 3
	# a file class may replace a built-in; unknown fields are warnings, not errors
	classes c.conf <<<$'[class gpu]\nselector = type == "gpu" and\n  memroy >= 16GiB'
	run -0 --separate-stderr rm-class check
	assert_equal "$stderr" \
		"rm-class: $RM_CONFIG_DIR/classes.d/c.conf:3:3: warning: unknown field 'memroy' (not a field of device records)"
	assert_line "file=$RM_CONFIG_DIR/classes.d/c.conf classes=1"
}

# ---- the command line ----

@test "rm-class: --help names the commands, --list-commands prints them, -V the version" {
	run -0 rm-class --help
	assert_output --partial 'Commands:'
	assert_output --partial '  explain          which clauses of a class a device passes and fails'
	run -0 rm-class --list-commands
	assert_output "$(printf '%s\n' list show match explain check export)"
	run -0 rm-class -V
	assert_output --regexp '^rm-class \(rmtools\) [0-9]+\.[0-9]+'
	run -0 rm-class match --help
	assert_output --partial '--count=N'
	assert_output --partial '--sysroot=DIR'
	refute_output --partial '--json'
}
