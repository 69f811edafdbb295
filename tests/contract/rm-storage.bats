#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The command pipeline of rm-storage: bad input changes nothing (exit 2, one line), a lost report
# exits 4 with the change made once.
load ../test_helper
load helper
load ../cgroup_helper

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	STATE=$RM_STATE_DIR/storage.state
	io_tree
	local root=$BATS_TEST_TMPDIR/cg
	export RM_CGROUP_ROOT=$root
	# a disk of this machine (sysfs lists loop devices even when none is attached)
	DISK=$(ls /sys/class/block | grep -v '[0-9]p[0-9]' | head -n 1)
	DIR=$BATS_TEST_TMPDIR/dir
	mkdir -p "$DIR"
}

# The bytes of the state and of the cgroup tree, as one hash.
snapshot() {
	{
		if [ -e "$STATE" ]; then cat "$STATE"; else echo "no state"; fi
		dump_tree "$RM_CGROUP_ROOT"
	} | md5sum
}

# Every command that changes something, with bad input: the arguments of rm-storage, as the
# shell splits them ('' is an empty argument).
BAD_INPUTS=(
	"limit web \$DISK --write-bps 1M -o bogus"
	"limit web \$DISK --write-bps 1M -o +bogus"
	"limit web \$DISK --write-bps 1M -o limit,limit"
	"limit web \$DISK --write-bps 1M -o ''"
	"limit web \$DISK --write-bps 1M -J -t"
	"limit web \$DISK --write-bps 1M --list-columns -o limit"
	"limit web \$DISK"
	"limit web \$DISK --write-bps 2X"
	"limit web \$DISK --write-bps 0"
	"limit web \$DISK --read-iops -5"
	"limit web \$DISK --weight 20000"
	"limit web nosuchdisk --write-bps 1M"
	"limit web ../sda --write-bps 1M"
	"limit ../x \$DISK --write-bps 1M"
	"limit '' \$DISK --write-bps 1M"
	"limit shared \$DISK --write-bps 1M"
	"limit web"
	"limit web \$DISK --write-bps 1M extra"
	"limit web \$DISK --bogus-option"
	"release"
	"release nosuch"
	"release web -o bogus"
	"release web -J -t"
	"release --all web"
	"apply -o bogus"
	"apply -J -t"
	"apply extra"
	"gc -o bogus"
	"gc -J -r"
	"gc extra"
	"quota"
	"quota \$DIR"
	"quota \$DIR 2X"
	"quota \$DIR 0"
	"quota \$DIR 4M extra"
	"quota \$DIR 4M --inodes x"
	"quota \$DIR 4M --owner ../x"
	"quota \$DIR 4M -o bogus"
	"quota /nonexistent 4M"
)

@test "bad input to every changing command: exit 2, one line, the state and the cgroups unchanged" {
	run -0 rm-storage limit web "$DISK" --write-bps 4M
	check_bad_inputs rm-storage rm-storage
}

@test "limit and apply with stdout closed or full: exit 4, the limits set once" {
	local devno
	devno=$(cat "/sys/class/block/$DISK/dev")
	report_lost '>/dev/full' "set the I/O limits of owner 'web' on disk '$DISK'" \
		rm-storage limit web "$DISK" --write-bps 2M
	report_lost '>&-' "set the I/O limits of owner 'web' on disk '$DISK'" \
		rm-storage limit web "$DISK" --read-iops 500
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$devno rbps=max wbps=2097152 riops=500 wiops=max"
	run -0 grep -c '^limit=web ' "$STATE"
	assert_output 1
	: >"$RM_CGROUP_ROOT/rmtools.slice/web/io.max"
	report_lost '>/dev/full' "set the recorded I/O limits" rm-storage apply
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$devno rbps=max wbps=2097152 riops=500 wiops=max"
	run -0 grep -c '^limit=web ' "$STATE"
	assert_output 1
}

@test "release with stdout full: exit 4, the limits lifted once; again it is bad input" {
	local devno
	devno=$(cat "/sys/class/block/$DISK/dev")
	run -0 rm-storage limit web "$DISK" --write-bps 2M
	run -4 --separate-stderr redirected '>/dev/full' rm-storage release web
	# (a line notes that the fake tree's directory, holding files, stays)
	assert_equal "${stderr_lines[-1]}" \
		"rm-storage: released 'web' stands, but its report could not be written: No space left on device"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$devno rbps=max wbps=max riops=max wiops=max"
	run -1 grep '^limit=web ' "$STATE"
	run -2 --separate-stderr rm-storage release web
	assert_equal "$stderr" "rm-storage: no limits or quotas of that owner: 'web'"
}
