#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset limit and alloc's limit options: an owner's memory and pids limits, on a FUSE fake of
# cgroup v2, on a cgroup v1 tree of plain files, and for real on this machine's v1 hierarchies.
load ../test_helper
load ../cgroup_helper

T16="package:2 numa:1 core:4 pu:2"
V1_MEM=/sys/fs/cgroup/memory
V1_PIDS=/sys/fs/cgroup/pids

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

teardown() {
	sleeps_cleanup
	fakes_cleanup
	if [ -n "$REAL" ]; then
		rm-cpuset release --all >/dev/null 2>&1 || true
		local d
		for d in "$V1_MEM/rmtools" "$V1_PIDS/rmtools"; do
			[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
		REAL=
	fi
	v1_cpuset_cleanup
}


cs() {
	rm-cpuset --topology "$T16" "$@"
}

LIMITS=owner,memory_max,memory_high,memory_min,swap_max,pids_max

@test "limit (fake v2): alloc --shared with limits, limit changes some, list shows them, apply puts them back" {
	start_v2
	run -0 cs alloc --shared --owner job --memory-max 1G --pids-max 64 -o "$LIMITS"
	assert_output "owner=job memory_max=1GiB memory_high=- memory_min=- swap_max=- pids_max=64"
	run -0 cat "$P/job/memory.max" "$P/job/pids.max" "$R/cgroup.subtree_control" \
		"$P/cgroup.subtree_control"
	assert_output $'1073741824\n64\ncpuset memory pids\ncpuset memory pids'
	run -0 grep -c 'owner=job .* memory_max=1073741824 pids_max=64$' "$RM_STATE_DIR/cpuset.state"
	# the limits not named stay; max removes one
	run -0 cs limit --owner job --memory-high 768M --memory-min 256M --swap-max 0 \
		--pids-max max -o "$LIMITS"
	assert_output "owner=job memory_max=1GiB memory_high=768MiB memory_min=256MiB swap_max=0B pids_max=-"
	run -0 cat "$P/job/memory.max" "$P/job/memory.high" "$P/job/memory.min" \
		"$P/job/memory.swap.max" "$P/job/pids.max"
	assert_output $'1073741824\n805306368\n268435456\n0\nmax'
	run -0 cs limit --owner job --memory-min max -o memory_min
	assert_output "memory_min=-"
	run -0 cat "$P/job/memory.min"
	assert_output 0
	# an owner with exclusive CPUs takes them as well; JSON has bytes
	run -0 cs alloc --count 2 --owner web --pids-max 100 -J -o owner,pids_max,memory_max
	assert_output --partial '"pids_max": 100'
	assert_output --partial '"memory_max": null'
	# the kernel's files lost (a reboot, someone's write): apply writes them again
	echo max >"$P/job/memory.max"
	echo max >"$P/web/pids.max"
	run -0 cs apply -o cgroup,action
	run -0 cat "$P/job/memory.max" "$P/job/memory.high" "$P/web/pids.max"
	assert_output $'1073741824\n805306368\n100'
	# release removes the owner with its cgroup and its limits
	run -0 cs release job
	[ ! -e "$P/job" ]
	run -0 cs list -o "$LIMITS"
	assert_output "owner=web memory_max=- memory_high=- memory_min=- swap_max=- pids_max=100"
}

@test "limit: bad input refused before anything changes (exit 2)" {
	start_v2
	run -0 cs alloc --shared --owner job
	run -0 cs alloc --count 2 --owner db --memory 1G
	local before tree
	before=$(cat "$RM_STATE_DIR/cpuset.state")
	tree=$(dump_tree "$R")
	refused() {
		local want=$1
		shift
		run -2 --separate-stderr "$@"
		[[ $stderr == *"$want"* ]] || fail "$* said: $stderr"
	}
	refused "invalid memory_max: '12X' (a size such as 8G, up to 1EiB, or max)" \
		cs limit --owner job --memory-max 12X
	refused "invalid pids_max: '5000000' (a number of processes up to 4194304, or max)" \
		cs limit --owner job --pids-max 5000000
	refused "invalid pids_max: '-1'" cs limit --owner job --pids-max -1
	refused "invalid memory_high: '2E'" cs limit --owner job --memory-high 2E
	refused "limit needs a limit" cs limit --owner job
	refused "limit needs --owner NAME" cs limit --pids-max 4
	refused "no such owner: 'nobody'" cs limit --owner nobody --pids-max 4
	refused "owner 'db' has memory reserved (--memory): its memory.max and memory.min are the reservation" \
		cs limit --owner db --memory-max 2G
	refused "the owner has memory reserved (--memory)" \
		cs alloc --count 2 --owner x --memory 1G --memory-min 1G
	# the limit no controller takes (the fake has no hugetlb, but memory and pids)
	[ "$(cat "$RM_STATE_DIR/cpuset.state")" = "$before" ]
	[ "$(dump_tree "$R")" = "$tree" ]
	# --memory-high and --pids-max are not the reservation's
	run -0 cs limit --owner db --memory-high 900M --pids-max 10 -o owner,memory,memory_high,pids_max
	assert_output "owner=db memory=1GiB memory_high=900MiB pids_max=10"
}

@test "limit (fake v2): a write the kernel refuses half-way: limits, controllers and state undone" {
	start_v2 --fail-write pids.max
	run -0 cs alloc --shared --owner job --memory-max 1G
	local before tree
	before=$(cat "$RM_STATE_DIR/cpuset.state")
	tree=$(dump_tree "$R")
	run -1 --separate-stderr cs limit --owner job --memory-max 2G --pids-max 10
	[[ $stderr == *"cannot write '10' to $P/job/pids.max"*"(nothing was changed)" ]] || fail "$stderr"
	[ "$(cat "$RM_STATE_DIR/cpuset.state")" = "$before" ]
	[ "$(dump_tree "$R")" = "$tree" ]
	# at alloc: the owner goes again
	run -1 --separate-stderr cs alloc --shared --owner new --pids-max 10
	[[ $stderr == *"(the allocation was undone)" ]] || fail "$stderr"
	[ ! -e "$P/new" ]
	run -0 cs list -r -o owner
	assert_output job
}

# A cgroup v1 tree of plain files: cpuset, memory and pids, each with the owner's cgroups made
# already (a plain directory made by mkdir has no files), the values as v1 shows "no limit".
v1_tree() {
	V1R=$BATS_TEST_TMPDIR/cg1
	local d f
	for d in "" /rmtools /rmtools/shared /rmtools/job; do
		mkdir -p "$V1R/cpuset$d"
		for f in cgroup.procs tasks; do : >"$V1R/cpuset$d/$f"; done
		echo 0-1 >"$V1R/cpuset$d/cpuset.mems"
		echo 0-15 >"$V1R/cpuset$d/cpuset.cpus"
	done
	for d in "" /rmtools /rmtools/job; do
		mkdir -p "$V1R/memory$d" "$V1R/pids$d"
		for f in limit_in_bytes soft_limit_in_bytes memsw.limit_in_bytes; do
			echo 9223372036854771712 >"$V1R/memory$d/memory.$f"
		done
		echo max >"$V1R/pids$d/pids.max"
		: >"$V1R/memory$d/cgroup.procs"
		: >"$V1R/pids$d/cgroup.procs"
	done
	export RM_CGROUP_ROOT=$V1R
}

@test "limit (v1 files): limit_in_bytes, soft_limit_in_bytes, memsw as memory plus swap, pids.max" {
	v1_tree
	local m=$V1R/memory/rmtools/job
	run -0 cs alloc --shared --owner job --memory-max 1G --memory-high 768M --swap-max 512M \
		--pids-max 32 -o "$LIMITS"
	assert_output "owner=job memory_max=1GiB memory_high=768MiB memory_min=- swap_max=512MiB pids_max=32"
	run -0 cat "$m/memory.limit_in_bytes" "$m/memory.soft_limit_in_bytes" \
		"$m/memory.memsw.limit_in_bytes" "$V1R/pids/rmtools/job/pids.max"
	assert_output $'1073741824\n805306368\n1610612736\n32'
	# a new memory limit moves memsw with it; no swap limit is -1
	run -0 cs limit --owner job --memory-max 2G
	run -0 cat "$m/memory.limit_in_bytes" "$m/memory.memsw.limit_in_bytes"
	assert_output $'2147483648\n2684354560'
	run -0 cs limit --owner job --swap-max max --memory-high max
	run -0 cat "$m/memory.memsw.limit_in_bytes" "$m/memory.soft_limit_in_bytes"
	assert_output $'-1\n-1'
	# what v1 has not: memory.min; a swap limit alone
	run -2 --separate-stderr cs limit --owner job --memory-min 1G
	[[ $stderr == *"memory.min needs cgroup v2: the v1 memory controller has no memory.min" ]] || fail "$stderr"
	run -0 cs limit --owner job --memory-max max
	run -2 --separate-stderr cs limit --owner job --swap-max 1G
	[[ $stderr == *"a swap limit on cgroup v1 needs a memory limit too"* ]] || fail "$stderr"
}

@test "limit (v1, for real): memory and pids cgroups; run joins them, the kernel stops a fork beyond pids.max; release removes them" {
	require_v1_cpuset
	[ -f "$V1_MEM/memory.limit_in_bytes" ] && [ -d "$V1_PIDS" ] ||
		skip "no cgroup v1 memory and pids hierarchies"
	[ ! -e "$V1_MEM/rmtools" ] && [ ! -e "$V1_PIDS/rmtools" ] ||
		skip "an rmtools cgroup exists in the v1 memory or pids hierarchy; not touching it"
	REAL=1
	run -0 rm-cpuset alloc --shared --owner lim --memory-max 64M --pids-max 4 -o "$LIMITS"
	assert_output "owner=lim memory_max=64MiB memory_high=- memory_min=- swap_max=- pids_max=4"
	run -0 cat "$V1_MEM/rmtools/lim/memory.limit_in_bytes" "$V1_PIDS/rmtools/lim/pids.max"
	assert_output $'67108864\n4'
	# the command runs in the owner's memory and pids cgroups; 4 processes at most
	run -0 rm-cpuset run --owner lim -- sh -c 'grep -E ":(memory|pids):" /proc/self/cgroup | sort'
	assert_output --regexp '^[0-9]+:memory:/rmtools/lim'$'\n''[0-9]+:pids:/rmtools/lim$'
	run rm-cpuset run --owner lim -- sh -c 'sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait' 2>&1
	assert_output --partial "fork"
	# release removes the owner's cgroups and the parents
	run -0 rm-cpuset release lim
	[ ! -e "$V1_MEM/rmtools" ]
	[ ! -e "$V1_PIDS/rmtools" ]
}
