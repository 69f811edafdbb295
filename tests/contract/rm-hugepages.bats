#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The command pipeline of rm-hugepages: bad input changes nothing (exit 2, one line), a lost report exits 4.
load ../test_helper
load helper
load ../rm-hugepages/helper

setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	make_tree "$ROOT" 0:4G 1:4G
	export RM_SYSROOT=$ROOT RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	# a v1 hugetlb hierarchy of plain directories with owner web's cgroup
	CG=$BATS_TEST_TMPDIR/cg/hugetlb/rmtools/web
	hugetlb_web "$CG"
	: >"$CG/cgroup.procs"
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	CONF=$BATS_TEST_TMPDIR/hugepages.conf
	printf '%s\n' '2M node=0 count=4' 'overcommit 2M 8' 'limit web 2M 16' >"$CONF"
	BADCONF=$BATS_TEST_TMPDIR/bad.conf
	printf '%s\n' '2M node=0 count=4' '2M node=0 count=x' >"$BADCONF"
	MNT=$BATS_TEST_TMPDIR/mnt
}

# The bytes of the pool files, the cgroup tree and the state, as one hash.
snapshot() {
	{
		tree_sum "$ROOT"
		tree_sum "$RM_CGROUP_ROOT"
		[ ! -d "$RM_STATE_DIR" ] || tree_sum "$RM_STATE_DIR"
	} | md5sum
}

# Every command that changes something, with bad input: the arguments of rm-hugepages, as the
# shell splits them ('' is an empty argument).
BAD_INPUTS=(
	"reserve 2M 4 -o bogus"
	"reserve 2M 4 -o +bogus"
	"reserve 2M 4 -o size,size"
	"reserve 2M 4 -o ''"
	"reserve 2M 4 -o size,"
	"reserve 2M 4 -J -t"
	"reserve 2M 4 -r -J"
	"reserve 2M 4 --list-columns -o size"
	"reserve 2M 4 --dry-run -o bogus"
	"reserve 3M 4"
	"reserve 2M x"
	"reserve 2M -1"
	"reserve 2M 4 --node 7"
	"reserve 2M 4 --node x"
	"reserve 2M"
	"reserve"
	"reserve 2M 4 extra"
	"reserve 2M 4 --bogus-option"
	"release 2M -o bogus"
	"release 2M -o +bogus"
	"release 2M -t -r"
	"release 2M --to 9"
	"release 3M"
	"release"
	"release 2M extra"
	"overcommit 2M 4 -o bogus"
	"overcommit 2M 4 -o +bogus"
	"overcommit 2M 4 -J -r"
	"overcommit 1G 4"
	"overcommit 2M x"
	"overcommit 2M"
	"overcommit 2M 4 extra"
	"apply \$CONF -o bogus"
	"apply \$CONF -o +bogus"
	"apply \$CONF -J -t"
	"apply \$BADCONF"
	"apply \$BATS_TEST_TMPDIR/nosuch.conf"
	"apply \$CONF extra"
	"limit web 2M 16 -o bogus"
	"limit web 2M 16 -o +bogus"
	"limit web 2M 16 -J -r"
	"limit ../x 2M 16"
	"limit shared 2M 16"
	"limit web 4M 16"
	"limit web 2M +1"
	"limit web 2M 3MiB"
	"limit web 2M"
	"limit web 2M 16 --remove"
	"limit web --remove -o bogus"
	"limit web 2M 16 extra"
	"mount \$MNT --size 2M -o bogus"
	"mount \$MNT --size 2M -J -t"
	"mount relative --size 2M"
	"mount \$MNT"
	"mount \$MNT --size 3M"
	"mount \$MNT --size 2M --mode 9"
	"mount \$MNT --size 2M --max-size 3MiB"
	"umount \$MNT -o bogus"
	"umount relative"
	"umount"
	"plan"
	"plan 3M:1"
	"plan 2M:x"
	"plan 2M:1 -o size"
	"export"
	"export systemd"
	"export kubelet extra"
)

@test "bad input to every changing command: exit 2, one line, pools, cgroups and state unchanged" {
	run -0 rm-hugepages reserve 2M 2 --node 1
	check_bad_inputs rm-hugepages rm-hugepages
	[ ! -e "$MNT" ]
}

@test "reserve and release with stdout closed or full: exit 4, the pools set once" {
	report_lost '>&-' "reserved 2MiB pages (node 0: 4)" rm-hugepages reserve 2M 4 --node 0
	assert_equal "$(count "$ROOT" 2048 0) $(count "$ROOT" 2048 1)" "4 0"
	# a relative count: added once
	report_lost '>/dev/full' "reserved 2MiB pages (node 1: 2)" rm-hugepages reserve 2M +2 --node 1
	assert_equal "$(count "$ROOT" 2048 0) $(count "$ROOT" 2048 1)" "4 2"
	report_lost '>/dev/full' "released 2MiB pages (node 0: 0, node 1: 0)" rm-hugepages release 2M
	assert_equal "$(count "$ROOT" 2048 0) $(count "$ROOT" 2048 1)" "0 0"
	# nothing to change: no change to report, a plain write error
	run -1 --separate-stderr redirected '>/dev/full' rm-hugepages release 2M
	assert_equal "$stderr" "rm-hugepages: write error: No space left on device"
}

@test "overcommit, limit and apply with stdout closed or full: exit 4, the change made once" {
	local f=$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	report_lost '>&-' "set the overcommit of 2MiB pages to 8" rm-hugepages overcommit 2M 8
	assert_equal "$(cat "$f")" 8
	report_lost '>/dev/full' "set the overcommit of 2MiB pages to 12" rm-hugepages overcommit 2M +4
	assert_equal "$(cat "$f")" 12
	report_lost '>/dev/full' "set the 2MiB hugetlb limit of owner 'web' to 1GiB" \
		rm-hugepages limit web 2M 512
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" 1073741824
	echo 0 >"$f"
	report_lost '>&-' "applied $CONF" rm-hugepages apply "$CONF"
	assert_equal "$(count "$ROOT" 2048 0) $(cat "$f")" "4 8"
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" $((16 << 21))
	# applied again: nothing left to change
	run -0 rm-hugepages apply "$CONF" -o node,total
	assert_line --index 0 'node=0 total=4'
}

@test "root: mount with stdout full: exit 4, the mount stands; umount likewise" {
	require_machine
	test_mount "$MNT"
	report_lost '>/dev/full' "mounted hugetlbfs on $MNT" rm-hugepages mount "$MNT" --size 2M
	run -0 findmnt -n -o FSTYPE "$MNT"
	assert_output hugetlbfs
	report_lost '>&-' "unmounted the hugetlbfs at $MNT" rm-hugepages umount "$MNT"
	run -1 findmnt -n "$MNT"
}

teardown() {
	restore_machine
}
