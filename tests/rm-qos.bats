#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos over a fake cgroup v2 tree: show, watch, and every command with stdout full or closed
# (check and blame: rm-qos/check.bats, export: rm-qos/export.bats).

load test_helper
load rm-qos/helper
load contract/helper

@test "show: a record per owner of the tree, the pool and the system, values as read" {
	run -0 --separate-stderr rm-qos show --interval 10ms -o +memory_high,memory_max,hugepages,cpus,cpu_some_avg10,irqs
	assert_equal "${#lines[@]}" 4
	assert_line -n 0 --regexp '^owner=db kind=owner cpu_used=0\.00 cpu_throttled=0\.00 cpu_some=0\.00 memory_some=0\.00 io_some=0\.00 memory_current=1GiB memory_high_events=3 memory_oom_kill=2 io_read=0B io_write=0B unhealthy_devices="" memory_high=768MiB memory_max=max hugepages=2MiB:4,1GiB:0 cpus=2-3 cpu_some_avg10=2\.50 irqs=0\.0$'
	assert_line -n 1 --partial 'owner=web kind=owner '
	assert_line -n 2 --regexp '^owner=shared kind=pool .* cpus=0-1,6-7 .* irqs=-$'
	assert_line -n 3 --regexp '^owner=system kind=system cpu_used=0\.00 .*cpu_some_avg10=1\.25 '
	assert_equal "$stderr" ""
}

@test "show: owners of the states without a cgroup have unknown values" {
	printf 'topology=0badcafe cpus=0-7\nowner=batch cpus=6 pid=-\n' >"$BATS_TEST_TMPDIR/records"
	cat >"$RM_STATE_DIR/cpuset.state" <<-END
	rmtools_state=cpuset version=1 records=2 checksum=$(python3 -c 'import sys,zlib;print("%08x"%zlib.crc32(open(sys.argv[1],"rb").read()))' "$BATS_TEST_TMPDIR/records")
	$(cat "$BATS_TEST_TMPDIR/records")
	END
	run -0 rm-qos show --interval 10ms -o owner,kind,cpu_used,memory_current
	[ "$status" -eq 0 ] || fail "$output"
	assert_line -n 0 'owner=batch kind=owner cpu_used=- memory_current=-'
	assert_line -n 1 --partial 'owner=db '
}

@test "show: the allocated devices rm-devices health finds unhealthy, per owner" {
	export RM_CONFIG_DIR=$BATS_TEST_TMPDIR/conf
	load rm-devices/fixtures
	fx_gpu_server "$S"
	run -0 rm-devices alloc --type gpu --count 2 --owner db
	run -0 rm-devices alloc --type gpu --count 1 --owner web
	run -0 --separate-stderr rm-qos show --interval 10ms -o owner,unhealthy_devices
	assert_output $'owner=db unhealthy_devices=""\nowner=web unhealthy_devices=""\nowner=shared unhealthy_devices=-\nowner=system unhealthy_devices=-'
	printf 'TOTAL_ERR_FATAL 1\n' >"$S/sys/bus/pci/devices/0000:1a:00.0/aer_dev_fatal"
	printf 'TOTAL_ERR_FATAL 1\n' >"$S/sys/bus/pci/devices/0000:1b:00.0/aer_dev_fatal"
	printf 'TOTAL_ERR_FATAL 1\n' >"$S/sys/bus/pci/devices/0000:3e:00.0/aer_dev_fatal"
	run -0 rm-qos show --interval 10ms -o owner,unhealthy_devices db web
	assert_output $'owner=db unhealthy_devices=0000:1a:00.0,0000:1b:00.0\nowner=web unhealthy_devices=""'
	# the policy file is the one rm-devices health reads
	mkdir -p "$RM_CONFIG_DIR"
	echo 'aer_fatal warn' >"$RM_CONFIG_DIR/devices-health.conf"
	run -0 rm-qos show --interval 10ms -o owner,unhealthy_devices db
	assert_output 'owner=db unhealthy_devices=""'
	# in the default record, last; a device gone is unhealthy too
	rm "$RM_CONFIG_DIR/devices-health.conf"
	rm "$S/sys/bus/pci/devices/0000:1a:00.0"
	run -0 --separate-stderr rm-qos show --interval 10ms db
	assert_output --regexp '^owner=db kind=owner .* io_write=0B unhealthy_devices=0000:1a:00.0,0000:1b:00.0$'
	assert_equal "$stderr" ""
}

@test "show OWNER: only the owners named; shared and system by name" {
	run -0 rm-qos show --interval 10ms -o owner,kind web system shared
	assert_output $'owner=web kind=owner\nowner=system kind=system\nowner=shared kind=pool'
}

@test "show: JSON numbers and sizes in bytes; --list-columns" {
	run -0 rm-qos show --interval 10ms -J -o owner,memory_current,cpu_some_avg10 db
	assert_output --partial '"memory_current": 1073741824'
	assert_output --partial '"cpu_some_avg10": 2.50'
	run -0 rm-qos show --list-columns
	assert_line --partial 'column=cpu_throttled '
	assert_line --partial 'column=llc_occupancy '
}

@test "show: invalid input exits 2" {
	usage_error "invalid owner name: '../x'" rm-qos show ../x
	usage_error "invalid interval: '0s'" rm-qos show --interval 0s
	usage_error "invalid interval: 'soon'" rm-qos show --interval soon
	usage_error "unknown field: 'nope'" rm-qos show -o owner,nope
	usage_error "a described topology has no cgroup or /proc files to measure" rm-qos --topology "package:1 core:2 pu:1" show
}

@test "show: without PSI it says so once and shows the rest" {
	rm -r "$S/proc/pressure"
	for f in cpu memory io; do rm "$CG/rmtools.slice/"*/"$f.pressure"; done
	run -0 --separate-stderr rm-qos show --interval 10ms -o owner,cpu_some,memory_current db
	assert_output 'owner=db cpu_some=- memory_current=1GiB'
	assert_equal "$stderr" "rm-qos: pressure stall information is off (boot with psi=1): showing the rest"
}

@test "show: a throttled busy owner has CPU use, a throttled share and CPU pressure" {
	busy db
	run -0 rm-qos show --interval 300ms -o owner,cpu_used,cpu_throttled,cpu_some db web
	[[ ${lines[0]} =~ ^owner=db\ cpu_used=([0-9.]+)\ cpu_throttled=([0-9.]+)\ cpu_some=([0-9.]+)$ ]] ||
		fail "${lines[0]}"
	awk -v u="${BASH_REMATCH[1]}" -v t="${BASH_REMATCH[2]}" -v s="${BASH_REMATCH[3]}" \
		'BEGIN { exit !(u > 0.05 && t > 50 && s > 1) }' || fail "${lines[0]}"
	assert_line -n 1 'owner=web cpu_used=0.00 cpu_throttled=0.00 cpu_some=0.00'
}

@test "watch --count: a record per owner per round on a pipe" {
	run -0 rm-qos watch --interval 10ms --count 3 -o owner db web
	assert_output $'owner=db\nowner=web\nowner=db\nowner=web\nowner=db\nowner=web'
	usage_error "invalid count: '0'" rm-qos watch --count 0
}

@test "every command with stdout full or closed: exit 1, one line naming the write error" {
	local cmd redir
	for cmd in "show --interval 10ms" "show --interval 10ms db -J" "watch --interval 10ms --count 2" \
		"check --interval 10ms --slo 'db: memory.oom_kill == 0'" "blame --interval 10ms --window 30ms web" \
		"show --list-columns" "export" "export db"; do
		for redir in '>/dev/full' '>&-'; do
			eval "run --separate-stderr redirected '$redir' rm-qos $cmd"
			[ "$status" -eq 1 ] || fail "rm-qos $cmd $redir: exit $status, not 1: $stderr"
			[ "${#stderr_lines[@]}" -eq 1 ] || fail "rm-qos $cmd $redir: '$stderr'"
			[[ $stderr == "rm-qos: write error: "* ]] || fail "rm-qos $cmd $redir: '$stderr'"
		done
	done
}
