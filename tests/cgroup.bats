#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The cgroup module: real v1 cpusets (root), a FUSE fake of cgroup v2, and finding the hierarchy.
load test_helper
load cgroup_helper

V1ROOT=$V1_CPUSET
V1=$V1_PARENT

setup() {
	tc="$RM_BUILDDIR/tests/unit/test-cgroup"
}

teardown() {
	sleeps_cleanup
	fakes_cleanup
	v1_cpuset_cleanup
}

# ---- real cgroup v1 ----

# Root, the v1 cpuset hierarchy, no cpuset in the unified one, and no rmtools parent already
# (someone else's: not ours to touch). Sets ALL, FIRST, LAST (CPUs) and MEM (a node).
require_v1() {
	require_v1_cpuset
	export RM_CGROUP_ROOT=/sys/fs/cgroup
	run -0 "$tc" info
	[[ $output == "version=1 "* ]] || fail "expected the v1 hierarchy: $output"
	ALL=$(cat "$V1ROOT/cpuset.effective_cpus")
	FIRST=${ALL%%[-,]*}
	LAST=${ALL##*[-,]}
	MEM=$(cat "$V1ROOT/cpuset.effective_mems")
	MEM=${MEM%%[-,]*}
	[ "$FIRST" != "$LAST" ] || skip "needs two CPUs"
}

# Each cgroup under the parent with its sets and processes.
dump_v1() {
	local d
	find "$V1" -type d | sort | while read -r d; do
		echo "$d cpus=$(cat "$d/cpuset.cpus") mems=$(cat "$d/cpuset.mems")" \
			"procs=$(tr '\n' ' ' < "$d/cgroup.procs")"
	done
}

@test "cgroup v1: the parent and children get their sets and a process follows its cgroup's CPUs" {
	require_v1
	# a CPU the root lacks is refused before anything is made
	run -1 "$tc" sync shared="$ALL/$MEM" web="$FIRST,999/$MEM"
	assert_output "test-cgroup: cgroup 'web' wants CPUs the cgroup root lacks (it has $ALL): '999'"
	[ ! -e "$V1" ]

	run -0 "$tc" sync shared="$ALL/$MEM" web="$LAST/$MEM"
	[ "$(cat "$V1/cpuset.cpus")" = "$ALL" ]
	[ "$(cat "$V1/cpuset.mems")" = "$(cat "$V1ROOT/cpuset.effective_mems")" ]
	[ "$(cat "$V1/web/cpuset.cpus")" = "$LAST" ]
	[ "$(cat "$V1/web/cpuset.mems")" = "$MEM" ]
	run -0 "$tc" children
	assert_output $'shared\nweb'
	run -0 "$tc" read web
	assert_output "cgroup=web cpus=$LAST mems=$MEM isolated=no"

	start_sleep
	run -0 "$tc" attach web "$pid"
	run -0 grep Cpus_allowed_list: "/proc/$pid/status"
	assert_output "Cpus_allowed_list:	$LAST"
	run -0 grep :cpuset: "/proc/$pid/cgroup"
	assert_output --regexp ':cpuset:/rmtools/web$'

	run -0 "$tc" sync shared="$ALL/$MEM" web="$FIRST/$MEM"
	run -0 grep Cpus_allowed_list: "/proc/$pid/status"
	assert_output "Cpus_allowed_list:	$FIRST"

	# isolate needs v2 partitions
	run -1 "$tc" sync shared="$ALL/$MEM" web="$FIRST/$MEM/isolate"
	assert_output --partial "test-cgroup: --isolate needs cgroup v2 cpuset partitions (this machine uses the v1 cpuset controller"
}

@test "cgroup v1: a removed owner's process lands in shared, then everything goes" {
	require_v1
	run -0 "$tc" sync shared="$ALL/$MEM" web="$LAST/$MEM"
	start_sleep
	run -0 "$tc" attach web "$pid"
	run -0 "$tc" sync shared="$ALL/$MEM"
	[ ! -e "$V1/web" ]
	run -0 grep :cpuset: "/proc/$pid/cgroup"
	assert_output --regexp ':cpuset:/rmtools/shared$'
	run -0 grep Cpus_allowed_list: "/proc/$pid/status"
	assert_output "Cpus_allowed_list:	$ALL"

	# shared cannot go while it holds a process: nothing else would take it
	run -1 "$tc" sync
	assert_output "test-cgroup: cannot remove $V1/shared: it holds processes and no 'shared' child is wanted to take them"
	[ -d "$V1/shared" ]
	run -0 "$tc" remove-parent
	[ -d "$V1" ]

	kill "$pid"
	wait "$pid" || true
	run -0 "$tc" sync
	run -0 "$tc" children
	assert_output ''
	run -0 "$tc" remove-parent
	[ ! -e "$V1" ]
}

@test "cgroup v1: a failure after changes were made undoes them all, processes included" {
	require_v1
	run -0 "$tc" sync shared="$ALL/$MEM" web="$FIRST/$MEM"
	# a cgroup that cannot be removed (it has a child), holding a process
	mkdir "$V1/old" "$V1/old/nested"
	echo "$LAST" > "$V1/old/cpuset.cpus"
	echo "$MEM" > "$V1/old/cpuset.mems"
	start_sleep
	echo "$pid" > "$V1/old/cgroup.procs"
	dump_v1 > "$BATS_TEST_TMPDIR/before"

	run -1 "$tc" sync shared="$FIRST/$MEM" web="$LAST/$MEM" new="$LAST/$MEM"
	assert_output "test-cgroup: cannot remove $V1/old: Device or resource busy"
	dump_v1 > "$BATS_TEST_TMPDIR/after"
	run diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	run -0 grep :cpuset: "/proc/$pid/cgroup"
	assert_output --regexp ':cpuset:/rmtools/old$'
}

# ---- the FUSE fake of cgroup v2 ----

# start_v2 [options]: a fake with 16 CPUs and 2 nodes as RM_CGROUP_ROOT ($R).
start_v2() {
	R=$BATS_TEST_TMPDIR/cg
	start_fake "$R" --cpus 0-15 --mems 0-1 "$@"
	export RM_CGROUP_ROOT=$R
}


# unchanged_since FILE: the tree is as dumped to FILE.
unchanged_since() {
	dump_tree "$R" > "$BATS_TEST_TMPDIR/after"
	run diff -u "$1" "$BATS_TEST_TMPDIR/after"
	assert_success
}

@test "cgroup v2 (fake): the parent enables cpuset at the root and in itself; children get their sets" {
	require_fuse
	start_v2
	echo +cpu > "$R/cgroup.subtree_control"
	run -0 "$tc" info
	assert_output "version=2 mount=$R parent=$R/rmtools.slice cpus=0-15 mems=0-1 partitions=yes"

	run -0 "$tc" sync shared=0-7/0 web=8-11/1 db=12-15/0-1
	run -0 cat "$R/cgroup.subtree_control" "$R/rmtools.slice/cgroup.subtree_control"
	assert_output $'cpuset cpu\ncpuset'
	run -0 cat "$R/rmtools.slice/web/cpuset.cpus" "$R/rmtools.slice/web/cpuset.mems" \
		"$R/rmtools.slice/web/cpuset.cpus.effective"
	assert_output $'8-11\n1\n8-11'
	run -0 "$tc" children
	assert_output $'db\nshared\nweb'
	run -0 "$tc" read db
	assert_output "cgroup=db cpus=12-15 mems=0-1 isolated=no"
	run -3 "$tc" read nosuch

	# update one, drop another; a process follows
	run -0 "$tc" attach web 4242
	run -0 "$tc" sync shared=0-7/0 web=8-9/0-1
	run -0 "$tc" children
	assert_output $'shared\nweb'
	run -0 cat "$R/rmtools.slice/web/cpuset.cpus" "$R/rmtools.slice/web/cpuset.mems" \
		"$R/rmtools.slice/web/cgroup.procs"
	assert_output $'8-9\n0-1\n4242'
	run -1 "$tc" attach nosuch 4242
	assert_output "test-cgroup: no such cgroup: '$R/rmtools.slice/nosuch'"

	# the parent stays while it has children, and goes when they are gone
	run -0 "$tc" remove-parent
	[ -d "$R/rmtools.slice" ]
	echo 4242 > "$R/cgroup.procs"
	run -0 "$tc" sync
	run -0 "$tc" remove-parent
	[ ! -e "$R/rmtools.slice" ]
}

@test "cgroup v2 (fake): isolate makes a remote isolated partition; clearing it gives the CPUs back" {
	require_fuse
	start_v2
	run -0 "$tc" sync shared=0-7/0 rt=8-11/0/isolate
	P=$R/rmtools.slice
	run -0 cat "$P/rt/cpuset.cpus.partition" "$P/rt/cpuset.cpus.exclusive" \
		"$P/cpuset.cpus.exclusive" "$R/cpuset.cpus.isolated" "$R/cpuset.cpus.effective"
	assert_output $'isolated\n8-11\n8-11\n8-11\n0-7,12-15'
	run -0 "$tc" read rt
	assert_output "cgroup=rt cpus=8-11 mems=0 isolated=yes"
	# the partition's CPUs left the root's effective set, but are still ours to give
	run -0 "$tc" info
	assert_output --partial " cpus=0-15 "

	# the same wants again change nothing
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -0 "$tc" sync shared=0-7/0 rt=8-11/0/isolate
	unchanged_since "$BATS_TEST_TMPDIR/before"

	# move the partition, and add a second one
	run -0 "$tc" sync shared=0-3/0 rt=12-15/0/isolate rt2=4-5/1/isolate
	run -0 cat "$P/rt/cpuset.cpus.exclusive" "$P/rt2/cpuset.cpus.partition" \
		"$P/cpuset.cpus.exclusive" "$R/cpuset.cpus.isolated"
	assert_output $'12-15\nisolated\n4-5,12-15\n4-5,12-15'

	# clear one, remove the other
	run -0 "$tc" sync shared=0-3/0 rt=12-15/0
	run -0 cat "$P/rt/cpuset.cpus.partition" "$P/rt/cpuset.cpus.exclusive" \
		"$P/cpuset.cpus.exclusive" "$R/cpuset.cpus.isolated" "$R/cpuset.cpus.effective"
	assert_output $'member\n\n\n\n0-15'
	[ ! -e "$P/rt2" ]
}

@test "cgroup v2 (fake): a partition the kernel finds invalid fails with its reason, and nothing is left changed" {
	require_fuse
	start_v2
	# from a fresh tree: not even the parent or the root's +cpuset stay
	dump_tree "$R" > "$BATS_TEST_TMPDIR/fresh"
	run -1 "$tc" sync rt=0-15/0/isolate
	assert_output "test-cgroup: cannot make $R/rmtools.slice/rt an isolated partition: isolated invalid (Parent unable to distribute cpu downstream)"
	unchanged_since "$BATS_TEST_TMPDIR/fresh"
	[ ! -e "$R/rmtools.slice" ]

	# with children there already, one isolated: all their files are as before
	run -0 "$tc" sync shared=0-7/0 web=8/0 rt=12-13/0/isolate
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=0-1/0 web=2-3/1 db=4/0-1 rt=0-15/0/isolate
	assert_output --partial "rt an isolated partition: isolated invalid ("
	unchanged_since "$BATS_TEST_TMPDIR/before"
}

@test "cgroup v2 (fake): another cgroup's exclusive CPUs make the parent's write fail; nothing is left changed" {
	require_fuse
	start_v2
	echo +cpuset > "$R/cgroup.subtree_control"
	mkdir "$R/other.slice"
	echo 8-11 > "$R/other.slice/cpuset.cpus.exclusive"
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=0-7/0 rt=8-9/0/isolate
	assert_output "test-cgroup: cannot write '8-9' to $R/rmtools.slice/cpuset.cpus.exclusive: Invalid argument"
	unchanged_since "$BATS_TEST_TMPDIR/before"
}

@test "cgroup v2 (fake): without partitions, isolate is refused before any write" {
	require_fuse
	start_v2 --no-partitions
	run -0 "$tc" info
	assert_output --partial " partitions=no"
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=0-7/0 rt=8/0/isolate
	assert_output --regexp '^test-cgroup: --isolate needs cgroup v2 cpuset partitions \(cpuset.cpus.partition with its "isolated" type, Linux 6.1 or later; this is Linux [^ ]+\)$'
	unchanged_since "$BATS_TEST_TMPDIR/before"
	# the rest works without them
	run -0 "$tc" sync shared=0-7/0 web=8/1
	[ "$(cat "$R/rmtools.slice/web/cpuset.cpus")" = 8 ]
}

@test "cgroup v2 (fake): isolated siblings side by side; the shared child shrinks first, and grows back last" {
	require_fuse
	start_v2
	P=$R/rmtools.slice
	run -0 "$tc" sync shared=0-15/0
	run -0 "$tc" sync shared=4-15/0 i1=0-3/0/isolate
	run -0 "$tc" sync shared=8-15/0 i1=0-3/0/isolate i2=4-7/0/isolate
	run -0 cat "$P/i1/cpuset.cpus.partition" "$P/i2/cpuset.cpus.partition" "$P/shared/cpuset.cpus" \
		"$R/cpuset.cpus.isolated"
	assert_output $'isolated\nisolated\n8-15\n0-7'
	# the kernel refuses a sibling's overlap with a partition
	run ! sh -c "echo 0-15 > '$P/shared/cpuset.cpus'"
	# i1 goes and i3 takes its CPUs in one sync
	run -0 "$tc" sync shared=8-15/0 i2=4-7/0/isolate i3=0-1/1/isolate
	run -0 cat "$P/i2/cpuset.cpus.partition" "$P/i3/cpuset.cpus.partition" "$R/cpuset.cpus.isolated"
	assert_output $'isolated\nisolated\n0-1,4-7'
	[ ! -e "$P/i1" ]
	run -0 "$tc" sync shared=0-15/0
	run -0 cat "$R/cpuset.cpus.isolated" "$R/cpuset.cpus.effective" "$P/cpuset.cpus.exclusive"
	assert_output $'\n0-15'
}

@test "cgroup v2 (fake, 6.1): the parent becomes a root partition keeping the system's CPUs; released, a member again" {
	require_fuse
	start_v2 --no-exclusive
	P=$R/rmtools.slice
	run -0 "$tc" sync shared=0-15/0
	run -0 "$tc" info
	assert_output --partial " partitions=root"
	[ ! -e "$P/cpuset.cpus.exclusive" ]
	# nothing kept for the system: refused before any write
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=4-15/0 i1=0-3/0/isolate
	assert_output --partial "makes rmtools.slice a root cpuset partition, which takes its CPUs from every process outside it"
	unchanged_since "$BATS_TEST_TMPDIR/before"

	run -0 "$tc" sync shared=4-15/0/keep:15 i1=0-3/0/isolate
	run -0 cat "$P/cpuset.cpus.partition" "$P/cpuset.cpus" "$P/i1/cpuset.cpus.partition" \
		"$P/i1/cpuset.cpus.effective" "$P/shared/cpuset.cpus.effective" "$R/cpuset.cpus.effective"
	assert_output $'root\n0-14\nisolated\n0-3\n4-14\n15'
	run -0 "$tc" info
	assert_output --partial " cpus=0-15 "
	# a second one, the same again, then the first released
	run -0 "$tc" sync shared=8-15/0/keep:15 i1=0-3/0/isolate i2=4-7/1/isolate
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -0 "$tc" sync shared=8-15/0/keep:15 i1=0-3/0/isolate i2=4-7/1/isolate
	unchanged_since "$BATS_TEST_TMPDIR/before"
	run -0 cat "$P/i1/cpuset.cpus.partition" "$P/i2/cpuset.cpus.partition" "$P/shared/cpuset.cpus"
	assert_output $'isolated\nisolated\n8-15'
	run -0 "$tc" sync shared=0-3,8-15/0/keep:15 i2=4-7/1/isolate
	run -0 cat "$P/i2/cpuset.cpus.partition" "$P/shared/cpuset.cpus.effective"
	assert_output $'isolated\n0-3,8-14'
	run -1 "$tc" sync shared=0-3,8-15/0/keep:15 i2=4-7/1/isolate i4=15/0/isolate
	assert_output "test-cgroup: cgroup 'i4' cannot be isolated on CPUs the rest of the system keeps"
	# a failure on the way puts everything back: with processes in shared, the parent must keep
	# CPUs for it
	run -0 "$tc" attach shared 4242
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=0-3,8-15/0/keep:0-3,8-15 i2=4-7/1/isolate
	assert_output "test-cgroup: cannot make $P/i2 an isolated partition: isolated invalid (Parent unable to distribute cpu downstream)"
	unchanged_since "$BATS_TEST_TMPDIR/before"
	echo 4242 > "$R/cgroup.procs"
	# the last one released: the parent is a member with no CPUs of its own again
	run -0 "$tc" sync shared=0-15/0/keep:15
	run -0 cat "$P/cpuset.cpus.partition" "$P/cpuset.cpus" "$R/cpuset.cpus.effective"
	assert_output $'member\n\n0-15'
	[ ! -e "$P/i2" ]
}

@test "cgroup v2 (fake, 6.1): a sibling of the parent holding its CPUs fails the root partition; nothing is left changed" {
	require_fuse
	start_v2 --no-exclusive
	P=$R/rmtools.slice
	run -0 "$tc" sync shared=0-15/0
	mkdir "$R/other.slice"
	echo 4-5 > "$R/other.slice/cpuset.cpus"
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=4-15/0/keep:15 i1=0-1/0/isolate
	assert_output "test-cgroup: cannot make $P a root partition: root invalid (Cpu list in cpuset.cpus not exclusive)"
	unchanged_since "$BATS_TEST_TMPDIR/before"
}

@test "cgroup v2 (fake): a removed child's processes go to shared; a later failure puts them back" {
	require_fuse
	start_v2
	run -0 "$tc" sync shared=0-7/0 web=8-11/0 old=12-15/1
	P=$R/rmtools.slice
	echo 101 > "$P/old/cgroup.procs"
	echo 102 > "$P/old/cgroup.procs"
	mkdir "$P/old/nested" # rmdir will fail: EBUSY
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync shared=0-3/0 web=4-11/0-1 new=12/1
	assert_output "test-cgroup: cannot remove $P/old: Device or resource busy"
	unchanged_since "$BATS_TEST_TMPDIR/before"

	rmdir "$P/old/nested"
	run -0 "$tc" sync shared=0-3/0 web=4-11/0-1 new=12/1
	run -0 "$tc" children
	assert_output $'new\nshared\nweb'
	run -0 cat "$P/shared/cgroup.procs"
	assert_output $'101\n102'
	# without shared wanted, a child holding processes cannot go, and nothing is written
	echo 103 > "$P/web/cgroup.procs"
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync new=12/1
	assert_output --partial "cannot remove $P/"
	unchanged_since "$BATS_TEST_TMPDIR/before"
}

@test "cgroup v2 (fake): sets outside the root's, bad names and duplicates are refused before any write" {
	require_fuse
	start_v2
	dump_tree "$R" > "$BATS_TEST_TMPDIR/before"
	run -1 "$tc" sync web=8-17/0
	assert_output "test-cgroup: cgroup 'web' wants CPUs the cgroup root lacks (it has 0-15): '16-17'"
	run -1 "$tc" sync web=8/0-2
	assert_output "test-cgroup: cgroup 'web' wants nodes the cgroup root lacks (it has 0-1): '2'"
	run -1 "$tc" sync ../x=8/0
	assert_output "test-cgroup: invalid cgroup name: '../x'"
	run -1 "$tc" sync web=8/0 web=9/0
	assert_output "test-cgroup: cgroup named twice: 'web'"
	unchanged_since "$BATS_TEST_TMPDIR/before"
}

# ---- finding the hierarchy ----

@test "cgroup: no cpuset controller (unified without it, no v1) is a clear error" {
	require_fuse
	start_v2 --no-cpuset
	run -1 "$tc" info
	assert_output "test-cgroup: no cpuset cgroup controller is mounted (v1 cpuset or the unified hierarchy's cpuset): '$R'"
	run -1 "$tc" sync web=0/0
	assert_output --partial "no cpuset cgroup controller is mounted"
}

@test "cgroup: hybrid: the unified hierarchy's cpuset is preferred over v1, which is used without it" {
	require_fuse
	R=$BATS_TEST_TMPDIR/hybrid
	mkdir -p "$R/cpuset"
	echo 0-3 > "$R/cpuset/cpuset.cpus"
	echo 0 > "$R/cpuset/cpuset.mems"
	start_fake "$R/unified" --cpus 0-7 --mems 0
	export RM_CGROUP_ROOT=$R
	run -0 "$tc" info
	assert_output "version=2 mount=$R/unified parent=$R/unified/rmtools.slice cpus=0-7 mems=0 partitions=yes"

	R2=$BATS_TEST_TMPDIR/hybrid2
	mkdir -p "$R2/cpuset"
	echo 0-3 > "$R2/cpuset/cpuset.cpus"
	echo 0 > "$R2/cpuset/cpuset.mems"
	start_fake "$R2/unified" --cpus 0-7 --mems 0 --no-cpuset
	export RM_CGROUP_ROOT=$R2
	run -0 "$tc" info
	assert_output "version=1 mount=$R2/cpuset parent=$R2/cpuset/rmtools cpus=0-3 mems=0 partitions=no"
}

@test "cgroup: a v1 layout is found in plain directories, effective sets first" {
	R=$BATS_TEST_TMPDIR/v1
	mkdir -p "$R/cpuset"
	echo 0-3 > "$R/cpuset/cpuset.cpus"
	echo 0-2 > "$R/cpuset/cpuset.effective_cpus"
	echo 0 > "$R/cpuset/cpuset.mems"
	export RM_CGROUP_ROOT=$R/
	run -0 "$tc" info
	assert_output "version=1 mount=$R/cpuset parent=$R/cpuset/rmtools cpus=0-2 mems=0 partitions=no"
	run -0 "$tc" children
	assert_output ''
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/empty
	mkdir "$RM_CGROUP_ROOT"
	run -1 "$tc" info
	assert_output "test-cgroup: no cpuset cgroup controller is mounted (v1 cpuset or the unified hierarchy's cpuset): '$RM_CGROUP_ROOT'"
}

@test "cgroup: on the live system libcgroup finds the hierarchy RM_CGROUP_ROOT=/sys/fs/cgroup names" {
	[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] || grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
		skip "no cpuset controller mounted under /sys/fs/cgroup"
	run -0 "$tc" info
	local live=$output
	RM_CGROUP_ROOT=/sys/fs/cgroup run -0 "$tc" info
	assert_equal "$live" "$output"
	assert_output --regexp '^version=[12] mount=/sys/fs/cgroup'
}
