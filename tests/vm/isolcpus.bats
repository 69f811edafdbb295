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

@test "boot-isolated CPUs stay out of the shared pool, go first to --isolate owners, last to others" {
	run -0 rm-cpuset show
	assert_line --regexp '^pool=shared cpus=0-5 '
	run -0 rm-cpuset alloc --count 2 --owner quiet --isolate --dry-run -o owner,cpus
	assert_output "owner=quiet cpus=6-7"
	run -0 rm-cpuset alloc --count 2 --owner plain -o owner,cpus
	refute_output --regexp 'cpus=.*[67]'
	# the others take them when nothing else is left
	run -0 rm-cpuset alloc --count 3 --owner more -o owner,cpus
	run -0 rm-cpuset alloc --count 2 --owner last -o owner,cpus
	assert_output "owner=last cpus=6-7"
}
