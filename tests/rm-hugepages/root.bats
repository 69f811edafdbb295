#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages on this machine, as root: real 2 MiB pages, hugetlbfs mounts, hugetlb cgroup
# limits, apply with its rollback. Teardown puts the pools back to their counts before the test
# and removes the test's mounts and cgroups, whether the test passed or not.
load ../test_helper
load helper

setup() {
	require_machine
	unset RM_SYSROOT RM_CGROUP_ROOT
	MNT=$BATS_TEST_TMPDIR/mnt
}

teardown() {
	restore_machine
}

meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

@test "root: reserve 2 MiB pages, read them back in sysfs and /proc/meminfo, release" {
	local before
	before=$(machine_count 2048)
	run -0 rm-hugepages reserve 2M $((before + 64)) --node 0 -o size,node,total,persistent
	assert_output "size=2MiB node=0 total=$((before + 64)) persistent=$((before + 64))"
	assert_equal "$(machine_count 2048)" $((before + 64))
	assert_equal "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" $((before + 64))
	if [ "$(meminfo Hugepagesize)" = 2048 ]; then
		assert_equal "$(meminfo HugePages_Total)" $((before + 64))
	fi
	run -0 rm-hugepages show -o size,node,total
	assert_line "size=2MiB node=0 total=$((before + 64))"
	run -0 rm-hugepages reserve 2M +16 -o total
	assert_output "total=$((before + 80))"
	run -0 rm-hugepages release 2M --to "$before" -o total
	assert_output "total=$before"
	assert_equal "$(machine_count 2048)" "$before"
}

@test "root: more than the memory can hold exits 3 with nothing changed" {
	local before total pages
	before=$(cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages | paste -sd ' ')
	total=$(meminfo MemTotal)
	pages=$((total / 2048 + 1024))
	run -3 --separate-stderr rm-hugepages reserve 2M "$pages"
	[[ $stderr == "rm-hugepages: not enough memory on node "*"; nothing changed" ]]
	if [ -d /sys/kernel/mm/hugepages/hugepages-1048576kB ]; then
		run -3 --separate-stderr rm-hugepages reserve 1G $((total / 1048576 + 2)) --node 0
	else # a machine without 1 GiB pages (no pdpe1gb): refused before anything is tried
		run -2 --separate-stderr rm-hugepages reserve 1G 1 --node 0
	fi
	assert_equal "$(cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages | paste -sd ' ')" "$before"
}

@test "root: mount a hugetlbfs, map a file in it, refuse another mount, unmount" {
	local before
	before=$(machine_count 2048)
	test_mount "$MNT"
	run -0 rm-hugepages reserve 2M $((before + 4)) --node 0
	run -0 rm-hugepages mount "$MNT" --size 2M --mode 0770 --gid 0 --max-size 8MiB
	assert_output "mount=$MNT size=2MiB uid=0 gid=0 mode=0770 max_size=8MiB"
	run -0 findmnt -n -o FSTYPE,OPTIONS "$MNT"
	assert_output --regexp '^hugetlbfs .*pagesize=2M'
	assert_equal "$(stat -c %a "$MNT")" 770
	# the same mount again is left as it is; another one is refused
	run -0 rm-hugepages mount "$MNT" --size 2M --mode 0770 --gid 0 --max-size 8MiB -o mount
	assert_output "mount=$MNT"
	run -2 --separate-stderr rm-hugepages mount "$MNT" --size 2M --max-size 16MiB
	[[ $stderr == "rm-hugepages: already a hugetlbfs mount with other options ("*"): '$MNT'" ]]
	run -2 --separate-stderr rm-hugepages mount /proc --size 2M
	assert_equal "$stderr" "rm-hugepages: already a mount point (proc): '/proc'"
	# a job maps two pages; the third is beyond size=
	run -0 "$HP_UNIT" map "$MNT/job" $((4 << 20))
	assert_output "mapped $((4 << 20))"
	rm "$MNT/job"
	run -1 "$HP_UNIT" map "$MNT/big" $((10 << 20))
	rm -f "$MNT/big"
	run -0 rm-hugepages show -o size
	assert_line --regexp "^mount=$MNT size=2MiB "
	run -0 rm-hugepages umount "$MNT" -o mount,size
	assert_output "mount=$MNT size=2MiB"
	run -32 mountpoint -q "$MNT"
	run -2 --separate-stderr rm-hugepages umount "$MNT"
	assert_equal "$stderr" "rm-hugepages: not a hugetlbfs mount: '$MNT'"
}

@test "root: set and read a hugetlb cgroup limit; a job in it cannot take more" {
	local owner=rmtest$$ before dir
	require_unified_hugetlb
	test_cgroup "$owner"
	test_mount "$MNT"
	before=$(machine_count 2048)
	run -0 rm-hugepages reserve 2M $((before + 8)) --node 0
	run -0 rm-hugepages mount "$MNT" --size 2M
	run -0 rm-hugepages limit "$owner" 2M 2
	dir=/sys/fs/cgroup/unified/rmtools.slice/$owner
	assert_output "owner=$owner size=2MiB limit=4MiB rsvd_limit=4MiB usage=0B rsvd_usage=0B cgroup=$dir"
	assert_equal "$(cat "$dir/hugetlb.2MB.max")" 4194304
	[ ! -e "$dir/hugetlb.2MB.rsvd.max" ] || assert_equal "$(cat "$dir/hugetlb.2MB.rsvd.max")" 4194304
	run -0 rm-hugepages limit "$owner" -o size,limit -r
	assert_line '2MiB 4MiB'
	# a process that joins the owner's cgroup (as rm-cpuset run does) gets two pages, not three
	run -0 "$HP_UNIT" attach "$owner" "$HP_UNIT" map "$MNT/ok" $((4 << 20))
	rm -f "$MNT/ok"
	run "$HP_UNIT" attach "$owner" "$HP_UNIT" map "$MNT/over" $((6 << 20))
	[ "$status" -ne 0 ]
	rm -f "$MNT/over"
	run -0 "$HP_UNIT" map "$MNT/outside" $((6 << 20))
	rm -f "$MNT/outside"
	run -0 rm-hugepages limit "$owner" --remove
	[ ! -e "$dir" ]
	[ ! -e /sys/fs/cgroup/unified/rmtools.slice ]
}

@test "root: apply mounts and reserves; a mount that fails undoes the pages and mounts" {
	local before conf=$BATS_TEST_TMPDIR/hugepages.conf
	before=$(machine_count 2048)
	test_mount "$MNT"
	printf '2M node=0 count=%d\nmount %s size=2M mode=0750\n' $((before + 8)) "$MNT" >"$conf"
	run -0 rm-hugepages apply "$conf" -o size,node,total
	assert_output "$(printf '%s\n' "size=2MiB node=0 total=$((before + 8))" \
		"mount=$MNT size=2MiB uid=0 gid=0 mode=0750 max_size=max")"
	assert_equal "$(machine_count 2048)" $((before + 8))
	run -0 rm-hugepages umount "$MNT"
	# the second mount's directory cannot be made (/proc): everything goes back
	printf '2M node=0 count=%d\nmount %s size=2M\nmount /proc/rmtools-test size=2M\n' \
		$((before + 16)) "$MNT" >"$conf"
	run -1 --separate-stderr rm-hugepages apply "$conf"
	[[ $stderr == "rm-hugepages: $conf:3: cannot create /proc/rmtools-test: "*"; everything done is undone" ]]
	assert_equal "$(machine_count 2048)" $((before + 8))
	run -32 mountpoint -q "$MNT"
}
