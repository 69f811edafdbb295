#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset with real cgroup v2 cpusets: nodes 0-1 with CPUs 0-3 and 4-7, nodes 2-3 memory-only.
load helper

CG=/sys/fs/cgroup/rmtools.slice

teardown() {
	rm-cpuset release --all >/dev/null 2>&1 || true
}

@test "single-numa-node: the owner's memory is on its CPUs' node, never a memory-only node" {
	run -0 rm-cpuset alloc --count 2 --owner a --policy single-numa-node -o owner,cpus,mems
	assert_output "owner=a cpus=0-1 mems=0"
	assert_equal "$(cat $CG/a/cpuset.mems)" 0
	assert_equal "$(cat $CG/a/cpuset.mems.effective)" 0
}

@test "--numa-node 1 binds CPUs and memory to node 1 alone" {
	run -0 rm-cpuset alloc --count 2 --owner b --numa-node 1 -o owner,cpus,mems
	assert_output "owner=b cpus=4-5 mems=1"
	assert_equal "$(cat $CG/b/cpuset.mems.effective)" 1
}

@test "run: a command's memory lands on the owner's node" {
	run -0 rm-cpuset alloc --count 2 --owner c --numa-node 1
	run -0 rm-cpuset run --owner c -- cat /proc/self/status
	assert_line --regexp '^Cpus_allowed_list:[[:space:]]+4-5$'
	assert_line --regexp '^Mems_allowed_list:[[:space:]]+1$'
}

@test "--isolate makes a valid isolated partition and release gives the CPUs back" {
	run -0 rm-cpuset alloc --count 2 --owner iso --isolate -o owner,cpus
	cpus=$(field cpus)
	assert_equal "$(cat $CG/iso/cpuset.cpus.partition)" isolated
	assert_equal "$(cat $CG/iso/cpuset.cpus.effective)" "$cpus"
	# the scheduler sees the CPUs isolated (no load balancing): the root's set shrinks
	run -0 cat /sys/fs/cgroup/cpuset.cpus.effective
	refute_output "0-7"
	run -0 rm-cpuset release iso
	[ ! -d $CG/iso ]
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7
}

@test "two isolated owners side by side, then released in the other order" {
	run -0 rm-cpuset alloc --count 2 --owner i1 --isolate
	run -0 rm-cpuset alloc --count 2 --owner i2 --isolate
	assert_equal "$(cat $CG/i1/cpuset.cpus.partition)" isolated
	assert_equal "$(cat $CG/i2/cpuset.cpus.partition)" isolated
	run -0 rm-cpuset release i1
	assert_equal "$(cat $CG/i2/cpuset.cpus.partition)" isolated
	run -0 rm-cpuset release i2
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7
}
