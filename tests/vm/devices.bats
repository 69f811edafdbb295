#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices on a real kernel: an NVMe controller behind a pxb-pcie expander on NUMA node 1.
load helper

@test "the NVMe controller behind the expander is on node 1, with node 1's CPUs" {
	run -0 rm-devices list --type nvme -o type,driver,numa,cpus,root
	assert_output --regexp '^type=nvme driver=nvme numa=1 cpus=4-7 root=0000:40$'
}

@test "its node is the kernel's numa_node" {
	run -0 rm-devices list --type nvme -o device,numa
	dev=$(field device)
	assert_equal "$(field numa)" "$(cat /sys/bus/pci/devices/$dev/numa_node)"
}
