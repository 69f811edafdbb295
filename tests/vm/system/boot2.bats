#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 2 of the system shape: the node, rebooted on its disk, comes back from its units alone.
load helper

@test "cloud-init finished without errors" {
	run cloud-init status --long
	assert_success
	assert_line "status: done"
}

@test "the package rmtools is installed" {
	run dpkg-query -W -f '${Status}' rmtools
	assert_output "install ok installed"
}

@test "the rmtools units ran at boot, none failed" {
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

@test "the kubelet stand-in started after the rmtools units and found the owners in place" {
	local done start
	for u in rmtools-hugepages rmtools-cpuset rmtools-storage; do
		done=$(systemctl show -P ExecMainExitTimestampMonotonic "$u.service")
		start=$(systemctl show -P ExecMainStartTimestampMonotonic kubelet.service)
		[ "$done" -gt 0 ] && [ "$start" -gt "$done" ]
	done
	run -0 cat /run/kubelet-start.txt
	assert_line "dataplane 4-5"
	assert_line "db 2-3"
}

@test "an edited cpuset.conf and apply: only the edited owner changes" {
	cp /etc/rmtools/cpuset.conf /tmp/cpuset.conf.orig
	sed -i 's/^owner db count=2 /owner db count=1 /' /etc/rmtools/cpuset.conf
	run -0 rm-cpuset apply -o cgroup,action
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=reserve name=- cpus=0-1 action=keep$'
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=owner name=dataplane cpus=4-5 action=keep$'
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=owner name=db cpus=2 action=reallocate$'
	assert_line "cgroup=dataplane action=keep"
	assert_line "cgroup=db action=update"
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/db/cpuset.cpus)" 2
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/dataplane/cpuset.cpus.partition)" isolated
}

@test "a bad cpuset.conf changes nothing: exit 2 with FILE:LINE:COLUMN" {
	cp /var/lib/rmtools/cpuset.state /tmp/state.before
	echo "owner web count=two" >>/etc/rmtools/cpuset.conf
	run -2 rm-cpuset apply
	assert_output --regexp "^rm-cpuset: /etc/rmtools/cpuset.conf:[0-9]+:17: invalid count: 'two'"
	cmp /var/lib/rmtools/cpuset.state /tmp/state.before
	cp /tmp/cpuset.conf.orig /etc/rmtools/cpuset.conf
	run -0 rm-cpuset apply
	assert_line --regexp 'name=db cpus=2-3 action=reallocate$'
}
