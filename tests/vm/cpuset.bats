#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset with real cgroup v2 cpusets: nodes 0-1 with CPUs 0-3 and 4-7, nodes 2-3 memory-only.
load helper

CG=/sys/fs/cgroup/rmtools.slice

teardown() {
	# no test's process outlives it: a process left in the shared cgroup keeps 6.1's parent
	# from becoming a root partition in the tests that follow
	local p
	for p in $(cat $CG/*/cgroup.procs 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	rm-cpuset release --all >/dev/null 2>&1 || true
}

@test "single-numa-node: the owner's memory is on its CPUs' node, never a memory-only node" {
	run -0 rm-cpuset alloc --count 2 --owner a --policy single-numa-node -o owner,cpus,mems
	assert_output "owner=a cpus=0-1 mems=0"
	assert_equal "$(cat $CG/a/cpuset.mems)" 0
	assert_equal "$(cat $CG/a/cpuset.mems.effective)" 0
}

@test "--numa-node 1 binds CPUs and memory to node 1 alone" {
	run -0 rm-cpuset alloc --count 2 --owner b --numa-node 1 -o owner,cpus,mems
	assert_output "owner=b cpus=4-5 mems=1"
	assert_equal "$(cat $CG/b/cpuset.mems.effective)" 1
}

@test "run: a command's memory lands on the owner's node" {
	run -0 rm-cpuset alloc --count 2 --owner c --numa-node 1
	run -0 rm-cpuset run --owner c -- cat /proc/self/status
	assert_line --regexp '^Cpus_allowed_list:[[:space:]]+4-5$'
	assert_line --regexp '^Mems_allowed_list:[[:space:]]+1$'
}

# Before 6.7 (no cpuset.cpus.exclusive) the parent must be a root partition, which takes its CPUs
# from every process outside it: --isolate needs CPUs reserved for the rest of the system.
root_partitions() {
	[ ! -e $CG/cpuset.cpus.exclusive ] && [ ! -e /sys/fs/cgroup/cpuset.cpus.isolated ]
}

# The CPUs of list $1 that list $2 has too, one a line.
overlap() {
	# grep, not comm: the guest's busybox has no comm
	expand_list "$1" >"$BATS_TEST_TMPDIR/a"
	expand_list "$2" | grep -Fx -f "$BATS_TEST_TMPDIR/a" || true
}

expand_list() {
	local r
	for r in ${1//,/ }; do
		seq "${r%-*}" "${r#*-}"
	done
}

reserve_for_root_partitions() {
	if root_partitions; then
		run -0 rm-cpuset reserve 0
	fi
}

@test "--isolate makes a valid isolated partition and release gives the CPUs back" {
	reserve_for_root_partitions
	run -0 rm-cpuset alloc --count 2 --owner iso --isolate -o owner,cpus
	cpus=$(field cpus)
	assert_equal "$(cat $CG/iso/cpuset.cpus.partition)" isolated
	assert_equal "$(cat $CG/iso/cpuset.cpus.effective)" "$cpus"
	# the scheduler sees the CPUs isolated (no load balancing): the root's set shrinks
	run -0 cat /sys/fs/cgroup/cpuset.cpus.effective
	refute_output "0-7"
	# the shared pool's cgroup holds none of them
	assert_equal "$(overlap "$(cat $CG/shared/cpuset.cpus)" "$cpus")" ""
	if root_partitions; then
		assert_equal "$(cat $CG/cpuset.cpus.partition)" root
		assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0
	fi
	run -0 rm-cpuset release iso
	[ ! -d $CG/iso ]
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7
	if root_partitions; then
		assert_equal "$(cat $CG/cpuset.cpus.partition)" member
		assert_equal "$(cat $CG/cpuset.cpus)" ""
	fi
}

@test "two isolated owners side by side, then released in the other order" {
	reserve_for_root_partitions
	run -0 rm-cpuset alloc --count 2 --owner i1 --isolate -o cpus
	c1=$(field cpus)
	run -0 rm-cpuset alloc --count 2 --owner i2 --isolate -o cpus
	c2=$(field cpus)
	assert_equal "$(cat $CG/i1/cpuset.cpus.partition)" isolated
	assert_equal "$(cat $CG/i2/cpuset.cpus.partition)" isolated
	assert_equal "$(cat $CG/i1/cpuset.cpus.effective)" "$c1"
	assert_equal "$(cat $CG/i2/cpuset.cpus.effective)" "$c2"
	# the shared pool's cgroup overlaps neither
	assert_equal "$(overlap "$(cat $CG/shared/cpuset.cpus)" "$c1,$c2")" ""
	run -0 rm-cpuset release i1
	assert_equal "$(cat $CG/i2/cpuset.cpus.partition)" isolated
	run -0 rm-cpuset alloc --count 2 --owner i3 --isolate
	assert_equal "$(cat $CG/i3/cpuset.cpus.partition)" isolated
	run -0 rm-cpuset release i2
	assert_equal "$(cat $CG/i3/cpuset.cpus.partition)" isolated
	run -0 rm-cpuset release i3
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7
}

@test "run --isolate: the command runs in an isolated partition; gc after it is killed restores the CPUs" {
	reserve_for_root_partitions
	run -0 rm-cpuset run --count 2 --owner r --isolate -- cat /proc/self/cgroup $CG/r/cpuset.cpus.partition
	assert_line "0::/rmtools.slice/r"
	assert_line isolated
	[ ! -d $CG/r ]
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7

	rm-cpuset run --count 2 --owner k --isolate -- sleep 600 >/dev/null 2>&1 3>&- &
	wait_until runs_in $CG/k sleep
	assert_equal "$(cat $CG/k/cpuset.cpus.partition)" isolated
	kill_run $CG/k $!
	run -0 rm-cpuset gc
	[ ! -d $CG/k ]
	assert_equal "$(cat /sys/fs/cgroup/cpuset.cpus.effective)" 0-7
	run -0 rm-cpuset list
	assert_output ""
}

@test "--isolate with nothing reserved: 6.7+ isolates, 6.1's root partitions exit 2 with nothing made" {
	if ! root_partitions; then # remote partitions: the rest of the system keeps what is left
		run -0 rm-cpuset alloc --count 2 --owner iso --isolate
		assert_equal "$(cat $CG/iso/cpuset.cpus.partition)" isolated
		return
	fi
	run -2 rm-cpuset alloc --count 2 --owner iso --isolate
	assert_output --partial "reserve the CPUs the rest of the system keeps first"
	[ ! -d $CG/iso ]
	run -0 rm-cpuset list
	assert_output ""
}

# The heap line of a bash that holds 4 MB in a variable, under rm-cpuset run OPTIONS.
heap_under() {
	rm-cpuset run "$@" -- bash -c 'x=$(head -c 4000000 /dev/zero | tr "\0" a); grep " heap " /proc/$$/numa_maps; : "${#x}"'
}

@test "run: --interleave, --membind, --preferred, --weighted-interleave as numa_maps states them" {
	run -0 heap_under --count 1 --numa-node 0 --add-mems 2 --interleave 0,2
	assert_output --regexp '^[0-9a-f]+ interleave:0,2 heap .* N0=[0-9]+ N2=[0-9]+ '
	run -0 heap_under --count 1 --numa-node 0 --add-mems 2 --membind 2
	assert_output --regexp '^[0-9a-f]+ bind:2 heap .* N2=[0-9]+ '
	refute_output --partial ' N0='
	run -0 heap_under --count 1 --numa-node 0 --add-mems 2 --preferred 2
	assert_output --regexp '^[0-9a-f]+ prefer:2 heap .* N2=[0-9]+ '
	if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
		# stdout alone: a warning about the kernel's weights may come on stderr
		run -0 --separate-stderr heap_under --count 1 --numa-node 0 --add-mems 2 \
			--weighted-interleave 0,2
		assert_output --regexp '^[0-9a-f]+ weighted interleave:0,2 heap .* N0=[0-9]+ N2=[0-9]+ '
	else
		run -2 --separate-stderr heap_under --count 1 --weighted-interleave 0
		[[ $stderr == *"needs Linux 6.9 or later"* ]]
	fi
	# outside the owner's nodes: refused before anything is allocated
	run -2 --separate-stderr heap_under --count 1 --numa-node 0 --interleave 0,3
	[[ $stderr == *"NUMA nodes '0,3' are not all among the owner's memory nodes '0'"* ]]
	run -0 rm-cpuset list
	assert_output ''
}

@test "attach: a running process moves into the owner's cgroup, its pages to the owner's node" {
	run -0 rm-cpuset alloc --count 2 --owner att --numa-node 1
	bash -c 'x=$(head -c 4000000 /dev/zero | tr "\0" a); sleep 60; : "${#x}"' &
	pid=$!
	wait_until grep -q ' heap ' /proc/$pid/numa_maps
	run -0 rm-cpuset attach att "$pid" --migrate-memory
	assert_output --regexp "^pid=$pid owner=att threads=1 cpus=4-5 mems=1 cgroup=$CG/att unmigrated=0$"
	run -0 grep -x "$pid" $CG/att/cgroup.procs
	run -0 grep Cpus_allowed_list /proc/$pid/status
	assert_output --regexp 'Cpus_allowed_list:[[:space:]]+4-5$'
	run -0 grep ' heap ' /proc/$pid/numa_maps
	refute_output --partial ' N0='
	kill "$pid"
}

@test "memory manager: cpuset.mems over two nodes, memory.max, memory.min and hugetlb max, accepted by the kernel" {
	local hp=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
	echo 4 >"$hp"
	[ "$(cat "$hp")" -eq 4 ] || fail "node 0 would not take 4 huge pages"
	# node 0 has less than 1200M of its 1G: the Memory Manager extends it to two nodes, with
	# prefer-closest-numa-nodes the closest pair: node 2, its nearest (memory only)
	run -0 rm-cpuset alloc --count 2 --owner mm --numa-node 0 --policy best-effort \
		--topology-manager-option prefer-closest-numa-nodes \
		--memory 1200M --hugepages 2M:2 -o owner,cpus,mems,memory,hugepages
	echo 0 >"$hp"
	assert_output "owner=mm cpus=0-1 mems=0,2 memory=1200MiB hugepages=2MiB:0:2"
	assert_equal "$(cat $CG/mm/cpuset.mems.effective)" 0,2
	assert_equal "$(cat $CG/mm/memory.max)" 1258291200
	assert_equal "$(cat $CG/mm/memory.min)" 1258291200
	assert_equal "$(cat $CG/mm/hugetlb.2MB.max)" 4194304
	# a process there may use both nodes
	run -0 rm-cpuset run --owner mm -- cat /proc/self/status
	assert_line --regexp '^Mems_allowed_list:[[:space:]]+0,2$'
	# a second owner that would overcommit the nodes is refused: 4G is all of them
	run -3 rm-cpuset alloc --count 2 --owner mm2 --memory 3G --policy best-effort
	run -0 rm-cpuset release mm
	[ ! -e $CG/mm ]
}

@test "show --memory: an owner's memory per node from its memory.numa_stat, as its processes' numa_maps" {
	local n1
	run -0 rm-cpuset alloc --count 2 --owner shm --numa-node 1 --memory 256M -o mems
	assert_output mems=1
	rm -f /tmp/shm-ready
	rm-cpuset run --owner shm -- bash -c 'x=$(head -c 4000000 /dev/zero | tr "\0" a); touch /tmp/shm-ready; sleep 60; : "${#x}"' &
	# under TCG, with another guest beside, the string takes its time: 60 s at most
	for _ in $(seq 300); do [ -e /tmp/shm-ready ] && break; sleep 0.2; done
	[ -e /tmp/shm-ready ] || fail "the process did not fill its memory in 60 s"
	run -0 rm-cpuset show --memory -o owner,node,allowed,source
	assert_line 'owner=shm node=1 allowed=yes source=numa_stat'
	# the kernel's anon bytes on node 1 against the anonymous pages the processes map there
	run -0 rm-cpuset show --memory --bytes -o owner,node,anon
	n1=$(printf '%s\n' "$output" | sed -n 's/^owner=shm node=1 anon=//p')
	# other nodes may hold some of its kernel memory (the cgroup's own, made on node 0), not
	# anonymous memory
	refute_line --regexp '^owner=shm node=[02-9] anon=[1-9]'
	maps=$(for p in $(cat $CG/shm/cgroup.procs); do grep -v ' file=' /proc/$p/numa_maps; done |
		grep -o ' N1=[0-9]*' | awk -F= '{ s += $2 } END { print s * 4096 }')
	[ "$n1" -ge 4000000 ] || fail "node 1 anon $n1 is less than the 4 MB the process holds"
	[ $((n1 > maps ? n1 - maps : maps - n1)) -le 2097152 ] ||
		fail "memory.numa_stat says $n1 bytes on node 1, numa_maps $maps"
	kill $(cat $CG/shm/cgroup.procs) 2>/dev/null || true
}

# The cpus of owner $1 in Cpus_allowed_list of PID $2 and its cgroup's effective CPUs.
follows() {
	assert_equal "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$2/status)" "$3"
	assert_equal "$(cat $CG/$1/cpuset.cpus.effective)" "$3"
	run -0 grep -x "$2" $CG/$1/cgroup.procs
}

@test "resize: a running process stays, its Cpus_allowed_list follows; the partition stays valid; promotion and back" {
	reserve_for_root_partitions
	run -0 rm-cpuset alloc --count 2 --owner rs --isolate --numa-node 1 -o cpus
	c1=$(field cpus)
	sleep 600 3>&- &
	pid=$!
	run -0 rm-cpuset attach rs "$pid"
	follows rs "$pid" "$c1"
	# growth: the CPUs held stay, the partition is valid with the new ones, the shared pool
	# and its owner lose them
	run -0 rm-cpuset alloc --shared --owner bg
	run -0 rm-cpuset resize --owner rs --count 4 -o cpus,isolate
	c2=$(field cpus)
	assert_equal "$(field isolate)" yes
	assert_equal "$(overlap "$c1" "$c2")" "$(expand_list "$c1")"
	follows rs "$pid" "$c2"
	assert_equal "$(cat $CG/rs/cpuset.cpus.partition)" isolated
	assert_equal "$(overlap "$(cat $CG/shared/cpuset.cpus)" "$c2")" ""
	assert_equal "$(cat $CG/bg/cpuset.cpus)" "$(cat $CG/shared/cpuset.cpus)"
	# every IRQ the kernel lets move left the CPUs added (quieting follows the partition)
	unmovable=" $(sed -n 's/^unmovable=\([0-9]*\).*/\1/p' "$RM_STATE_DIR/quiet.state" 2>/dev/null | tr '\n' ' ') "
	for f in /proc/irq/*/smp_affinity_list; do
		n=${f#/proc/irq/}; n=${n%%/*}
		[[ $unmovable == *" $n "* ]] && continue
		[ -z "$(overlap "$(cat "$f")" "$c2")" ] || fail "IRQ $n has $(cat "$f"), the owner $c2"
	done
	# a shrink keeps the CPUs first given, and refuses to go below them
	run -2 rm-cpuset resize --owner rs --count 1
	run -0 rm-cpuset resize --owner rs --count 2
	follows rs "$pid" "$c1"
	assert_equal "$(cat $CG/rs/cpuset.cpus.partition)" isolated
	# to the shared pool and back, the process still in its cgroup
	run rm-cpuset resize --owner rs --shared
	if root_partitions && [ "$status" -eq 1 ]; then
		# before 6.7 the kernel refuses to empty the populated root partition's CPUs
		# (ENOSPC): a clean failure, the owner as it was (rm-cpuset(1), resize)
		[[ $output == *"No space left on device; nothing was changed"* ]] || fail "$output"
		follows rs "$pid" "$c1"
		assert_equal "$(cat $CG/rs/cpuset.cpus.partition)" isolated
		kill "$pid"
		return
	fi
	[ "$status" -eq 0 ] || fail "resize --shared: exit $status: $output"
	# the process on the shared pool's CPUs, less those isolcpus= keeps from the scheduler
	shared=$(cat $CG/shared/cpuset.cpus.effective)
	# (-1 stands for no boot-isolated CPU: busybox's grep -v -f of an empty file prints nothing)
	{ echo -1; expand_list "$(cat /sys/devices/system/cpu/isolated)"; } >"$BATS_TEST_TMPDIR/boot"
	assert_equal "$(expand_list "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)")" \
		"$(expand_list "$shared" | grep -vxF -f "$BATS_TEST_TMPDIR/boot")"
	assert_equal "$(cat $CG/rs/cpuset.cpus.effective)" "$shared"
	run -0 grep -x "$pid" $CG/rs/cgroup.procs
	assert_equal "$(cat $CG/rs/cpuset.cpus.partition)" member
	run -0 rm-cpuset resize --owner rs --count 2 --numa-node 1 -o cpus
	follows rs "$pid" "$(field cpus)"
	kill "$pid"
}

@test "limit: a shared owner's memory.max and pids.max; run's command is in its cgroup and a fork beyond pids.max fails; release removes them" {
	run -0 rm-cpuset alloc --shared --owner lim --memory-max 64M --pids-max 3 -o memory_max,pids_max
	assert_output "memory_max=64MiB pids_max=3"
	assert_equal "$(cat $CG/lim/memory.max $CG/lim/pids.max | tr '\n' ' ')" "67108864 3 "
	run -0 rm-cpuset run --owner lim -- cat /proc/self/cgroup
	assert_output "0::/rmtools.slice/lim"
	# the shell and two children are 3: the third fork fails
	run rm-cpuset run --owner lim -- sh -c 'sleep 1 & sleep 1 & sleep 1 & wait'
	assert_output --regexp "fork"
	[ "$(sed -n 's/^max //p' $CG/lim/pids.events)" -ge 1 ]
	run -0 rm-cpuset limit --owner lim --pids-max max --memory-high 32M
	assert_equal "$(cat $CG/lim/pids.max $CG/lim/memory.high | tr '\n' ' ')" "max 33554432 "
	run -0 rm-cpuset release lim
	[ ! -e $CG/lim ]
}
