#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages' commands on sysfs trees made here: records, counts, refusals, plan, export,
# limits on cgroup trees, and what a user who is not root may do.
load test_helper
load rm-hugepages/helper

setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	make_tree "$ROOT" 0:4G
	export RM_SYSROOT=$ROOT
}

teardown() {
	restore_machine
}

# Refused with exit status STATUS, MESSAGE on the first line of stderr, stdout empty and the
# tree unchanged: refused STATUS MESSAGE COMMAND [ARGS...]
refused() {
	local status=$1 msg=$2 before
	shift 2
	before=$(tree_sum "$ROOT")
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} == "rm-hugepages"*": "*"$msg"* ]] ||
		fail "stderr: '$stderr', expected: '$msg'"
	assert_equal "$(tree_sum "$ROOT")" "$before"
}

@test "rm-hugepages: with no command shows every size, also with no pages, and the pools" {
	run -0 rm-hugepages
	assert_line --index 0 'size=2MiB node=0 total=0 free=0 reserved=0 surplus=0 memory=0B'
	assert_line --index 1 'size=1GiB node=0 total=0 free=0 reserved=0 surplus=0 memory=0B'
	assert_line --index 2 'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=0 default=yes memory=0B nodes=0'
	assert_line --index 3 'pool=1GiB total=0 free=0 reserved=0 surplus=0 overcommit=0 default=no memory=0B nodes=0'
	assert_line --index 4 'thp=madvise defrag=madvise shmem=-'
	assert_equal "${#lines[@]}" 5
}

@test "show: the counts as the kernel keeps them, the memory they hold, hugetlbfs mounts" {
	echo 512 >"$ROOT/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"
	echo 500 >"$ROOT/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages"
	echo 4 >"$ROOT/sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages"
	echo 7 >"$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages"
	echo 16 >"$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages"
	echo 512 >"$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	printf '%s\n' 'hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0' \
		'none /mnt/huge\0401G hugetlbfs rw,relatime,uid=1000,gid=36,mode=770,pagesize=1024M,size=4294967296 0 0' \
		'tmpfs /tmp tmpfs rw 0 0' >"$ROOT/proc/mounts"
	run -0 rm-hugepages show
	assert_line --index 0 'size=2MiB node=0 total=512 free=500 reserved=7 surplus=4 memory=1GiB'
	assert_line 'pool=2MiB total=512 free=0 reserved=7 surplus=0 overcommit=16 default=yes memory=1GiB nodes=0'
	assert_line 'mount=/dev/hugepages size=2MiB uid=0 gid=0 mode=0755 max_size=max'
	assert_line 'mount="/mnt/huge 1G" size=1GiB uid=1000 gid=36 mode=0770 max_size=4GiB'
	refute_line --partial 'mount=/tmp'
	run -0 rm-hugepages show -o size,persistent,used
	assert_line --index 0 'size=2MiB persistent=508 used=12'
	run -0 rm-hugepages show --bytes -o size,memory
	assert_line --index 0 'size=2097152 memory=1073741824'
}

@test "show: JSON, table, raw and the columns" {
	echo 3 >"$ROOT/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages"
	run -0 rm-hugepages -J
	run -0 jq -c '[.pages[1].size, .pages[1].total, .pages[1].memory, .pools[0].default,
		.mounts, .thp[0].thp]' <<<"$output"
	assert_output '[1073741824,3,3221225472,true,[],"madvise"]'
	run -0 rm-hugepages show -t -o size,node,total
	assert_line --index 0 --regexp '^SIZE +NODE +TOTAL$'
	assert_line --index 2 --regexp '^ *1G +0 +3$'
	run -0 rm-hugepages show -r -o size,total
	assert_line --index 1 '1GiB 3'
	run -0 rm-hugepages show --list-columns --raw
	assert_line --index 0 --partial 'size size yes'
	assert_line --partial 'persistent integer no'
	refused 2 "unknown field: 'bogus'" rm-hugepages show -o bogus
}

@test "show: --topology is refused, --sysroot names the tree, a tree without pools is refused" {
	refused 2 "huge pages are not part of a described topology" rm-hugepages --topology pu:4
	# RM_TOPOLOGY is for the other tools: RM_SYSROOT stays in force
	RM_TOPOLOGY=pu:4 run -0 rm-hugepages show -o size -r
	assert_line --index 0 2MiB
	mkdir "$BATS_TEST_TMPDIR/empty"
	refused 2 "no huge pages here" rm-hugepages --sysroot "$BATS_TEST_TMPDIR/empty"
}

@test "reserve: writes the node's count, reads it back, prints the pool" {
	run -0 rm-hugepages reserve 2M 512
	assert_output 'size=2MiB node=0 total=512 free=0 reserved=0 surplus=0 memory=1GiB'
	assert_equal "$(count "$ROOT" 2048 0)" 512
	# the global file is the kernel's sum: not written when there are nodes
	assert_equal "$(count "$ROOT" 2048)" 0
	run -0 rm-hugepages reserve 1G 2GiB -o size,total
	assert_output 'size=1GiB total=2'
	assert_equal "$(count "$ROOT" 1048576 0)" 2
}

@test "reserve: is idempotent; +COUNT and +AMOUNT add" {
	run -0 rm-hugepages reserve 2M 100
	run -0 rm-hugepages reserve 2M 100 -o total
	assert_output 'total=100'
	assert_equal "$(count "$ROOT" 2048 0)" 100
	run -0 rm-hugepages reserve 2M +28 -o total
	assert_output 'total=128'
	run -0 rm-hugepages reserve 2MiB +1GiB -o total
	assert_output 'total=640'
	run -0 rm-hugepages reserve 2048kB 16 -o total
	assert_output 'total=16'
}

@test "reserve --dry-run prints the counts it would set and changes nothing" {
	local before
	before=$(tree_sum "$ROOT")
	run -0 rm-hugepages reserve 2M 300 --dry-run
	assert_output 'size=2MiB node=0 total=300 free=- reserved=- surplus=- memory=600MiB'
	assert_equal "$(tree_sum "$ROOT")" "$before"
}

@test "release: to 0, to --to COUNT or AMOUNT; never adds pages" {
	run -0 rm-hugepages reserve 2M 600
	run -0 rm-hugepages release 2M --to 100 -o total
	assert_output 'total=100'
	run -0 rm-hugepages release 2M --to 100MiB -o total
	assert_output 'total=50'
	refused 2 "release would add pages on node 0 (it has 50 of 2MiB, --to asks 60)" \
		rm-hugepages release 2M --to 60
	run -0 rm-hugepages release 2M
	assert_output 'size=2MiB node=0 total=0 free=0 reserved=0 surplus=0 memory=0B'
	assert_equal "$(count "$ROOT" 2048 0)" 0
}

@test "reserve: bad input exits 2 and changes nothing" {
	run -0 rm-hugepages reserve 2M 8
	refused 2 "unknown page size: '3M' (this machine offers 2MiB, 1GiB)" \
		rm-hugepages reserve 3M 1
	refused 2 "invalid size: '2X'" rm-hugepages reserve 2X 1
	refused 2 "count too large: '99999999999999999999'" rm-hugepages reserve 2M 99999999999999999999
	refused 2 "count too large: '9000000000000000'" rm-hugepages reserve 2M 9000000000000000
	refused 2 "count too large: '16EiB'" rm-hugepages reserve 2M 16EiB
	refused 2 "invalid count: '-5'" rm-hugepages reserve 2M -- -5
	refused 2 "invalid count: '1.5'" rm-hugepages reserve 2M 1.5
	refused 2 "invalid count: ''" rm-hugepages reserve 2M ''
	refused 2 "invalid count: '0x10'" rm-hugepages reserve 2M 0x10
	refused 2 "not a whole number of 1GiB pages: '1536MiB'" rm-hugepages reserve 1G 1536MiB
	refused 2 "no such NUMA node: '1'" rm-hugepages reserve 2M 1 --node 0-1
	refused 2 "invalid node set" rm-hugepages reserve 2M 1 --node x
	refused 2 "missing COUNT or AMOUNT" rm-hugepages reserve 2M
	refused 2 "missing SIZE" rm-hugepages reserve
	refused 2 "unexpected argument: 'x'" rm-hugepages reserve 2M 1 x
	refused 2 "invalid option" rm-hugepages reserve 2M -5
	assert_equal "$(count "$ROOT" 2048 0)" 8
}

@test "reserve: more than the node's memory exits 3 before any write, --dry-run too" {
	refused 3 "not enough memory on node 0: its huge pages would hold 8GiB, the node has 4GiB (asked: 8 pages of 1GiB); nothing changed" \
		rm-hugepages reserve 1G 8
	refused 3 "not enough memory on node 0: its huge pages would hold 8GiB" \
		rm-hugepages reserve 1G 8 --dry-run
	run -0 rm-hugepages reserve 1G 2
	# the other size's pages count too
	refused 3 "not enough memory on node 0: its huge pages would hold 4100MiB" \
		rm-hugepages reserve 2M 1026
	run -0 rm-hugepages reserve 2M 1024
}

@test "plan: the kernel command line, per node, spread, and why 1 GiB pages at boot" {
	make_tree "$BATS_TEST_TMPDIR/two" 0:64G 1:64G
	export RM_SYSROOT=$BATS_TEST_TMPDIR/two
	run -0 --separate-stderr rm-hugepages plan 1G:16 2M:1024
	assert_output 'default_hugepagesz=1G hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=1024'
	[[ $stderr == *"reserve 1GiB pages at boot"*"fragmented"* ]]
	run -0 --separate-stderr rm-hugepages plan --node 0,1 1G:8GiB
	assert_output 'default_hugepagesz=1G hugepagesz=1G hugepages=0:8,1:8'
	[[ $stderr == *"Linux 5.16"* ]]
	run -0 --separate-stderr rm-hugepages plan --node all --spread 2M:1025
	assert_output 'default_hugepagesz=2M hugepagesz=2M hugepages=0:513,1:512'
	run -0 --separate-stderr rm-hugepages plan --default 2M 1G:4 2M:64MiB
	assert_output 'default_hugepagesz=2M hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=32'
	run -0 --separate-stderr rm-hugepages plan 256
	assert_output 'default_hugepagesz=2M hugepagesz=2M hugepages=256'
	assert_equal "$stderr" ''
	refused 2 "unknown page size: '3M'" rm-hugepages plan 3M:1
	refused 2 "page size given twice: '2MiB'" rm-hugepages plan 2M:1 2048kB:2
	refused 2 "invalid count (the boot has nothing to add to): '+1'" rm-hugepages plan 2M:+1
	refused 2 "no such NUMA node: '2'" rm-hugepages plan --node 2 1G:1
	refused 2 "--spread needs --node SET" rm-hugepages plan --spread 1G:1
	refused 2 "invalid option -- 'J'" rm-hugepages plan -J 1G:1
	refused 2 "output options do not apply to 'plan'" rm-hugepages -J plan 1G:1
	refused 3 "not enough memory on node 1" rm-hugepages plan --node 1 1G:65
}

@test "plan --topology: for the machine it describes, its nodes and memory; none given, not checked" {
	# the nodes and memory of the description, whatever this machine has
	run -0 --separate-stderr rm-hugepages plan --topology "numa:4(memory=64GiB) core:2 pu:1" \
		--node all --spread 1G:256
	assert_output 'default_hugepagesz=1G hugepagesz=1G hugepages=0:64,1:64,2:64,3:64'
	refused 3 "not enough memory on node 3: its huge pages would hold 65GiB, the node has 64GiB" \
		rm-hugepages plan --topology "numa:4(memory=64GiB) pu:1" --node 3 1G:65
	refused 2 "no such NUMA node: '4'" rm-hugepages plan --topology "numa:4 pu:1" --node 4 2M:1
	# without (memory=...) the memory is unknown: not checked, and said so
	run -0 --separate-stderr rm-hugepages plan --topology "numa:2 pu:2" 1G:512 2M:1024
	assert_output 'default_hugepagesz=1G hugepagesz=1G hugepages=512 hugepagesz=2M hugepages=1024'
	[[ $stderr == *"the topology gives no memory sizes, so the plan is not checked"* ]]
	# an XML file gives the nodes' memory
	lstopo-no-graphics -i "numa:2(memory=8GiB) pu:2" --of xml "$BATS_TEST_TMPDIR/t.xml"
	run -0 --separate-stderr rm-hugepages plan --topology "$BATS_TEST_TMPDIR/t.xml" --node 1 2M:4096
	assert_output 'default_hugepagesz=2M hugepagesz=2M hugepages=1:4096'
	assert_equal "$stderr" "rm-hugepages: note: the per-node form hugepages=N:COUNT needs Linux 5.16 or later"
	refused 3 "not enough memory on node 1" \
		rm-hugepages plan --topology "$BATS_TEST_TMPDIR/t.xml" --node 1 2M:4097
	# the other commands still refuse a described topology
	refused 2 "huge pages are not part of a described topology" \
		rm-hugepages reserve 2M 1 --topology "numa:2 pu:2"
}

@test "export kubelet: the pools per node as Kubernetes quantities, and the kubelet's limits" {
	make_tree "$BATS_TEST_TMPDIR/two" 0:8G 1:8G:2M
	export RM_SYSROOT=$BATS_TEST_TMPDIR/two
	run -0 rm-hugepages reserve 2M 1536MiB
	run -0 rm-hugepages reserve 1G 2 --node 0
	run -0 --separate-stderr rm-hugepages export kubelet
	assert_line --index 3 'hugepages:'
	assert_golden rm-hugepages export-kubelet "$(printf '%s\n' "${lines[@]:3}")"
	[[ $stderr == *"export kubelet is deprecated"*"'rm-cpuset export kubelet'"* ]]
	[[ $stderr == *"the kubelet cannot reserve huge pages"*"reservedMemory"* ]]
	[[ $stderr == *"restart it"* ]]
	refused 2 "unknown format: 'systemd'" rm-hugepages export systemd
	refused 2 "missing FORMAT" rm-hugepages export
}

# ---- limits on cgroup trees made here ----

# A v1 hugetlb hierarchy (or v2 with V2=1) with the cgroup of owner web made already, as the
# kernel would show it: files of 2 MiB and 1 GiB, with the rsvd ones.
cgroup_tree() {
	local root=$BATS_TEST_TMPDIR/cg dir f
	if [ "${V2:-}" ]; then
		dir=$root/unified/rmtools.slice/web
		mkdir -p "$dir"
		echo "hugetlb ${CPUSET:-}" >"$root/unified/cgroup.controllers"
		: >"$root/unified/cgroup.subtree_control"
		: >"$root/unified/rmtools.slice/cgroup.subtree_control"
		for f in hugetlb.2MB hugetlb.1GB; do
			echo max >"$dir/$f.max"; echo max >"$dir/$f.rsvd.max"
			echo 0 >"$dir/$f.current"; echo 0 >"$dir/$f.rsvd.current"
		done
	else
		dir=$root/hugetlb/rmtools/web
		mkdir -p "$dir"
		for f in hugetlb.2MB hugetlb.1GB; do
			echo 9223372036854771712 >"$dir/$f.limit_in_bytes"
			echo 9223372036854771712 >"$dir/$f.rsvd.limit_in_bytes"
			echo 0 >"$dir/$f.usage_in_bytes"; echo 0 >"$dir/$f.rsvd.usage_in_bytes"
		done
	fi
	: >"$dir/cgroup.procs"
	export RM_CGROUP_ROOT=$root
	CG=$dir
}

@test "limit: cgroup v1 files, both the fault and the reservation limit" {
	cgroup_tree
	run -0 rm-hugepages limit web 2M 512
	assert_output "owner=web size=2MiB limit=1GiB rsvd_limit=1GiB usage=0B rsvd_usage=0B cgroup=$CG"
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" 1073741824
	assert_equal "$(cat "$CG/hugetlb.2MB.rsvd.limit_in_bytes")" 1073741824
	run -0 rm-hugepages limit web 1G 2GiB --bytes -o limit
	assert_output 'limit=2147483648'
	run -0 rm-hugepages limit web -o owner,size,limit
	assert_output "$(printf '%s\n' 'owner=web size=2MiB limit=1GiB' 'owner=web size=1GiB limit=2GiB')"
	run -0 rm-hugepages limit web 2M max -o limit,rsvd_limit
	assert_output 'limit=max rsvd_limit=max'
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" -1
	run -0 rm-hugepages limit -o owner -r
	assert_output "$(printf '%s\n' web web)"
}

@test "limit: cgroup v2 files, +hugetlb in the subtree_control of the root and the parent" {
	V2=1 cgroup_tree
	run -0 rm-hugepages limit web 1G 1 -o size,limit,rsvd_limit
	assert_output 'size=1GiB limit=1GiB rsvd_limit=1GiB'
	assert_equal "$(cat "$CG/hugetlb.1GB.max")" 1073741824
	assert_equal "$(cat "$CG/hugetlb.1GB.rsvd.max")" 1073741824
	assert_equal "$(cat "$RM_CGROUP_ROOT/unified/cgroup.subtree_control")" +hugetlb
	assert_equal "$(cat "$RM_CGROUP_ROOT/unified/rmtools.slice/cgroup.subtree_control")" +hugetlb
	run -0 rm-hugepages limit web 1G 1 --dry-run -J
	run -0 jq -c '.limits[0] | [.owner, .limit]' <<<"$output"
	assert_output '["web","1073741824"]'
}

@test "limit: where cpuset shares the unified hierarchy, only an rm-cpuset owner may have one" {
	V2=1 CPUSET=cpuset cgroup_tree
	run -0 rm-hugepages limit web 2M 2 -o limit
	assert_output 'limit=4MiB'
	refused 2 "no rm-cpuset owner of that name: 'db'" rm-hugepages limit db 2M 2
	[ ! -e "$RM_CGROUP_ROOT/unified/rmtools.slice/db" ]
}

@test "limit: bad input exits 2 and changes nothing" {
	cgroup_tree
	refused 2 "invalid owner name: '../x'" rm-hugepages limit ../x 2M 1
	refused 2 "invalid owner name: 'shared' names rm-cpuset's shared pool" \
		rm-hugepages limit shared 2M 1
	refused 2 "unknown page size: '4M'" rm-hugepages limit web 4M 1
	refused 2 "not a whole number of 2MiB pages: '3MiB'" rm-hugepages limit web 2M 3MiB
	refused 2 "invalid limit (a count, an amount or max): '+1'" rm-hugepages limit web 2M +1
	refused 2 "missing COUNT, AMOUNT or max after SIZE" rm-hugepages limit web 2M
	refused 2 "no hugetlb cgroup for owner: 'nobody'" rm-hugepages limit nobody
	refused 2 "--remove takes an OWNER alone" rm-hugepages limit web 2M 1 --remove
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" 9223372036854771712
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/none
	mkdir -p "$RM_CGROUP_ROOT"
	run -1 --separate-stderr rm-hugepages limit web 2M 1
	assert_equal "$stderr" "rm-hugepages: no hugetlb cgroup controller is mounted (v1 hugetlb or the unified hierarchy's hugetlb): '$RM_CGROUP_ROOT'"
}

# ---- not root ----

# Run as an ordinary user: as nobody when root, as is otherwise.
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "setpriv is not installed"
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME=/ "$@"
	else
		"$@"
	fi
}

@test "not root: show works on this machine; changing commands need root and change nothing" {
	local bin=$RM_BUILDDIR/rm-hugepages before dir
	unset RM_SYSROOT
	[ -d /sys/kernel/mm/hugepages ] || skip "no huge pages on this machine"
	# as root, wait for the tests that change this machine's pools (make check runs files in
	# parallel), so that the counts compared are not theirs
	[ "$(id -u)" -ne 0 ] || require_machine
	if [ "$(id -u)" -eq 0 ]; then
		# nobody must reach the binary
		as_user test -x "$bin" || skip "$bin is not reachable for nobody"
	fi
	before=$(cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages | paste -sd ' ')
	run -0 as_user "$bin" show -o size,total
	assert_line --index 0 --regexp '^size=[0-9]+[KMG]iB total=[0-9]+$'
	run -1 --separate-stderr as_user "$bin" reserve 2M 1
	assert_equal "$stderr" 'rm-hugepages: reserving needs root'
	# a release that has nothing to give back changes nothing, and needs nothing
	if [ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" -gt 0 ]; then
		run -1 --separate-stderr as_user "$bin" release 2M
		assert_equal "$stderr" 'rm-hugepages: releasing needs root'
	fi
	dir=$BATS_TEST_TMPDIR/m
	mkdir -p "$dir"
	run -1 --separate-stderr as_user "$bin" mount "$dir" --size 2M
	assert_equal "$stderr" 'rm-hugepages: mounting needs root'
	run -1 --separate-stderr as_user "$bin" umount /dev/hugepages
	assert_equal "$stderr" 'rm-hugepages: unmounting needs root'
	run -1 --separate-stderr as_user "$bin" apply - <<<'2M count=1'
	assert_equal "$stderr" 'rm-hugepages: applying needs root'
	if [ -d /sys/fs/cgroup/unified ] || [ -d /sys/fs/cgroup/hugetlb ] ||
		grep -qw hugetlb /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		run -1 --separate-stderr as_user "$bin" limit web 2M 1
		assert_equal "$stderr" 'rm-hugepages: setting limits needs root'
	fi
	# the dry runs need nothing
	run -0 as_user "$bin" reserve 2M 1 --dry-run -o total
	assert_output 'total=1'
	assert_equal "$(cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages | paste -sd ' ')" "$before"
	run -32 mountpoint -q "$dir"
}
