#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices grant on a real kernel's cgroup v1 devices controller (v1-6.1: v1 controllers, v2 at
# unified/): the owner's devices cgroup lets its processes open the owner's device nodes and
# the basic ones (/dev/null and its kin), and denies every other node.
load helper

CG=/sys/fs/cgroup/devices/rmtools

teardown() {
	rm-devices release nvme-owner >/dev/null 2>&1 || true
}

@test "grant on v1: the owner's NVMe controller's nodes and the basic ones open in its devices cgroup, other nodes do not; release removes the cgroup" {
	local nodes
	[ -f /sys/fs/cgroup/devices/devices.allow ] || fail "no v1 devices hierarchy in this shape"
	run -0 rm-devices alloc --type nvme --count 1 --owner nvme-owner -o dev_nodes -r
	nodes=$output
	[[ $nodes == /dev/nvme* ]] || fail "dev_nodes: $nodes"
	run -0 rm-devices grant nvme-owner --deny-others -o devnode,cgroup -r
	assert_line "${nodes%%,*} $CG/nvme-owner"
	assert_line "/dev/null $CG/nvme-owner"
	run -0 cat "$CG/nvme-owner/devices.list"
	refute_line 'a *:* rwm'
	# in the cgroup: the owner's nodes and /dev/null open, /dev/kmsg (1:11) does not
	# (true, not the special built-in ":", whose redirection error ends sh)
	run sh -c "echo \$\$ >$CG/nvme-owner/cgroup.procs || exit 3
		for n in ${nodes//,/ }; do true <\$n || exit 1; done
		true </dev/null || exit 1
		! true 2>/dev/null </dev/kmsg || exit 2"
	assert_success
	# outside it /dev/kmsg opens
	run -0 sh -c 'true </dev/kmsg'
	run -0 rm-devices release nvme-owner
	[ ! -e "$CG/nvme-owner" ]
}
