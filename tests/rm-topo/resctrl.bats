#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo resctrl: what a machine offers, on plain trees, on FUSE fakes of Intel and AMD, and
# on machines without resctrl.
load ../test_helper
load ../cgroup_helper
load ../resctrl_helper

setup() {
	R=$BATS_TEST_TMPDIR/resctrl
}

teardown() {
	fakes_cleanup
}

@test "resctrl: not mounted: one record, no resources; supported says what /proc/filesystems says" {
	mkdir -p "$R"
	export RM_RESCTRL_ROOT=$R
	run -0 rm-topo resctrl
	if grep -qw resctrl /proc/filesystems; then
		assert_output "resctrl=$R mounted=no supported=yes cdp=- closids=-"
	else
		assert_output "resctrl=$R mounted=no supported=no cdp=- closids=-"
	fi
	# a snapshot whose kernel has resctrl, not mounted
	unset RM_RESCTRL_ROOT
	mkdir -p "$BATS_TEST_TMPDIR/snap/proc" "$BATS_TEST_TMPDIR/snap/sys/fs/resctrl"
	printf 'nodev\tsysfs\nnodev\tresctrl\n\text4\n' >"$BATS_TEST_TMPDIR/snap/proc/filesystems"
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/snap" resctrl
	assert_output "resctrl=$BATS_TEST_TMPDIR/snap/sys/fs/resctrl mounted=no supported=yes cdp=- closids=-"
	printf 'nodev\tsysfs\n\text4\n' >"$BATS_TEST_TMPDIR/snap/proc/filesystems"
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/snap" resctrl -J
	run -0 jq -c '[.resctrl[0].mounted, .resctrl[0].supported, .resources]' <<<"$output"
	assert_output '[false,false,[]]'
}

@test "resctrl: a described machine (--topology) has none to read, unless RM_RESCTRL_ROOT names one" {
	run -0 rm-topo --topology "package:2 core:2 pu:1" resctrl
	assert_output 'resctrl=- mounted=- supported=- cdp=- closids=-'
	plain_resctrl "$R"
	RM_RESCTRL_ROOT=$R run -0 rm-topo --topology "package:2 core:2 pu:1" resctrl -o resource
	assert_line --index 0 "resctrl=$R mounted=yes supported=yes cdp=no closids=8"
	assert_line --index 1 'resource=L3'
}

@test "resctrl: a plain tree (as a snapshot holds it): every field of every resource" {
	plain_resctrl "$R"
	export RM_RESCTRL_ROOT=$R
	run -0 rm-topo resctrl
	assert_line --index 0 "resctrl=$R mounted=yes supported=yes cdp=no closids=8"
	assert_line --index 1 'resource=L3 domains=0-1 ways=12 cbm_mask=fff min_cbm_bits=2 shareable_bits=c00 closids=16 cdp=no sparse=- granularity=- min_bandwidth=- unit=- delay_linear=- events=- rmids=-'
	assert_line --index 2 'resource=L3_MON domains=0-1 ways=- cbm_mask=- min_cbm_bits=- shareable_bits=- closids=- cdp=- sparse=- granularity=- min_bandwidth=- unit=- delay_linear=- events=llc_occupancy,mbm_total_bytes rmids=128'
	assert_line --index 3 'resource=MB domains=0-1 ways=- cbm_mask=- min_cbm_bits=- shareable_bits=- closids=8 cdp=- sparse=- granularity=10 min_bandwidth=20 unit=percent delay_linear=yes events=- rmids=-'
	assert_equal "${#lines[@]}" 4
	# -o for the resources, JSON typed, --list-columns
	run -0 rm-topo resctrl -o resource,ways,unit --raw
	assert_line --index 1 'L3 12 -'
	run -0 rm-topo resctrl -J
	run -0 jq -c '[.resources[0].ways, .resources[0].cdp, .resources[2].unit, .resctrl[0].closids]' <<<"$output"
	assert_output '[12,false,"percent",8]'
	run -0 rm-topo resctrl --list-columns --raw
	assert_line --index 0 'resource string yes L3,\x20L3CODE,\x20L3DATA,\x20L2,\x20MB,\x20L3_MON,\x20...'
	run -2 --separate-stderr rm-topo resctrl -o resource,nosuch
	run -2 --separate-stderr rm-topo resctrl extra
	[[ $stderr == *"unexpected argument: 'extra'"* ]]
}

@test "resctrl: a malformed schemata is an error naming the file" {
	plain_resctrl "$R"
	echo 'L3:0fff' >"$R/schemata"
	RM_RESCTRL_ROOT=$R run -1 --separate-stderr rm-topo resctrl
	assert_equal "$stderr" "rm-topo: cannot read $R/schemata: line 1: expected ID=VALUE: '0fff'"
}

@test "resctrl (fake): a two-socket Intel machine mounted with CDP" {
	start_resctrl "$R" --layout intel-2s-cdp
	run -0 rm-topo resctrl -o resource,domains,ways,cbm_mask,min_cbm_bits,closids,cdp,sparse,unit,granularity,events
	assert_output "resctrl=$R mounted=yes supported=yes cdp=yes closids=8
resource=L3CODE domains=0-1 ways=11 cbm_mask=7ff min_cbm_bits=1 closids=8 cdp=yes sparse=no unit=- granularity=- events=-
resource=L3DATA domains=0-1 ways=11 cbm_mask=7ff min_cbm_bits=1 closids=8 cdp=yes sparse=no unit=- granularity=- events=-
resource=L3_MON domains=0-1 ways=- cbm_mask=- min_cbm_bits=- closids=- cdp=- sparse=- unit=- granularity=- events=llc_occupancy,mbm_total_bytes,mbm_local_bytes
resource=MB domains=0-1 ways=- cbm_mask=- min_cbm_bits=- closids=8 cdp=- sparse=- unit=percent granularity=10 events=-"
}

@test "resctrl (fake): AMD, one L3 per CCX: 16 ways, sparse masks, no minimum, MB in eighths of GBps" {
	start_resctrl "$R" --layout amd-ccx --cpus 0-47
	run -0 rm-topo resctrl -o resource,domains,ways,cbm_mask,min_cbm_bits,closids,sparse,unit,min_bandwidth,delay_linear
	assert_line --index 0 "resctrl=$R mounted=yes supported=yes cdp=no closids=16"
	assert_line --index 1 'resource=L3 domains=0-7 ways=16 cbm_mask=ffff min_cbm_bits=0 closids=16 sparse=yes unit=- min_bandwidth=- delay_linear=-'
	assert_line --index 3 'resource=MB domains=0-7 ways=- cbm_mask=- min_cbm_bits=- closids=16 sparse=- unit=GBps/8 min_bandwidth=0 delay_linear=no'
}

@test "resctrl (fake): mounted with mba_MBps, memory bandwidth is in MBps" {
	start_resctrl "$R" --layout intel-2s --mba-mbps
	run -0 rm-topo resctrl -o resource,unit
	assert_line --index 0 "resctrl=$R mounted=yes supported=yes cdp=no closids=8"
	assert_line 'resource=MB unit=MBps'
}

@test "resctrl (fake): the example of rm-topo(1) prints what rm-topo prints" {
	local cmd expected
	start_resctrl "$R" --layout intel-2s-cdp
	cmd=$(man_example_command)
	[[ $cmd == "rm-topo resctrl "* ]] || fail "no resctrl example in rm-topo(1): '$cmd'"
	expected=$(man_example_output | sed "s|/sys/fs/resctrl|$R|")
	run -0 bash -c "$cmd"
	assert_output "$expected"
}

# The "$ rm-topo resctrl" line of rm-topo(1)'s EXAMPLES, and the lines it shows, made plain.
man_example_command() {
	man_example | head -n 1 | sed 's/^\$ //'
}
man_example_output() {
	man_example | tail -n +2
}
man_example() {
	awk '/^\.SH EXAMPLES/ { on = 1 } /^\.SH SEE/ { on = 0 }
		on && /^\.EX/ { ex = 1; next } on && /^\.EE/ { if (found) exit; ex = 0; next }
		ex && /^\$ rm\\-topo resctrl/ { found = 1 }
		ex && found' "$RM_SRCDIR/man/rm-topo.1" |
		sed -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\e/\\/g'
}
