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

@test "--isolate on v1: exit 2 and nothing made (v1 isolation needs the whole machine's load balancing off)" {
	run -2 --separate-stderr rm-cpuset alloc --count 2 --owner iso --isolate
	[[ $stderr == *"--isolate needs cgroup v2 cpuset partitions (this machine uses the v1 cpuset controller"* ]] ||
		fail "$stderr"
	[ ! -d $CG/iso ]
	assert_equal "$(cat /sys/fs/cgroup/cpuset/cpuset.sched_load_balance)" 1
	run -0 rm-cpuset list
	assert_output ""
}

@test "resize on v1: a running process stays, its Cpus_allowed_list follows; to the shared pool and back" {
	run -0 rm-cpuset alloc --count 2 --owner rs --numa-node 1 -o cpus
	assert_output "cpus=4-5"
	rm-cpuset run --owner rs -- sleep 600 >/dev/null 2>&1 3>&- &
	wait_until runs_in $CG/rs sleep
	pid=$(cat $CG/rs/tasks)
	run -0 rm-cpuset resize --owner rs --count 4 -o cpus
	assert_output "cpus=4-7"
	assert_equal "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)" 4-7
	assert_equal "$(cat $CG/shared/cpuset.cpus)" 0-3
	run -0 rm-cpuset resize --owner rs --shared
	assert_equal "$(cat $CG/rs/cpuset.cpus)" 0-7
	assert_equal "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)" 0-7
	run -0 rm-cpuset resize --owner rs --count 2 --numa-node 1 -o cpus
	assert_output "cpus=4-5"
	assert_equal "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)" 4-5
	run -0 grep -x "$pid" $CG/rs/tasks
	kill "$pid"
}

@test "alloc --shared with limits on v1: the owner's cpuset follows the shared pool; memory and pids cgroups; a fork beyond pids.max fails; release removes them" {
	local M=/sys/fs/cgroup/memory/rmtools P=/sys/fs/cgroup/pids/rmtools
	run -0 rm-cpuset alloc --count 2 --owner ex
	run -0 rm-cpuset alloc --shared --owner lim --memory-max 64M --pids-max 3 \
		-o cpus,memory_max,pids_max
	assert_output 'cpus="" memory_max=64MiB pids_max=3'
	assert_equal "$(cat $CG/lim/cpuset.cpus)" "$(cat $CG/shared/cpuset.cpus)"
	assert_equal "$(cat $M/lim/memory.limit_in_bytes $P/lim/pids.max | tr '\n' ' ')" "67108864 3 "
	# no swap beyond the memory limit: memsw is their sum
	if [ -e /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes ]; then
		run -0 rm-cpuset limit --owner lim --swap-max 0
		assert_equal "$(cat $M/lim/memory.memsw.limit_in_bytes)" 67108864
	fi
	run -2 rm-cpuset limit --owner lim --memory-min 1M
	run -0 rm-cpuset run --owner lim -- cat /proc/self/cgroup
	assert_line --regexp '^[0-9]+:cpuset:/rmtools/lim$'
	assert_line --regexp '^[0-9]+:memory:/rmtools/lim$'
	assert_line --regexp '^[0-9]+:pids:/rmtools/lim$'
	run rm-cpuset run --owner lim -- sh -c 'sleep 1 & sleep 1 & sleep 1 & wait'
	assert_output --regexp "fork"
	run -0 rm-cpuset release lim ex
	[ ! -e $CG/lim ] && [ ! -e $M ] && [ ! -e $P ]
}
