#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's cgroups for real on this machine's v1 cpuset hierarchy (root only).
load ../test_helper

V1=/sys/fs/cgroup/cpuset/rmtools

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	SLEEPS=()
}

teardown() {
	local p d
	for p in "${SLEEPS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ "$(id -u)" -eq 0 ] || return 0
	rm-cpuset release --all >/dev/null 2>&1 || true
	# whatever a failed test left: processes back to the root, then the directories
	if [ -d "$V1" ]; then
		for d in "$V1"/*/ "$V1"/; do
			[ -f "$d/cgroup.procs" ] || continue
			while read -r p; do
				echo "$p" >/sys/fs/cgroup/cpuset/cgroup.procs 2>/dev/null || true
			done <"$d/cgroup.procs"
		done
		for d in "$V1"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null || true; done
		rmdir "$V1" 2>/dev/null || true
	fi
}

require_v1() {
	require_root
	[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] || skip "no v1 cpuset hierarchy here"
	grep -qw cpuset /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null &&
		skip "the unified hierarchy holds cpuset here"
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	[ ! -e "$V1" ] || skip "$V1 exists already: not ours to change"
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
	rm-cpuset run --owner web -- sleep 60 &
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
