#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 1 of the system shape: cloud-init provisioned the node from the user-data alone.
load helper

@test "the user-data is valid for cloud-init's schema" {
	run cloud-init schema -c "$USER_DATA"
	assert_success
	assert_output --partial "Valid cloud-config"
}

@test "cloud-init finished without errors" {
	run cloud-init status --long
	assert_success
	assert_line "status: done"
}

@test "the package rmtools is installed" {
	run dpkg-query -W -f '${Status}' rmtools
	assert_output "install ok installed"
}

@test "the rmtools units ran, none failed" {
	check_units
}

@test "the reserved CPUs are 0-1" {
	check_reserved
}

@test "the owners' cpusets: dataplane 4-5 in an isolated partition with its hugetlb limit, db 2-3 on node 0 with memory.max" {
	check_owners
}

@test "no IRQ that can move is left on the isolated owner's CPUs" {
	check_quiet_irqs
}

@test "64 pages of 2 MiB on nodes 0 and 1" {
	check_hugepages
}

@test "db's io.max on the NVMe disk" {
	check_io_max
}
