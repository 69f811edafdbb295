#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel booted with isolcpus=domain,managed_irq,6-7 nohz_full=6-7.
load helper

teardown() {
	rm-cpuset release --all >/dev/null 2>&1 || true
}

@test "rm-topo shows the boot-time isolated and nohz_full CPUs as the kernel does" {
	run -0 rm-topo -o isolated,nohz_full
	assert_line --index 0 "isolated=$(sysfs_list cpu/isolated) nohz_full=$(sysfs_list cpu/nohz_full)"
	assert_line --index 0 "isolated=6-7 nohz_full=6-7"
}

@test "alloc --from the nohz_full CPUs: the command runs there" {
	run -0 rm-cpuset alloc --from 6-7 --count 2 --owner rt
	run -0 rm-cpuset run --owner rt -- cat /proc/self/status
	assert_line --regexp '^Cpus_allowed_list:[[:space:]]+6-7$'
}

@test "--isolate next to boot-time isolated CPUs" {
	run -0 rm-cpuset alloc --count 2 --numa-node 0 --owner iso --isolate
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/iso/cpuset.cpus.partition)" isolated
}
