#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages on machines it is not on: two and four NUMA nodes, a memoryless node, a node
# without 1 GiB pages, as plain trees (which files are written) and as the FUSE fake of the pool
# files (short writes as the kernel makes them, retries, compaction, rollback).
load ../test_helper
load helper

setup() {
	ROOT=$BATS_TEST_TMPDIR/root
}

teardown() {
	hp_fakes_cleanup
}

nr() {
	count "$ROOT" "$@"
}

@test "two nodes: --node writes that node's file only; without --node the count is the total" {
	make_tree "$ROOT" 0:8G 1:8G
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 100 --node 1
	assert_output 'size=2MiB node=1 total=100 free=0 reserved=- surplus=0 memory=200MiB'
	assert_equal "$(nr 2048 0) $(nr 2048 1) $(nr 2048)" "0 100 0"
	run -0 rm-hugepages --sysroot "$ROOT" reserve 1G 4GiB --node 0,1 -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=4' 'node=1 total=4')"
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 301 -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=151' 'node=1 total=150')"
	assert_equal "$(nr 2048 0) $(nr 2048 1)" "151 150"
	run -0 rm-hugepages --sysroot "$ROOT" -o size,node,total
	assert_golden rm-hugepages show-two-nodes
}

@test "four nodes, one memoryless, one without 1 GiB pages: all means the nodes that have them" {
	make_tree "$ROOT" 0:8G 1:8G:2M 2:0 3:8G
	run -0 rm-hugepages --sysroot "$ROOT" -o size,node -r
	assert_golden rm-hugepages show-four-nodes-raw
	run -0 rm-hugepages --sysroot "$ROOT" reserve 1G 2 --node all -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=2' 'node=3 total=2')"
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 10 -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=4' 'node=1 total=3' 'node=3 total=3')"
	local before
	before=$(tree_sum "$ROOT")
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 1 --node 2
	assert_equal "$stderr" "rm-hugepages: NUMA node 2 has no memory for huge pages: '2'"
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 1G 1 --node 0-1
	assert_equal "$stderr" "rm-hugepages: NUMA node 1 offers no 1GiB pages: '1'"
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 1G 1 --node 4
	assert_equal "$stderr" "rm-hugepages: no such NUMA node: '4'"
	assert_equal "$(tree_sum "$ROOT")" "$before"
}

@test "--spread: the amount split evenly, the remainder to the lowest nodes" {
	make_tree "$ROOT" 0:8G 1:8G 2:8G 3:8G
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 10 --node all --spread -o node,total -r
	assert_output "$(printf '%s\n' '0 3' '1 3' '2 2' '3 2')"
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 1GiB --node 1-3 --spread -o node,total -r
	assert_output "$(printf '%s\n' '1 171' '2 171' '3 170')"
	assert_equal "$(nr 2048 0)" 3
	# +AMOUNT spread adds each node's share to what it has
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M +6MiB --node 0,2 --spread -o node,total -r
	assert_output "$(printf '%s\n' '0 5' '2 172')"
	run -0 rm-hugepages --sysroot "$ROOT" release 2M --to 3 --spread -o node,total -r
	assert_output "$(printf '%s\n' '0 1' '1 1' '2 1' '3 0')"
	run -0 "$HP_UNIT" spread 7 3
	assert_output '3 2 2'
	run -0 "$HP_UNIT" spread 2 4
	assert_output '1 1 0 0'
}

@test "the kernel's names of sizes and the parsing of counts" {
	run -0 "$HP_UNIT" names 2097152
	assert_output '2M 2MB hugepages-2048kB'
	run -0 "$HP_UNIT" names 65536
	assert_output '64K 64KB hugepages-64kB'
	run -0 "$HP_UNIT" names 17179869184
	assert_output '16G 16GB hugepages-16777216kB'
	run -0 "$HP_UNIT" count +512 2097152
	assert_output '+512'
	run -0 "$HP_UNIT" count 8G 1073741824
	assert_output 8
	run -2 "$HP_UNIT" count 3M 2097152
	assert_output "not a whole number of 2MiB pages: '3M'"
	run -2 "$HP_UNIT" count 9223372036854775807 2097152
	assert_output "count too large: '9223372036854775807'"
	run -2 "$HP_UNIT" count ++1 2097152
	assert_output "invalid count: '++1'"
}

# ---- short writes, with the FUSE fake ----

@test "fake: a short write on the last node puts every node back and exits 3" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:1G --node 1:1G --node 2:1G --node 3:1G --unmovable 3:900M
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 50 --node 0
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 200 --node all
	assert_output ''
	assert_equal "$stderr" "rm-hugepages: not enough memory for huge pages on node 3: asked 200 pages of 2MiB, obtained 62; every node is back to its previous count"
	run -0 rm-hugepages --sysroot "$ROOT" -o node,total -r
	assert_line --index 0 '0 50'
	assert_line --index 3 '3 0'
	assert_equal "$(nr 2048 1) $(nr 2048 2) $(nr 2048)" "0 0 50"
	# written, read back short, retried after compacting, then every node back, newest first
	run -0 cat "$ROOT/fake/log"
	assert_golden rm-hugepages fake-short-write-log
}

@test "fake: --allow-partial keeps what was obtained, prints it and exits 1: the change stands" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:1G --node 1:1G --unmovable 1:768M
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 150 --node 0,1 \
		--allow-partial -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=150' 'node=1 total=128')"
	assert_equal "$stderr" "rm-hugepages: not enough memory for huge pages on node 1: asked 150 pages of 2MiB, obtained 128; keeping what was obtained; reserved 2MiB pages (node 0: 150, node 1: 128) stands"
	assert_equal "$(nr 2048 0) $(nr 2048 1)" "150 128"
}

@test "fake: a short write succeeds after compaction; --no-compact does not compact" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:1G --node 1:1G --fragment 1:768M
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 256 --node 1 --no-compact
	[[ $stderr == *"asked 256 pages of 2MiB, obtained 128; every node"* ]]
	assert_equal "$(cat "$ROOT/fake/compactions")" 0
	assert_equal "$(nr 2048 1)" 0
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 256 --node 1 -o node,total
	assert_output 'node=1 total=256'
	assert_equal "$(cat "$ROOT/fake/compactions")" 1
}

@test "fake: several sizes on one node share its memory; release frees it" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:5G --node 1:5G --unmovable 1:2G
	run -0 rm-hugepages --sysroot "$ROOT" reserve 1G 2 --node 0,1
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 1024 --node 1 --no-compact
	[[ $stderr == *"node 1: asked 1024 pages of 2MiB, obtained 512"* ]]
	run -0 rm-hugepages --sysroot "$ROOT" release 1G --node 1
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 1024 --node 1 -o node,total
	assert_output 'node=1 total=1024'
	run -0 rm-hugepages --sysroot "$ROOT" -o size,node,total -r
	assert_line --index 0 '2MiB 0 0'
	assert_line --index 1 '2MiB 1 1024'
	assert_line --index 2 '1GiB 0 2'
	assert_line --index 3 '1GiB 1 0'
}

@test "fake: a node's pool that cannot be read (EIO) is an error, never the global pool" {
	require_hp_fuse
	local eio nd=sys/devices/system/node pool=sys/devices/system/node/node0/hugepages/hugepages-2048kB
	# the directory that fails, and the one the message names
	for eio in "$nd $nd" "$nd/node0 $pool" "$pool $pool"; do
		set -- $eio
		start_hp_fake "$ROOT" --node 0:1G --node 1:1G --eio "$1"
		run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" reserve 2M 4 --node 0
		assert_output ''
		assert_equal "$stderr" "rm-hugepages: cannot read the NUMA nodes' huge page pools: Input/output error: '$ROOT/$2'"
		# nothing written: not the global pool, which would spread the pages over every node
		run -0 cat "$ROOT/fake/log"
		assert_output ''
		run -1 rm-hugepages --sysroot "$ROOT"
		hp_fakes_cleanup
	done
}
