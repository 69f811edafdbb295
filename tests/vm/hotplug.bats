#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# CPU hotplug on a real kernel: CPUs go offline and come back under rm-cpuset's feet.
load helper

teardown() {
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do echo 1 >"$c"; done
	rm-cpuset release --all >/dev/null 2>&1 || true
}

@test "rm-topo shows an offline CPU as the kernel does" {
	echo 0 >/sys/devices/system/cpu/cpu5/online
	run -0 rm-topo -o online,offline
	assert_line --index 0 "online=0-4,6-7 offline=5"
}

@test "read-only commands keep working after a CPU goes offline" {
	run -0 rm-cpuset alloc --count 2 --owner a
	echo 0 >/sys/devices/system/cpu/cpu5/online
	run -0 rm-cpuset list -o owner
	assert_output "owner=a"
	run -0 rm-cpuset show
}

@test "allocations skip offline CPUs" {
	echo 0 >/sys/devices/system/cpu/cpu1/online
	run -0 rm-cpuset alloc --count 2 --owner b -o cpus
	refute_output --regexp 'cpus=(1|0-1|1-2)$'
	[[ $(field cpus) != *1* ]] || fail "offline CPU 1 handed out: $output"
}

@test "an owner whose CPU went offline is degraded (offline=), runs on the rest, and is whole again" {
	run -0 rm-cpuset alloc --count 2 --owner c --numa-node 0
	run -0 rm-cpuset alloc --count 2 --owner d --numa-node 1
	echo 0 >/sys/devices/system/cpu/cpu4/online
	run -0 rm-cpuset list -o owner,cpus,offline
	assert_line 'owner=c cpus=0-1 offline=""'
	assert_line "owner=d cpus=4-5 offline=4"
	# the kernel keeps CPU 4 in d's cpuset.cpus (v2); the effective set is what is online
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/d/cpuset.cpus.effective)" 5
	run -0 rm-cpuset run --owner d -- cat /proc/self/status
	assert_line --regexp '^Cpus_allowed_list:[[:space:]]+5$'
	echo 1 >/sys/devices/system/cpu/cpu4/online
	run -0 rm-cpuset list -o owner,offline
	assert_line 'owner=d offline=""'
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/d/cpuset.cpus.effective)" 4-5
}
