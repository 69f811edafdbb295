#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages on a real multi-node kernel: per-node pools, read back, rolled back.
load helper

NODES=/sys/devices/system/node

teardown() {
	umount /tmp/fill 2>/dev/null || true
	for f in $NODES/node*/hugepages/hugepages-*/nr_hugepages; do echo 0 >"$f"; done
}

nr() { cat "$NODES/node$1/hugepages/hugepages-2048kB/nr_hugepages"; }

@test "reserve per node: each node ends with the count asked, as the kernel reads back" {
	run -0 rm-hugepages reserve 2M 64 --node 0,1
	assert_equal "$(nr 0) $(nr 1) $(nr 2) $(nr 3)" "64 64 0 0"
	run -0 rm-hugepages -o size,node,total
	assert_line "size=2MiB node=0 total=64"
	assert_line "size=2MiB node=1 total=64"
}

@test "a memory-only node gets huge pages when asked" {
	run -0 rm-hugepages reserve 2M 32 --node 2
	assert_equal "$(nr 2)" 32
	assert_equal "$(nr 0) $(nr 1) $(nr 3)" "0 0 0"
}

@test "a node that cannot hold the pages: exit 3 and every node put back" {
	echo 8 >$NODES/node1/hugepages/hugepages-2048kB/nr_hugepages
	# 700 MiB of node 3's 1 GiB held by a tmpfs bound there: node 2 can take 600 MiB of huge
	# pages, node 3 cannot, though its size says it could
	mkdir -p /tmp/fill && mount -t tmpfs -o size=800M,mpol=bind:3 tmpfs /tmp/fill
	dd if=/dev/zero of=/tmp/fill/f bs=1M count=700 2>/dev/null
	run -3 --separate-stderr rm-hugepages reserve 2M 300 --node 1,2,3
	[[ $stderr == *"node 3"* ]] || fail "stderr does not name node 3: $stderr"
	assert_equal "$(nr 1) $(nr 2) $(nr 3)" "8 0 0"
}

@test "1 GiB pages at run time on a node with room, refused cleanly on one without" {
	run rm-hugepages reserve 1G 1 --node 2
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	if [ "$status" -eq 3 ]; then
		assert_equal "$(cat $NODES/node2/hugepages/hugepages-1048576kB/nr_hugepages)" 0
	fi
}
