#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's cgroups: for real on this machine's v1 cpuset hierarchy, and on a FUSE fake of v2.
load ../test_helper
load ../cgroup_helper

V1=$V1_PARENT

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

teardown() {
	sleeps_cleanup
	[ -z "$V1_HELD" ] || rm-cpuset release --all >/dev/null 2>&1 || true
	v1_cpuset_cleanup
	fakes_cleanup
}

require_v1() {
	require_v1_cpuset
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
}

@test "v1: alloc makes the owner's and the shared pool's cgroups with their CPUs and nodes" {
	require_v1
	run -0 rm-cpuset alloc --count 1 --owner web
	cpu=$(field cpus) mems=$(field mems)
	assert_equal "$(field cgroup)" "$V1/web"
	run -0 cat "$V1/web/cpuset.cpus" "$V1/web/cpuset.mems"
	assert_output "$cpu"$'\n'"$mems"
	run -0 rm-cpuset show -o pool,cpus
	shared=$(printf '%s\n' "$output" | sed -n 's/^pool=shared cpus=//p')
	run -0 cat "$V1/shared/cpuset.cpus"
	assert_output "$shared"
	# the parent holds every CPU and node of the root
	assert_equal "$(cat "$V1/cpuset.cpus")" "$(cat /sys/fs/cgroup/cpuset/cpuset.cpus)"
	assert_equal "$(cat "$V1/cpuset.mems")" "$(cat /sys/fs/cgroup/cpuset/cpuset.mems)"
}

@test "v1: run places the command in the owner's cgroup, on its CPUs" {
	require_v1
	run -0 rm-cpuset alloc --count 1 --owner web
	cpu=$(field cpus)
	run -0 rm-cpuset run --owner web -- sh -c 'grep cpuset /proc/self/cgroup; grep Cpus_allowed_list /proc/self/status'
	assert_line --index 0 --regexp '^[0-9]+:cpuset:/rmtools/web$'
	assert_line --index 1 "Cpus_allowed_list:	$cpu"
	# a run with a count makes its own cgroup and removes it at the end
	run -0 rm-cpuset release web
	run -0 rm-cpuset run --count 1 --owner job -- sh -c 'grep cpuset /proc/self/cgroup'
	assert_output --regexp '^[0-9]+:cpuset:/rmtools/job$'
	[ ! -e "$V1/job" ]
	run -0 rm-cpuset list
	assert_output ''
}

@test "v1: release moves the owner's processes to the shared pool" {
	require_v1
	run -0 rm-cpuset alloc --count 1 --owner web
	rm-cpuset run --owner web -- sleep 60 3>&- 9>&- &
	SLEEPS+=($!)
	for _ in $(seq 50); do pid=$(cat "$V1/web/cgroup.procs"); [ -n "$pid" ] && break; sleep 0.1; done
	[ -n "$pid" ] || fail "the command never joined $V1/web"
	SLEEPS+=("$pid")
	run -0 rm-cpuset release web
	[ ! -e "$V1/web" ]
	run -0 grep -x "$pid" "$V1/shared/cgroup.procs"
	run -0 grep Cpus_allowed_list "/proc/$pid/status"
	assert_output "Cpus_allowed_list:	$(cat "$V1/shared/cpuset.cpus")"
	# while a process is in the shared pool's cgroup, release --all leaves it there
	run -0 rm-cpuset release --all
	[ -d "$V1/shared" ]
}

@test "v1: apply puts back what someone changed, and --dry-run says what it would do" {
	require_v1
	run -0 rm-cpuset alloc --count 1 --owner web
	cpu=$(field cpus)
	cat /sys/fs/cgroup/cpuset/cpuset.cpus >"$V1/web/cpuset.cpus"
	rmdir "$V1/shared"
	run -0 rm-cpuset apply --dry-run -o cgroup,action
	assert_output $'cgroup=web action=update\ncgroup=shared action=create'
	[ ! -e "$V1/shared" ]
	run -0 rm-cpuset apply -o cgroup,action
	assert_output $'cgroup=web action=update\ncgroup=shared action=create'
	run -0 cat "$V1/web/cpuset.cpus"
	assert_output "$cpu"
	mkdir "$V1/stray"
	run -0 rm-cpuset apply -o cgroup,action
	assert_output $'cgroup=web action=keep\ncgroup=shared action=keep\ncgroup=stray action=remove'
	[ ! -e "$V1/stray" ]
}

@test "v1: release --all removes the cgroups and the parent" {
	require_v1
	run -0 rm-cpuset alloc --count 1 --owner web
	[ -d "$V1/web" ]
	run -0 rm-cpuset release --all
	[ ! -e "$V1" ]
}

@test "v1: --isolate is refused on the v1 hierarchy, changing nothing" {
	require_v1
	run -2 --separate-stderr rm-cpuset alloc --count 1 --owner web --isolate
	[[ $stderr == *"--isolate needs cgroup v2 cpuset partitions"* ]]
	[ ! -e "$V1" ]
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

# ---- cgroup v2, on the fake: 16 CPUs in 2 nodes, as the synthetic topology below ----

T16="package:2 numa:1 core:4 pu:2"


@test "v2 (fake): alloc makes rmtools.slice with cpuset enabled, the owner's and the shared cgroups" {
	start_v2
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner web
	assert_output "owner=web cpus=0-3 mems=0 cores=0-1 nodes=0 cgroup=$P/web"
	run -0 cat "$R/cgroup.subtree_control" "$P/cgroup.subtree_control"
	assert_line --index 0 --partial cpuset
	assert_line --index 1 --partial cpuset
	run -0 cat "$P/web/cpuset.cpus" "$P/web/cpuset.mems" "$P/shared/cpuset.cpus" "$P/shared/cpuset.mems"
	assert_output $'0-3\n0\n4-15\n0-1'
	run -0 cat "$P/web/cpuset.cpus.partition"
	assert_output member
	run -0 rm-cpuset --topology "$T16" release web
	[ ! -e "$P/web" ]
	assert_equal "$(cat "$P/shared/cpuset.cpus")" 0-15
	run -0 rm-cpuset --topology "$T16" release --all
	[ ! -e "$P" ]
}

@test "v2 (fake): --isolate makes an isolated partition; release gives the CPUs back" {
	start_v2
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner rt --isolate -o +isolate
	assert_output --partial 'cpus=0-3 '
	assert_output --partial ' isolate=yes'
	run -0 cat "$P/rt/cpuset.cpus.partition" "$R/cpuset.cpus.isolated"
	assert_output $'isolated\n0-3'
	run -0 rm-cpuset --topology "$T16" apply --dry-run -o cgroup,action
	assert_output $'cgroup=rt action=keep\ncgroup=shared action=keep'
	run -0 rm-cpuset --topology "$T16" release rt
	run -0 cat "$R/cpuset.cpus.isolated"
	assert_output ''
}

@test "v2 (fake): a partition the kernel refuses fails the alloc, leaving state and tree as they were" {
	start_v2
	run -0 rm-cpuset --topology "$T16" alloc --count 2 --owner web
	# someone else's cgroup holds CPUs 4-7 exclusively
	mkdir "$R/other"
	echo 4-7 >"$R/other/cpuset.cpus.exclusive"
	dump_tree "$R" >"$BATS_TEST_TMPDIR/before"
	state=$(md5sum <"$RM_STATE_DIR/cpuset.state")
	run -1 --separate-stderr rm-cpuset --topology "$T16" alloc --count 4 --owner rt --isolate --from 4-15
	[[ $stderr == *"nothing was changed"* ]] || fail "$stderr"
	dump_tree "$R" >"$BATS_TEST_TMPDIR/after"
	run diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	assert_equal "$(md5sum <"$RM_STATE_DIR/cpuset.state")" "$state"
}

@test "v2 (fake): without partitions --isolate is refused with exit 2" {
	start_v2 --no-partitions
	run -2 --separate-stderr rm-cpuset --topology "$T16" alloc --count 2 --owner rt --isolate
	[[ $stderr =~ ^"rm-cpuset: --isolate needs cgroup v2 cpuset partitions (cpuset.cpus.partition with its \"isolated\" type, Linux 6.1 or later; this is Linux "[^\ ]+")"$ ]] ||
		fail "$stderr"
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

@test "v2 (fake): isolated owners side by side, released in any order; the shared cgroup never overlaps them" {
	start_v2
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner i1 --isolate
	run -0 rm-cpuset --topology "$T16" alloc --count 2 --owner web
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner i2 --isolate
	run -0 cat "$P/i1/cpuset.cpus.partition" "$P/i2/cpuset.cpus.partition" "$P/shared/cpuset.cpus" \
		"$R/cpuset.cpus.isolated"
	assert_output $'isolated\nisolated\n10-15\n0-3,6-9'
	run -0 rm-cpuset --topology "$T16" release i1
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner i3 --isolate
	run -0 cat "$P/i2/cpuset.cpus.partition" "$P/i3/cpuset.cpus.partition" "$R/cpuset.cpus.isolated"
	assert_output $'isolated\nisolated\n0-3,6-9'
	run -0 rm-cpuset --topology "$T16" release i2 web
	run -0 rm-cpuset --topology "$T16" release i3
	run -0 cat "$R/cpuset.cpus.isolated" "$R/cpuset.cpus.effective" "$P/cpuset.cpus.exclusive"
	assert_output $'\n0-15'
}

@test "v2 (fake, 6.1): --isolate needs reserved CPUs; the parent is a root partition while an owner is isolated" {
	start_v2 --no-exclusive
	run -0 rm-cpuset --topology "$T16" alloc --count 2 --owner web
	run -2 --separate-stderr rm-cpuset --topology "$T16" alloc --count 4 --owner rt --isolate
	[[ $stderr == *"reserve the CPUs the rest of the system keeps first (rm-cpuset reserve)" ]] || fail "$stderr"
	run -0 rm-cpuset --topology "$T16" list -o owner
	assert_output owner=web
	run -0 rm-cpuset --topology "$T16" reserve 14-15
	run -0 rm-cpuset --topology "$T16" alloc --count 4 --owner rt --isolate -o cpus
	assert_output cpus=2-5
	run -0 cat "$P/cpuset.cpus.partition" "$P/cpuset.cpus" "$P/rt/cpuset.cpus.partition" \
		"$P/rt/cpuset.cpus.effective" "$P/shared/cpuset.cpus" "$P/shared/cpuset.cpus.effective" \
		"$R/cpuset.cpus.effective"
	assert_output $'root\n0-13\nisolated\n2-5\n6-15\n6-13\n14-15'
	run -0 rm-cpuset --topology "$T16" apply --dry-run -o cgroup,action
	assert_output $'cgroup=web action=keep\ncgroup=rt action=keep\ncgroup=shared action=keep'
	run -0 rm-cpuset --topology "$T16" alloc --count 2 --owner rt2 --isolate
	run -0 rm-cpuset --topology "$T16" release rt
	assert_equal "$(cat "$P/rt2/cpuset.cpus.partition")" isolated
	run -0 rm-cpuset --topology "$T16" release rt2
	run -0 cat "$P/cpuset.cpus.partition" "$P/cpuset.cpus" "$R/cpuset.cpus.effective"
	assert_output $'member\n\n0-15'
}

@test "v2 (fake): no cpuset controller: a clear message, exit 1, nothing changed" {
	start_v2 --no-cpuset
	run -1 --separate-stderr rm-cpuset --topology "$T16" alloc --count 2 --owner web
	[[ $stderr == "rm-cpuset: no cpuset cgroup controller"*"--no-cgroups keeps allocations in the state only" ]] ||
		fail "$stderr"
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
	[ ! -e "$P" ]
	# reading still works, and --no-cgroups allocates in the state only
	run -0 rm-cpuset --topology "$T16" list
	run -0 rm-cpuset --topology "$T16" --no-cgroups alloc --count 2 --owner web
	assert_output --partial 'cgroup=-'
}

@test "v2 (fake): --add-mems puts a memory-only node in the owner's cpuset.mems; apply keeps it" {
	local s=$SNAPSHOTS/x86-2s-memory-tiers
	require_fuse
	start_fake "$BATS_TEST_TMPDIR/cg" --cpus 0-7 --mems 0-3
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	P=$RM_CGROUP_ROOT/rmtools.slice
	run -0 rm-cpuset --sysroot "$s" alloc --count 2 --owner web --numa-node 1 --add-mems 3
	assert_output "owner=web cpus=4-5 mems=1,3 cores=2 nodes=1 cgroup=$P/web"
	run -0 cat "$P/web/cpuset.mems"
	assert_output 1,3
	echo 1 >"$P/web/cpuset.mems"
	run -0 rm-cpuset --sysroot "$s" apply -o cgroup,action,mems
	assert_line "cgroup=web action=update mems=1,3"
	run -0 cat "$P/web/cpuset.mems"
	assert_output 1,3
	run -0 rm-cpuset --sysroot "$s" release --all
}

# numastat -p PID...'s Total row: the MB on each node, then the total.
numastat_totals() {
	numastat -p "$@" | awk '$1 == "Total" { $1 = ""; print substr($0, 2) }'
}

# The largest VmRSS, in KiB, of the processes of the cgroup DIR.
largest_rss() {
	local p
	for p in $(cat "$1/cgroup.procs"); do awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null; done |
		sort -n | tail -n 1
}

@test "v1: show --memory: an owner's memory per node, from its processes' numa_maps, equals numastat -p" {
	require_v1
	command -v numastat >/dev/null || fail "numastat is missing (apt-get install numactl)"
	local ours theirs
	run -0 rm-cpuset alloc --count 1 --owner mem
	# 48 MiB touched, then asleep: its memory does not change while both read it
	rm-cpuset run --owner mem -- python3 -c 'import time; b = b"\1" * (48 << 20); time.sleep(60)' 3>&- 9>&- &
	SLEEPS+=($!)
	for _ in $(seq 100); do [ "$(largest_rss "$V1/mem")" -gt 49152 ] && break; sleep 0.1; done
	SLEEPS+=($(cat "$V1/mem/cgroup.procs"))
	# the v1 memory hierarchy has no cgroup of the owner: its processes' numa_maps are read
	run -0 rm-cpuset show --memory -o owner,node,total,anon,kernel,allowed,source
	assert_output --regexp "^owner=mem node=0 total=[0-9.]+[KMG]iB anon=[0-9.]+[KMG]iB kernel=- allowed=yes source=numa_maps$"
	run -0 rm-cpuset show --memory --json
	ours=$(jq -r '[.memory[] | select(.owner == "mem") | .total / 1048576] | (. + [add]) | map(tostring) | join(" ")' <<<"$output")
	theirs=$(numastat_totals $(cat "$V1/mem/cgroup.procs"))
	# the same MB per node as numastat over the same processes, to its 0.01 MB (it rounds),
	# and at least the 48 MiB touched
	run -0 awk -v a="$ours" -v b="$theirs" 'BEGIN {
		n = split(a, x, " "); if (n != split(b, y, " ")) exit 1
		for (i = 1; i <= n; i++) if (x[i] - y[i] > 0.0051 || y[i] - x[i] > 0.0051) exit 1 }'
	jq -e '[.memory[] | select(.owner == "mem") | .anon] | add >= 50331648' <<<"$output"
}
