#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset on cgroup v1 (hybrid: v1 controllers, v2 at unified/), as Debian 12 with
# systemd.unified_cgroup_hierarchy=0 and RHEL 8 run it.
load helper

CG=/sys/fs/cgroup/cpuset/rmtools

teardown() {
	rm-cpuset release --all >/dev/null 2>&1 || true
}

@test "alloc makes the owner's v1 cpuset with CPU nodes' memory only" {
	run -0 rm-cpuset alloc --count 2 --owner a --numa-node 1 -o owner,cpus,mems,cgroup
	assert_output "owner=a cpus=4-5 mems=1 cgroup=$CG/a"
	assert_equal "$(cat $CG/a/cpuset.cpus)" 4-5
	assert_equal "$(cat $CG/a/cpuset.mems)" 1
}

@test "run puts the command in the owner's cpuset" {
	run -0 rm-cpuset alloc --count 2 --owner b
	run -0 rm-cpuset run --owner b -- cat /proc/self/cpuset
	assert_output "/rmtools/b"
}

@test "release removes the owner's cpuset" {
	run -0 rm-cpuset alloc --count 2 --owner c
	[ -d $CG/c ]
	run -0 rm-cpuset release c
	[ ! -d $CG/c ]
}

@test "--isolate on v1: exclusive CPUs without load balancing, or exit 2 and nothing made" {
	run rm-cpuset alloc --count 2 --owner iso --isolate
	if [ "$status" -eq 0 ]; then
		assert_equal "$(cat $CG/iso/cpuset.cpu_exclusive)" 1
		assert_equal "$(cat $CG/iso/cpuset.sched_load_balance)" 0
	else
		assert_equal "$status" 2
		[ ! -d $CG/iso ]
		run -0 rm-cpuset list
		assert_output ""
	fi
}
