#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages limits in the cgroup v1 hugetlb hierarchy.
load helper

teardown() {
	rm-hugepages limit db 2M --remove >/dev/null 2>&1 || true
	rmdir /sys/fs/cgroup/hugetlb/rmtools/db /sys/fs/cgroup/hugetlb/rmtools 2>/dev/null || true
}

@test "limit writes the v1 hugetlb limit the kernel reads back" {
	run -0 rm-hugepages limit db 2M 64MiB
	assert_equal "$(cat /sys/fs/cgroup/hugetlb/rmtools/db/hugetlb.2MB.limit_in_bytes)" 67108864
}
