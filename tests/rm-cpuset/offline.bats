#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset with CPUs taken offline and brought back: the same machine, degraded owners, cgroups.
load ../test_helper
load ../cgroup_helper

# x86-2s-smt: node 0 = CPUs 0-1,4-5, node 1 = 2-3,6-7; cores {0,4} {1,5} {2,6} {3,7}
SNAP=$SNAPSHOTS/x86-2s-smt

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	ROOT=$BATS_TEST_TMPDIR/root
	cp -r "$SNAP" "$ROOT"
	export RM_SYSROOT=$ROOT
}

teardown() {
	fakes_cleanup
}

# take_offline CPU: as the kernel does on x86 (echo 0 >cpuN/online): online=0, topology/ and
# cache/ gone, the CPU out of the online list and out of its node's cpumap and cpulist
take_offline() {
	local c=$ROOT/sys/devices/system/cpu n=$ROOT/sys/devices/system/node node
	rm -rf "$c/cpu$1/topology" "$c/cpu$1/cache"
	echo 0 >"$c/cpu$1/online"
	# node 0 holds CPU 5 in this snapshot; the test takes no other CPU offline
	[ "$1" = 5 ] || fail "take_offline knows CPU 5 only"
	echo 0-4,6-7 >"$c/online"
	echo 5 >"$c/offline"
	node=$n/node0
	echo 13 >"$node/cpumap"
	echo 0-1,4 >"$node/cpulist"
}

# bring_online CPU: the snapshot's files back
bring_online() {
	local c=$ROOT/sys/devices/system/cpu
	cp -r "$SNAP/sys/devices/system/cpu/cpu$1/." "$c/cpu$1/"
	cp "$SNAP/sys/devices/system/cpu/online" "$SNAP/sys/devices/system/cpu/offline" "$c/"
	cp "$SNAP/sys/devices/system/node/node0/cpumap" "$SNAP/sys/devices/system/node/node0/cpulist" \
		"$ROOT/sys/devices/system/node/node0/"
}

# db on core 0, web on core 1 (CPUs 1 and 5), made with every CPU online
two_owners() {
	run -0 rm-cpuset alloc --owner db --count 2 -r -o cpus
	assert_output 0,4
	run -0 rm-cpuset alloc --owner web --count 2 -r -o cpus
	assert_output 1,5
}

@test "offline CPU: read-only commands keep working and the owner holding it is degraded" {
	two_owners
	take_offline 5
	run -0 --separate-stderr rm-cpuset list -o owner,cpus,offline
	assert_output $'owner=db cpus=0,4 offline=""\nowner=web cpus=1,5 offline=5'
	assert_equal "$stderr" ""
	run -0 rm-cpuset list web -J -o owner,offline
	assert_output --partial '"offline": "5"'
	run -0 rm-cpuset list --list-columns
	assert_line --regexp '^column=offline '
	run -0 rm-cpuset show -o pool,cpus
	assert_line 'pool=shared cpus=2-3,6-7'
	assert_line 'pool=exclusive cpus=0-1,4-5'
	run -0 rm-cpuset reserve 2 --dry-run -r -o cpus
	assert_output 2
	run -0 rm-cpuset accept-topology --dry-run
	assert_output ''
}

@test "offline CPU: allocations never take it, the shared pool is the online rest" {
	run -0 rm-cpuset alloc --owner db --count 2 -r -o cpus
	assert_output 0,4
	take_offline 5
	# core 1 has CPU 1 online only: 2 whole cores are on node 1
	run -0 rm-cpuset alloc --owner x --count 3 --dry-run -r -o cpus
	[[ $output != *5* ]] || fail "offline CPU 5 handed out: $output"
	run -0 rm-cpuset alloc --owner x --count 1 -r -o cpus
	assert_output 1
	run -0 rm-cpuset show -o pool,cpus
	assert_line 'pool=shared cpus=2-3,6-7'
	# 4 online CPUs are left, one stays shared
	run -3 --separate-stderr rm-cpuset alloc --owner y --count 4
	[[ $stderr == *"requested 4, available 3"* ]] || fail "stderr: $stderr"
	run -2 --separate-stderr rm-cpuset reserve 5
	[[ $stderr == *"not an online CPU of this machine: '5'"* ]] || fail "stderr: $stderr"
	run -0 rm-cpuset alloc --owner y --count 2 --from 4-7 -r -o cpus
	assert_output 6-7
}

@test "offline CPU: changes for other owners keep working; the state is the same machine's" {
	two_owners
	take_offline 5
	run -0 rm-cpuset release db -r -o owner
	assert_output db
	run -0 grep '^topology=' "$RM_STATE_DIR/cpuset.state"
	assert_output --regexp '^topology=[0-9a-f]{8} cpus=0-7 nodes=0-1 online=0-4,6-7$'
	run -0 rm-cpuset alloc --owner db --count 2 -r -o cpus
	assert_output 0,4
	bring_online 5
	run -0 rm-cpuset list -o owner,cpus,offline
	assert_output $'owner=web cpus=1,5 offline=""\nowner=db cpus=0,4 offline=""'
	run -0 rm-cpuset alloc --owner z --count 2 -r -o cpus
	assert_output 2,6
	run -0 grep '^topology=' "$RM_STATE_DIR/cpuset.state"
	assert_output --regexp '^topology=[0-9a-f]{8} cpus=0-7 nodes=0-1 online=0-7$'
}

@test "offline CPU: a state written before the online field reads as made with all CPUs online" {
	two_owners
	# the state as an earlier rm-cpuset wrote it: no online field, its checksum redone
	sed -i 's/ online=0-7$//' "$RM_STATE_DIR/cpuset.state"
	sum=$(tail -n +2 "$RM_STATE_DIR/cpuset.state" |
		"$PY" -c 'import sys, zlib; print("%08x" % zlib.crc32(sys.stdin.buffer.read()))')
	sed -i "1s/checksum=[0-9a-f]*/checksum=$sum/" "$RM_STATE_DIR/cpuset.state"
	run -0 rm-cpuset list -r -o owner
	assert_output $'db\nweb'
	take_offline 5
	run -0 rm-cpuset list -o owner,offline
	assert_output $'owner=db offline=""\nowner=web offline=5'
}

@test "CPUs no longer present are still a changed machine: refused until accept-topology" {
	two_owners
	take_offline 5
	# CPU 7 removed (no longer present): a real change of the machine
	c=$ROOT/sys/devices/system/cpu
	rm -r "$c/cpu7"
	echo 0-6 >"$c/present"
	echo 0-4,6 >"$c/online"
	echo 0-6 >"$c/possible"
	echo 5 >"$c/offline"
	echo 4c >"$ROOT/sys/devices/system/node/node1/cpumap"
	echo 2-3,6 >"$ROOT/sys/devices/system/node/node1/cpulist"
	run -1 --separate-stderr rm-cpuset list
	assert_equal "$stderr" "rm-cpuset: the CPUs changed since the state $RM_STATE_DIR/cpuset.state was made (CPUs 7 are gone); 'rm-cpuset accept-topology' keeps the allocations that still fit"
	# web's offline CPU 5 is still present: web is kept
	run -0 rm-cpuset accept-topology
	assert_output ''
	run -0 rm-cpuset list -o owner,offline
	assert_output $'owner=db offline=""\nowner=web offline=5'
}

@test "offline CPU: the same online CPUs with other cores are still refused" {
	two_owners
	take_offline 5
	run -0 rm-cpuset alloc --owner x --count 1 -r -o cpus
	# CPU 6 is a core of its own while the same CPUs are online: another machine
	c=$ROOT/sys/devices/system/cpu
	echo 40 >"$c/cpu6/topology/thread_siblings"
	echo 04 >"$c/cpu2/topology/thread_siblings"
	echo 5 >"$c/cpu6/topology/core_id"
	run -1 --separate-stderr rm-cpuset list
	[[ $stderr == *"the CPUs' cores, packages or NUMA nodes differ"* ]] || fail "stderr: $stderr"
}

# ---- cgroups ----

@test "v2 (fake): an owner's offline CPU stays in its cpuset.cpus; other owners' changes go on" {
	require_fuse
	R=$BATS_TEST_TMPDIR/cg
	mount_fake fake-cgroupfs.py "$R" --cpus 0-7 --mems 0-1
	export RM_CGROUP_ROOT=$R
	P=$R/rmtools.slice
	two_owners
	run -0 cat "$P/web/cpuset.cpus"
	assert_output 1,5
	fakes_cleanup
	# the same cgroups on a kernel where CPU 5 went offline: kept as written, not effective
	mount_fake fake-cgroupfs.py "$R" --cpus 0-7 --mems 0-1 --offline 5
	take_offline 5
	run -0 rm-cpuset apply -o cgroup,action
	assert_output $'cgroup=db action=create\ncgroup=web action=create\ncgroup=shared action=create'
	run -0 cat "$P/web/cpuset.cpus" "$P/web/cpuset.cpus.effective"
	assert_output $'1,5\n1'
	run -0 rm-cpuset alloc --owner x --count 2 -r -o cpus
	assert_output 2,6
	run -0 cat "$P/x/cpuset.cpus" "$P/shared/cpuset.cpus"
	assert_output $'2,6\n3,7'
	run -0 rm-cpuset apply -o cgroup,action
	assert_output $'cgroup=db action=keep\ncgroup=web action=keep\ncgroup=x action=keep\ncgroup=shared action=keep'
}

# A cgroup v1 cpuset tree as plain files, its children made already (a plain directory made by
# mkdir has no cpuset files): the root offers the online CPUs, as v1's top cpuset does.
v1_tree() {
	V1R=$BATS_TEST_TMPDIR/cg1
	local d
	for d in "" /rmtools /rmtools/db /rmtools/web /rmtools/shared; do
		mkdir -p "$V1R/cpuset$d"
		: >"$V1R/cpuset$d/cgroup.procs"
		: >"$V1R/cpuset$d/tasks"
		echo 0-1 >"$V1R/cpuset$d/cpuset.mems"
		echo "" >"$V1R/cpuset$d/cpuset.cpus"
	done
	echo 0-4,6-7 >"$V1R/cpuset/cpuset.cpus"
	echo 0-4,6-7 >"$V1R/cpuset/rmtools/cpuset.cpus"
	export RM_CGROUP_ROOT=$V1R
}

@test "v1 (files): an owner is given its online CPUs; apply keeps what the kernel left" {
	two_owners
	take_offline 5
	v1_tree
	# v1 took CPU 5 out of web's cpuset when it went offline
	echo 0,4 >"$V1R/cpuset/rmtools/db/cpuset.cpus"
	echo 0 >"$V1R/cpuset/rmtools/db/cpuset.mems"
	echo 0 >"$V1R/cpuset/rmtools/web/cpuset.mems"
	echo 1 >"$V1R/cpuset/rmtools/web/cpuset.cpus"
	echo 2-3,6-7 >"$V1R/cpuset/rmtools/shared/cpuset.cpus"
	run -0 rm-cpuset apply --dry-run -o cgroup,action
	assert_output $'cgroup=db action=keep\ncgroup=web action=keep\ncgroup=shared action=keep'
	# as it was before CPU 5 went offline: v1 would refuse 5, so web is to get 1 (plain files
	# are not truncated as cgroupfs files are: the write itself is for the live tests)
	echo 1,5 >"$V1R/cpuset/rmtools/web/cpuset.cpus"
	run -0 rm-cpuset apply --dry-run -o cgroup,action
	assert_output $'cgroup=db action=keep\ncgroup=web action=update\ncgroup=shared action=keep'
}
