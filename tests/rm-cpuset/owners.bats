#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Owners in the shared pool (alloc --shared) and resize: on a FUSE fake of cgroup v2 with 16 CPUs
# in 2 packages, and on synthetic topologies.
load ../test_helper
load ../cgroup_helper

T16="package:2 numa:1 core:4 pu:2"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

teardown() {
	fakes_cleanup
}


cs() {
	rm-cpuset --topology "$T16" "$@"
}

@test "alloc --shared: a cgroup on the shared pool's CPUs, which it follows as owners come and go" {
	start_v2
	run -0 cs alloc --shared --owner backup -o +count
	assert_output "owner=backup cpus=\"\" mems=0-1 cores=\"\" nodes=\"\" cgroup=$P/backup count=0"
	run -0 cat "$P/backup/cpuset.cpus" "$P/backup/cpuset.mems" "$P/shared/cpuset.cpus"
	assert_output $'0-15\n0-1\n0-15'
	run -0 cs alloc --count 4 --owner web
	run -0 cat "$P/backup/cpuset.cpus" "$P/shared/cpuset.cpus"
	assert_output $'4-15\n4-15'
	run -0 cs list -o owner,cpus,count
	assert_output $'owner=backup cpus="" count=0\nowner=web cpus=0-3 count=4'
	# apply has nothing to change; release removes its cgroup
	run -0 cs apply --dry-run -o cgroup,action
	assert_output $'cgroup=backup action=keep\ncgroup=web action=keep\ncgroup=shared action=keep'
	run -0 cs release backup
	[ ! -e "$P/backup" ]
	run -0 cs list -o owner
	assert_output "owner=web"
}

@test "alloc --shared: refused with --count, a placement option or a latency class, exit 2, nothing made" {
	run -2 --separate-stderr cs alloc --shared --owner b --count 2
	[[ $stderr == *"--shared takes no --count"* ]] || fail "$stderr"
	run -2 --separate-stderr cs alloc --shared --owner b --isolate
	[[ $stderr == *"--shared takes no --isolate"* ]] || fail "$stderr"
	run -2 --separate-stderr cs alloc --shared --owner b --memory 1G
	[[ $stderr == *"--shared takes no --memory or --hugepages"* ]] || fail "$stderr"
	run -2 --separate-stderr cs alloc --shared --owner b --latency 10
	[[ $stderr == *"--shared takes no latency class"* ]] || fail "$stderr"
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

@test "resize: growth keeps the CPUs and the alignment, a shrink keeps the CPUs first given" {
	run -0 cs alloc --count 2 --owner a --full-pcpus-only -o cpus
	assert_output "cpus=0-1"
	run -0 cs alloc --count 2 --owner b -o cpus
	assert_output "cpus=2-3"
	# growth packs next to the CPUs held, whole cores as alloc's option asked
	run -0 cs resize --owner a --count 4 -o cpus,count
	assert_output "cpus=0-1,4-5 count=4"
	run -2 --separate-stderr cs resize --owner a --count 5
	[[ $stderr == *"multiple of"* ]] || fail "$stderr"
	# a shrink gives back the CPUs added, never 0-1 unless asked
	run -2 --separate-stderr cs resize --owner a --count 0
	run -2 --separate-stderr cs resize --owner a --count 1
	[[ $stderr == "rm-cpuset: owner 'a' was first given CPUs 0-1: a shrink to 1 gives some of them up (--below-initial allows it)" ]] ||
		fail "$stderr"
	run -0 cs resize --owner a --count 2 -o cpus
	assert_output "cpus=0-1"
	run -0 cs resize --owner a --count 6 -o cpus
	assert_output "cpus=0-1,4-7"
	run -0 cs resize --owner a --count 2 --below-initial --dry-run -o cpus
	assert_output "cpus=0-1"
	run -0 cs list -o owner,cpus
	assert_output $'owner=a cpus=0-1,4-7\nowner=b cpus=2-3'
	# resize keeps the placement it was allocated with
	run -2 --separate-stderr cs resize --owner a --count 8 --numa-node 0
	[[ $stderr == *"resize takes no --numa-node"* ]] || fail "$stderr"
	run -2 --separate-stderr cs resize --owner nobody --count 2
	[[ $stderr == *"no such owner: 'nobody'"* ]] || fail "$stderr"
}

@test "resize: not enough free CPUs is exit 3 with nothing changed" {
	run -0 cs alloc --count 12 --owner a
	cp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
	run -3 --separate-stderr cs resize --owner a --count 16
	[[ $stderr == *"not enough free CPUs"* ]] || fail "$stderr"
	cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
}

@test "resize: --below-initial shrinks into the CPUs first given, which then are the ones kept" {
	run -0 cs alloc --count 4 --owner a -o cpus
	assert_output "cpus=0-3"
	run -0 cs resize --owner a --count 2 --below-initial -o cpus
	assert_output "cpus=0-1"
	run -0 cs resize --owner a --count 4 -o cpus
	assert_output "cpus=0-3"
	run -2 --separate-stderr cs resize --owner a --count 1
	[[ $stderr == *"first given CPUs 0-1"* ]] || fail "$stderr"
}

@test "resize: growth under single-numa-node stays on the owner's node or fails with exit 3" {
	T="package:2 numa:2 core:2 pu:2"
	run -0 rm-cpuset --topology "$T" alloc --count 2 --owner a --policy single-numa-node --numa-node 1 -o cpus,nodes
	assert_output "cpus=4-5 nodes=1"
	run -0 rm-cpuset --topology "$T" resize --owner a --count 4 -o cpus,nodes
	assert_output "cpus=4-7 nodes=1"
	run -3 rm-cpuset --topology "$T" resize --owner a --count 6
	run -0 rm-cpuset --topology "$T" list -o cpus
	assert_output "cpus=4-7"
}

@test "resize (fake v2): in place, the cgroup stays; promotion and back in one command" {
	start_v2
	run -0 cs alloc --count 2 --owner web --isolate
	run -0 cs alloc --shared --owner job
	run -0 cat "$P/web/cpuset.cpus" "$P/web/cpuset.cpus.partition" "$P/job/cpuset.cpus"
	assert_output $'0-1\nisolated\n2-15'
	# growth keeps the isolated partition, with its new CPUs
	run -0 cs resize --owner web --count 4 -o cpus,isolate
	assert_output "cpus=0-3 isolate=yes"
	run -0 cat "$P/web/cpuset.cpus" "$P/web/cpuset.cpus.partition" "$R/cpuset.cpus.isolated" \
		"$P/job/cpuset.cpus" "$P/shared/cpuset.cpus"
	assert_output $'0-3\nisolated\n0-3\n4-15\n4-15'
	# promotion of the owner in the shared pool, then back
	run -0 cs resize --owner job --count 2 -o owner,cpus,cgroup
	assert_output "owner=job cpus=4-5 cgroup=$P/job"
	run -0 cat "$P/job/cpuset.cpus" "$P/shared/cpuset.cpus"
	assert_output $'4-5\n6-15'
	run -0 cs resize --owner job --shared -o cpus,count
	assert_output 'cpus="" count=0'
	run -0 cat "$P/job/cpuset.cpus" "$P/shared/cpuset.cpus"
	assert_output $'4-15\n4-15'
	# and a shrink of the isolated owner back to the CPUs first given
	run -0 cs resize --owner web --count 2 -o cpus
	assert_output "cpus=0-1"
	run -0 cat "$P/web/cpuset.cpus" "$P/web/cpuset.cpus.partition" "$R/cpuset.cpus.isolated"
	assert_output $'0-1\nisolated\n0-1'
}

@test "resize (fake v2): a cgroup the kernel refuses undoes the whole step" {
	start_v2
	run -0 cs alloc --count 2 --owner web --isolate
	# someone else's cgroup holds CPUs 2-7 exclusively
	mkdir "$R/other"
	echo 2-7 >"$R/other/cpuset.cpus.exclusive"
	dump_tree "$R" >"$BATS_TEST_TMPDIR/before"
	cp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/state.before"
	run -1 --separate-stderr cs resize --owner web --count 4
	[[ $stderr == *"nothing was changed"* ]] || fail "$stderr"
	dump_tree "$R" >"$BATS_TEST_TMPDIR/after"
	run diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/state.before"
}

@test "resize --shared: an owner with cache ways or reserved memory keeps its CPUs (exit 2)" {
	run -0 cs alloc --count 2 --owner m --add-mems 0
	run -2 --separate-stderr cs resize --owner m --shared
	[[ $stderr == *"owner 'm' has added memory nodes (--add-mems)"* ]] || fail "$stderr"
	run -2 --separate-stderr cs resize --owner m --shared --count 2
	[[ $stderr == *"resize needs --count N or --shared"* ]] || fail "$stderr"
}
